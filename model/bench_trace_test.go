package model_test

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/workloads"
)

// traceBenchRows is the size of the benchmark traces: HEADROOM_TRACE_ROWS,
// default 10 million.
func traceBenchRows(b *testing.B) int {
	n := 10_000_000
	if v := os.Getenv("HEADROOM_TRACE_ROWS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("HEADROOM_TRACE_ROWS=%q: want a count", v)
		}
	}
	return n
}

// benchRate is the benchmark traffic, requests per second.
const benchRate = 100.0

// writeBenchTrace writes n Poisson arrivals at benchRate with lognormal
// tokens (median 1,000 in, 200 out) as a CSV trace in Azure's format, in a
// temporary directory, or at HEADROOM_TRACE_FILE (kept, and reused when it
// exists, to time several runs without writing it each time).
func writeBenchTrace(b *testing.B, n int) string {
	b.Helper()
	p := filepath.Join(b.TempDir(), "bench.csv")
	if keep := os.Getenv("HEADROOM_TRACE_FILE"); keep != "" {
		if _, err := os.Stat(keep); err == nil {
			return keep
		}
		p = keep
	}
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("TIMESTAMP,ContextTokens,GeneratedTokens\n")
	r := rand.New(rand.NewPCG(1, 2))
	t := 0.0
	var line []byte
	for i := 0; i < n; i++ {
		t += r.ExpFloat64() / benchRate
		sec := int64(t)
		ns := int64((t - float64(sec)) * 1e9)
		in := int(math.Round(1000 * math.Exp(0.8*r.NormFloat64())))
		out := int(math.Round(200 * math.Exp(0.8*r.NormFloat64())))
		line = line[:0]
		day, rem := sec/86400, sec%86400
		line = fmt.Appendf(line, "2024-05-%02d %02d:%02d:%02d.%07d,%d,%d\n", 10+day, rem/3600, rem/60%60, rem%60, ns/100, max(in, 1), max(out, 1))
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return p
}

// benchWorkloadConfig is the hosted API both benchmarks use (no limits,
// fixed latencies: the cheapest backend, so the cost of reading the trace
// shows most).
func benchWorkloadConfig(w model.WorkloadSpec, duration float64) model.Config {
	return model.Config{Name: "bench", Seed: 1, Duration: duration, Interval: 3600,
		Workloads: []model.WorkloadSpec{w},
		Providers: []model.ProviderSpec{{Name: "api", Latency: model.LatencySpec{
			TTFT: model.TTFTSpec{Base: 0.3, PerInputToken: 0.0001}, TPOT: model.TPOTSpec{Mean: 0.02}}}}}
}

// peakRSS is the process's peak resident memory in MB (Linux), or NaN.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return math.NaN()
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(l, []byte("VmHWM:")); ok {
			kb, _ := strconv.ParseFloat(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))), 64)
			return kb / 1024
		}
	}
	return math.NaN()
}

// BenchmarkTraceReplay replays a trace of HEADROOM_TRACE_ROWS rows (10M by
// default, about 390 MB of Azure-format CSV at 100 requests/s) against a
// hosted API, and reports the cost per request and the peak resident
// memory. Run it alone so that the peak is its own (HEADROOM_TRACE_ROWS
// must match a kept HEADROOM_TRACE_FILE):
//
//	go test -run '^$' -bench '^BenchmarkTraceReplay$' -benchmem -benchtime 1x ./model/
func BenchmarkTraceReplay(b *testing.B) {
	n := traceBenchRows(b)
	path := writeBenchTrace(b, n)
	duration := float64(n)/benchRate + 600
	cfg := benchWorkloadConfig(model.WorkloadSpec{Name: "replay", Route: "api",
		Demand: workloads.DemandSpec{Trace: &workloads.TraceSpec{File: path, Format: workloads.FormatAzure}},
		Tokens: workloads.TokenSpec{MaxTokens: 1 << 20}}, duration)
	b.ResetTimer()
	reqs := runBenchmark(b, cfg, func(r *model.Results) {
		if r.Summary.Requests.Offered != int64(n) {
			b.Fatalf("offered %d of %d", r.Summary.Requests.Offered, n)
		}
	})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/reqs, "ns/request")
	b.ReportMetric(peakRSS(), "peak-RSS-MB")
}

// BenchmarkTraceSynthetic is BenchmarkTraceReplay's synthetic equivalent:
// the same number of requests at the same rate with the same token
// distributions, drawn rather than read.
//
//	go test -run '^$' -bench '^BenchmarkTraceSynthetic$' -benchmem -benchtime 1x ./model/
func BenchmarkTraceSynthetic(b *testing.B) {
	n := traceBenchRows(b)
	cfg := benchWorkloadConfig(model.WorkloadSpec{Name: "synthetic", Route: "api",
		Demand: workloads.DemandSpec{Unit: workloads.UnitPerSecond, Rate: benchRate},
		Tokens: workloads.TokenSpec{Input: workloads.Dist{Kind: workloads.KindLogNormal, Median: 1000, P95: 1000 * math.Exp(0.8*1.6448536269514722)},
			Output: workloads.Dist{Kind: workloads.KindLogNormal, Median: 200, P95: 200 * math.Exp(0.8*1.6448536269514722)}, MaxTokens: 1 << 20}},
		float64(n)/benchRate)
	b.ResetTimer()
	reqs := runBenchmark(b, cfg, func(*model.Results) {})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/reqs, "ns/request")
	b.ReportMetric(peakRSS(), "peak-RSS-MB")
}
