package main

import (
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/scenarios/plan"
)

// TestPlanStopsAtWorkBound: the estimate assumes the growth search's mean
// factor; a scenario with room to grow many times over searches further,
// so under a bound just above its estimate the plan passes the check,
// then stops at the bound, saying how far it got and what to reduce.
func TestPlanStopsAtWorkBound(t *testing.T) {
	pl := strings.SplitN(staffingPlan, "[[plan.knob]]", 2)[0]
	pl = strings.Replace(pl, `objective = ["min_cost", "max_load"]`, `objective = "max_load"`, 1)
	pl = strings.Replace(pl, "recheck = 4\n", "", 1)
	src := strings.Replace(mmcScenario(0.05, 2, pl), "max_concurrency = 1,", "max_concurrency = 50,", 1)
	file := writeScenario(t, src)
	sc, err := loadScenario(file)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := plan.Compile(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	est := pr.Estimate(plan.Options{Workers: 1})
	var out, errb strings.Builder
	err = planCommand([]string{file, "--workers", "1"}, &out, &errb, workBounds{events: est.Events * 1.01, bytes: maxBytes})
	t.Logf("estimate %v events; %v; %s", est.Events, err, out.String())
	if err == nil || !strings.Contains(err.Error(), "stopped after") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("under a bound just above the estimate: %v", err)
	}
}
