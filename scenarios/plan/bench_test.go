package plan

import (
	"context"
	"runtime"
	"testing"

	"github.com/headroom-sim/headroom/scenarios"
)

// BenchmarkPlanFleet70B is the performance target of headroom plan: a
// min_cost plan over replicas 1..64 for three GPU types (the fleet-70b
// example with tensor parallelism fixed at 4) on a full day of hourly
// demand, 5 replications per candidate and a re-check of the winner at
// 20. It reports the simulations used against an exhaustive search's.
func BenchmarkPlanFleet70B(b *testing.B) {
	sc, err := scenarios.LoadExample("fleet-70b")
	if err != nil {
		b.Fatal(err)
	}
	sets := []scenarios.Override{{Path: "plan.objective", Value: "min_cost"}, {Path: "plan.knob[1].values", Value: []any{int64(4)}}}
	pr, err := Compile(sc, sets)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		d, err := Run(context.Background(), pr, Options{Workers: runtime.GOMAXPROCS(0)})
		if err != nil || d.Winner == nil {
			b.Fatalf("%v %v", err, d.Winner)
		}
		b.ReportMetric(float64(d.Search.Simulations), "simulations")
		b.ReportMetric(float64(d.Search.Exhaustive), "exhaustive")
		b.ReportMetric(float64(d.Search.Evaluated), "candidates")
	}
}

// BenchmarkPlanMaxLoad: max_load of an M/M/c queue (c = 4 at 2.8
// arrivals/s, mean wait ≤ 0.5 s, 12 h, 4 replications) to 1%; it reports
// the evaluations the search needed.
func BenchmarkPlanMaxLoad(b *testing.B) {
	src := mmcPlan(2.8, 4, 12, `[plan]
objective = "max_load"
window = "none"
replications = 4

[[plan.target]]
metric = "queue_wait"
mean = true
max = "0.5s"
`)
	sc, err := scenarios.LoadBytes([]byte(src), "mmc.toml")
	if err != nil {
		b.Fatal(err)
	}
	pr, err := Compile(sc, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		d, err := Run(context.Background(), pr, Options{Workers: runtime.GOMAXPROCS(0)})
		if err != nil || d.Growth == nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(d.Growth.Evaluations), "evaluations")
		b.ReportMetric(d.Growth.Upper/d.Growth.Factor-1, "bracket")
	}
}
