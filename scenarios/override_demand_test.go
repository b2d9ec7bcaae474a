package scenarios_test

import (
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/scenarios"
)

// TestOverrideDemandSwitch: an override that sets a new demand mode over
// the file's is refused at the override, not at the file's line, and the
// error says what to clear; clearing it switches the mode.
func TestOverrideDemandSwitch(t *testing.T) {
	src := strings.Replace(quiet, `demand = { rate = 10, unit = "requests/min" }`, `demand = { hourly = [10, 20], unit = "requests/min" }`, 1) + `
[[variant]]
name = "flat"
set = { "workload.bot.demand.users" = 50 }
`
	if _, err := scenarios.LoadBytes([]byte(src), "w.toml"); err == nil || !strings.Contains(err.Error(),
		`w.toml:16: variant "flat" sets workload.bot.demand.users: cannot be combined with hourly`) ||
		!strings.HasSuffix(err.Error(), `so the file's hourly stays: to switch modes, clear it in the same place ("workload.bot.demand.hourly" = [])`) {
		t.Errorf("variant: %v", err)
	}
	sc, err := scenarios.LoadBytes([]byte(src[:strings.Index(src, "[[variant]]")]), "w.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sets []scenarios.Override
		want string // "" for no error
	}{
		{[]scenarios.Override{{Path: "workload.bot.demand.rate", Value: int64(5)}},
			`w.toml: --set workload.bot.demand.rate: workload "bot".demand.hourly: cannot be combined with rate; set exactly one of rate, hourly, curve, users, count, trace (got rate, hourly); an override updates the demand table, so the file's hourly stays: to switch modes, clear it in the same place (--set workload.bot.demand.hourly=[])`},
		{[]scenarios.Override{{Path: "workload.bot.demand", Value: map[string]any{"rate": int64(5)}}},
			`(hourly = [] in the table)`},
		{[]scenarios.Override{{Path: "workload.bot.demand.hourly", Value: []any{}}, {Path: "workload.bot.demand.rate", Value: int64(5)}}, ""},
		{[]scenarios.Override{{Path: "workload.bot.demand", Value: map[string]any{"rate": int64(5), "hourly": []any{}}}}, ""},
	} {
		_, err := sc.Config(c.sets)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.HasSuffix(err.Error(), c.want)) {
			t.Errorf("%v: %v\nwant %q", c.sets, err, c.want)
		}
	}
}
