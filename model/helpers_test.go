package model

import (
	"context"
	"testing"

	"github.com/headroom-sim/headroom/workloads"
)

// mmcConfig is an M/M/c queue: Poisson arrivals at lambda per second, a
// client semaphore of c, exponential service with mean 1/mu, no limits.
func mmcConfig(lambda, mu float64, c int, duration float64, seed uint64) Config {
	return Config{
		Name: "mmc", Seed: seed, Duration: duration, Interval: duration / 10,
		Workloads: []WorkloadSpec{{
			Name: "jobs", Route: "server",
			Demand: workloads.DemandSpec{Unit: "requests/s", Rate: lambda},
			Tokens: workloads.TokenSpec{Input: workloads.Fixed(1), Output: workloads.Fixed(1)},
			Client: ClientSpec{MaxConcurrency: c, Retry: RetrySpec{Preset: "none"}},
		}},
		Providers: []ProviderSpec{{
			Name:    "server",
			Latency: LatencySpec{TTFT: TTFTSpec{Base: workloads.Duration(1 / mu), Dist: "exponential"}},
		}},
	}
}

func mustRun(t testing.TB, c Config) *Results {
	t.Helper()
	s, err := Build(c)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	r, err := s.Run(context.Background())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return r
}
