package workloads

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

const nSamples = 100_000

func sampleN(d Dist, seed uint64, n int) []float64 {
	r := testRand(seed)
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = d.Sample(r)
	}
	return xs
}

func TestSampleFixed(t *testing.T) {
	for _, x := range sampleN(Fixed(3), 1, 100) {
		if x != 3 {
			t.Fatalf("fixed(3) sampled %v", x)
		}
	}
}

func TestSampleUniform(t *testing.T) {
	d := Dist{Kind: "uniform", Min: 100, Max: 300}
	xs := sampleN(d, 2, nSamples)
	for _, x := range xs {
		if x < 100 || x >= 300 {
			t.Fatalf("uniform(100..300) sampled %v", x)
		}
	}
	checkMean(t, "uniform", xs, 200, 200/math.Sqrt(12))
	checkVariance(t, "uniform", xs, 200*200/12.0)
	checkKS(t, "uniform", xs, distuv.Uniform{Min: 100, Max: 300}.CDF)
}

func TestSampleExponential(t *testing.T) {
	xs := sampleN(Dist{Kind: "exponential", Mean: 30}, 3, nSamples)
	checkMean(t, "exponential", xs, 30, 30)
	checkVariance(t, "exponential", xs, 900)
	checkKS(t, "exponential", xs, distuv.Exponential{Rate: 1.0 / 30}.CDF)
}

func TestSampleLogNormalMedianP95(t *testing.T) {
	d := Dist{Kind: "lognormal", Median: 1200, P95: 4000}
	xs := sampleN(d, 4, nSamples)
	// The stated quantiles are hit: P(X <= median) = 0.5, P(X <= p95) = 0.95.
	checkFraction(t, "lognormal median", xs, 1200, 0.5)
	checkFraction(t, "lognormal p95", xs, 4000, 0.95)
	s := math.Log(4000.0/1200) / distuv.UnitNormal.Quantile(0.95)
	checkKS(t, "lognormal", xs, distuv.LogNormal{Mu: math.Log(1200), Sigma: s}.CDF)
	sd := d.MeanValue() * math.Sqrt(math.Expm1(s*s))
	checkMean(t, "lognormal", xs, d.MeanValue(), sd)
}

func TestSampleLogNormalMeanCV(t *testing.T) {
	d := Dist{Kind: "lognormal", Mean: 2, CV: 0.5}
	xs := sampleN(d, 5, nSamples)
	checkMean(t, "lognormal", xs, 2, 1)
	checkVariance(t, "lognormal", xs, 1)
}

func TestSampleGamma(t *testing.T) {
	for i, c := range []struct{ mean, cv float64 }{{5, 2}, {100, 0.3}, {1, 1}, {3, 4}} {
		d := Dist{Kind: "gamma", Mean: c.mean, CV: c.cv}
		xs := sampleN(d, 6+uint64(i), nSamples)
		sd := c.mean * c.cv
		name := d.String()
		checkMean(t, name, xs, c.mean, sd)
		checkVariance(t, name, xs, sd*sd)
		k := 1 / (c.cv * c.cv)
		checkKS(t, name, xs, distuv.Gamma{Alpha: k, Beta: k / c.mean}.CDF)
	}
}

func TestSampleEmpirical(t *testing.T) {
	values := []float64{100, 200, 400, 800}
	weights := []float64{0.5, 0.3, 0.2, 0}
	d := Dist{Kind: "empirical", Values: values, Weights: weights}
	xs := sampleN(d, 10, nSamples)
	counts := map[float64]int{}
	for _, x := range xs {
		counts[x]++
	}
	if counts[800] != 0 {
		t.Errorf("value with weight 0 was drawn %d times", counts[800])
	}
	for i, v := range values[:3] {
		p := weights[i]
		got := float64(counts[v]) / nSamples
		if se := math.Sqrt(p * (1 - p) / nSamples); math.Abs(got-p) > 4*se {
			t.Errorf("value %v drawn with frequency %.4f, want %.4f ± %.4f", v, got, p, 4*se)
		}
	}
	if len(counts) != 3 {
		t.Errorf("drew values outside the histogram: %v", counts)
	}
	// Equal weights by default.
	eq := sampleN(Dist{Kind: "empirical", Values: []float64{1, 2, 3, 4}}, 11, nSamples)
	checkMean(t, "empirical equal", eq, 2.5, math.Sqrt(1.25))
}

func TestSampleDoesNotAllocate(t *testing.T) {
	dists := []Dist{
		Fixed(3),
		{Kind: "uniform", Min: 1, Max: 2},
		{Kind: "exponential", Mean: 30},
		{Kind: "lognormal", Median: 1200, P95: 4000},
		{Kind: "lognormal", Mean: 2, CV: 0.5},
		{Kind: "gamma", Mean: 5, CV: 2},
		{Kind: "gamma", Mean: 5, CV: 0.5},
		{Kind: "empirical", Values: []float64{1, 2, 3}, Weights: []float64{1, 2, 3}},
		{Kind: "empirical", Values: []float64{1, 2, 3}},
	}
	r := testRand(12)
	sink := 0.0
	for _, d := range dists {
		if n := testing.AllocsPerRun(1000, func() { sink += d.Sample(r) }); n != 0 {
			t.Errorf("%v: Sample allocates %v times per call", d, n)
		}
	}
	_ = sink
}

func TestSampleInvalidDoesNotPanic(t *testing.T) {
	r := testRand(13)
	for _, d := range []Dist{
		{}, {Kind: "nope"},
		{Kind: "gamma"}, {Kind: "gamma", Mean: 1, CV: math.Inf(1)}, {Kind: "gamma", Mean: -1, CV: 1},
		{Kind: "lognormal"}, {Kind: "lognormal", Median: -1, P95: -2},
		{Kind: "empirical"}, {Kind: "empirical", Values: []float64{1}, Weights: []float64{0}},
		{Kind: "empirical", Values: []float64{1, 2}, Weights: []float64{1}},
	} {
		_ = d.Sample(r)
		_ = d.MeanValue()
		_ = d.String()
	}
}

func BenchmarkDistSample(b *testing.B) {
	for _, d := range []Dist{
		{Kind: "lognormal", Median: 1200, P95: 4000},
		{Kind: "gamma", Mean: 5, CV: 2},
		{Kind: "empirical", Values: []float64{1, 2, 3}, Weights: []float64{1, 2, 3}},
	} {
		b.Run(d.Kind, func(b *testing.B) {
			r := testRand(1)
			b.ReportAllocs()
			sink := 0.0
			for b.Loop() {
				sink += d.Sample(r)
			}
			_ = sink
		})
	}
}

// A Sampler draws exactly what Dist.Sample draws from the same stream, for
// every kind; a TokenSampler what TokenSpec.Sample draws.
func TestSamplerDrawsLikeSample(t *testing.T) {
	for _, d := range []Dist{
		Fixed(3), {Kind: KindUniform, Min: 1, Max: 9}, {Kind: KindExponential, Mean: 4},
		{Kind: KindLogNormal, Median: 1000, P95: 3000}, {Kind: KindLogNormal, Mean: 500, CV: 1.5},
		{Kind: KindGamma, Mean: 2, CV: 0.5}, {Kind: KindEmpirical, Values: []float64{1, 2, 3}, Weights: []float64{1, 2, 3}},
	} {
		a, b := rand.New(rand.NewPCG(7, 9)), rand.New(rand.NewPCG(7, 9))
		s := d.Sampler()
		for i := 0; i < 1000; i++ {
			if x, y := d.Sample(a), s.Sample(b); x != y {
				t.Fatalf("%s draw %d: Sample %v, Sampler %v", d.Kind, i, x, y)
			}
		}
	}
	ts := TokenSpec{Input: Dist{Kind: KindLogNormal, Median: 1000, P95: 3000}, Output: Dist{Kind: KindUniform, Min: 1, Max: 900},
		MaxTokens: 512, SharedPrefix: 100, Prefixes: 4}
	a, b := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
	s := ts.Sampler()
	for i := 0; i < 1000; i++ {
		i1, o1, p1 := ts.Sample(a)
		i2, o2, p2 := s.Sample(b)
		if i1 != i2 || o1 != o2 || p1 != p2 {
			t.Fatalf("draw %d: TokenSpec %d/%d/%d, TokenSampler %d/%d/%d", i, i1, o1, p1, i2, o2, p2)
		}
	}
}

// TokenSampler.Fill draws exactly what as many calls of TokenSpec.Sample
// draw from the same stream, for every kind of input and output (fixed
// ones, which draw nothing, among them), with and without a max_tokens
// cap, shared prefixes and several prefixes; a Sampler's count is
// roundCount of its Sample for every kind. The stream is compared after
// the draws too, so both consumed as much of it.
func TestTokenFillDrawsLikeSample(t *testing.T) {
	dists := []Dist{
		Fixed(3), Fixed(0), Fixed(2.5), Fixed(1e12), {Kind: KindUniform, Min: 1, Max: 9}, {Kind: KindExponential, Mean: 400},
		{Kind: KindLogNormal, Median: 1000, P95: 3000}, {Kind: KindLogNormal, Mean: 500, CV: 1.5}, {Kind: KindLogNormal, Median: 3, P95: 40},
		{Kind: KindGamma, Mean: 200, CV: 0.5}, {Kind: KindEmpirical, Values: []float64{1, 2, 3}, Weights: []float64{1, 2, 3}},
	}
	for _, d := range dists {
		a, b := rand.New(rand.NewPCG(3, 5)), rand.New(rand.NewPCG(3, 5))
		s := d.Sampler()
		for i := 0; i < 1000; i++ {
			if x, y := roundCount(d.Sample(a)), s.count(b); x != y {
				t.Fatalf("%s draw %d: roundCount(Sample) %v, count %v", d, i, x, y)
			}
		}
	}
	seed := uint64(0)
	for _, in := range dists {
		for _, out := range dists {
			for _, mt := range []int{0, 1, 512} {
				for _, pre := range [][2]int{{0, 0}, {100, 1}, {200, 2}, {512, 8}, {512, 16}, {1024, 20}} {
					ts := TokenSpec{Input: in, Output: out, MaxTokens: mt, SharedPrefix: pre[0], Prefixes: pre[1]}
					seed++
					a, b := rand.New(rand.NewPCG(seed, 11)), rand.New(rand.NewPCG(seed, 11))
					s := ts.Sampler()
					buf := make([]TokenDraw, 37)
					for k := 0; k < 5; k++ {
						s.Fill(b, buf)
						for i, d := range buf {
							i1, o1, p1 := ts.Sample(a)
							if int(d.In) != i1 || int(d.Out) != o1 || int(d.Prefix) != p1 {
								t.Fatalf("%s/%s/%d/%v draw %d: Sample %d/%d/%d, Fill %d/%d/%d", in, out, mt, pre, i, i1, o1, p1, d.In, d.Out, d.Prefix)
							}
						}
					}
					if a.Uint64() != b.Uint64() {
						t.Fatalf("%s/%s/%d/%v: Fill consumed the stream differently", in, out, mt, pre)
					}
				}
			}
		}
	}
}
