package perf

import (
	"fmt"
	"math"
)

// Table is a measured step-time curve: Times[i] seconds at batch size
// Batches[i], linearly interpolated in between; beyond the last point it
// extends the last segment's slope; below the first it holds the first
// value. PrefillPerToken and PerContextToken (seconds) add prefill and
// attention cost.
//
// A Table must pass [Table.Validate] before use; StepTime does not check.
type Table struct {
	// Batches are batch sizes (sequences per step), > 0, strictly increasing.
	Batches []float64
	// Times are step durations in seconds at Batches, > 0, non-decreasing.
	Times []float64
	// PrefillPerToken is seconds added per prompt token in the step.
	PrefillPerToken float64
	// PerContextToken is seconds added per KV token attention reads.
	PerContextToken float64
}

// Validate checks that there is at least one point, that batch sizes are
// positive and strictly increasing, that times are positive and
// non-decreasing, and that the per-token costs are finite and >= 0. Errors
// name the offending index.
func (t *Table) Validate() error {
	if len(t.Batches) == 0 {
		return fmt.Errorf("perf: table has no points")
	}
	if len(t.Batches) != len(t.Times) {
		return fmt.Errorf("perf: table has %d batch sizes but %d times", len(t.Batches), len(t.Times))
	}
	for i, b := range t.Batches {
		tm := t.Times[i]
		switch {
		case !(b > 0) || math.IsInf(b, 1):
			return fmt.Errorf("perf: table point %d: batch size %g must be a finite number > 0", i, b)
		case !(tm > 0) || math.IsInf(tm, 1):
			return fmt.Errorf("perf: table point %d: time %gs must be a finite number > 0", i, tm)
		case i > 0 && !(b > t.Batches[i-1]):
			return fmt.Errorf("perf: table point %d: batch sizes not strictly increasing: batch %g follows batch %g", i, b, t.Batches[i-1])
		case i > 0 && tm < t.Times[i-1]:
			return fmt.Errorf("perf: table point %d: not monotone: batch %g takes %s but batch %g takes %s",
				i, b, fmtSeconds(tm), t.Batches[i-1], fmtSeconds(t.Times[i-1]))
		}
	}
	if !(t.PrefillPerToken >= 0) || math.IsInf(t.PrefillPerToken, 1) {
		return fmt.Errorf("perf: table PrefillPerToken %g must be a finite number >= 0", t.PrefillPerToken)
	}
	if !(t.PerContextToken >= 0) || math.IsInf(t.PerContextToken, 1) {
		return fmt.Errorf("perf: table PerContextToken %g must be a finite number >= 0", t.PerContextToken)
	}
	return nil
}

// fmtSeconds prints a duration in the most readable unit ("120ms", "1.5s").
func fmtSeconds(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%.4gms", s*1e3)
	}
	return fmt.Sprintf("%.4gs", s)
}

// Interp is the table's curve at batch size x: linear between points, the
// last segment's slope beyond the last point, the first time below the
// first point.
func (t *Table) Interp(x float64) float64 {
	n := len(t.Batches)
	if n == 0 {
		return 0
	}
	if x <= t.Batches[0] || n == 1 {
		return t.Times[0]
	}
	// First index with Batches[i] >= x, or n.
	lo, hi := 0, n
	for lo < hi {
		mid := (lo + hi) / 2
		if t.Batches[mid] < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	i := lo
	if i == n {
		i = n - 1 // extrapolate along the last segment
	}
	x0, x1 := t.Batches[i-1], t.Batches[i]
	y0, y1 := t.Times[i-1], t.Times[i]
	if x == x1 {
		return y1
	}
	return y0 + (y1-y0)*(x-x0)/(x1-x0)
}

// StepTime is Interp(Decode + PrefillSeqs) + PrefillPerToken × Prefill +
// PerContextToken × Context, or 0 for an empty batch.
func (t *Table) StepTime(b Batch) float64 {
	if b.empty() {
		return 0
	}
	seqs := b.Seqs()
	if seqs < 1 {
		seqs = 1
	}
	return t.Interp(float64(seqs)) + t.PrefillPerToken*float64(max(b.Prefill, 0)) + t.PerContextToken*math.Max(b.Context, 0)
}

// DecodeSpan fills dts[j] with StepTime(Batch{Decode: d, Context: ctx0 +
// float64(j*d)}), bit for bit, interpolating the curve once.
func (t *Table) DecodeSpan(d int, ctx0 float64, dts []float64) {
	if d <= 0 {
		clear(dts)
		return
	}
	base := t.Interp(float64(d)) + t.PrefillPerToken*float64(0)
	for j := range dts {
		dts[j] = base + t.PerContextToken*math.Max(ctx0+float64(j*d), 0)
	}
}
