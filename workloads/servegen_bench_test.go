package workloads

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkServeGenDataset is the cost of reading a ServeGen chunk's
// dataset JSON (the public m-mid language chunk, 1.4 MB).
func BenchmarkServeGenDataset(b *testing.B) {
	name := sharedFile(b, "servegen_language_m-mid_chunk-0-dataset.json")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := readServeGenDataset(name); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServeGenProbe is what validating one configuration that
// replays the public m-mid chunk costs, with a scenario's cache (every
// configuration after the first) and without.
func BenchmarkServeGenProbe(b *testing.B) {
	file := sharedFile(b, "servegen_language_m-mid_chunk-0-trace.csv")
	for _, c := range []struct {
		name  string
		cache *TraceCache
	}{{"uncached", nil}, {"cached", NewTraceCache()}} {
		b.Run(c.name, func(b *testing.B) {
			spec := TraceSpec{File: file, Format: FormatServeGen, Cache: c.cache}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := spec.Probe(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestTraceCacheParsesOnce: a cache hands the same parsed dataset to every
// reader of an unchanged file, reads a changed one again, and does not
// keep errors; a nil cache parses every time.
func TestTraceCacheParsesOnce(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"servegen_small-trace.csv", "servegen_small-dataset.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ds := filepath.Join(dir, "servegen_small-dataset.json")
	c := NewTraceCache()
	open := func(c *TraceCache) *sgTokens {
		t.Helper()
		spec := TraceSpec{File: filepath.Join(dir, "servegen_small-trace.csv"), Format: FormatServeGen, Cache: c}
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
	spec := TraceSpec{File: filepath.Join(dir, "servegen_small-trace.csv"), Format: FormatServeGen, Cache: c}
	for i := 0; i < 2; i++ {
		if _, err := OpenTrace(&spec); err == nil {
			t.Fatalf("open %d of a broken dataset succeeded", i)
		}
	}
}
