package workloads

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
	"pgregory.net/rapid"
)

// arrivalTimes collects arrivals up to horizon.
func arrivalTimes(a *Arrivals, horizon float64) []float64 {
	var ts []float64
	for {
		t := a.Next()
		if t > horizon {
			return ts
		}
		ts = append(ts, t)
	}
}

// gaps returns the differences between consecutive times.
func gaps(ts []float64) []float64 {
	g := make([]float64, len(ts)-1)
	for i := range g {
		g[i] = ts[i+1] - ts[i]
	}
	return g
}

func cv(xs []float64) float64 {
	m, v, _ := moments(xs)
	return math.Sqrt(v) / m
}

func TestPoissonArrivals(t *testing.T) {
	const rate, horizon = 5.0, 2000.0
	ts := arrivalTimes(NewArrivals(Constant(rate), ArrivalSpec{}, testRand(21)), horizon)
	n, want := float64(len(ts)), rate*horizon
	if math.Abs(n-want) > 4*math.Sqrt(want) {
		t.Errorf("poisson: %v arrivals in %vs at %v/s, want %v ± %v", n, horizon, rate, want, 4*math.Sqrt(want))
	}
	g := gaps(ts)
	if c := cv(g); math.Abs(c-1) > 0.05 {
		t.Errorf("poisson: gap CV %.4f, want 1 ± 0.05", c)
	}
	checkKS(t, "poisson gaps", g, distuv.Exponential{Rate: rate}.CDF)
}

func TestGammaArrivals(t *testing.T) {
	const rate, horizon, gcv = 5.0, 20000.0, 2.0
	ts := arrivalTimes(NewArrivals(Constant(rate), ArrivalSpec{Kind: "gamma", CV: gcv}, testRand(22)), horizon)
	n, want := float64(len(ts)), rate*horizon
	// A stationary renewal count has variance ≈ cv²·mean.
	if tol := 4 * gcv * math.Sqrt(want); math.Abs(n-want) > tol {
		t.Errorf("gamma: %v arrivals, want %v ± %v", n, want, tol)
	}
	g := gaps(ts)
	if c := cv(g); math.Abs(c-gcv) > 0.1 {
		t.Errorf("gamma: gap CV %.4f, want %v ± 0.1", c, gcv)
	}
	k := 1 / (gcv * gcv)
	checkKS(t, "gamma gaps", g, distuv.Gamma{Alpha: k, Beta: k * rate}.CDF)
}

func TestGammaArrivalsStationaryFromStart(t *testing.T) {
	// A stationary renewal process with unit rate has E[N(0, s]] = s for
	// every s, including right at the start. (An ordinary renewal process
	// with cv = 2 would give about s + 1.5.)
	const reps, s = 20000, 2.0
	for _, gcv := range []float64{0.5, 2} {
		counts := make([]float64, reps)
		for i := range counts {
			a := NewArrivals(Constant(1), ArrivalSpec{Kind: "gamma", CV: gcv}, testRand(uint64(1000+i)))
			counts[i] = float64(len(arrivalTimes(a, s)))
		}
		m, v, _ := moments(counts)
		if se := math.Sqrt(v / reps); math.Abs(m-s) > 4*se {
			t.Errorf("gamma cv=%v: mean count in (0, %v] is %.4f, want %v ± %.4f", gcv, s, m, s, 4*se)
		}
	}
}

func TestConstantArrivals(t *testing.T) {
	ts := arrivalTimes(NewArrivals(Constant(2), ArrivalSpec{Kind: "constant"}, testRand(23)), 100)
	if len(ts) != 200 {
		t.Fatalf("constant 2/s over 100s: %d arrivals, want 200", len(ts))
	}
	for i, x := range ts {
		if want := 0.25 + 0.5*float64(i); math.Abs(x-want) > 1e-9 {
			t.Fatalf("arrival %d at %v, want %v", i, x, want)
		}
	}
	// On any curve the constant process puts arrival k at Λ = k + 0.5, so
	// the count by t is floor(Λ(t) + 0.5).
	c := mustCurve(t, DemandSpec{Curve: []float64{0, 90, 30, 0, 45}, Every: 600, Shape: "linear"}, 0)
	a := NewArrivals(c, ArrivalSpec{Kind: "constant"}, testRand(24))
	ts = arrivalTimes(a, math.MaxFloat64)
	for _, h := range []float64{300, 600, 1234, 2400, 3000} {
		got := 0
		for _, x := range ts {
			if x <= h {
				got++
			}
		}
		if want := int(math.Floor(c.Cumulative(h) + 0.5)); got != want {
			t.Errorf("constant process: %d arrivals by %v, want %d", got, h, want)
		}
	}
}

func TestNonHomogeneousArrivals(t *testing.T) {
	for _, shape := range []string{"step", "linear"} {
		d := DemandSpec{Hourly: []float64{600, 1500, 900, 0, 300}, From: "08:00", Shape: shape}
		c := mustCurve(t, d, 7*3600) // one empty hour first
		for _, spec := range []ArrivalSpec{{}, {Kind: "constant"}} {
			ts := arrivalTimes(NewArrivals(c, spec, testRand(25)), math.MaxFloat64)
			for h := 0; h < 7; h++ {
				lo, hi := float64(h)*3600, float64(h+1)*3600
				n := 0
				for _, x := range ts {
					if x > lo && x <= hi {
						n++
					}
				}
				want := c.Cumulative(hi) - c.Cumulative(lo)
				tol := 4 * math.Sqrt(want) // Poisson
				if spec.Kind == "constant" {
					tol = 1 // deterministic up to where the half-gaps fall
				}
				if math.Abs(float64(n)-want) > tol {
					t.Errorf("%s %v: hour %d has %d arrivals, want %.1f ± %.1f", shape, spec, h, n, want, tol)
				}
			}
		}
	}
}

func TestArrivalsEnd(t *testing.T) {
	c := mustCurve(t, DemandSpec{Hourly: []float64{60}}, 0) // 1/s for an hour
	a := NewArrivals(c, ArrivalSpec{}, testRand(26))
	n := 0
	for !math.IsInf(a.Next(), 1) {
		n++
	}
	if math.Abs(float64(n)-3600) > 4*60 {
		t.Errorf("%d arrivals, want 3600 ± 240", n)
	}
	for range 3 {
		if !math.IsInf(a.Next(), 1) {
			t.Fatal("Next after the end must stay +Inf")
		}
	}
	if !math.IsInf(NewArrivals(nil, ArrivalSpec{}, testRand(1)).Next(), 1) {
		t.Error("nil curve must give no arrivals")
	}
}

func TestArrivalsNonDecreasingAndDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cc := drawCurve(t)
		spec := rapid.SampledFrom([]ArrivalSpec{{}, {Kind: "constant"}, {Kind: "gamma", CV: 0.3}, {Kind: "gamma", CV: 3}}).Draw(t, "spec")
		seed := rapid.Uint64().Draw(t, "seed")
		a := NewArrivals(cc.c, spec, testRand(seed))
		b := NewArrivals(cc.c, spec, testRand(seed))
		prev := 0.0
		for range 200 {
			x := a.Next()
			if x < prev || math.IsNaN(x) {
				t.Fatalf("arrival %v after %v", x, prev)
			}
			if y := b.Next(); y != x {
				t.Fatalf("same seed gave %v and %v", x, y)
			}
			prev = x
		}
	})
}

func TestArrivalsNextDoesNotAllocate(t *testing.T) {
	c := mustCurve(t, DemandSpec{Hourly: []float64{600, 1500, 900}, Repeat: true, Shape: "linear"}, 0)
	for _, spec := range []ArrivalSpec{{}, {Kind: "constant"}, {Kind: "gamma", CV: 2}, {Kind: "gamma", CV: 0.5}} {
		a := NewArrivals(c, spec, testRand(27))
		sink := 0.0
		if n := testing.AllocsPerRun(1000, func() { sink += a.Next() }); n != 0 {
			t.Errorf("%v: Next allocates %v times per call", spec, n)
		}
		_ = sink
	}
}

func BenchmarkArrivalsNext(b *testing.B) {
	c, _ := (&DemandSpec{Hourly: []float64{600, 1500, 900}, Repeat: true, Shape: "linear"}).BuildCurve(0)
	for _, spec := range []ArrivalSpec{{}, {Kind: "gamma", CV: 2}} {
		b.Run(spec.String(), func(b *testing.B) {
			a := NewArrivals(c, spec, testRand(1))
			b.ReportAllocs()
			sink := 0.0
			for b.Loop() {
				sink += a.Next()
			}
			_ = sink
		})
	}
}

// A Poisson process on a constant curve draws ahead with drawPoisson: the
// times, bit for bit, and the state left are draw's, at ordinary rates and
// at ones so small that the times overflow to +Inf.
func TestPoissonAheadEqualsDraw(t *testing.T) {
	for _, rate := range []float64{100, 0.37, 1e-300, 1e300, math.SmallestNonzeroFloat64} {
		fast := NewArrivals(Constant(rate), ArrivalSpec{Kind: ArrivalPoisson}, rand.New(rand.NewPCG(4, 2)))
		ref := NewArrivals(Constant(rate), ArrivalSpec{Kind: ArrivalPoisson}, rand.New(rand.NewPCG(4, 2)))
		for i := 0; i < 320*aheadLen; i++ { // whole batches: then the states match
			if x, y := fast.Next(), ref.draw(); math.Float64bits(x) != math.Float64bits(y) {
				t.Fatalf("rate %g, arrival %d: Next %v, draw %v", rate, i, x, y)
			}
		}
		if fast.s != ref.s || fast.last != ref.last || fast.started != ref.started || fast.r.Uint64() != ref.r.Uint64() {
			t.Fatalf("rate %g: the state after differs", rate)
		}
	}
}

// Ahead gives the times Next gives, in the same order, whenever it has one
// drawn, and leaves the drawing to Next when it has none.
func TestAheadIsNext(t *testing.T) {
	for _, spec := range []ArrivalSpec{{Kind: ArrivalPoisson}, {Kind: ArrivalGamma, CV: 2}, {Kind: ArrivalConstant}} {
		a := NewArrivals(Constant(5), spec, rand.New(rand.NewPCG(6, 1)))
		b := NewArrivals(Constant(5), spec, rand.New(rand.NewPCG(6, 1)))
		for i := 0; i < 5000; i++ {
			x, ok := a.Ahead()
			if !ok {
				x = a.Next()
			}
			if y := b.Next(); x != y {
				t.Fatalf("%s arrival %d: Ahead or Next %v, Next %v", spec.Kind, i, x, y)
			}
		}
	}
	if _, ok := NewArrivals(Constant(5), ArrivalSpec{Kind: ArrivalPoisson}, rand.New(rand.NewPCG(6, 1))).Ahead(); ok {
		t.Fatal("a new generator has an arrival drawn")
	}
}
