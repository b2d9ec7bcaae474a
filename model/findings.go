package model

import (
	"math"

	"github.com/headroom-sim/headroom/sim"
)

// Findings are what a planner reads first, as data: which limit bound
// first and when, which refused the most, the tightest when none refused,
// what bound each GPU cluster, the backlog, the worst queue wait and the
// busiest hour's SLO results. Times are seconds since t = 0. The report
// says them in words (report.Verdict); the model writes no sentences.
type Findings struct {
	// FirstToBind is the limit that refused first; nil when none refused.
	FirstToBind *LimitRef `json:"first_to_bind,omitempty"`
	// MostRefused is the limit that refused the most attempts (ties: the
	// first in backend order); nil when none refused.
	MostRefused *LimitRef `json:"most_refused,omitempty"`
	// Tightest is the limit with the highest peak use; nil without limits.
	Tightest *LimitRef `json:"tightest,omitempty"`
	// Clusters says what limited each GPU cluster, in backend order.
	Clusters []ClusterFinding `json:"clusters,omitempty"`
	// Backlog is the longest time-weighted queue, when it reached one
	// request; nil otherwise.
	Backlog *Backlog `json:"backlog,omitempty"`
	// WorstQueueWait is the arrival interval with the highest queue-wait
	// p95, when that p95 exceeds WorstQueueWaitMinS; nil otherwise.
	WorstQueueWait *IntervalValue `json:"worst_queue_wait,omitempty"`
	// PeakWindow is the busiest hour; nil when the run is not longer than
	// one.
	PeakWindow *PeakWindow `json:"peak_window,omitempty"`
}

// WorstQueueWaitMinS is the queue-wait p95 above which an interval is
// named in Findings.WorstQueueWait.
const WorstQueueWaitMinS = 1.0

// PeakWindowS is the length of Findings.PeakWindow, in seconds (at least
// one interval).
const PeakWindowS = 3600

// LimitRef names one limit of a backend: Backends[i].Limits[j] with that
// backend name, scope and dimension.
type LimitRef struct {
	Backend   string `json:"backend"`
	Scope     string `json:"scope"`
	Dimension string `json:"dimension"`
}

// ClusterFinding is what limited one GPU cluster.
type ClusterFinding struct {
	Backend string `json:"backend"`
	// Bound is "kv_memory" when sequences were preempted (KV memory ran
	// out), "batch" when the batch reached max_num_seqs with the replicas
	// busy more than 95% of the time (throughput has plateaued), "compute"
	// when the replicas ran iterations at least 90% of the time, and ""
	// when the cluster had room.
	Bound string `json:"bound"`
}

// Backlog is the peak of the time-weighted queue and when it cleared.
type Backlog struct {
	// Peak is the largest interval mean of waiting requests.
	Peak float64 `json:"peak"`
	// PeakIntervalS starts the interval where it peaks.
	PeakIntervalS float64 `json:"peak_interval_s"`
	// ClearedS starts the first later interval whose mean is below half a
	// request; -1 when it never cleared within the run.
	ClearedS float64 `json:"cleared_s"`
}

// IntervalValue is one interval's value of a series.
type IntervalValue struct {
	IntervalS float64 `json:"interval_s"`
	Value     float64 `json:"value"`
}

// PeakWindow is the hour (PeakWindowS, whole intervals) in which the most
// requests arrived, and what happened to the requests that arrived in it:
// the SLO results of the peak beside the whole run's Summary.
type PeakWindow struct {
	StartS    float64 `json:"start_s"`
	EndS      float64 `json:"end_s"`
	Offered   int64   `json:"offered"`
	Completed int64   `json:"completed"`
	Failed    int64   `json:"failed"`
	// Good counts completed requests meeting every SLO of their workload;
	// SLOAttainment is good / (completed + failed), as in Summary.
	Good          int64   `json:"good"`
	SLOAttainment float64 `json:"slo_attainment"`
	// TTFT and QueueWait are the distributions of its completed requests.
	TTFT      Quantiles `json:"ttft_s"`
	QueueWait Quantiles `json:"queue_wait_s"`
}

// Cluster bounds (ClusterFinding.Bound).
const (
	BoundKVMemory = "kv_memory"
	BoundBatch    = "batch"
	BoundCompute  = "compute"
)

// findings derives the findings from the assembled results and the
// per-arrival-interval series.
func (s *Sim) findings(r *Results) Findings {
	f := limitFindings(r)
	for _, b := range r.Backends {
		if c := b.Cluster; c != nil {
			f.Clusters = append(f.Clusters, ClusterFinding{Backend: b.Name, Bound: clusterBound(c)})
		}
	}
	f.Backlog = backlogOf(&r.Series)
	worst, at := 0.0, -1
	for i, v := range r.Series.QueueWaitP95 {
		if v > worst {
			worst, at = v, i
		}
	}
	if at >= 0 && worst > WorstQueueWaitMinS {
		f.WorstQueueWait = &IntervalValue{IntervalS: r.Series.StartS[at], Value: worst}
	}
	f.PeakWindow = s.peakWindow()
	return f
}

// limitFindings finds the first limit to refuse, the one that refused the
// most and the tightest (highest peak use).
func limitFindings(r *Results) Findings {
	var f Findings
	var first, most, tight *LimitResult
	for i := range r.Backends {
		b := &r.Backends[i]
		for j := range b.Limits {
			l := &b.Limits[j]
			ref := &LimitRef{Backend: b.Name, Scope: l.Scope, Dimension: l.Dimension}
			if l.Rejected > 0 && l.FirstRejectS >= 0 && (first == nil || l.FirstRejectS < first.FirstRejectS) {
				first, f.FirstToBind = l, ref
			}
			if l.Rejected > 0 && (most == nil || l.Rejected > most.Rejected) {
				most, f.MostRefused = l, ref
			}
			if tight == nil || l.PeakUse > tight.PeakUse {
				tight, f.Tightest = l, ref
			}
		}
	}
	return f
}

// clusterBound says what limited a cluster (ClusterFinding.Bound).
func clusterBound(c *ClusterResult) string {
	switch {
	case c.Preemptions > 0:
		return BoundKVMemory
	case c.MaxNumSeqs > 0 && c.PeakBatch >= float64(c.MaxNumSeqs) && c.Utilization > 0.95:
		return BoundBatch
	case c.Utilization >= 0.9:
		return BoundCompute
	}
	return ""
}

// backlogOf finds the queue's peak and when it cleared.
func backlogOf(se *Series) *Backlog {
	peak, at := 0.0, -1
	for i, v := range se.QueueLength {
		if v > peak {
			peak, at = v, i
		}
	}
	if at < 0 || peak < 1 {
		return nil
	}
	b := &Backlog{Peak: peak, PeakIntervalS: se.StartS[at], ClearedS: -1}
	for i := at + 1; i < len(se.QueueLength); i++ {
		if se.QueueLength[i] < 0.5 {
			b.ClearedS = se.StartS[i]
			break
		}
	}
	return b
}

// peakWindow finds the PeakWindowS of whole intervals with the most
// arrivals (the earliest of equals) and sums what happened to them.
func (s *Sim) peakWindow() *PeakWindow {
	ss, n := s.ser, s.nInt
	k := int(math.Ceil(PeakWindowS/s.cfg.Interval - 1e-9))
	k = max(k, 1)
	if k >= n {
		return nil
	}
	var sum, best int64
	at := 0
	for i := 0; i < n; i++ {
		sum += ss.offered[i]
		if i >= k {
			sum -= ss.offered[i-k]
		}
		if i >= k-1 && sum > best {
			best, at = sum, i-k+1
		}
	}
	if best == 0 {
		return nil
	}
	w := &PeakWindow{StartS: float64(at) * s.cfg.Interval, EndS: math.Min(float64(at+k)*s.cfg.Interval, s.cfg.Duration)}
	ttft, qwait := sim.NewSketch(), sim.NewSketch()
	for i := at; i < at+k; i++ {
		w.Offered += ss.offered[i]
		w.Failed += ss.arrFailed[i]
		w.Good += ss.arrGood[i]
		ttft.Merge(ss.ttft[i])
		qwait.Merge(ss.qwait[i])
	}
	w.TTFT, w.QueueWait = quantiles(ttft), quantiles(qwait)
	w.Completed = w.TTFT.Count
	if ended := w.Completed + w.Failed; ended > 0 {
		w.SLOAttainment = float64(w.Good) / float64(ended)
	}
	return w
}

// curveShares are the shares of requests at which LatencyCurves give a
// latency: the minimum (0), every decile, the tail and the maximum (1).
var curveShares = [...]float64{0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999, 1}

// LatencyCurves are a workload's latency distributions as quantile
// curves: entry i is the latency at or below which CurveShares[i] of its
// completed requests fall (1% relative accuracy, exact at 0 and 1): the
// minimum, 1%, 5%, every decile, 95%, 97.5%, 99%, 99.5%, 99.9% and the
// maximum.
type LatencyCurves struct {
	Shares []float64 `json:"shares"`
	TTFT   []float64 `json:"ttft_s"`
	E2E    []float64 `json:"e2e_s"`
}

// latencyCurves reads a workload's curves off its sketches; nil when no
// request completed.
func latencyCurves(g *groupStats) *LatencyCurves {
	if g.ttft.Count() == 0 {
		return nil
	}
	n := len(curveShares)
	c := &LatencyCurves{Shares: append([]float64(nil), curveShares[:]...), TTFT: make([]float64, n), E2E: make([]float64, n)}
	for i, q := range curveShares {
		c.TTFT[i], c.E2E[i] = g.ttft.Quantile(q), g.e2e.Quantile(q)
	}
	return c
}
