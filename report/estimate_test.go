package report

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestEstimateCoverage: over many independent experiments of n normal
// draws, the 95% t interval covers the true mean about 95% of the time.
// With n = 4 a normal (z) interval would cover only about 86%, so this
// also checks that the t quantile is used.
func TestEstimateCoverage(t *testing.T) {
	const (
		trials = 4000
		n      = 4
		mu     = 3.5
	)
	rng := rand.New(rand.NewPCG(1, 2))
	covered := 0
	xs := make([]float64, n)
	for i := 0; i < trials; i++ {
		for j := range xs {
			xs[j] = mu + 2*rng.NormFloat64()
		}
		if e := NewEstimate(xs); e.Lo <= mu && mu <= e.Hi {
			covered++
		}
	}
	checkCoverage(t, covered, trials)
}

// checkCoverage fails unless covered of trials is within four binomial
// standard deviations of 95%.
func checkCoverage(t *testing.T, covered, trials int) {
	t.Helper()
	p := float64(covered) / float64(trials)
	sd := math.Sqrt(Confidence * (1 - Confidence) / float64(trials))
	if math.Abs(p-Confidence) > 4*sd {
		t.Errorf("coverage %.3f over %d trials, want %.2f ± %.3f", p, trials, Confidence, 4*sd)
	}
	t.Logf("coverage %.3f over %d trials", p, trials)
}

func TestEstimateKnownValues(t *testing.T) {
	// Mean 2, s = 1, n = 3: t(0.975, 2) = 4.302653, half = 4.302653/√3.
	e := NewEstimate([]float64{1, 2, 3})
	half := 4.302652729749464 / math.Sqrt(3)
	if e.N != 3 || e.Mean != 2 || math.Abs(e.Lo-(2-half)) > 1e-9 || math.Abs(e.Hi-(2+half)) > 1e-9 {
		t.Errorf("estimate %+v, want 2 ± %v", e, half)
	}
	if !e.Excludes(10) || e.Excludes(2.5) {
		t.Errorf("Excludes wrong for %+v", e)
	}
	for _, xs := range [][]float64{{7}, {0.1, 0.1, 0.1}} {
		e := NewEstimate(xs)
		if e.Mean != xs[0] || e.Lo != xs[0] || e.Hi != xs[0] || e.N != len(xs) {
			t.Errorf("NewEstimate(%v) = %+v, want a zero-width interval at %v", xs, e, xs[0])
		}
		if e.Excludes(xs[0]) || e.Excludes(xs[0]+1) != (len(xs) > 1) {
			t.Errorf("Excludes wrong for %+v: a point excludes other values only from more than one replication", e)
		}
	}
	if e := NewEstimate(nil); e != (Estimate{}) {
		t.Errorf("empty: %+v", e)
	}
}

func TestPairedDiff(t *testing.T) {
	a := []float64{10, 12, 9, 14}
	if d := PairedDiff(a, a); d.Mean != 0 || d.Lo != 0 || d.Hi != 0 || d.N != 4 {
		t.Errorf("identical: %+v, want exactly 0 with zero width", d)
	}
	// b = a + 1 + small noise: pairing sees the shift although the values
	// spread far more than it.
	b := []float64{11.1, 12.9, 10.05, 15.0}
	d := PairedDiff(b, a)
	if !d.Excludes(0) || math.Abs(d.Mean-1.0125) > 1e-9 {
		t.Errorf("paired diff %+v: want mean 1.0125, excluding 0", d)
	}
	if ind := NewEstimate(b); !(ind.HalfWidth() > 5*d.HalfWidth()) {
		t.Errorf("pairing did not narrow the interval: %v vs %v", d.HalfWidth(), ind.HalfWidth())
	}
}

// TestCents: dollars to the cent with thousands separators, as the
// tables' whole dollars have them.
func TestCents(t *testing.T) {
	for v, want := range map[float64]string{1030.994: "$1,030.99", 0.475: "$0.48", 1234567.5: "$1,234,567.50", -2.5: "-$2.50", 0: "$0.00"} {
		if got := Cents(v); got != want {
			t.Errorf("Cents(%v) = %q, want %q", v, got, want)
		}
	}
}
