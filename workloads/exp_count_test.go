package workloads

import (
	"math"
	"math/rand/v2"
	"testing"
)

// tableExp is within 1e-14 of math.Exp over its range: far inside the
// slack expCount allows it (1e-12).
func TestTableExpAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	check := func(x float64) {
		if d := math.Abs(tableExp(x)/math.Exp(x) - 1); d > worst {
			worst = d
		}
	}
	for i := 0; i < 2_000_000; i++ {
		check(-40 + 62*r.Float64())
	}
	for k := -3700; k <= 2000; k++ { // the table's knots and between them
		x := float64(k) * math.Ln2 / 64
		check(x)
		check(math.Nextafter(x, 30))
		check(x + math.Ln2/128)
	}
	if worst > 1e-14 {
		t.Fatalf("tableExp is %g off math.Exp", worst)
	}
}

// expCount gives roundCount(math.Exp(x)) exactly: on random draws, at the
// logarithms of half-integers (where a count changes) and ulps around
// them, and out of the table's range.
func TestExpCountEqualsRoundedExp(t *testing.T) {
	same := func(x float64) {
		t.Helper()
		if got, want := expCount(x), roundCount(math.Exp(x)); got != want {
			t.Fatalf("expCount(%v) = %d, roundCount(math.Exp) = %d", x, got, want)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 2_000_000; i++ {
		same(r.NormFloat64()*3 + 6)
		same(-45 + 70*r.Float64())
	}
	for n := 0; n < 200_000; n++ {
		x := math.Log(float64(n) + 0.5)
		for d := -4; d <= 4; d++ {
			y := x
			for j := 0; j < abs(d); j++ {
				y = math.Nextafter(y, float64(d)*math.Inf(1))
			}
			same(y)
		}
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -746, -40, math.Nextafter(-40, 0), 0, 21.99, 22, 100,
		math.Log(maxTokens), math.Log(maxTokens - 0.5), math.Nextafter(math.Log(maxTokens-0.5), 0)} {
		same(x)
	}
}

func abs(d int) int { return max(d, -d) }

// The token sampler's draws are those of TokenSpec.Sample, which rounds
// math.Exp's values.
func TestTokenSamplerCountsLikeSpec(t *testing.T) {
	spec := TokenSpec{Input: Dist{Kind: KindLogNormal, Median: 1000, P95: 3000}, Output: Dist{Kind: KindLogNormal, Median: 3, P95: 40},
		SharedPrefix: 512, Prefixes: 8, MaxTokens: 1024}
	ts := spec.Sampler()
	a, b := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 500_000; i++ {
		i1, o1, p1 := spec.Sample(a)
		i2, o2, p2 := ts.Sample(b)
		if i1 != i2 || o1 != o2 || p1 != p2 {
			t.Fatalf("draw %d: spec (%d, %d, %d), sampler (%d, %d, %d)", i, i1, o1, p1, i2, o2, p2)
		}
	}
}
