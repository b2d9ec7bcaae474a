package report

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Confidence is the level of every interval in a summary: 95%, two-sided.
const Confidence = 0.95

// NewEstimate is the mean of xs, one value per replication, with its
// two-sided 95% confidence interval from Student's t with len(xs)−1
// degrees of freedom: mean ± t(0.975, n−1)·s/√n. The replications must be
// independent (distinct Config.Replication). With one value, or values that
// are all equal, the interval has zero width; with none, the estimate is
// zero with N = 0.
func NewEstimate(xs []float64) Estimate {
	n := len(xs)
	if n == 0 {
		return Estimate{}
	}
	if allEqual(xs) {
		return Estimate{Mean: xs[0], Lo: xs[0], Hi: xs[0], N: n}
	}
	mean, variance := stat.MeanVariance(xs, nil)
	half := tQuantile(n-1) * math.Sqrt(variance/float64(n))
	return Estimate{Mean: mean, Lo: mean - half, Hi: mean + half, N: n}
}

// PairedDiff estimates the mean of a − b from values paired by replication
// (a[i] and b[i] ran with the same random numbers), with the t interval of
// the differences. Pairing removes the noise both share, so the interval
// is narrower than that of two independent means. a and b must have the
// same length.
func PairedDiff(a, b []float64) Estimate {
	d := make([]float64, min(len(a), len(b)))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	return NewEstimate(d)
}

// Excludes reports whether the interval leaves out v: the difference from
// v is significant at the 5% level.
func (e Estimate) Excludes(v float64) bool { return e.N > 1 && (v < e.Lo || v > e.Hi) }

// HalfWidth is half the interval's width, the "±" of the mean.
func (e Estimate) HalfWidth() float64 { return (e.Hi - e.Lo) / 2 }

// tQuantile is the two-sided critical value of Student's t at Confidence
// with df degrees of freedom.
func tQuantile(df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(1 - (1-Confidence)/2)
}

func allEqual(xs []float64) bool {
	for _, x := range xs[1:] {
		if x != xs[0] {
			return false
		}
	}
	return true
}
