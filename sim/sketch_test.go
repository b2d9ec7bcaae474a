package sim

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// reportedQuantiles are the quantiles Headroom reports, plus the ends.
var reportedQuantiles = []float64{0, 0.5, 0.9, 0.95, 0.99, 0.999, 1}

// exactQuantile is the order statistic DDSketch approximates for q: the value
// of 0-based rank floor(q*(n-1)) in sorted order. (GetValueAtQuantile takes
// rank q*(n-1) and returns the first bucket whose cumulative count exceeds
// it, which is the bucket holding that order statistic.)
func exactQuantile(sorted []float64, q float64) float64 {
	return sorted[int(math.Floor(q*float64(len(sorted)-1)))]
}

// relSlack absorbs floating-point rounding in the mapping between values
// and buckets; it is far below the accuracy being checked.
const relSlack = 1e-9

func withinAccuracy(got, want float64) bool {
	return math.Abs(got-want) <= (SketchAccuracy+relSlack)*math.Abs(want)
}

// TestSketchQuantileAccuracy records 100k draws from a lognormal and an
// exponential distribution and checks each reported quantile against the
// exact order statistic of the same rank.
func TestSketchQuantileAccuracy(t *testing.T) {
	const n = 100_000
	dists := []struct {
		name string
		draw func(*Sketch) []float64
	}{
		{"lognormal", func(s *Sketch) []float64 {
			r := Stream(11, "test/lognormal", 0)
			return fill(s, n, func() float64 { return math.Exp(math.Log(0.8) + 1.2*r.NormFloat64()) })
		}},
		{"exponential", func(s *Sketch) []float64 {
			r := Stream(12, "test/exponential", 0)
			return fill(s, n, func() float64 { return r.ExpFloat64() / 4 })
		}},
	}
	for _, d := range dists {
		t.Run(d.name, func(t *testing.T) {
			s := NewSketch()
			xs := d.draw(s)
			slices.Sort(xs)
			worst := 0.0
			for _, q := range reportedQuantiles {
				got, want := s.Quantile(q), exactQuantile(xs, q)
				rel := math.Abs(got-want) / want
				worst = max(worst, rel)
				if !withinAccuracy(got, want) {
					t.Errorf("Quantile(%v) = %v, exact %v: relative error %.4f > %v", q, got, want, rel, SketchAccuracy)
				}
			}
			t.Logf("worst relative error %.5f", worst)
			checkExact(t, s, xs)
		})
	}
}

// fill adds n draws to s and returns them.
func fill(s *Sketch, n int, draw func() float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = draw()
		s.Add(xs[i])
	}
	return xs
}

// errorer is what checkExact needs of *testing.T and *rapid.T.
type errorer interface {
	Helper()
	Errorf(format string, args ...any)
}

// checkExact checks the exact statistics of s against the values xs.
func checkExact(t errorer, s *Sketch, xs []float64) {
	t.Helper()
	if s.Count() != float64(len(xs)) {
		t.Errorf("Count = %v, want %d", s.Count(), len(xs))
	}
	if len(xs) == 0 {
		return
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	if math.Abs(s.Sum()-sum) > 1e-9*math.Abs(sum) || math.Abs(s.Mean()-mean) > 1e-9*math.Abs(mean) {
		t.Errorf("Sum, Mean = %v, %v; want %v, %v", s.Sum(), s.Mean(), sum, mean)
	}
	if lo, hi := slices.Min(xs), slices.Max(xs); s.Min() != lo || s.Max() != hi {
		t.Errorf("Min, Max = %v, %v; want %v, %v", s.Min(), s.Max(), lo, hi)
	}
}

// TestSketchMerge splits draws between two sketches and checks that their
// merge answers like a sketch of all the draws, and like the exact data.
func TestSketchMerge(t *testing.T) {
	r := Stream(13, "test/merge", 0)
	a, b, all := NewSketch(), NewSketch(), NewSketch()
	var xs []float64
	for i := range 50_000 {
		x := math.Exp(2 * r.NormFloat64())
		if i%3 == 0 { // uneven halves, with different ranges
			x *= 10
			a.Add(x)
		} else {
			b.Add(x)
		}
		all.Add(x)
		xs = append(xs, x)
	}
	a.Merge(b)
	slices.Sort(xs)
	for _, q := range reportedQuantiles {
		got := a.Quantile(q)
		if !withinAccuracy(got, all.Quantile(q)) || !withinAccuracy(got, exactQuantile(xs, q)) {
			t.Errorf("merged Quantile(%v) = %v; sketch of the union %v, exact %v",
				q, got, all.Quantile(q), exactQuantile(xs, q))
		}
	}
	checkExact(t, a, xs)
	// b is unchanged by being merged from.
	if b.Count() != 50_000-16_667 {
		t.Errorf("merged-from sketch has Count %v", b.Count())
	}
}

// TestSketchMergeProperty: for any two lists of values, the merge of their
// sketches has the quantiles of the sketch of their concatenation (the two
// share the same buckets, so the quantiles agree exactly) and the exact
// statistics of the concatenation.
func TestSketchMergeProperty(t *testing.T) {
	value := rapid.OneOf(
		rapid.Float64Range(0, 1e9),
		rapid.Float64Range(1e-6, 1),
		rapid.SampledFrom([]float64{0, 1, 1, 2, -3, math.NaN()}),
	)
	rapid.Check(t, func(t *rapid.T) {
		xs := rapid.SliceOf(value).Draw(t, "xs")
		ys := rapid.SliceOf(value).Draw(t, "ys")
		a, b, all := NewSketch(), NewSketch(), NewSketch()
		var kept []float64
		for _, x := range xs {
			a.Add(x)
		}
		for _, y := range ys {
			b.Add(y)
		}
		for _, v := range append(slices.Clone(xs), ys...) {
			all.Add(v)
			if !math.IsNaN(v) {
				kept = append(kept, max(v, 0))
			}
		}
		a.Merge(b)
		checkExact(t, a, kept)
		for _, q := range reportedQuantiles {
			if got, want := a.Quantile(q), all.Quantile(q); got != want {
				t.Fatalf("merged Quantile(%v) = %v, sketch of the union %v", q, got, want)
			}
		}
		if len(kept) > 0 {
			slices.Sort(kept)
			for _, q := range reportedQuantiles {
				// Values below the smallest indexable one share the zero
				// bucket; allow for that absolute error only.
				got, want := a.Quantile(q), exactQuantile(kept, q)
				if !withinAccuracy(got, want) && math.Abs(got-want) > minTracked {
					t.Fatalf("merged Quantile(%v) = %v, exact %v", q, got, want)
				}
			}
		}
	})
}

func TestSketchMergeEdges(t *testing.T) {
	s := NewSketch()
	s.Merge(nil)
	s.Merge(NewSketch())
	if s.Count() != 0 || s.Quantile(0.5) != 0 || s.Min() != 0 || s.Max() != 0 {
		t.Fatalf("merging nothing into an empty sketch: count %v, p50 %v, min %v, max %v",
			s.Count(), s.Quantile(0.5), s.Min(), s.Max())
	}
	o := NewSketch()
	for _, v := range []float64{2, 4, 8} {
		o.Add(v)
	}
	s.Merge(o) // into an empty sketch
	checkExact(t, s, []float64{2, 4, 8})
	if !withinAccuracy(s.Quantile(0.5), 4) {
		t.Fatalf("p50 after merging into an empty sketch = %v, want 4", s.Quantile(0.5))
	}
	s.Merge(NewSketch()) // an empty one into a full one
	checkExact(t, s, []float64{2, 4, 8})
}

func TestSketchExactStats(t *testing.T) {
	s := NewSketch()
	xs := []float64{3, 1, 4, 1, 5, 9, 2, 6}
	for _, x := range xs {
		s.Add(x)
	}
	if s.Count() != 8 || s.Sum() != 31 || s.Mean() != 3.875 || s.Min() != 1 || s.Max() != 9 {
		t.Fatalf("count %v sum %v mean %v min %v max %v; want 8 31 3.875 1 9",
			s.Count(), s.Sum(), s.Mean(), s.Min(), s.Max())
	}
	// Sorted: 1 1 2 3 4 5 6 9; p50 has rank floor(0.5*7) = 3, the value 3.
	if got := s.Quantile(0.5); !withinAccuracy(got, 3) {
		t.Fatalf("p50 = %v, want 3 within 1%%", got)
	}
	one := NewSketch()
	one.Add(0.25)
	for _, q := range reportedQuantiles {
		if got := one.Quantile(q); got != 0.25 {
			t.Fatalf("one value: Quantile(%v) = %v, want 0.25 exactly (clamped to min and max)", q, got)
		}
	}
}

func TestSketchEmpty(t *testing.T) {
	s := NewSketch()
	for name, got := range map[string]float64{
		"Count": s.Count(), "Sum": s.Sum(), "Mean": s.Mean(), "Min": s.Min(), "Max": s.Max(),
		"Quantile(0)": s.Quantile(0), "Quantile(0.5)": s.Quantile(0.5), "Quantile(1)": s.Quantile(1),
	} {
		if got != 0 {
			t.Errorf("empty sketch: %s = %v, want 0", name, got)
		}
	}
}

func TestSketchClampsAndIgnores(t *testing.T) {
	s := NewSketch()
	s.Add(math.NaN())
	if s.Count() != 0 {
		t.Fatalf("NaN was recorded: Count = %v", s.Count())
	}
	s.Add(-5)
	s.Add(math.Copysign(0, -1))
	s.Add(math.Inf(-1))
	if s.Count() != 3 || s.Sum() != 0 || s.Max() != 0 || s.Min() != 0 || s.Quantile(0.5) != 0 {
		t.Fatalf("negatives not clamped to 0: count %v sum %v min %v max %v p50 %v",
			s.Count(), s.Sum(), s.Min(), s.Max(), s.Quantile(0.5))
	}
	z := NewSketch()
	z.Add(math.Copysign(0, -1))
	if math.Signbit(z.Min()) || math.Signbit(z.Max()) || math.Signbit(z.Sum()) || math.Signbit(z.Quantile(0.5)) {
		t.Fatalf("-0 recorded as -0, not 0: min %v max %v sum %v p50 %v", z.Min(), z.Max(), z.Sum(), z.Quantile(0.5))
	}
	s.Add(10)
	s.Add(math.NaN())
	if s.Count() != 4 || s.Mean() != 2.5 || s.Max() != 10 {
		t.Fatalf("count %v mean %v max %v; want 4 2.5 10", s.Count(), s.Mean(), s.Max())
	}
	// Values the sketch cannot index are ignored, so that the exact
	// statistics and the quantiles describe the same values.
	s.Add(math.Inf(1))
	if s.Count() != 4 || s.Count() != float64(s.bucketed()) || s.Max() != 10 || s.Mean() != 2.5 {
		t.Fatalf("after +Inf: count %v (buckets %v) max %v mean %v; want 4 10 2.5",
			s.Count(), s.bucketed(), s.Max(), s.Mean())
	}
	// The largest finite value still has a bucket.
	s.Add(math.MaxFloat64)
	if s.Count() != 5 || s.Quantile(1) != math.MaxFloat64 {
		t.Fatalf("after MaxFloat64: count %v, q1 %v", s.Count(), s.Quantile(1))
	}
}

// bucketed is the number of values held in buckets (zeros included).
func (s *Sketch) bucketed() uint64 {
	n := s.zeros
	for _, c := range s.counts {
		n += c
	}
	return n
}
