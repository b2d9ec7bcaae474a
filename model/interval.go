package model

import "math"

// The interval an instant falls in is looked up a few times per request
// (offered, attempted, completed, arrived-in). Simulated time only moves
// forward, so the lookups nearly always fall in the interval of the one
// before: the times of that interval are kept as a span, and a lookup in
// it is two comparisons instead of a division. The span's ends are found
// by bisection over the float64 values, once per interval, so a time in
// it gets exactly the interval the division gives.

// ivSpan is the times [lo, hi) that fall in interval iv.
type ivSpan struct {
	lo, hi float64
	iv     int
}

// interval is the index of the interval t falls in: int(t / Interval),
// the last one for times at or past the horizon.
func (s *Sim) interval(t float64) int {
	if t >= s.ivs.lo && t < s.ivs.hi {
		return s.ivs.iv
	}
	return s.intervalMiss(t)
}

// intervalMiss is interval of a time outside the span; a time past it
// moves the span to its interval (one before it does not, so that looking
// up arrival times of requests that began in an earlier interval costs a
// division each, not a bisection).
func (s *Sim) intervalMiss(t float64) int {
	i := s.intervalOf(t)
	if t >= s.ivs.hi {
		s.ivs = s.spanOf(i)
	}
	return i
}

// intervalOf is interval by division.
func (s *Sim) intervalOf(t float64) int {
	i := int(t / s.cfg.Interval)
	if i >= s.nInt {
		i = s.nInt - 1
	}
	return i
}

// spanOf is the times that fall in interval i. intervalOf is monotone in
// t >= 0 (a correctly rounded division and a truncation are), so the span
// is the times from the first in i to the first in i + 1. An interval
// whose ends cannot be found gets an empty span: every lookup divides.
func (s *Sim) spanOf(i int) ivSpan {
	sp := ivSpan{lo: 0, hi: math.Inf(1), iv: i}
	ok := true
	if i > 0 {
		sp.lo, ok = s.firstIn(i)
	}
	if ok && i < s.nInt-1 {
		sp.hi, ok = s.firstIn(i + 1)
	}
	if !ok || s.intervalOf(sp.lo) != i {
		return ivSpan{}
	}
	return sp
}

// firstIn is the smallest t >= 0 with intervalOf(t) >= k, for k >= 1,
// found by bisection over the bit patterns of non-negative float64 values
// (which order as the values do). ok is false if no bound above it is
// found.
func (s *Sim) firstIn(k int) (t float64, ok bool) {
	in := func(b uint64) bool { return s.intervalOf(math.Float64frombits(b)) >= k }
	hi := math.Float64bits(2 * float64(k+1) * s.cfg.Interval)
	if !in(hi) || math.IsInf(math.Float64frombits(hi), 0) {
		return 0, false
	}
	lo := uint64(0) // in(lo) is false: intervalOf(0) = 0 < k
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if in(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return math.Float64frombits(hi), true
}
