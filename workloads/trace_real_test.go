package workloads

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// sharedData is the folder of public traces next to the repository; tests
// that read it skip when it is absent.
var sharedData = filepath.Join("..", "..", "shared", "data")

func sharedFile(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(sharedData, name)
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s absent", p)
	}
	return p
}

// TestReadPublicTraces reads every public trace whole and checks the
// figures their publishers state (request counts, rates, spans).
func TestReadPublicTraces(t *testing.T) {
	cases := []struct {
		file   string
		rows   int
		rate   float64 // requests per second over the span, ±2%
		format string
	}{
		{"AzureLLMInferenceTrace_conv.csv", 19366, 5.5, FormatAzure},
		{"AzureLLMInferenceTrace_code.csv", 8819, 2.57, FormatAzure},
		{"mooncake_conversation_trace.jsonl", 12031, 3.4, FormatMooncake},
		{"mooncake_synthetic_trace.jsonl", 3993, 0, FormatMooncake},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			spec := TraceSpec{File: sharedFile(t, c.file)}
			rows, err := ReadTrace(&spec)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != c.rows {
				t.Errorf("%d rows, want %d", len(rows), c.rows)
			}
			span := rows[len(rows)-1].Time
			rate := float64(len(rows)-1) / span
			if c.rate > 0 && math.Abs(rate/c.rate-1) > 0.02 {
				t.Errorf("rate %.3f/s over %.0f s, want %.2f", rate, span, c.rate)
			}
			t.Logf("%d rows over %.0f s: %.3f requests/s", len(rows), span, rate)
		})
	}
}

// TestReadPublicServeGen checks that a ServeGen client's replay issues as
// many requests as its windows' rates say (Σ rate × 600 s).
func TestReadPublicServeGen(t *testing.T) {
	name := sharedFile(t, "servegen_reason_deepseek-r1_chunk-0-trace.csv")
	spec := TraceSpec{File: name}
	rows, err := ReadTrace(&spec)
	if err != nil {
		t.Fatal(err)
	}
	src, err := openServeGenSource(&spec, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for _, w := range src.windows {
		want += w.rate * (w.end - w.start)
	}
	if got := float64(len(rows)); math.Abs(got-want) > 4*math.Sqrt(want)*3 {
		t.Errorf("%.0f requests, the rates say %.0f", got, want)
	}
	t.Logf("%d requests over %.0f s; the rates say %.0f", len(rows), rows[len(rows)-1].Time, want)
	// The larger client, its first two hours only.
	spec = TraceSpec{File: sharedFile(t, "servegen_language_m-mid_chunk-0-trace.csv"), To: 7200}
	if rows, err = ReadTrace(&spec); err != nil || len(rows) == 0 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
}
