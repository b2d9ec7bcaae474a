package model_test

import (
	"context"
	"os"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/scenarios"
)

// fixtureConfig loads a scenario fixture with its horizon cut to duration.
func fixtureConfig(tb testing.TB, path, duration string) model.Config {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc, err := scenarios.Load(f, path)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := sc.Config([]scenarios.Override{{Path: "duration", Value: duration}})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// hostedConfig loads the hosted-day performance fixture.
func hostedConfig(tb testing.TB, duration string) model.Config {
	return fixtureConfig(tb, "../testdata/perf/hosted-day.toml", duration)
}

// runBenchmark builds and runs cfg b.N times, handing each result to
// each, and returns the requests offered in all.
func runBenchmark(b *testing.B, cfg model.Config, each func(*model.Results)) float64 {
	b.ReportAllocs()
	var reqs float64
	for i := 0; i < b.N; i++ {
		s, err := model.Build(cfg)
		if err != nil {
			b.Fatal(err)
		}
		r, err := s.Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		reqs += float64(r.Summary.Requests.Offered)
		each(r)
	}
	return reqs
}

// BenchmarkHostedHour simulates one hour at 100 requests/s (360,000
// requests) through client, limiter, cache and latency model, and reports
// the cost per simulated request, in wall time and in the process's CPU
// time.
func BenchmarkHostedHour(b *testing.B) {
	cfg := hostedConfig(b, "1h")
	var events float64
	cpu0 := cpuTime()
	reqs := runBenchmark(b, cfg, func(r *model.Results) { events += float64(r.Events) })
	cpu := float64((cpuTime() - cpu0).Nanoseconds())
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/reqs, "ns/request")
	b.ReportMetric(cpu/reqs, "cpu-ns/request")
	b.ReportMetric(events/reqs, "events/request")
}

// TestHostedPathAllocations: after warm-up the hosted path allocates
// nothing per request; what a run allocates is bounded by its intervals
// and its peak in flight, not by the number of requests. A 6-hour run
// (2.16M requests) may allocate only a little more than a 1-hour run.
func TestHostedPathAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("several seconds")
	}
	allocs := func(d string) float64 {
		cfg := hostedConfig(t, d)
		return testing.AllocsPerRun(1, func() {
			s, err := model.Build(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	}
	short, long := allocs("1h"), allocs("6h")
	// 5 more hours add 1.8M requests; allow 0.01 allocations per request
	// (interval sketches, series, slot growth), i.e. effectively none.
	if extra := long - short; extra > 0.01*1.8e6 {
		t.Fatalf("1h run: %.0f allocations, 6h run: %.0f; %.3f per extra request", short, long, extra/1.8e6)
	}
	t.Logf("allocations: 1h %.0f, 6h %.0f", short, long)
}

// BenchmarkHybridDay is seed 002's hybrid example for a whole day: a
// gateway with a response cache, two model tiers, an overflow route from
// two L40S replicas to a hosted API. ns/op is the whole day.
func BenchmarkHybridDay(b *testing.B) {
	sc, err := scenarios.LoadExample("hybrid")
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := sc.Config(nil)
	if err != nil {
		b.Fatal(err)
	}
	reqs := runBenchmark(b, cfg, func(*model.Results) {})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/reqs, "ns/request")
}
