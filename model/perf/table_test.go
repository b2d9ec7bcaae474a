package perf

import (
	"math"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestTableInterpolation(t *testing.T) {
	tb := Table{Batches: []float64{1, 8, 64}, Times: []float64{0.107, 0.156, 0.548}}
	if err := tb.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ x, want float64 }{
		{1, 0.107}, {8, 0.156}, {64, 0.548}, // at the points
		{4.5, (0.107 + 0.156) / 2}, {36, (0.156 + 0.548) / 2}, // midpoints
		{0.5, 0.107},                       // below the first point: held
		{120, 0.548 + (0.548-0.156)/56*56}, // beyond the last: last slope
	} {
		if got := tb.Interp(c.x); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("Interp(%g) = %.17g, want %.17g", c.x, got, c.want)
		}
	}
	// StepTime uses decoding + prefilling sequences and adds the per-token costs.
	tb.PrefillPerToken, tb.PerContextToken = 1e-5, 1e-7
	b := Batch{Decode: 6, PrefillSeqs: 2, Prefill: 1000, Context: 20000}
	if got, want := tb.StepTime(b), 0.156+1000*1e-5+20000*1e-7; math.Abs(got-want) > 1e-15 {
		t.Errorf("StepTime = %g, want %g", got, want)
	}
	single := Table{Batches: []float64{4}, Times: []float64{0.02}}
	if single.Interp(1) != 0.02 || single.Interp(100) != 0.02 {
		t.Error("a one-point table is not constant")
	}
}

// Seed 002's illustrative table: batch 1 → 107 ms, 8 → 156 ms, 64 → 548 ms
// gives 9.3, 51.3 and 116.8 req/s (batch / step time).
func TestTableSeed002Throughput(t *testing.T) {
	tb := Table{Batches: []float64{1, 8, 64}, Times: []float64{0.107, 0.156, 0.548}}
	for _, c := range []struct {
		batch int
		rps   float64
	}{{1, 9.3}, {8, 51.3}, {64, 116.8}} {
		got := float64(c.batch) / tb.StepTime(Batch{Decode: c.batch})
		if math.Round(got*10)/10 != c.rps {
			t.Errorf("batch %d: %.3f req/s, want %.1f", c.batch, got, c.rps)
		}
	}
}

func TestTableValidateErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		tb   Table
		want []string
	}{
		{"not monotone", Table{Batches: []float64{1, 4, 8}, Times: []float64{0.1, 0.15, 0.12}},
			[]string{"point 2", "not monotone: batch 8 takes 120ms but batch 4 takes 150ms"}},
		{"unsorted", Table{Batches: []float64{1, 8, 4}, Times: []float64{0.1, 0.12, 0.15}},
			[]string{"point 2", "not strictly increasing", "batch 4 follows batch 8"}},
		{"duplicate", Table{Batches: []float64{1, 1}, Times: []float64{0.1, 0.1}}, []string{"point 1"}},
		{"empty", Table{}, []string{"no points"}},
		{"lengths", Table{Batches: []float64{1, 2}, Times: []float64{0.1}}, []string{"2 batch sizes but 1 times"}},
		{"zero batch", Table{Batches: []float64{0, 2}, Times: []float64{0.1, 0.2}}, []string{"point 0", "batch size 0"}},
		{"zero time", Table{Batches: []float64{1, 2}, Times: []float64{0.1, 0}}, []string{"point 1", "time 0"}},
		{"nan", Table{Batches: []float64{1, math.NaN()}, Times: []float64{0.1, 0.2}}, []string{"point 1"}},
		{"negative prefill", Table{Batches: []float64{1}, Times: []float64{0.1}, PrefillPerToken: -1}, []string{"PrefillPerToken"}},
	} {
		err := c.tb.Validate()
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, err, w)
			}
		}
	}
}

// A valid table's step time never falls as the batch grows and hits every
// point exactly.
func TestTableMonotoneProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(t, "n")
		tb := Table{PrefillPerToken: rapid.Float64Range(0, 1e-3).Draw(t, "ppt"), PerContextToken: rapid.Float64Range(0, 1e-6).Draw(t, "pct")}
		b, y := 0.0, 0.0
		for i := range n {
			b += float64(rapid.IntRange(1, 64).Draw(t, "db"))
			y += rapid.Float64Range(0, 0.1).Draw(t, "dy")
			if i == 0 {
				y += 0.001
			}
			tb.Batches = append(tb.Batches, b)
			tb.Times = append(tb.Times, y)
		}
		if err := tb.Validate(); err != nil {
			t.Fatal(err)
		}
		for i, x := range tb.Batches {
			if tb.Interp(x) != tb.Times[i] {
				t.Fatalf("Interp(%g) = %g, want %g", x, tb.Interp(x), tb.Times[i])
			}
		}
		ctx := rapid.Float64Range(0, 8192).Draw(t, "ctx")
		prev := 0.0
		for d := 1; d <= int(b)+32; d++ {
			s := tb.StepTime(Batch{Decode: d, Context: float64(d) * ctx})
			if s < prev {
				t.Fatalf("batch %d: %g s < batch %d: %g s", d, s, d-1, prev)
			}
			prev = s
		}
	})
}
