package model

import (
	"math"

	"github.com/headroom-sim/headroom/sim"
)

// itlSketch pools a cluster's inter-token gaps: every iteration's time
// once for each sequence that decodes in it, 3.7 times a request on the
// cluster day. It records exactly what sim.Sketch.AddN records (the same
// buckets, read off the same bits; the same zeros; the sum, minimum and
// maximum by the same operations in the same order), with the common case
// (a finite gap of a nanosecond or more, in a bucket already covered) small
// enough to be inlined into the iteration loops, where a call to AddN
// spilled their registers. sketch turns it into a sim.Sketch with the same
// counts, minimum and maximum for the quantiles; the mean is its own sum
// over its count, as Sketch.Mean computes it.
type itlSketch struct {
	counts []uint64 // counts[i] is bucket offset+i
	offset int
	zeros  uint64
	sum    float64
	min    float64
	max    float64
}

// itlShift and itlMinTracked are sim.Sketch's bucket mapping: the float64
// bits above the top 6 mantissa bits, and the smallest value with a
// bucket (smaller ones count as zero).
const (
	itlShift      = 52 - 6
	itlMinTracked = 1e-9
)

func newITLSketch() *itlSketch { return &itlSketch{min: math.Inf(1), max: math.Inf(-1)} }

// addN records v n times, as sim.Sketch.AddN does.
func (s *itlSketch) addN(v float64, n uint64) {
	if !s.tryAddN(v, n) {
		s.addRest(v, n)
	}
}

// tryAddN is addN's common case, small enough to be inlined: it records v
// n times and reports true when v is at least a nanosecond, n is not 0 and
// v's bucket is in the dense range (so v is finite); otherwise it records
// nothing and reports false, and the caller calls addRest.
func (s *itlSketch) tryAddN(v float64, n uint64) bool {
	i := int(math.Float64bits(v)>>itlShift) - s.offset
	if !(v >= itlMinTracked && v <= math.MaxFloat64) || n == 0 || uint(i) >= uint(len(s.counts)) {
		return false
	}
	s.sum += v * float64(n)
	if v < s.min {
		s.min = v
	}
	if v > s.max {
		s.max = v
	}
	s.counts[i] += n
	return true
}

// addRest is addN of anything else: n = 0, NaN or +Inf (ignored), a value
// below a nanosecond (a zero), or one beyond the dense range (which grows).
func (s *itlSketch) addRest(v float64, n uint64) {
	if n == 0 || !(v <= math.MaxFloat64) {
		return
	}
	if v <= 0 {
		v = 0
	}
	s.sum += v * float64(n)
	if v < s.min {
		s.min = v
	}
	if v > s.max {
		s.max = v
	}
	if v < itlMinTracked {
		s.zeros += n
		return
	}
	b := int(math.Float64bits(v) >> itlShift)
	switch {
	case len(s.counts) == 0:
		s.counts = make([]uint64, 64)
		s.offset = b - 32
	case b < s.offset || b >= s.offset+len(s.counts):
		lo, hi := s.offset, s.offset+len(s.counts)
		if b < lo {
			lo = b - (hi-lo)/2
		} else {
			hi = b + 1 + (hi-lo)/2
		}
		nc := make([]uint64, hi-lo)
		copy(nc[s.offset-lo:], s.counts)
		s.counts, s.offset = nc, lo
	}
	s.counts[b-s.offset] += n
}

// count is the number of values recorded.
func (s *itlSketch) count() uint64 {
	t := s.zeros
	for _, c := range s.counts {
		t += c
	}
	return t
}

// sketch is a sim.Sketch with the same zeros, bucket counts, minimum and
// maximum (so the same quantiles and maximum; its sum differs). Each
// bucket's count is added at a value inside it: the exact minimum for the
// minimum's bucket, the exact maximum for the maximum's, any other bucket
// at its lower bound (or at a nanosecond, the smallest value with a
// bucket), so no value added is below the minimum or above the maximum.
func (s *itlSketch) sketch() *sim.Sketch {
	sk := sim.NewSketch()
	if s.count() == 0 {
		return sk
	}
	switch {
	case s.zeros > 0 && s.max < itlMinTracked: // zeros only
		sk.AddN(s.min, 1)
		sk.AddN(s.max, s.zeros-1)
	case s.zeros > 0:
		sk.AddN(s.min, s.zeros) // the minimum is below a nanosecond
	}
	minB := int(math.Float64bits(s.min) >> itlShift)
	maxB := int(math.Float64bits(s.max) >> itlShift)
	for i, c := range s.counts {
		if c == 0 {
			continue
		}
		b := i + s.offset
		switch {
		case b == minB && s.zeros == 0 && b == maxB:
			sk.AddN(s.min, 1) // one value, or the minimum and the rest at the maximum
			sk.AddN(s.max, c-1)
		case b == minB && s.zeros == 0:
			sk.AddN(s.min, c)
		case b == maxB:
			sk.AddN(s.max, c)
		default:
			// its lower bound, or a nanosecond in the bucket that holds
			// it (whose lower bound would count as a zero)
			sk.AddN(max(math.Float64frombits(uint64(b)<<itlShift), itlMinTracked), c)
		}
	}
	return sk
}
