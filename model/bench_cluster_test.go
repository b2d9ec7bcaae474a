package model_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/headroom-sim/headroom/model"
)

// BenchmarkClusterHour simulates one hour of the cluster-day fixture:
// 360,000 requests of 500 output tokens on 8 H100 replicas with paged KV
// and prefix caching; it reports the cost per simulated request and per
// engine iteration, in wall time and in the process's CPU time (which
// other work on a shared machine does not inflate), and the events and
// iterations per request.
func BenchmarkClusterHour(b *testing.B) {
	cfg := fixtureConfig(b, "../testdata/perf/cluster-day.toml", "1h")
	var steps, events float64
	cpu0 := cpuTime()
	reqs := runBenchmark(b, cfg, func(r *model.Results) {
		steps += float64(r.Backends[0].Cluster.Steps)
		events += float64(r.Events)
	})
	cpu := float64((cpuTime() - cpu0).Nanoseconds())
	ns := float64(b.Elapsed().Nanoseconds())
	b.ReportMetric(ns/reqs, "ns/request")
	b.ReportMetric(cpu/reqs, "cpu-ns/request")
	b.ReportMetric(ns/steps, "ns/iteration")
	b.ReportMetric(steps/reqs, "iterations/request")
	b.ReportMetric(events/reqs, "events/request")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
