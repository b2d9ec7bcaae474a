package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
)

// TestGatewayRowsNothingUsed: a tenant that used no units shows n/a for
// reserved / used, not 0.00×.
func TestGatewayRowsNothingUsed(t *testing.T) {
	r := &model.Results{Scenario: "gw", DurationS: 60, IntervalS: 60, StartClock: "00:00",
		Gateway: &model.GatewayResult{Tenants: []model.GatewayScopeResult{
			{Name: "idle", Attempts: 10, Rejected: map[string]int64{"gw_units": 10}},
			{Name: "busy", Attempts: 10, Admitted: 10, ReservationToActual: 1.5}}}}
	var b bytes.Buffer
	if err := WriteTerminal(&b, NewDocument("test", ScenarioInfo{Name: "gw"}, []*model.Results{r})); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.Contains(line, "reserved / used units") {
			got = append(got, strings.Fields(line)[len(strings.Fields(line))-1])
		}
	}
	if strings.Join(got, " ") != "n/a 1.50×" {
		t.Errorf("reserved / used cells %q, want [n/a 1.50×]:\n%s", got, b.String())
	}
}
