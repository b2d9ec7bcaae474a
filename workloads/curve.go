package workloads

import (
	"fmt"
	"math"
	"slices"
)

// Curve is a piecewise-constant or piecewise-linear arrival rate, in
// requests per second, over simulated time t >= 0. It is immutable once
// built and safe for concurrent use.
//
// A curve is either a constant, or a pattern of n equal-width segments
// spanning [0, L) placed on the time axis at an offset (phase) and either
// shown once (rate 0 before and after it) or repeated forever with period
// L in both directions. Cumulative and Inverse are exact closed forms
// evaluated in O(log n), whatever t is.
//
// The nil *Curve is the curve that is always 0.
type Curve struct {
	constant bool
	rate     float64 // constant curves only

	// Pattern over [0, L): segment j covers [x[j], x[j+1]) with rate
	// a[j] + m[j]·(x − x[j]); cum[j] is the pattern's integral up to x[j].
	x, a, m, cum []float64
	repeat       bool
	phase        float64 // pattern position at t = 0
	peak         float64
}

// Constant returns the curve that is ratePerSecond at every t >= 0. A
// negative or NaN rate is treated as 0.
func Constant(ratePerSecond float64) *Curve {
	if !(ratePerSecond > 0) {
		ratePerSecond = 0
	}
	return &Curve{constant: true, rate: ratePerSecond, peak: ratePerSecond}
}

// newCurve builds a curve from rates (per second) at points spacing
// seconds apart. With linear the rate moves linearly from each point to the
// next and the last point holds for one spacing; otherwise each point holds
// for one spacing. The pattern's start sits at t = −phase, i.e. the pattern
// position at simulated time t is phase + t; with repeat the pattern
// repeats with period len(values)·spacing in both directions.
func newCurve(values []float64, spacing float64, linear, repeat bool, phase float64) (*Curve, error) {
	n := len(values)
	if n == 0 {
		return nil, fmt.Errorf("rate curve has no points")
	}
	if !(spacing > 0) || math.IsInf(spacing, 0) {
		return nil, fmt.Errorf("rate curve spacing must be a finite number > 0, got %v", spacing)
	}
	if math.IsNaN(phase) || math.IsInf(phase, 0) {
		return nil, fmt.Errorf("rate curve offset must be finite, got %v", phase)
	}
	if math.IsInf(float64(n)*spacing, 0) {
		return nil, fmt.Errorf("rate curve of %d points %v s apart is too long", n, spacing)
	}
	c := &Curve{
		x:      make([]float64, n+1),
		a:      make([]float64, n),
		m:      make([]float64, n),
		cum:    make([]float64, n+1),
		repeat: repeat,
		phase:  phase,
	}
	for j, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, fmt.Errorf("rate curve point %d must be a finite number >= 0, got %v", j, v)
		}
		end := v
		if linear && j+1 < n {
			end = values[j+1]
		}
		c.x[j] = float64(j) * spacing
		c.a[j] = v
		c.m[j] = (end - v) / spacing
		c.cum[j+1] = c.cum[j] + (v+end)/2*spacing
		c.peak = math.Max(c.peak, v)
	}
	c.x[n] = float64(n) * spacing
	if math.IsInf(c.cum[n], 0) {
		return nil, fmt.Errorf("rate curve integral overflows")
	}
	return c, nil
}

// Max returns the peak rate per second.
func (c *Curve) Max() float64 {
	if c == nil {
		return 0
	}
	return c.peak
}

// Rate returns the rate per second at simulated time t (0 for t < 0).
func (c *Curve) Rate(t float64) float64 {
	if c == nil || !(t >= 0) {
		return 0
	}
	if c.constant {
		return c.rate
	}
	u := c.phase + t
	length := c.x[len(c.x)-1]
	if c.repeat {
		_, u = c.wrap(u)
	} else if u < 0 || u >= length {
		return 0
	}
	j := c.segment(u)
	return max(c.a[j]+c.m[j]*(u-c.x[j]), 0)
}

// Cumulative returns Λ(t), the integral of the rate from 0 to t: the
// expected number of arrivals by t. It is 0 for t <= 0, exact up to
// rounding, and takes O(log n) time for any t (repeats are counted in
// whole periods, not walked).
func (c *Curve) Cumulative(t float64) float64 {
	if c == nil || !(t > 0) {
		return 0
	}
	if c.constant {
		if c.rate == 0 {
			return 0
		}
		return c.rate * t
	}
	total := c.cum[len(c.cum)-1]
	if math.IsInf(t, 1) {
		if c.repeat {
			if total > 0 {
				return math.Inf(1)
			}
			return 0
		}
		return total - c.integral(c.phase)
	}
	return c.integral(c.phase+t) - c.integral(c.phase)
}

// Inverse returns the smallest t >= 0 with Λ(t) >= s, or +Inf if Λ never
// reaches s. It is 0 for s <= 0. On a linear segment it solves the
// quadratic a·τ + m·τ²/2 = Δ in the cancellation-free form
// τ = 2Δ / (a + √(a² + 2mΔ)).
func (c *Curve) Inverse(s float64) float64 {
	if math.IsNaN(s) {
		return math.Inf(1)
	}
	if s <= 0 {
		return 0
	}
	if c == nil {
		return math.Inf(1)
	}
	if c.constant {
		if c.rate == 0 {
			return math.Inf(1)
		}
		return s / c.rate
	}
	n := len(c.a)
	length, total := c.x[n], c.cum[n]
	g0 := c.integral(c.phase)
	g := g0 + s
	var u float64
	if !c.repeat {
		if total-g0 < s {
			return math.Inf(1)
		}
		u = c.patternInverse(min(g, total))
	} else {
		if !(total > 0) || math.IsInf(g, 1) {
			return math.Inf(1)
		}
		k := math.Floor(g / total)
		if math.IsInf(k, 0) {
			return math.Inf(1) // beyond float64 time
		}
		r := g - k*total
		if r <= 0 {
			// Exactly k whole periods: the earliest point is where the
			// previous period's mass is complete.
			k--
			r += total
		}
		if r > total {
			k++
			r -= total
		}
		u = k*length + c.patternInverse(r)
	}
	return max(u-c.phase, 0)
}

// integral returns G(u), the integral of the pattern from position 0 to
// position u (negative for u < 0 on a repeating curve).
func (c *Curve) integral(u float64) float64 {
	n := len(c.a)
	length, total := c.x[n], c.cum[n]
	if !c.repeat {
		switch {
		case u <= 0:
			return 0
		case u >= length:
			return total
		}
		return c.patternCumulative(u)
	}
	k, rem := c.wrap(u)
	if total == 0 {
		return 0
	}
	return k*total + c.patternCumulative(rem)
}

// wrap splits position u into whole periods k and a remainder in [0, L).
func (c *Curve) wrap(u float64) (k, rem float64) {
	length := c.x[len(c.x)-1]
	k = math.Floor(u / length)
	rem = u - k*length
	if rem < 0 {
		rem = 0
	}
	if rem >= length {
		k++
		rem -= length
		if rem < 0 {
			rem = 0
		}
	}
	return k, rem
}

// segment returns the index j of the segment holding pattern position u in
// [0, L]: the last j with x[j] <= u, at most n−1.
func (c *Curve) segment(u float64) int {
	pos, found := slices.BinarySearch(c.x, u)
	j := pos
	if !found {
		j--
	}
	return min(max(j, 0), len(c.a)-1)
}

// patternCumulative integrates the pattern from 0 to u in [0, L].
func (c *Curve) patternCumulative(u float64) float64 {
	j := c.segment(u)
	tau := u - c.x[j]
	return c.cum[j] + tau*(c.a[j]+c.m[j]*tau/2)
}

// patternInverse returns the smallest position u in [0, L] at which the
// pattern's integral reaches r, for 0 < r <= the pattern total.
func (c *Curve) patternInverse(r float64) float64 {
	n := len(c.a)
	pos, _ := slices.BinarySearch(c.cum, r) // first cum[pos] >= r
	pos = min(max(pos, 1), n)
	j := pos - 1
	width := c.x[j+1] - c.x[j]
	d := r - c.cum[j]
	if d <= 0 {
		return c.x[j]
	}
	a, m := c.a[j], c.m[j]
	var tau float64
	if m == 0 {
		tau = d / a
	} else {
		disc := max(a*a+2*m*d, 0)
		den := a + math.Sqrt(disc)
		if den > 0 {
			tau = 2 * d / den
		} else {
			tau = width
		}
	}
	if !(tau <= width) { // also catches NaN and +Inf from a == 0
		tau = width
	}
	return c.x[j] + max(tau, 0)
}
