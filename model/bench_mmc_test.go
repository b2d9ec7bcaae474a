package model

import (
	"syscall"
	"testing"
	"time"
)

// BenchmarkMMc runs the M/M/c queue of mmcConfig (lambda 2.8/s, mu 1/s,
// c = 4, the parameters of testdata/perf/mmc.toml) for about a million
// customers per iteration: Build plus Run, results included. It reports the
// wall time per customer served and the allocations per iteration;
// scripts/compare-simpy.sh compares the same model end to end against SimPy.
func BenchmarkMMc(b *testing.B) {
	const (
		lambda = 2.8
		mu     = 1.0
		c      = 4
		hours  = 100 // 2.8/s * 360,000 s = 1.008M customers
	)
	b.ReportAllocs()
	var customers int64
	for i := 0; b.Loop(); i++ {
		r := mustRun(b, mmcConfig(lambda, mu, c, hours*3600, uint64(i)+1))
		customers += r.Summary.Requests.Completed
	}
	if customers == 0 {
		b.Fatal("no customer completed")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(customers), "ns/customer")
	b.ReportMetric(float64(customers)/float64(b.N), "customers/op")
}

// BenchmarkMM8 is the M/M/8 queue at rho 0.9 (lambda 7.2/s, mu 1/s) for
// about a million customers, the model scripts/compare-simpy.sh runs by
// default. Besides the wall time per customer it reports the process's
// CPU time per customer (cpu-ns/customer), which other work on a shared
// machine does not inflate, and the events per customer.
func BenchmarkMM8(b *testing.B) {
	const (
		lambda = 7.2
		mu     = 1.0
		c      = 8
		secs   = 1e6 / lambda // 1M customers
	)
	b.ReportAllocs()
	var customers int64
	var events float64
	cpu0 := processCPU()
	for i := 0; b.Loop(); i++ {
		r := mustRun(b, mmcConfig(lambda, mu, c, secs, uint64(i)+1))
		customers += r.Summary.Requests.Completed
		events += float64(r.Events)
	}
	cpu := float64((processCPU() - cpu0).Nanoseconds())
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(customers), "ns/customer")
	b.ReportMetric(cpu/float64(customers), "cpu-ns/customer")
	b.ReportMetric(events/float64(customers), "events/customer")
}

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
