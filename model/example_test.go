package model_test

import (
	"context"
	"fmt"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/workloads"
)

// A configuration built in Go rather than read from TOML: 5 requests a
// second, evenly spaced, for 10 minutes, to a hosted API without limits
// whose answers take a fixed 0.3 s to the first token and 20 ms per
// further token. Each request's 100 output tokens then take 0.3 + 99 ×
// 0.02 = 2.28 s, every request completes but those still in flight at the
// end, and by Little's law about 5 × 2.28 = 11.4 are in flight at once.
func ExampleBuild() {
	cfg := model.Config{Name: "example", Seed: 1, Duration: 600, Interval: 60,
		Workloads: []model.WorkloadSpec{{Name: "chat", Route: "api",
			Demand: workloads.DemandSpec{Unit: workloads.UnitPerSecond, Rate: 5, Arrivals: workloads.ArrivalSpec{Kind: "constant"}},
			Tokens: workloads.TokenSpec{Input: workloads.Dist{Kind: workloads.KindFixed, Value: 1000},
				Output: workloads.Dist{Kind: workloads.KindFixed, Value: 100}}}},
		Providers: []model.ProviderSpec{{Name: "api", Latency: model.LatencySpec{
			TTFT: model.TTFTSpec{Base: 0.3, Dist: "fixed"}, TPOT: model.TPOTSpec{Mean: 0.02, Dist: "fixed"}}}},
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
	q := r.Summary.Requests
	fmt.Printf("offered %d, completed %d, in flight at the end %d\n", q.Offered, q.Completed, q.InFlightAtEnd)
	fmt.Printf("E2E p50 %.2f s\n", r.Summary.Latency.E2E.P50)
	// Output:
	// offered 3000, completed 2989, in flight at the end 11
	// E2E p50 2.28 s
}
