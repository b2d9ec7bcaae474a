package workloads

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// curveCase is a randomly drawn curve with the inputs that built it, so
// the tests can compare against a brute-force reference.
type curveCase struct {
	values  []float64
	spacing float64
	linear  bool
	repeat  bool
	phase   float64
	c       *Curve
}

func (cc curveCase) length() float64 { return float64(len(cc.values)) * cc.spacing }

func drawCurve(t *rapid.T) curveCase {
	n := rapid.IntRange(1, 8).Draw(t, "n")
	values := make([]float64, n)
	for i := range values {
		if rapid.IntRange(0, 3).Draw(t, "zero") > 0 {
			values[i] = rapid.Float64Range(1e-6, 100).Draw(t, "v")
		}
	}
	cc := curveCase{
		values:  values,
		spacing: rapid.Float64Range(0.5, 7200).Draw(t, "spacing"),
		linear:  rapid.Bool().Draw(t, "linear"),
		repeat:  rapid.Bool().Draw(t, "repeat"),
	}
	cc.phase = rapid.Float64Range(-3, 3).Draw(t, "phase") * cc.length()
	c, err := newCurve(cc.values, cc.spacing, cc.linear, cc.repeat, cc.phase)
	if err != nil {
		t.Fatalf("newCurve: %v", err)
	}
	cc.c = c
	return cc
}

// refRate evaluates the rate at simulated time t directly from the points.
func (cc curveCase) refRate(t float64) float64 {
	u := cc.phase + t
	L := cc.length()
	if cc.repeat {
		u -= math.Floor(u/L) * L
	} else if u < 0 || u >= L {
		return 0
	}
	j := min(int(u/cc.spacing), len(cc.values)-1)
	end := cc.values[j]
	if cc.linear && j+1 < len(cc.values) {
		end = cc.values[j+1]
	}
	f := (u - float64(j)*cc.spacing) / cc.spacing
	return cc.values[j] + (end-cc.values[j])*f
}

// refCumulative integrates the rate over [0, t] by walking every segment
// instance that overlaps it and applying the trapezoid rule, which is exact
// for linear pieces.
func (cc curveCase) refCumulative(t float64) float64 {
	lo, hi := cc.phase, cc.phase+t
	L := cc.length()
	k0, k1 := 0.0, 0.0
	if cc.repeat {
		k0, k1 = math.Floor(lo/L), math.Floor(hi/L)
	}
	sum := 0.0
	for k := k0; k <= k1; k++ {
		for j, v := range cc.values {
			start := k*L + float64(j)*cc.spacing
			end := start + cc.spacing
			a, b := math.Max(lo, start), math.Min(hi, end)
			if b <= a {
				continue
			}
			next := v
			if cc.linear && j+1 < len(cc.values) {
				next = cc.values[j+1]
			}
			f := func(x float64) float64 { return v + (next-v)*(x-start)/cc.spacing }
			sum += (f(a) + f(b)) / 2 * (b - a)
		}
	}
	return sum
}

// tolerance for comparing integrals of a curve over [0, t].
func (cc curveCase) tol(t float64) float64 {
	return 1e-9 * (1 + cc.c.Max()*(t+cc.length()))
}

func TestCurveMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cc := drawCurve(t)
		tt := rapid.Float64Range(0, 5).Draw(t, "t") * cc.length()
		// Within rounding of a knot, either neighbouring rate is right.
		u := cc.phase + tt
		knot := math.Round(u/cc.spacing) * cc.spacing
		atKnot := math.Abs(u-knot) <= 1e-9*(1+math.Abs(u)+cc.length())
		if got, want := cc.c.Rate(tt), cc.refRate(tt); !atKnot && !near(got, want, 1e-9*(1+want)) {
			t.Fatalf("Rate(%v) = %v, reference %v", tt, got, want)
		}
		if got, want := cc.c.Cumulative(tt), cc.refCumulative(tt); !near(got, want, cc.tol(tt)) {
			t.Fatalf("Cumulative(%v) = %v, reference %v", tt, got, want)
		}
	})
}

func TestCurveInverseOfCumulative(t *testing.T) {
	// Inverse(Λ(t0)) is t0, or the start of a stretch of zero rate ending
	// at t0; in both cases Λ there is Λ(t0).
	rapid.Check(t, func(t *rapid.T) {
		cc := drawCurve(t)
		t0 := rapid.Float64Range(0, 5).Draw(t, "t0") * cc.length()
		s := cc.c.Cumulative(t0)
		got := cc.c.Inverse(s)
		if math.IsInf(got, 0) || got < 0 {
			t.Fatalf("Inverse(Λ(%v) = %v) = %v", t0, s, got)
		}
		if !near(cc.c.Cumulative(got), s, cc.tol(t0)) {
			t.Fatalf("Λ(Inverse(%v)) = %v", s, cc.c.Cumulative(got))
		}
		// Λ(t0) carries rounding error, so when t0 is in a stretch of zero
		// rate the answer may be either end of it; and on a tiny rate a
		// rounding-sized error in s moves t a long way. What must hold is
		// that the reference puts (almost) no mass between t0 and the answer.
		if between := math.Abs(cc.refCumulative(got) - cc.refCumulative(t0)); between > cc.tol(math.Max(got, t0)) {
			t.Fatalf("Inverse(Λ(%v) = %v) = %v, but the reference has mass %v in between", t0, s, got, between)
		}
	})
}

func TestCurveCumulativeOfInverse(t *testing.T) {
	// Λ(Inverse(s)) = s, and Λ is below s just before; +Inf only when the
	// curve's total is below s.
	rapid.Check(t, func(t *rapid.T) {
		cc := drawCurve(t)
		total := cc.refCumulative(5 * cc.length())
		s := rapid.Float64Range(0, 1.2).Draw(t, "frac")*total + rapid.Float64Range(0, 1).Draw(t, "extra")
		got := cc.c.Inverse(s)
		if math.IsInf(got, 1) {
			if lim := cc.c.Cumulative(math.Inf(1)); lim >= s+cc.tol(0) {
				t.Fatalf("Inverse(%v) = +Inf but Λ(∞) = %v", s, lim)
			}
			return
		}
		if !near(cc.c.Cumulative(got), s, cc.tol(got)) {
			t.Fatalf("Λ(Inverse(%v) = %v) = %v", s, got, cc.c.Cumulative(got))
		}
		if before := got - 1e-6*(1+got); before > 0 {
			if lb := cc.c.Cumulative(before); lb > s+cc.tol(got) {
				t.Fatalf("Λ(%v) = %v already exceeds s = %v, so Inverse(s) = %v is not the smallest", before, lb, s, got)
			}
		}
	})
}

func TestCurveRepeatsExactly(t *testing.T) {
	// For a repeating curve, k more periods add exactly k times the
	// period's mass, however far out.
	rapid.Check(t, func(t *rapid.T) {
		cc := drawCurve(t)
		if !cc.repeat {
			cc.repeat = true
			cc.c, _ = newCurve(cc.values, cc.spacing, cc.linear, true, cc.phase)
		}
		L := cc.length()
		var mass float64
		for j, v := range cc.values {
			next := v
			if cc.linear && j+1 < len(cc.values) {
				next = cc.values[j+1]
			}
			mass += (v + next) / 2 * cc.spacing
		}
		t0 := rapid.Float64Range(0, 1).Draw(t, "t0") * L
		k := float64(rapid.IntRange(1, 100000).Draw(t, "k"))
		got := cc.c.Cumulative(t0+k*L) - cc.c.Cumulative(t0)
		if !near(got, k*mass, 1e-9*(1+k*mass)) {
			t.Fatalf("Λ(t0 + %v periods) − Λ(t0) = %v, want %v", k, got, k*mass)
		}
	})
}
