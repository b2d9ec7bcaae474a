package sim

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// reportedQuantiles are the quantiles Headroom reports, plus the ends.
var reportedQuantiles = []float64{0, 0.5, 0.9, 0.95, 0.99, 0.999, 1}

// exactQuantile is numpy.percentile's default ("linear") q-quantile of
// sorted values, written out: with h = q·(n−1), the order statistics of
// 0-based ranks ⌊h⌋ and ⌈h⌉ interpolated by the fraction of h.
func exactQuantile(sorted []float64, q float64) float64 {
	h := q * float64(len(sorted)-1)
	lo := int(math.Floor(h))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
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
	// Sorted: 1 1 2 3 4 5 6 9; p50 is at h = 0.5·7 = 3.5, halfway between
	// the values of ranks 3 and 4: 3.5 (numpy.percentile gives 3.5).
	if got := s.Quantile(0.5); !withinAccuracy(got, 3.5) {
		t.Fatalf("p50 = %v, want 3.5 within 1%%", got)
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

// TestSketchSmallSamples checks the percentiles of one, two and three
// values against numpy.percentile's default, worked by hand.
func TestSketchSmallSamples(t *testing.T) {
	one := NewSketch()
	one.Add(1.7)
	for _, q := range reportedQuantiles {
		if got := one.Quantile(q); got != 1.7 {
			t.Errorf("one value: Quantile(%v) = %v, want 1.7 exactly", q, got)
		}
	}
	// Two values: both ranks are the exact minimum and maximum, so every
	// percentile is exact: min + q·(max − min).
	two := NewSketch()
	two.Add(3)
	two.Add(1)
	for q, want := range map[float64]float64{0.5: 2, 0.9: 2.8, 0.95: 2.9, 0.99: 2.98} {
		if got := two.Quantile(q); math.Abs(got-want) > 1e-12 {
			t.Errorf("two values 1, 3: Quantile(%v) = %v, numpy gives %v", q, got, want)
		}
	}
	// A short serve session: E2E 2.10 s, 1.14 s, 0.60 s. numpy gives
	// p50 = 1.14, p90 = 1.14 + 0.8·0.96 = 1.908, p95 = 1.14 + 0.9·0.96 = 2.004,
	// p99 = 1.14 + 0.98·0.96 = 2.0808. The middle value is a bucket's, within
	// 1%; the largest is the exact maximum.
	three := NewSketch()
	for _, v := range []float64{2.10, 1.14, 0.60} {
		three.Add(v)
	}
	x1 := three.Quantile(0.5)
	if !withinAccuracy(x1, 1.14) {
		t.Fatalf("three values: p50 = %v, want 1.14 within 1%%", x1)
	}
	for q, want := range map[float64]float64{0.9: 1.908, 0.95: 2.004, 0.99: 2.0808} {
		got := three.Quantile(q)
		if !withinAccuracy(got, want) {
			t.Errorf("three values: Quantile(%v) = %v, numpy gives %v", q, got, want)
		}
		// Exactly the interpolation between the sketch's middle value and
		// the exact maximum.
		h := q * 2
		if exact := x1 + (h-1)*(2.10-x1); math.Abs(got-exact) > 1e-12 {
			t.Errorf("three values: Quantile(%v) = %v, want x1 + %.2f·(max − x1) = %v", q, got, h-1, exact)
		}
	}
	if got := three.Quantile(0.25); got != 0.60+0.5*(x1-0.60) {
		t.Errorf("three values: p25 = %v, want halfway from the exact minimum to the middle value", got)
	}
	if three.Quantile(0.95) <= three.Quantile(0.5)*1.5 {
		t.Errorf("three values: p95 %v is still near the median %v", three.Quantile(0.95), three.Quantile(0.5))
	}
}

// TestSketchZerosInterpolate: zeros are values like any other, interpolated
// with their neighbours.
func TestSketchZerosInterpolate(t *testing.T) {
	s := NewSketch()
	for _, v := range []float64{0, 0, 0, 4} {
		s.Add(v)
	}
	// Sorted 0 0 0 4: p50 at h = 1.5 is 0; p90 at h = 2.7 is 0.7·4 = 2.8.
	if got := s.Quantile(0.5); got != 0 {
		t.Errorf("p50 of 0 0 0 4 = %v, want 0", got)
	}
	if got := s.Quantile(0.9); math.Abs(got-2.8) > 1e-12 {
		t.Errorf("p90 of 0 0 0 4 = %v, want 2.8", got)
	}
	z := NewSketch()
	for range 5 {
		z.Add(0)
	}
	for _, q := range reportedQuantiles {
		if got := z.Quantile(q); got != 0 {
			t.Errorf("all zeros: Quantile(%v) = %v, want 0", q, got)
		}
	}
}

// TestSketchQuantileProperty: for any values, Quantile is non-decreasing in
// q, lies between the exact minimum and maximum, and is within the sketch's
// accuracy of numpy's linear percentile of the same values.
func TestSketchQuantileProperty(t *testing.T) {
	value := rapid.OneOf(
		rapid.Float64Range(0, 1e6),
		rapid.Float64Range(1e-3, 10),
		rapid.SampledFrom([]float64{0, 1, 1, 2.5}),
	)
	rapid.Check(t, func(t *rapid.T) {
		xs := rapid.SliceOfN(value, 1, 200).Draw(t, "xs")
		s := NewSketch()
		for _, x := range xs {
			s.Add(x)
		}
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		qs := rapid.SliceOfN(rapid.Float64Range(0, 1), 1, 20).Draw(t, "qs")
		qs = append(qs, reportedQuantiles...)
		slices.Sort(qs)
		prev := math.Inf(-1)
		for _, q := range qs {
			got := s.Quantile(q)
			if got < prev {
				t.Fatalf("Quantile(%v) = %v below a smaller q's %v", q, got, prev)
			}
			prev = got
			if got < s.Min() || got > s.Max() {
				t.Fatalf("Quantile(%v) = %v outside [%v, %v]", q, got, s.Min(), s.Max())
			}
			if want := exactQuantile(sorted, q); !withinAccuracy(got, want) && math.Abs(got-want) > minTracked {
				t.Fatalf("Quantile(%v) = %v, numpy's linear %v", q, got, want)
			}
		}
	})
}

// TestSketchQuantileAllocates: Quantile allocates nothing.
func TestSketchQuantileAllocates(t *testing.T) {
	s := NewSketch()
	r := Stream(14, "test/alloc", 0)
	for range 1000 {
		s.Add(r.ExpFloat64())
	}
	if a := testing.AllocsPerRun(100, func() { s.Quantile(0.95) }); a != 0 {
		t.Fatalf("Quantile allocates %v times per call", a)
	}
}

// anySketchValue draws values a sketch may be given: ordinary, tiny,
// any float64, and the edge cases (zeros, negative, non-finite).
func anySketchValue() *rapid.Generator[float64] {
	return rapid.OneOf(
		rapid.Float64Range(0, 1e9),
		rapid.Float64Range(1e-12, 1e-6),
		rapid.Float64(),
		rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 1e-9, 1, 1, 2, -3, math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64}),
	)
}

// TestTryAddIsAdd holds TryAdd, followed by Add when it declines, to Add
// alone: the same counts, zeros, sum, minimum and maximum on any values,
// zeros, tiny, negative and non-finite ones included.
func TestTryAddIsAdd(t *testing.T) {
	value := anySketchValue()
	rapid.Check(t, func(t *rapid.T) {
		xs := rapid.SliceOf(value).Draw(t, "xs")
		a, b := NewSketch(), NewSketch()
		for _, x := range xs {
			a.Add(x)
			if !b.TryAdd(x) {
				b.Add(x)
			}
		}
		if a.zeros != b.zeros || a.offset != b.offset || len(a.counts) != len(b.counts) ||
			math.Float64bits(a.sum) != math.Float64bits(b.sum) ||
			math.Float64bits(a.min) != math.Float64bits(b.min) || math.Float64bits(a.max) != math.Float64bits(b.max) {
			t.Fatalf("TryAdd+Add %+v, Add %+v", *b, *a)
		}
		for i := range a.counts {
			if a.counts[i] != b.counts[i] {
				t.Fatalf("bucket %d: TryAdd+Add %d, Add %d", i+a.offset, b.counts[i], a.counts[i])
			}
		}
	})
}

// TestMergedPartsWithSumIsSketch: values recorded in parts (by a label
// drawn for each), merged, with the sum a SketchSum kept of them all in
// their order, equal the sketch that recorded them one by one.
func TestMergedPartsWithSumIsSketch(t *testing.T) {
	value := anySketchValue()
	rapid.Check(t, func(t *rapid.T) {
		xs := rapid.SliceOf(value).Draw(t, "xs")
		parts := make([]*Sketch, rapid.IntRange(1, 5).Draw(t, "parts"))
		for i := range parts {
			if rapid.Bool().Draw(t, "used") {
				parts[i] = NewSketch()
			}
		}
		a := NewSketch()
		var sum SketchSum
		for _, x := range xs {
			a.Add(x)
			sum.Add(x)
			p := rapid.IntRange(0, len(parts)-1).Draw(t, "part")
			if parts[p] == nil {
				parts[p] = NewSketch()
			}
			parts[p].Add(x)
		}
		b := NewSketch()
		for _, p := range parts {
			b.Merge(p)
		}
		b.SetSum(sum)
		if a.n() != b.n() || a.zeros != b.zeros || math.Float64bits(a.Sum()) != math.Float64bits(b.Sum()) ||
			math.Float64bits(a.Min()) != math.Float64bits(b.Min()) || math.Float64bits(a.Max()) != math.Float64bits(b.Max()) ||
			math.Float64bits(a.Mean()) != math.Float64bits(b.Mean()) {
			t.Fatalf("merged %+v, one by one %+v", *b, *a)
		}
		for _, q := range []float64{0, 0.01, 0.5, 0.9, 0.95, 0.99, 1} {
			if x, y := a.Quantile(q), b.Quantile(q); math.Float64bits(x) != math.Float64bits(y) {
				t.Fatalf("q%v: merged %v, one by one %v", q, y, x)
			}
		}
	})
}

// TestTryAddNIsAddN holds TryAddN, followed by AddN when it declines, to
// AddN alone: the same counts, zeros, sum, minimum and maximum for any
// values and counts (0 among them), with ranges that grow either way.
func TestTryAddNIsAddN(t *testing.T) {
	value := anySketchValue()
	rapid.Check(t, func(t *rapid.T) {
		a, b := NewSketch(), NewSketch()
		for i, k := 0, rapid.IntRange(0, 300).Draw(t, "values"); i < k; i++ {
			v := value.Draw(t, "v")
			n := uint64(rapid.IntRange(0, 300).Draw(t, "n"))
			a.AddN(v, n)
			if !b.TryAddN(v, n) {
				b.AddN(v, n)
			}
		}
		if a.zeros != b.zeros || a.offset != b.offset || len(a.counts) != len(b.counts) ||
			math.Float64bits(a.sum) != math.Float64bits(b.sum) ||
			math.Float64bits(a.min) != math.Float64bits(b.min) || math.Float64bits(a.max) != math.Float64bits(b.max) {
			t.Fatalf("TryAddN+AddN %+v, AddN %+v", *b, *a)
		}
		for i := range a.counts {
			if a.counts[i] != b.counts[i] {
				t.Fatalf("bucket %d: TryAddN+AddN %d, AddN %d", i+a.offset, b.counts[i], a.counts[i])
			}
		}
	})
}
