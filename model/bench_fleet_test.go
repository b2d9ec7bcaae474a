package model_test

import (
	"testing"

	"github.com/headroom-sim/headroom/model"
)

// BenchmarkClusterHourFleet is BenchmarkClusterHour with the fleet on:
// prefix-aware routing and an autoscaler on running sequences (4 to 16
// replicas, 3 minutes to start one), on the same demand. Like
// BenchmarkClusterHour it reports the process's CPU time per request too.
func BenchmarkClusterHourFleet(b *testing.B) {
	cfg := fixtureConfig(b, "../testdata/perf/cluster-day-fleet.toml", "1h")
	var steps float64
	cpu0 := cpuTime()
	reqs := runBenchmark(b, cfg, func(r *model.Results) { steps += float64(r.Backends[0].Cluster.Steps) })
	cpu := float64((cpuTime() - cpu0).Nanoseconds())
	ns := float64(b.Elapsed().Nanoseconds())
	b.ReportMetric(ns/reqs, "ns/request")
	b.ReportMetric(cpu/reqs, "cpu-ns/request")
	b.ReportMetric(ns/steps, "ns/iteration")
	b.ReportMetric(reqs/b.Elapsed().Seconds(), "requests/s")
}
