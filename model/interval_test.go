package model

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// TestIntervalAsDivision: the interval looked up through the span is the
// one the division gives, for times drawn around the intervals' edges
// (the float64 values next to k·Interval, where rounding decides) in any
// order, forward moves and looks back included.
func TestIntervalAsDivision(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		iv := rapid.Float64Range(1e-3, 1e5).Draw(t, "interval")
		n := rapid.IntRange(1, 50).Draw(t, "intervals")
		s := &Sim{cfg: Config{Interval: iv}, nInt: n}
		for range rapid.IntRange(1, 200).Draw(t, "lookups") {
			k := rapid.IntRange(0, n+2).Draw(t, "k")
			ulps := rapid.IntRange(-3, 3).Draw(t, "ulps")
			x := float64(k) * iv
			if rapid.Bool().Draw(t, "inside") {
				x += rapid.Float64Range(0, iv).Draw(t, "offset")
			}
			for ; ulps > 0; ulps-- {
				x = math.Nextafter(x, math.Inf(1))
			}
			for ; ulps < 0 && x > 0; ulps++ {
				x = math.Nextafter(x, 0)
			}
			if got, want := s.interval(x), s.intervalOf(x); got != want {
				t.Fatalf("interval(%v) = %d, division gives %d (span %+v)", x, got, want, s.ivs)
			}
		}
	})
}
