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

// tableExp's 2^(k>>6) read from exp2Int is, bit for bit, the power built
// from its exponent bits as tableExp did before (the reference below), so
// its values are unchanged.
func TestTableExpEqualsBitsPower(t *testing.T) {
	ref := func(x float64) float64 {
		tt := x*invLn2x64 + roundMagic
		k := int64(math.Float64bits(tt)) << 32 >> 32
		kf := tt - roundMagic
		r := (x - kf*ln2By64Hi) - kf*ln2By64Lo
		p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120)))))
		return exp2Frac[k&63] * p * math.Float64frombits(uint64(k>>6+1023)<<52)
	}
	same := func(x float64) {
		t.Helper()
		if got, want := tableExp(x), ref(x); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("tableExp(%v) = %v, the reference %v", x, got, want)
		}
	}
	r := rand.New(rand.NewPCG(8, 9))
	for i := 0; i < 2_000_000; i++ {
		same(-40 + 62*r.Float64())
	}
	for k := -3700; k <= 2000; k++ {
		x := float64(k) * math.Ln2 / 64
		same(x)
		same(math.Nextafter(x, 30))
		same(math.Nextafter(x, -50))
		same(x + math.Ln2/128)
	}
	for _, x := range []float64{math.Nextafter(-40, 0), math.Nextafter(22, 0), 0} {
		same(x)
	}
}
