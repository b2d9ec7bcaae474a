package report_test

import (
	"context"
	"fmt"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/workloads"
)

// Verdict says in words what a run's results mean: here 5 requests a
// second (300 a minute) offered for 10 minutes to an API tier that allows
// 240 requests a minute, by clients that do not retry.
func ExampleVerdict() {
	cfg := model.Config{Name: "example", Seed: 1, Duration: 600, Interval: 60,
		Workloads: []model.WorkloadSpec{{Name: "chat", Route: "api",
			Demand: workloads.DemandSpec{Unit: workloads.UnitPerSecond, Rate: 5, Arrivals: workloads.ArrivalSpec{Kind: "constant"}},
			Tokens: workloads.TokenSpec{Input: workloads.Dist{Kind: workloads.KindFixed, Value: 1000},
				Output: workloads.Dist{Kind: workloads.KindFixed, Value: 100}},
			Client: model.ClientSpec{Retry: model.RetrySpec{Preset: "none"}}}},
		Providers: []model.ProviderSpec{{Name: "api", Limits: model.LimitsSpec{RPM: 240},
			Latency: model.LatencySpec{TTFT: model.TTFTSpec{Base: 0.3, Dist: "fixed"}, TPOT: model.TPOTSpec{Mean: 0.02, Dist: "fixed"}}}},
	}
	sim, err := model.Build(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := sim.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range report.Verdict(r) {
		fmt.Println(line)
	}
	// Output:
	// 2,630 of 3,000 requests completed (87.7%), 361 failed (12.0%: rpm 361), 9 still in flight at the end.
	// api RPM limit 240 binds: 361 attempts refused (429), first at 00:03:59, most in the interval from 00:04; peak use 125% of the limit (the bucket's burst let through more than a minute's worth); offered demand peaks at 1.2× the limit in the interval from 00:00.
	// TTFT p50 300ms, p95 300ms; queue wait p95 0.
}
