package htmlreport

import (
	"math"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// served returns a copy of r whose series end at the simulated time it
// covers: an interrupted run (a live session ended early) keeps only the
// intervals that began before it ended, as its other figures do. It
// returns r itself when the run covered its whole duration.
func served(r *model.Results) *model.Results {
	covered := report.Covered(r)
	n := 0
	for n < len(r.Series.StartS) && r.Series.StartS[n] < covered {
		n++
	}
	if covered >= r.DurationS || n == len(r.Series.StartS) {
		return r
	}
	c := *r
	s := r.Series
	c.Series = model.Series{IntervalS: s.IntervalS, StartS: cut(s.StartS, n), Clock: cut(s.Clock, n),
		Offered: cut(s.Offered, n), Completed: cut(s.Completed, n), Failed: cut(s.Failed, n), Retries: cut(s.Retries, n),
		InFlight: cut(s.InFlight, n), QueueLength: cut(s.QueueLength, n),
		TTFTP95: cut(s.TTFTP95, n), TTFTP50: cut(s.TTFTP50, n), QueueWaitP95: cut(s.QueueWaitP95, n),
		InputTokens: cut(s.InputTokens, n), OutputTokens: cut(s.OutputTokens, n), CostUSD: cut(s.CostUSD, n)}
	if s.Rejected != nil {
		c.Series.Rejected = make(map[string][]int64, len(s.Rejected))
		for reason, v := range s.Rejected {
			c.Series.Rejected[reason] = cut(v, n)
		}
	}
	c.Backends = make([]model.BackendResult, len(r.Backends))
	copy(c.Backends, r.Backends)
	for i := range c.Backends {
		cl := c.Backends[i].Cluster
		if cl == nil {
			continue
		}
		cc := *cl
		cs := &cl.Series
		cc.Series = model.ClusterSeries{Batch: cut(cs.Batch, n), BatchMax: cut(cs.BatchMax, n), KVUse: cut(cs.KVUse, n),
			Waiting: cut(cs.Waiting, n), Preemptions: cut(cs.Preemptions, n), Utilization: cut(cs.Utilization, n),
			CostUSD: cut(cs.CostUSD, n), Replicas: cut(cs.Replicas, n), OutputTokensPerGPUSecond: cut(cs.OutputTokensPerGPUSecond, n),
			CostPerHour: cut(cs.CostPerHour, n)}
		for _, rs := range cs.PerReplica {
			rs.Batch, rs.KVUse, rs.Waiting = cut(rs.Batch, n), cut(rs.KVUse, n), cut(rs.Waiting, n)
			cc.Series.PerReplica = append(cc.Series.PerReplica, rs)
		}
		if a := cl.Autoscale; a != nil {
			ac := *a
			ac.Ready, ac.Recommended = cut(a.Ready, n), cut(a.Recommended, n)
			cc.Autoscale = &ac
		}
		c.Backends[i].Cluster = &cc
	}
	c.Routes = make([]model.RouteResult, len(r.Routes))
	copy(c.Routes, r.Routes)
	for i := range c.Routes {
		rt := &c.Routes[i]
		rt.ScaleUpSpillSeries, rt.ScaleUpSpillCostSeries = cut(rt.ScaleUpSpillSeries, n), cut(rt.ScaleUpSpillCostSeries, n)
	}
	return &c
}

// cut keeps v's first n values.
func cut[T any](v []T, n int) []T {
	if len(v) > n {
		return v[:n:n]
	}
	return v
}

// maxPoints bounds the points of a time-series chart; longer series are
// merged into coarser intervals so the page stays small and responsive.
const maxPoints = 1500

// coarsen returns a copy of r whose series have at most maxPoints
// intervals, merging k consecutive intervals: counts and costs are summed,
// time-weighted gauges averaged by width, maxima kept, and per-interval
// percentiles replaced by the largest of the merged intervals (an upper
// bound). It returns r itself, and k = 1, when the series are short
// enough. Only the series are changed; summaries are shared.
func coarsen(r *model.Results) (*model.Results, int) {
	n := len(r.Series.StartS)
	if n <= maxPoints {
		return r, 1
	}
	k := int(math.Ceil(float64(n) / maxPoints))
	c := *r
	s := &r.Series
	w := make([]float64, n) // interval widths, the last may be partial
	for i, start := range s.StartS {
		w[i] = math.Min(s.IntervalS, math.Max(report.Covered(r)-start, 0))
	}
	c.Series = model.Series{IntervalS: s.IntervalS * float64(k), StartS: pick(s.StartS, k), Clock: pick(s.Clock, k),
		Offered: sums(s.Offered, k), Completed: sums(s.Completed, k), Failed: sums(s.Failed, k), Retries: sums(s.Retries, k),
		InFlight: means(s.InFlight, w, k), QueueLength: means(s.QueueLength, w, k),
		TTFTP95: maxes(s.TTFTP95, k), TTFTP50: maxes(s.TTFTP50, k), QueueWaitP95: maxes(s.QueueWaitP95, k),
		InputTokens: sums(s.InputTokens, k), OutputTokens: sums(s.OutputTokens, k), CostUSD: fsums(s.CostUSD, k),
		Rejected: map[string][]int64{}}
	for reason, v := range s.Rejected {
		c.Series.Rejected[reason] = sums(v, k)
	}
	c.Backends = make([]model.BackendResult, len(r.Backends))
	copy(c.Backends, r.Backends)
	for i := range c.Backends {
		cl := c.Backends[i].Cluster
		if cl == nil {
			continue
		}
		cc := *cl
		cs := &cl.Series
		cc.Series = model.ClusterSeries{Batch: means(cs.Batch, w, k), BatchMax: maxes(cs.BatchMax, k), KVUse: means(cs.KVUse, w, k),
			Waiting: means(cs.Waiting, w, k), Preemptions: sums(cs.Preemptions, k), Utilization: means(cs.Utilization, w, k),
			CostUSD: fsums(cs.CostUSD, k), Replicas: means(cs.Replicas, w, k), CostPerHour: means(cs.CostPerHour, w, k)}
		if a := cl.Autoscale; a != nil {
			ac := *a
			ac.Ready, ac.Recommended = means(a.Ready, w, k), lasts(a.Recommended, k)
			cc.Autoscale = &ac
		}
		c.Backends[i].Cluster = &cc
	}
	c.Routes = make([]model.RouteResult, len(r.Routes))
	copy(c.Routes, r.Routes)
	for i := range c.Routes {
		if rt := &c.Routes[i]; rt.ScaleUpSpillSeries != nil {
			rt.ScaleUpSpillSeries, rt.ScaleUpSpillCostSeries = sums(rt.ScaleUpSpillSeries, k), fsums(rt.ScaleUpSpillCostSeries, k)
		}
	}
	return &c, k
}

// lasts keeps the last of each run of k values (a value as of the end of
// its interval).
func lasts(v []float64, k int) []float64 {
	out := make([]float64, (len(v)+k-1)/k)
	for i, x := range v {
		out[i/k] = x
	}
	return out
}

// pick keeps every k-th element, from the first.
func pick[T any](v []T, k int) []T {
	out := make([]T, 0, (len(v)+k-1)/k)
	for i := 0; i < len(v); i += k {
		out = append(out, v[i])
	}
	return out
}

// sums adds up each run of k counts.
func sums(v []int64, k int) []int64 {
	out := make([]int64, (len(v)+k-1)/k)
	for i, x := range v {
		out[i/k] += x
	}
	return out
}

// fsums adds up each run of k values.
func fsums(v []float64, k int) []float64 {
	out := make([]float64, (len(v)+k-1)/k)
	for i, x := range v {
		out[i/k] += x
	}
	return out
}

// maxes keeps the largest of each run of k values.
func maxes(v []float64, k int) []float64 {
	out := make([]float64, (len(v)+k-1)/k)
	for i, x := range v {
		out[i/k] = math.Max(out[i/k], x)
	}
	return out
}

// means averages each run of k values weighted by the intervals' widths.
func means(v, w []float64, k int) []float64 {
	out := make([]float64, (len(v)+k-1)/k)
	tot := make([]float64, len(out))
	for i, x := range v {
		if i < len(w) {
			out[i/k] += x * w[i]
			tot[i/k] += w[i]
		}
	}
	for j := range out {
		if tot[j] > 0 {
			out[j] /= tot[j]
		}
	}
	return out
}
