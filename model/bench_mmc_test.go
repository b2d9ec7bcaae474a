package model

import "testing"

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
// default.
func BenchmarkMM8(b *testing.B) {
	const (
		lambda = 7.2
		mu     = 1.0
		c      = 8
		secs   = 1e6 / lambda // 1M customers
	)
	b.ReportAllocs()
	var customers int64
	for i := 0; b.Loop(); i++ {
		r := mustRun(b, mmcConfig(lambda, mu, c, secs, uint64(i)+1))
		customers += r.Summary.Requests.Completed
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(customers), "ns/customer")
}
