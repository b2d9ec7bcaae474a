package workloads_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/headroom-sim/headroom/workloads"
)

// TestMedianValue: each kind's median splits 20,000 draws of the distribution's
// own sampler in half (within 4 standard errors), and a gamma of cv 1 against
// the exponential's mean × ln 2.
func TestMedianValue(t *testing.T) {
	for _, d := range []workloads.Dist{
		workloads.Fixed(300),
		{Kind: workloads.KindUniform, Min: 100, Max: 500},
		{Kind: workloads.KindExponential, Mean: 400},
		{Kind: workloads.KindLogNormal, Median: 2500, P95: 6000},
		{Kind: workloads.KindLogNormal, Mean: 2500, CV: 1.5},
		{Kind: workloads.KindGamma, Mean: 800, CV: 0.5},
		{Kind: workloads.KindGamma, Mean: 800, CV: 3},
		{Kind: workloads.KindEmpirical, Values: []float64{10, 20, 30, 40}, Weights: []float64{1, 1, 5, 1}},
	} {
		m, ok := d.MedianValue()
		if !ok {
			t.Fatalf("%v: no median", d)
		}
		r := rand.New(rand.NewPCG(1, 2))
		const n = 20000
		below, atOrBelow := 0, 0
		for range n {
			switch x := d.Sample(r); {
			case x < m:
				below++
				atOrBelow++
			case x == m:
				atOrBelow++
			}
		}
		// Half the draws on each side, within 4 standard errors (sqrt(1/4n)).
		tol := 4 * math.Sqrt(0.25/n)
		if float64(below)/n > 0.5+tol || float64(atOrBelow)/n < 0.5-tol {
			t.Errorf("%v: median %g, but %d of %d draws are below it and %d at or below", d, m, below, n, atOrBelow)
		}
	}
	g, _ := workloads.Dist{Kind: workloads.KindGamma, Mean: 400, CV: 1}.MedianValue()
	if want := 400 * math.Ln2; math.Abs(g-want) > 1e-6*want {
		t.Errorf("gamma of cv 1: %g, want %g", g, want)
	}
}
