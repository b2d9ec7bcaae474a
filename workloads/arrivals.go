package workloads

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Arrivals generates the arrival times of an open-loop process. It is a
// stationary renewal process in operational time s, with gaps of mean 1:
//
//   - poisson: gaps Exp(1);
//   - gamma: gaps Gamma(shape k = 1/cv², scale θ = cv²);
//   - constant: gaps of exactly 1, the first at s = 0.5 (half a gap).
//
// Operational time is mapped to simulated time by t = Curve.Inverse(s), so
// the expected number of arrivals in any window is exactly the integral of
// the rate curve over it, for every process and every curve shape; for
// poisson this is the exact non-homogeneous Poisson process.
//
// The first gamma gap is drawn from the renewal process's equilibrium
// (forward-recurrence) distribution, U·Gamma(k+1, θ) with U uniform on
// [0, 1), rather than from the gap distribution itself. That makes the
// process stationary from s = 0, so E[arrivals by t] = Λ(t) holds from the
// very start instead of after a burn-in (an ordinary renewal process with
// cv = 2 would start with about 1.5 extra arrivals). For poisson the two
// coincide (memorylessness); for constant the half gap is the equilibrium
// mean, chosen deterministically.
//
// Arrivals is not safe for concurrent use; give each generator its own
// random stream.
type Arrivals struct {
	curve   *Curve
	r       *rand.Rand
	kind    uint8
	shape   float64 // gamma: k = 1/cv²
	s       float64 // operational time of the latest arrival
	last    float64 // simulated time of the latest arrival
	started bool
	// ahead holds the next arrival times, drawn a batch at a time:
	// ahead[head:] are still to be returned. Drawing ahead changes no
	// value (the random stream is the generator's own), and a tight loop
	// of draws overlaps their latencies (the curve's inverse divides).
	ahead [aheadLen]float64
	head  int
}

// aheadLen is how many arrival times Arrivals draws at a time.
const aheadLen = 32

// Process kinds inside Arrivals.
const (
	procPoisson uint8 = iota
	procConstant
	procGamma
)

// NewArrivals returns a generator for curve c with the process spec, drawing
// from r. spec should have passed Validate; an invalid gamma cv falls back
// to poisson rather than failing. A nil curve produces no arrivals.
func NewArrivals(c *Curve, spec ArrivalSpec, r *rand.Rand) *Arrivals {
	a := &Arrivals{curve: c, r: r, head: aheadLen}
	switch spec.Kind {
	case ArrivalConstant:
		a.kind = procConstant
	case ArrivalGamma:
		k := 1 / (spec.CV * spec.CV)
		if k > 0 && k <= 1e300 {
			a.kind = procGamma
			a.shape = k
		}
	}
	return a
}

// Next returns the next arrival time in simulated seconds. Times never
// decrease; after the curve's last arrival Next returns +Inf forever. It
// does not allocate.
func (a *Arrivals) Next() float64 {
	if a.head == aheadLen {
		if c := a.curve; a.kind == procPoisson && c != nil && c.constant && c.rate > 0 {
			a.drawPoisson(c.rate)
		} else {
			for i := range a.ahead {
				a.ahead[i] = a.draw()
			}
		}
		a.head = 0
	}
	a.head++
	return a.ahead[a.head-1]
}

// Ahead returns the next arrival time, as Next would, when it is already
// drawn, and false when Next has to draw a batch first. Small enough to be
// inlined, it spares its caller a call for all but one arrival a batch.
func (a *Arrivals) Ahead() (float64, bool) {
	if a.head < aheadLen {
		a.head++
		return a.ahead[a.head-1], true
	}
	return 0, false
}

// drawPoisson fills ahead as draw would for a Poisson process on a
// constant curve of rate > 0: draw with its switch and Curve.Inverse
// written in for that case, the state in registers. The same values
// (TestPoissonAheadEqualsDraw).
func (a *Arrivals) drawPoisson(rate float64) {
	s, last := a.s, a.last
	for i := range a.ahead {
		if math.IsInf(s, 1) {
			a.ahead[i] = s
			continue
		}
		s += a.r.ExpFloat64()
		a.started = true
		var t float64 // Inverse(s) of a constant curve
		switch {
		case math.IsNaN(s):
			t = math.Inf(1)
		case s <= 0:
			t = 0
		default:
			t = s / rate
		}
		if math.IsInf(t, 1) {
			s = t
		}
		if t > last {
			last = t
		}
		a.ahead[i] = last
	}
	a.s, a.last = s, last
}

// draw is the next arrival time, drawn.
func (a *Arrivals) draw() float64 {
	if math.IsInf(a.s, 1) {
		return a.s
	}
	var gap float64
	switch a.kind {
	case procConstant:
		gap = 1
		if !a.started {
			gap = 0.5
		}
	case procGamma:
		k := a.shape
		if a.started {
			// Gamma(k, θ = 1/k): rate parameter β = k, mean 1.
			gap = distuv.Gamma{Alpha: k, Beta: k, Src: a.r}.Rand()
		} else {
			// Equilibrium first gap: uniform fraction of a length-biased
			// gap, which is Gamma(k+1, θ).
			gap = a.r.Float64() * distuv.Gamma{Alpha: k + 1, Beta: k, Src: a.r}.Rand()
		}
	default:
		gap = a.r.ExpFloat64()
	}
	a.started = true
	a.s += gap
	t := a.curve.Inverse(a.s)
	if math.IsInf(t, 1) {
		a.s = t
	}
	// Inverse is monotone; the max only guards against a rounding wobble
	// of an ulp where two segments meet. (Written as a comparison: t is
	// never NaN and both are >= +0, and math.Max is not inlined.)
	if t > a.last {
		a.last = t
	}
	return a.last
}
