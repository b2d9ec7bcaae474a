package workloads

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fuzzRead reads src as a trace of the given spec and requires either rows
// or a located *TraceError (or a *FieldError for settings), never a panic.
func fuzzRead(t *testing.T, name string, src []byte, spec TraceSpec) {
	dir := t.TempDir()
	spec.File = filepath.Join(dir, name)
	if err := os.WriteFile(spec.File, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if spec.Format == FormatServeGen {
		os.WriteFile(filepath.Join(dir, "f-dataset.json"), []byte(`{"0": {"input_tokens": "{10: 1.0}", "output_tokens": "{5: 1.0}"}}`), 0o644)
	}
	rows, err := ReadTrace(&spec)
	if err != nil {
		var te *TraceError
		var fe *FieldError
		if !errors.As(err, &te) && !errors.As(err, &fe) {
			t.Fatalf("%T is neither a *TraceError nor a *FieldError: %v", err, err)
		}
		return
	}
	prev := -1.0
	for _, r := range rows {
		if r.Time < prev || r.Input < 0 || r.Output < 0 || r.Input > maxTokens || r.Line < 1 {
			t.Fatalf("bad row %+v after time %v", r, prev)
		}
		prev = r.Time
	}
}

func FuzzAzureTrace(f *testing.F) {
	f.Add([]byte("TIMESTAMP,ContextTokens,GeneratedTokens\n2024-03-04 23:58:10.2500000,512,64\n2024-03-04 23:58:12.7500000,1200,32\n"))
	f.Add([]byte("TIMESTAMP,ContextTokens,GeneratedTokens\n2024-05-10 00:00:00.009930+00:00,2162,5\n"))
	f.Add([]byte("TIMESTAMP,ContextTokens\n\"2023\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		fuzzRead(t, "f.csv", src, TraceSpec{Format: FormatAzure, SortWindow: 1})
	})
}

func FuzzMooncakeTrace(f *testing.F) {
	f.Add([]byte(`{"timestamp": 0, "input_length": 6758, "output_length": 500, "hash_ids": [0, 1, 2]}` + "\n" + `{"timestamp": 5, "input_length": 1, "output_length": 0}`))
	f.Add([]byte(`{"timestamp": 1e3, "input_length": 1.0, "output_length": -1, "hash_ids": null}`))
	f.Fuzz(func(t *testing.T, src []byte) { fuzzRead(t, "f.jsonl", src, TraceSpec{Format: FormatMooncake}) })
}

func FuzzGenericCSVTrace(f *testing.F) {
	f.Add([]byte("t,in,out,s,b\n1,10,2,a,1 2\n2,20,3,a,\"[1,2,3]\"\n"))
	f.Add([]byte("t,in,out,s,b\n2024-05-10T00:00:00Z,1,1,,\n"))
	cols := TraceColumns{Time: "t", Input: "in", Output: "out", Blocks: "b", Tenant: "s"}
	f.Fuzz(func(t *testing.T, src []byte) {
		fuzzRead(t, "f.csv", src, TraceSpec{Format: FormatCSV, Columns: cols, BlockSize: 16})
		fuzzRead(t, "g.csv", src, TraceSpec{Format: FormatCSV, Columns: cols, BlockSize: 16, TimeUnit: TimeDatetime, From: 1, To: 5})
	})
}

func FuzzGenericJSONLTrace(f *testing.F) {
	f.Add([]byte(`{"t": 1, "i": 2, "o": 3, "s": "x"}` + "\n" + `{"t": "2", "i": "4", "o": 1, "s": 7}`))
	f.Add([]byte(`{"t": [], "i": {}, "o": null}`))
	cols := TraceColumns{Time: "t", Input: "i", Output: "o", Session: "s"}
	f.Fuzz(func(t *testing.T, src []byte) {
		fuzzRead(t, "f.jsonl", src, TraceSpec{Format: FormatJSONL, Columns: cols, TimeUnit: TimeMillis, SortWindow: 10})
	})
}

func FuzzServeGenTrace(f *testing.F) {
	f.Add([]byte("0,2,0.71,Gamma,2.0,0.25\n600,0.25,2.24,Weibull,0.5,2.0\n1200,0,0,,0,0\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 300 {
			return // a long file of high rates is slow to replay, not wrong
		}
		fuzzRead(t, "f-trace.csv", src, TraceSpec{Format: FormatServeGen, To: 100})
	})
}

func FuzzServeGenPMF(f *testing.F) {
	f.Add("{120: 0.25, 480: 7.5e-01}")
	f.Add("{}")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parsePyPMF(s)
		if err == nil && p != nil && (len(p.values) == 0 || len(p.values) != len(p.cum)) {
			t.Fatalf("%q: %+v", s, p)
		}
	})
}

func FuzzParseDatetime(f *testing.F) {
	f.Add("2024-03-04 23:58:13.0000001")
	f.Add("2024-05-10 00:00:00.009930+00:00")
	f.Fuzz(func(t *testing.T, s string) { parseDatetime(s) })
}
