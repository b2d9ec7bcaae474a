package workloads

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// testRand returns a deterministic stream for a test.
func testRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// moments returns the sample mean, the unbiased sample variance and the
// fourth central sample moment of xs.
func moments(xs []float64) (mean, variance, m4 float64) {
	n := float64(len(xs))
	for _, x := range xs {
		mean += x
	}
	mean /= n
	for _, x := range xs {
		d := x - mean
		variance += d * d
		m4 += d * d * d * d
	}
	return mean, variance / (n - 1), m4 / n
}

// checkMean asserts that the sample mean of xs is within 4 standard errors
// of want, the standard error coming from the true sd.
func checkMean(t *testing.T, name string, xs []float64, want, sd float64) {
	t.Helper()
	mean, _, _ := moments(xs)
	se := sd / math.Sqrt(float64(len(xs)))
	if math.Abs(mean-want) > 4*se {
		t.Errorf("%s: sample mean %.6g, want %.6g ± %.3g (4 se)", name, mean, want, 4*se)
	}
}

// checkVariance asserts that the sample variance of xs is within 4
// standard errors of want; the standard error of a sample variance is
// sqrt((m4 − σ⁴)/n), estimated from the sample's fourth moment.
func checkVariance(t *testing.T, name string, xs []float64, want float64) {
	t.Helper()
	_, v, m4 := moments(xs)
	se := math.Sqrt((m4 - v*v) / float64(len(xs)))
	if math.Abs(v-want) > 4*se {
		t.Errorf("%s: sample variance %.6g, want %.6g ± %.3g (4 se)", name, v, want, 4*se)
	}
}

// checkKS runs a one-sample Kolmogorov–Smirnov test of xs against cdf at
// significance 0.001 (critical value 1.95/√n).
func checkKS(t *testing.T, name string, xs []float64, cdf func(float64) float64) {
	t.Helper()
	s := slices.Clone(xs)
	slices.Sort(s)
	n := float64(len(s))
	d := 0.0
	for i, x := range s {
		f := cdf(x)
		d = math.Max(d, math.Max(f-float64(i)/n, float64(i+1)/n-f))
	}
	if crit := 1.95 / math.Sqrt(n); d > crit {
		t.Errorf("%s: KS distance %.4g exceeds %.4g", name, d, crit)
	}
}

// checkFraction asserts that the fraction of xs at or below x is within 4
// binomial standard errors of p.
func checkFraction(t *testing.T, name string, xs []float64, x, p float64) {
	t.Helper()
	k := 0
	for _, v := range xs {
		if v <= x {
			k++
		}
	}
	n := float64(len(xs))
	got := float64(k) / n
	if se := math.Sqrt(p * (1 - p) / n); math.Abs(got-p) > 4*se {
		t.Errorf("%s: fraction <= %v is %.5f, want %.5f ± %.5f", name, x, got, p, 4*se)
	}
}
