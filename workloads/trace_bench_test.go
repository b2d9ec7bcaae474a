package workloads

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// writeAzureBench writes n rows in the Azure format at 100 requests/s.
func writeAzureBench(b *testing.B, n int) string { return writeAzureJitter(b, n, 0) }

// writeAzureJitter is writeAzureBench with each row's time moved by up to
// jitter seconds later, so that rows come out of time order.
func writeAzureJitter(b *testing.B, n int, jitter float64) string {
	p := filepath.Join(b.TempDir(), "azure.csv")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("TIMESTAMP,ContextTokens,GeneratedTokens\n")
	r := rand.New(rand.NewPCG(1, 2))
	t := 0.0
	for i := 0; i < n; i++ {
		t += r.ExpFloat64() / 100
		at := t + jitter*r.Float64()
		if jitter == 0 {
			at = t
		}
		sec := int64(at)
		fmt.Fprintf(w, "2024-05-%02d %02d:%02d:%02d.%07d,%d,%d\n", 10+sec/86400, sec%86400/3600, sec/60%60, sec%60, int64((at-float64(sec))*1e7), 1+r.IntN(4000), 1+r.IntN(500))
	}
	w.Flush()
	f.Close()
	return p
}

// benchReplay reads every record of a replay of spec, n rows a pass.
func benchReplay(b *testing.B, spec *TraceSpec, n int) {
	b.ResetTimer()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rp, err := OpenReplay(spec, math.Inf(1), nil)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := rp.Next(); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		rp.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
}

// BenchmarkTraceSortWindow reads a trace whose rows are up to a second
// out of time order through a 2 s sort window (the reader's heap holds
// some 400 rows).
func BenchmarkTraceSortWindow(b *testing.B) {
	const n = 300_000
	p := writeAzureJitter(b, n, 1)
	benchReplay(b, &TraceSpec{File: p, Format: FormatAzure, SortWindow: Duration(2)}, n)
}

// BenchmarkTraceCopies replays eight copies of a trace at once (the
// replay's heap of streams holds eight).
func BenchmarkTraceCopies(b *testing.B) {
	const n = 100_000
	p := writeAzureBench(b, n)
	benchReplay(b, &TraceSpec{File: p, Format: FormatAzure, Scale: 8}, 8*n)
}

// BenchmarkReplayAzure reads an Azure-format trace through Replay (the
// reader alone, no simulation), reporting the cost per row.
func BenchmarkReplayAzure(b *testing.B) {
	const n = 1_000_000
	p := writeAzureBench(b, n)
	b.ResetTimer()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rp, err := OpenReplay(&TraceSpec{File: p, Format: FormatAzure}, math.Inf(1), nil)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := rp.Next(); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		rp.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
}
