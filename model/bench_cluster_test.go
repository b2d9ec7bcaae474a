package model_test

import (
	"context"
	"os"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/scenarios"
)

// BenchmarkClusterHour simulates one hour of the cluster-day fixture:
// 360,000 requests of 500 output tokens on 8 H100 replicas with paged KV
// and prefix caching; it reports the cost per simulated request and per
// engine iteration.
func BenchmarkClusterHour(b *testing.B) {
	f, err := os.Open("../testdata/perf/cluster-day.toml")
	if err != nil {
		b.Fatal(err)
	}
	sc, err := scenarios.Load(f, "cluster-day.toml")
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := sc.Config([]scenarios.Override{{Path: "duration", Value: "1h"}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var reqs, steps float64
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
		steps += float64(r.Backends[0].Cluster.Steps)
	}
	ns := float64(b.Elapsed().Nanoseconds())
	b.ReportMetric(ns/reqs, "ns/request")
	b.ReportMetric(ns/steps, "ns/iteration")
	b.ReportMetric(reqs/b.Elapsed().Seconds(), "requests/s")
}
