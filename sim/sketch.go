package sim

import (
	"math"

	"github.com/DataDog/sketches-go/ddsketch"
)

// SketchAccuracy is the relative accuracy of every quantile Headroom
// reports: a reported p95 is within 1% of a value whose rank is exactly the
// 95th percentile.
const SketchAccuracy = 0.01

// Sketch records a distribution of non-negative values in bounded memory. It
// wraps DataDog's DDSketch (relative-error guarantee, mergeable) and keeps
// the exact count, sum, minimum and maximum beside it.
type Sketch struct {
	dd    *ddsketch.DDSketch
	count float64
	sum   float64
	min   float64
	max   float64
}

// NewSketch returns an empty sketch with SketchAccuracy.
func NewSketch() *Sketch {
	dd, err := ddsketch.LogUnboundedDenseDDSketch(SketchAccuracy)
	if err != nil { // only for an accuracy outside (0,1)
		panic(err)
	}
	return &Sketch{dd: dd, min: math.Inf(1), max: math.Inf(-1)}
}

// Add records v. Negative values (and -0) are clamped to 0. NaN is ignored,
// and so is any value too large for the sketch to index (+Inf, or above
// about 1.2e308), so that the exact count, sum, minimum
// and maximum always describe the same values as the quantiles.
func (s *Sketch) Add(v float64) {
	if math.IsNaN(v) {
		return
	}
	if v <= 0 {
		v = 0
	}
	if s.dd.Add(v) != nil {
		return
	}
	s.count++
	s.sum += v
	if v < s.min {
		s.min = v
	}
	if v > s.max {
		s.max = v
	}
}

// Count is the number of values recorded.
func (s *Sketch) Count() float64 { return s.count }

// Sum is the exact sum of the values recorded.
func (s *Sketch) Sum() float64 { return s.sum }

// Mean is the exact mean, or 0 when empty.
func (s *Sketch) Mean() float64 {
	if s.count == 0 {
		return 0
	}
	return s.sum / s.count
}

// Max is the exact largest value, or 0 when empty.
func (s *Sketch) Max() float64 {
	if s.count == 0 {
		return 0
	}
	return s.max
}

// Min is the exact smallest value, or 0 when empty.
func (s *Sketch) Min() float64 {
	if s.count == 0 {
		return 0
	}
	return s.min
}

// Quantile returns the q-quantile (0..1) within SketchAccuracy, clamped to
// the exact minimum and maximum; 0 when empty.
func (s *Sketch) Quantile(q float64) float64 {
	if s.count == 0 {
		return 0
	}
	v, err := s.dd.GetValueAtQuantile(q)
	if err != nil {
		return 0
	}
	return math.Min(math.Max(v, s.min), s.max)
}

// Merge adds every value recorded in o to s.
func (s *Sketch) Merge(o *Sketch) {
	if o == nil || o.count == 0 {
		return
	}
	_ = s.dd.MergeWith(o.dd)
	s.count += o.count
	s.sum += o.sum
	s.min = math.Min(s.min, o.min)
	s.max = math.Max(s.max, o.max)
}
