package workloads

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// copyFixture copies testdata files into dir, where a test may change them.
func copyFixture(t testing.TB, dir string, names ...string) {
	t.Helper()
	for _, f := range names {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTraceCacheParsesOnce: a cache hands the same parsed dataset to every
// reader of an unchanged file, reads a changed one again, and does not
// keep errors; a nil cache parses every time.
func TestTraceCacheParsesOnce(t *testing.T) {
	dir := t.TempDir()
	copyFixture(t, dir, "made_up_servegen-trace.csv", "made_up_servegen-dataset.json")
	trace, ds := filepath.Join(dir, "made_up_servegen-trace.csv"), filepath.Join(dir, "made_up_servegen-dataset.json")
	c := NewTraceCache()
	open := func(c *TraceCache) *sgTokens {
		t.Helper()
		spec := TraceSpec{File: trace, Format: FormatServeGen, Cache: c}
		rd, err := OpenTrace(&spec)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		return &rd.src.(*serveGenSource).tokens[0]
	}
	a, b := open(c), open(c)
	if a != b {
		t.Error("the cache parsed an unchanged dataset twice")
	}
	if open(nil) == open(nil) {
		t.Error("without a cache two readers share a dataset")
	}
	// A changed file (another size and time) is read again.
	src, _ := os.ReadFile(ds)
	if err := os.WriteFile(ds, append(src, ' ', '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	os.Chtimes(ds, later, later)
	if open(c) == a {
		t.Error("a changed dataset was not read again")
	}
	// A broken one is an error every time, not a cached one.
	if err := os.WriteFile(ds, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(ds, later.Add(time.Minute), later.Add(time.Minute))
	spec := TraceSpec{File: trace, Format: FormatServeGen, Cache: c}
	for i := 0; i < 2; i++ {
		if _, err := OpenTrace(&spec); err == nil {
			t.Fatalf("open %d of a broken dataset succeeded", i)
		}
	}
}

// writeServeGenChunk writes a made-up ServeGen chunk of the published
// chunks' shape and size: a day of 600-s windows, and a dataset of four
// 6-hour windows whose input and output distributions have 6,000 token
// counts each (about 1.4 MB of JSON). It returns the trace's path.
func writeServeGenChunk(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	var tr strings.Builder
	for w := 0; w < 144; w++ {
		fmt.Fprintf(&tr, "%d,%g,1.2,Gamma,0.7,%g\n", 600*w, 0.5+float64(w%24)/8, 1/(0.7*(0.5+float64(w%24)/8)))
	}
	pmf := func(seed int) string {
		var b strings.Builder
		b.WriteByte('{')
		for v := 1; v <= 6000; v++ {
			if v > 1 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d: %.17g", 3*v+seed, 1/float64(v*(v+seed)))
		}
		b.WriteByte('}')
		return b.String()
	}
	var ds strings.Builder
	ds.WriteString("{\n")
	for w := 0; w < 4; w++ {
		if w > 0 {
			ds.WriteString(",\n")
		}
		fmt.Fprintf(&ds, "  %q: {\"input_tokens\": %q, \"output_tokens\": %q}", fmt.Sprint(21600*w), pmf(w+1), pmf(w+5))
	}
	ds.WriteString("\n}\n")
	trace := filepath.Join(dir, "bench-trace.csv")
	if err := os.WriteFile(trace, []byte(tr.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bench-dataset.json"), []byte(ds.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return trace
}

// BenchmarkServeGenDataset is the cost of reading a ServeGen chunk's
// dataset JSON (a made-up chunk of the published ones' size, 1.4 MB).
func BenchmarkServeGenDataset(b *testing.B) {
	name := strings.TrimSuffix(writeServeGenChunk(b), "-trace.csv") + "-dataset.json"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := readServeGenDataset(name); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServeGenProbe is what validating one configuration that
// replays a ServeGen chunk costs, with a scenario's cache (every
// configuration after the first) and without.
func BenchmarkServeGenProbe(b *testing.B) {
	file := writeServeGenChunk(b)
	for _, c := range []struct {
		name  string
		cache *TraceCache
	}{{"uncached", nil}, {"cached", NewTraceCache()}} {
		b.Run(c.name, func(b *testing.B) {
			spec := TraceSpec{File: file, Format: FormatServeGen, Cache: c.cache}
			b.ReportAllocs()
			for b.Loop() {
				if err := spec.Probe(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
