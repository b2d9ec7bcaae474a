package loadtest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStepsDeriveE2E: a vLLM level saved without e2el (vLLM bench's
// default --percentile-metrics) still gives a decode step, with E2E taken
// as TTFT + TPOT × (output − 1), so Little's law finds throughput ×
// TPOT × (output − 1) sequences decoding; a level without TPOT names what
// is missing and how to save it.
func TestStepsDeriveE2E(t *testing.T) {
	l := Level{Tool: ToolVLLM, File: "rate4.json", Label: "rate 4/s", Throughput: 4, MeanInput: 1000, MeanOutput: 101,
		TTFT: Stats{Mean: 0.2, P50: 0.2, P90: math.NaN(), P99: math.NaN()}, TPOT: Stats{Mean: 0.02, P50: 0.02, P90: math.NaN(), P99: math.NaN()}, E2E: nanStats()}
	ms, notes := StepMeasurements([]Level{l})
	if len(ms) == 0 || ms[0].Batch.Decode != 8 || ms[0].Seconds != 0.02 { // 4/s × 0.02 s × 100
		t.Fatalf("steps %+v, notes %q", ms, notes)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "no E2E in the file; taken as TTFT + TPOT × (output − 1) = 2.2 s") ||
		!strings.Contains(strings.Join(notes, "\n"), "--percentile-metrics ttft,tpot,itl,e2el") {
		t.Errorf("notes %q", notes)
	}
	l.TPOT = nanStats()
	_, notes = StepMeasurements([]Level{l})
	if len(notes) != 1 || !strings.Contains(notes[0], "no mean TPOT, mean E2E (run vllm bench serve with --percentile-metrics ttft,tpot,itl,e2el") {
		t.Errorf("notes %q", notes)
	}
}

// TestNaturalOrder: files are read in the order people number them.
func TestNaturalOrder(t *testing.T) {
	got := []string{"rate16.json", "rate4.json", "rate1.json", "rate04b.json", "a.json"}
	slices.SortFunc(got, NaturalCompare)
	if want := []string{"a.json", "rate1.json", "rate4.json", "rate04b.json", "rate16.json"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "vllm_rate4.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var paths []string
	for _, r := range []float64{16, 4, 1} {
		var m map[string]any
		json.Unmarshal(b, &m)
		m["request_rate"] = r
		out, _ := json.Marshal(m)
		p := filepath.Join(dir, fmt.Sprintf("rate%g.json", r))
		os.WriteFile(p, out, 0o644)
		paths = append(paths, p)
	}
	levels, err := ReadFiles(paths, "")
	if err != nil {
		t.Fatal(err)
	}
	var rates []float64
	for _, l := range levels {
		rates = append(rates, l.Rate)
	}
	if !slices.Equal(rates, []float64{1, 4, 16}) {
		t.Errorf("rates in order %v", rates)
	}
}

// TestFitHostedStatesItsError: one latency fitted across levels whose TTFT
// grows with load says how far off it is: means 0.2 s and 0.8 s over
// equal counts fit 0.5 s, +150% off the lighter level.
func TestFitHostedStatesItsError(t *testing.T) {
	level := func(label string, rate, ttft float64) Level {
		return Level{Tool: ToolVLLM, File: label + ".json", Label: label, Rate: rate, Completed: 100, Throughput: rate, MeanInput: 1000, MeanOutput: 100,
			TTFT: Stats{Mean: ttft, P50: ttft, P90: math.NaN(), P99: math.NaN()}, TPOT: Stats{Mean: 0.02, P50: 0.02, P90: math.NaN(), P99: math.NaN()}, E2E: nanStats()}
	}
	f, err := FitHosted([]Level{level("rate1", 1, 0.2), level("rate16", 16, 0.8)})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(f.TTFTBase-0.5) > 1e-9 || !strings.Contains(strings.Join(f.Notes, "\n"), "one latency model fitted across all 2 load levels: its TTFT mean is off by up to +150% (rate1.json, rate1); the latency depends on the load") {
		t.Errorf("base %v, notes %q", f.TTFTBase, f.Notes)
	}
}
