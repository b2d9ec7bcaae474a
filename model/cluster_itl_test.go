package model

import (
	"math"
	"testing"

	"github.com/headroom-sim/headroom/sim"
	"pgregory.net/rapid"
)

// The inter-token sketch reports what a sim.Sketch fed the same values in
// the same order reports: the same count, mean (bit for bit), quantiles and
// maximum, through any mix of values (gaps of milliseconds, values below a
// nanosecond, zeros, negatives, NaN and infinities, counts of 0) and of
// ranges that grow either way.
func TestITLSketchIsASketch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		mine, ref := newITLSketch(), sim.NewSketch()
		special := []float64{0, math.Copysign(0, -1), -1, 5e-10, 1e-9, math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64}
		for i, n := 0, rapid.IntRange(0, 300).Draw(t, "values"); i < n; i++ {
			var v float64
			switch rapid.IntRange(0, 9).Draw(t, "kind") {
			case 0:
				v = rapid.SampledFrom(special).Draw(t, "special")
			case 1:
				v = math.Exp(rapid.Float64Range(-30, 30).Draw(t, "log")) // wide: the range grows
			default:
				v = rapid.Float64Range(0.005, 0.05).Draw(t, "gap") // step times
			}
			k := uint64(rapid.IntRange(0, 300).Draw(t, "n"))
			if rapid.Bool().Draw(t, "inline") {
				if !mine.tryAddN(v, k) {
					mine.addRest(v, k)
				}
			} else {
				mine.addN(v, k)
			}
			ref.AddN(v, k)
		}
		got := mine.quantiles()
		want := Quantiles{}
		if ref.Count() > 0 {
			want = Quantiles{Count: int64(ref.Count()), Mean: ref.Mean(), P50: ref.Quantile(0.5), P90: ref.Quantile(0.9), P95: ref.Quantile(0.95), P99: ref.Quantile(0.99), Max: ref.Max()}
		}
		if math.Float64bits(got.Mean) != math.Float64bits(want.Mean) || got.Count != want.Count || got.P50 != want.P50 || got.P90 != want.P90 || got.P95 != want.P95 || got.P99 != want.P99 || got.Max != want.Max {
			t.Fatalf("got %+v, want %+v", got, want)
		}
		tw := mine.sketch()
		for q := 0.0; q <= 1; q += 0.0625 {
			if a, b := tw.Quantile(q), ref.Quantile(q); a != b {
				t.Fatalf("quantile %g: %v, want %v", q, a, b)
			}
		}
		if tw.Min() != ref.Min() || tw.Count() != ref.Count() {
			t.Fatalf("min %v count %v, want %v %v", tw.Min(), tw.Count(), ref.Min(), ref.Count())
		}
	})
}
