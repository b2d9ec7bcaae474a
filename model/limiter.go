package model

import (
	"math"
)

// Limit dimensions.
const (
	dimRPM = iota
	dimITPM
	dimOTPM
	dimTPM
	dimRPD
	dimTPD
	numDims
)

var dimNames = [numDims]string{"rpm", "itpm", "otpm", "tpm", "rpd", "tpd"}

// charge is what one attempt costs in each dimension.
type charge struct {
	req     float64
	input   float64 // ITPM units
	outRes  float64 // output charged at admission (reserve)
	total   float64 // TPM/TPD units at admission (weighted if weights set)
	wOut    float64 // TPM weight of one output token
	reserve bool    // output reserved at admission (else debited after)
}

// limitSet is the set of windows of one scope (the org, or one key).
type limitSet struct {
	win           [numDims]window
	limits        [numDims]float64
	reserve       bool
	cacheCounts   bool
	weights       WeightsSpec
	countRejected bool
	empty         bool // no dimension is limited: skip all accounting
}

func newLimitSet(l LimitsSpec, startClock float64) *limitSet {
	s := &limitSet{reserve: l.Reserve != ReserveNone, weights: l.Weights, countRejected: l.CountRejected}
	if l.CacheReadsCount != nil {
		s.cacheCounts = *l.CacheReadsCount
	}
	vals := [numDims]float64{l.RPM, l.ITPM, l.OTPM, l.TPM, l.RPD, l.TPD}
	dayOffset := l.DailyReset.Seconds()
	for d, v := range vals {
		if v <= 0 {
			continue
		}
		s.limits[d] = v
		perDay := d == dimRPD || d == dimTPD
		period := 60.0
		if perDay {
			period = 86400
		}
		rate := v / period
		switch l.Window {
		case WindowFixed, WindowSliding:
			w := period
			if !perDay && l.Quantum > 0 {
				w = float64(l.Quantum)
			}
			lim := v * w / period
			if l.Window == WindowFixed {
				// Align windows to the clock: minute and day boundaries.
				off := 0.0
				if perDay {
					off = math.Mod(dayOffset-startClock+86400*2, 86400)
				} else {
					off = math.Mod(-startClock+w*1e6, w)
				}
				s.win[d] = newFixedWindow(lim, w, off)
			} else {
				s.win[d] = newSlidingWindow(lim, w)
			}
		default:
			size := v
			if !perDay {
				size = rate * float64(l.Burst)
			}
			s.win[d] = newTokenBucket(rate, size)
		}
	}
	s.empty = true
	for _, w := range s.win {
		if w != nil {
			s.empty = false
		}
	}
	return s
}

// chargeFor computes an attempt's charge under this scope's rules.
func (s *limitSet) chargeFor(uncached, write, read, maxOut int) charge {
	in := float64(uncached + write)
	if s.cacheCounts {
		in += float64(read)
	}
	c := charge{req: 1, input: in, reserve: s.reserve, wOut: 1}
	if s.reserve {
		c.outRes = float64(maxOut)
	}
	if s.weights.Set() {
		c.wOut = s.weights.Output
		c.total = s.weights.Input*float64(uncached+write) + s.weights.CachedInput*float64(read) + c.wOut*c.outRes
	} else {
		c.total = in + c.outRes
	}
	return c
}

func (c *charge) amount(d int) float64 {
	switch d {
	case dimRPM, dimRPD:
		return c.req
	case dimITPM:
		return c.input
	case dimOTPM:
		return c.outRes
	default:
		return c.total
	}
}

// check finds whether every dimension admits c. When one does not, it
// returns the binding dimension (the longest wait) and that wait; an
// infinite wait means the request can never fit.
func (s *limitSet) check(now float64, c *charge) (ok bool, dim int, wait float64) {
	ok, dim = true, -1
	for d := 0; d < numDims; d++ {
		w := s.win[d]
		if w == nil {
			continue
		}
		fits, wt := w.check(now, c.amount(d))
		if !fits {
			if ok || wt > wait {
				dim, wait = d, wt
			}
			ok = false
		}
	}
	return ok, dim, wait
}

// take charges c in every dimension, writing refund tickets to t.
func (s *limitSet) take(now float64, c *charge, t *[numDims]uint64) {
	for d := 0; d < numDims; d++ {
		if w := s.win[d]; w != nil {
			t[d] = w.take(now, c.amount(d))
		}
	}
}

// rejected charges what a refused attempt still costs (RPM on providers
// that count failed requests).
func (s *limitSet) rejected(now float64) {
	if !s.countRejected {
		return
	}
	for _, d := range [...]int{dimRPM, dimRPD} {
		if w := s.win[d]; w != nil {
			w.take(now, 1)
		}
	}
}

// settle reconciles the output charge once the real output is known.
func (s *limitSet) settle(now float64, c *charge, out int, t *[numDims]uint64) {
	o := float64(out)
	for _, d := range [...]int{dimOTPM, dimTPM, dimTPD} {
		w := s.win[d]
		if w == nil {
			continue
		}
		unit := 1.0
		if d != dimOTPM {
			unit = c.wOut
		}
		if c.reserve {
			if diff := (c.outRes - o) * unit; diff > 0 {
				w.refund(now, diff, t[d])
			} else if diff < 0 {
				w.take(now, -diff)
			}
		} else {
			w.take(now, o*unit)
		}
	}
}
