package workloads

import (
	"math"
	"testing"
)

// near reports whether got is within tol of want (absolute) or 1e-12
// relative.
func near(got, want, tol float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= math.Max(tol, 1e-12*math.Abs(want))
}

func mustCurve(t *testing.T, d DemandSpec, startClock float64) *Curve {
	t.Helper()
	c, err := d.BuildCurve(startClock)
	if err != nil {
		t.Fatalf("BuildCurve: %v", err)
	}
	return c
}

func TestCurveHourlyStep(t *testing.T) {
	// 600, 1500, 900 requests/min = 10, 25, 15 per second, from 08:00.
	d := DemandSpec{Hourly: []float64{600, 1500, 900}, From: "08:00"}
	c := mustCurve(t, d, 8*3600)
	for _, p := range []struct{ t, rate, cum float64 }{
		{0, 10, 0},
		{1800, 10, 18000},
		{3600, 25, 36000},
		{7200, 15, (600 + 1500) * 60},
		{3 * 3600, 0, (600 + 1500 + 900) * 60},
		{10 * 3600, 0, (600 + 1500 + 900) * 60},
	} {
		if got := c.Rate(p.t); got != p.rate {
			t.Errorf("Rate(%v) = %v, want %v", p.t, got, p.rate)
		}
		if got := c.Cumulative(p.t); !near(got, p.cum, 1e-9) {
			t.Errorf("Cumulative(%v) = %v, want %v", p.t, got, p.cum)
		}
	}
	for _, p := range []struct{ s, t float64 }{
		{0, 0}, {-5, 0}, {18000, 1800}, {36000, 3600}, {126000, 7200}, {180000, 10800},
		{36000 + 25, 3601}, {math.Inf(1), math.Inf(1)}, {180000.001, math.Inf(1)},
	} {
		if got := c.Inverse(p.s); !near(got, p.t, 1e-9) {
			t.Errorf("Inverse(%v) = %v, want %v", p.s, got, p.t)
		}
	}
	if c.Max() != 25 {
		t.Errorf("Max = %v, want 25", c.Max())
	}
	if got := c.Cumulative(math.Inf(1)); got != 180000 {
		t.Errorf("Cumulative(+Inf) = %v, want 180000", got)
	}
}

func TestCurveInverseAtPlateau(t *testing.T) {
	// 60/s for an hour, nothing for an hour, 60/s for an hour: the mass of
	// the first hour is first reached when the first hour ends.
	c := mustCurve(t, DemandSpec{Hourly: []float64{60, 0, 60}, Unit: "requests/s"}, 0)
	if got := c.Inverse(60 * 3600); got != 3600 {
		t.Errorf("Inverse(first hour's mass) = %v, want 3600", got)
	}
	if got := c.Inverse(60*3600 + 60); got != 7201 {
		t.Errorf("Inverse(first hour's mass + 60) = %v, want 7201", got)
	}
	lin := mustCurve(t, DemandSpec{Curve: []float64{60, 0, 0, 60}, Every: 3600, Unit: "requests/s", Shape: "linear"}, 0)
	if got := lin.Inverse(30 * 3600); got != 3600 {
		t.Errorf("linear: Inverse(first ramp's mass) = %v, want 3600", got)
	}
}

func TestCurveFromRelativeToStart(t *testing.T) {
	d := DemandSpec{Hourly: []float64{600, 1500, 900}, From: "08:00"}
	// Starting an hour early: nothing for the first hour.
	early := mustCurve(t, d, 7*3600)
	if early.Rate(1800) != 0 || early.Cumulative(3600) != 0 || early.Rate(3600) != 10 {
		t.Errorf("start 07:00: Rate(30m)=%v Λ(1h)=%v Rate(1h)=%v", early.Rate(1800), early.Cumulative(3600), early.Rate(3600))
	}
	if got := early.Inverse(1); !near(got, 3600.1, 1e-9) {
		t.Errorf("start 07:00: Inverse(1) = %v, want 3600.1", got)
	}
	// Starting at 09:00: the 08:00 hour is already past.
	late := mustCurve(t, d, 9*3600)
	if late.Rate(0) != 25 || !near(late.Cumulative(math.Inf(1)), (1500+900)*60, 1e-9) {
		t.Errorf("start 09:00: Rate(0)=%v Λ(∞)=%v", late.Rate(0), late.Cumulative(math.Inf(1)))
	}
	// Starting at 12:00: all of it is past.
	after := mustCurve(t, d, 12*3600)
	if after.Cumulative(1e6) != 0 || !math.IsInf(after.Inverse(1), 1) {
		t.Errorf("start 12:00: Λ=%v Inverse(1)=%v", after.Cumulative(1e6), after.Inverse(1))
	}
}

func TestCurveRepeatingDaily(t *testing.T) {
	// Point i is i requests per second.
	hourly := make([]float64, 24)
	for i := range hourly {
		hourly[i] = float64(i)
	}
	d := DemandSpec{Hourly: hourly, Unit: "requests/s", Repeat: true}
	c := mustCurve(t, d, 23*3600)
	if c.Rate(0) != 23 || c.Rate(3600) != 0 || c.Rate(7200) != 1 {
		t.Errorf("Rate at 23:00, 00:00, 01:00 = %v, %v, %v; want 23, 0, 1", c.Rate(0), c.Rate(3600), c.Rate(7200))
	}
	day := 276.0 * 3600 // (0+1+…+23)·3600
	for _, k := range []float64{1, 2, 10, 365} {
		if got := c.Cumulative(k * 86400); !near(got, k*day, 1e-6) {
			t.Errorf("Λ(%v days) = %v, want %v", k, got, k*day)
		}
		want := k*day + 23*3600 + 0.5*3600 // plus 23:00–00:00 and half of 01:00–02:00 at rate 1
		if got := c.Cumulative(k*86400 + 2.5*3600); !near(got, want, 1e-6) {
			t.Errorf("Λ(%v days + 2.5h) = %v, want %v", k, got, want)
		}
		if got := c.Inverse(want); !near(got, k*86400+2.5*3600, 1e-6) {
			t.Errorf("Inverse(%v) = %v, want %v", want, got, k*86400+2.5*3600)
		}
	}
	// From later than the start clock: the pattern extends backwards.
	d.From = "08:00"
	c = mustCurve(t, d, 0)
	if c.Rate(0) != 16 || c.Rate(8*3600) != 0 {
		t.Errorf("From 08:00, start 00:00: Rate(0) = %v (want 16), Rate(8h) = %v (want 0)", c.Rate(0), c.Rate(8*3600))
	}
	// An exact multiple of the daily mass is first reached where the day's
	// last nonzero hour ends, not at the following zero hour.
	d = DemandSpec{Hourly: []float64{60, 0}, Unit: "requests/s", Repeat: true}
	c = mustCurve(t, d, 0)
	if got := c.Inverse(2 * 60 * 3600); got != 2*7200-3600 {
		t.Errorf("Inverse(two periods' mass) = %v, want %v", got, 2*7200-3600)
	}
}

func TestCurveLinear(t *testing.T) {
	up := mustCurve(t, DemandSpec{Curve: []float64{0, 60}, Every: 3600, Shape: "linear"}, 0)
	for _, p := range []struct{ t, rate, cum float64 }{
		{0, 0, 0}, {1800, 0.5, 450}, {3600, 1, 1800}, {5400, 1, 3600}, {7200, 0, 5400}, {9000, 0, 5400},
	} {
		if got := up.Rate(p.t); !near(got, p.rate, 1e-12) {
			t.Errorf("up: Rate(%v) = %v, want %v", p.t, got, p.rate)
		}
		if got := up.Cumulative(p.t); !near(got, p.cum, 1e-9) {
			t.Errorf("up: Λ(%v) = %v, want %v", p.t, got, p.cum)
		}
	}
	// Λ(τ) = τ²/7200 on the ramp, so Inverse(s) = √(7200 s).
	for _, s := range []float64{1e-9, 1e-3, 1, 450, 1000, 1800} {
		if got, want := up.Inverse(s), math.Sqrt(7200*s); !near(got, want, 1e-9*want) {
			t.Errorf("up: Inverse(%v) = %v, want %v", s, got, want)
		}
	}
	down := mustCurve(t, DemandSpec{Curve: []float64{60, 0}, Every: 3600, Shape: "linear"}, 0)
	// Λ(τ) = τ − τ²/7200: Λ(1800) = 1350.
	if got := down.Inverse(1350); !near(got, 1800, 1e-9) {
		t.Errorf("down: Inverse(1350) = %v, want 1800", got)
	}
	if got := down.Inverse(1800); !near(got, 3600, 1e-6) {
		t.Errorf("down: Inverse(1800) = %v, want 3600", got)
	}
	if !math.IsInf(down.Inverse(1800.001), 1) {
		t.Errorf("down: Inverse past the total must be +Inf")
	}
	if up.Max() != 1 {
		t.Errorf("Max = %v, want 1", up.Max())
	}
}

func TestCurveConstantAndNil(t *testing.T) {
	c := Constant(2)
	if c.Rate(5) != 2 || c.Cumulative(10) != 20 || c.Inverse(5) != 2.5 || c.Max() != 2 {
		t.Errorf("Constant(2): Rate %v Λ(10) %v Inverse(5) %v", c.Rate(5), c.Cumulative(10), c.Inverse(5))
	}
	if !math.IsInf(c.Cumulative(math.Inf(1)), 1) {
		t.Error("Constant(2): Λ(∞) must be +Inf")
	}
	z := Constant(0)
	if z.Cumulative(math.Inf(1)) != 0 || !math.IsInf(z.Inverse(1), 1) || z.Inverse(0) != 0 {
		t.Error("Constant(0) must never reach s > 0")
	}
	var n *Curve
	if n.Rate(1) != 0 || n.Cumulative(1) != 0 || !math.IsInf(n.Inverse(1), 1) || n.Max() != 0 {
		t.Error("nil curve must be 0 everywhere")
	}
	if Constant(-3).Rate(1) != 0 || Constant(math.NaN()).Rate(1) != 0 {
		t.Error("negative or NaN constant rate must be treated as 0")
	}
}

func TestNewCurveErrors(t *testing.T) {
	for _, c := range []struct {
		values  []float64
		spacing float64
		phase   float64
	}{
		{nil, 1, 0},
		{[]float64{1}, 0, 0},
		{[]float64{1}, math.Inf(1), 0},
		{[]float64{1}, 1, math.NaN()},
		{[]float64{-1}, 1, 0},
		{[]float64{math.NaN()}, 1, 0},
		{[]float64{math.MaxFloat64, math.MaxFloat64}, 1e300, 0},
	} {
		if _, err := newCurve(c.values, c.spacing, false, false, c.phase); err == nil {
			t.Errorf("newCurve(%v, %v, phase %v) succeeded, want error", c.values, c.spacing, c.phase)
		}
	}
}

func BenchmarkCurveInverse(b *testing.B) {
	hourly := make([]float64, 24)
	for i := range hourly {
		hourly[i] = float64(100 + 50*(i%7))
	}
	c, err := (&DemandSpec{Hourly: hourly, Repeat: true, Shape: "linear"}).BuildCurve(0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	s, sink := 0.0, 0.0
	for b.Loop() {
		s += 1.7
		sink += c.Inverse(s)
	}
	_ = sink
}
