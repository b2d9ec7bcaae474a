package model_test

import (
	"testing"

	"github.com/headroom-sim/headroom/model"
)

// BenchmarkClusterHour simulates one hour of the cluster-day fixture:
// 360,000 requests of 500 output tokens on 8 H100 replicas with paged KV
// and prefix caching; it reports the cost per simulated request and per
// engine iteration.
func BenchmarkClusterHour(b *testing.B) {
	cfg := fixtureConfig(b, "../testdata/perf/cluster-day.toml", "1h")
	var steps float64
	reqs := runBenchmark(b, cfg, func(r *model.Results) { steps += float64(r.Backends[0].Cluster.Steps) })
	ns := float64(b.Elapsed().Nanoseconds())
	b.ReportMetric(ns/reqs, "ns/request")
	b.ReportMetric(ns/steps, "ns/iteration")
	b.ReportMetric(reqs/b.Elapsed().Seconds(), "requests/s")
}
