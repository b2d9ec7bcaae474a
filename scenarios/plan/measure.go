package plan

import (
	"math"
	"sort"
	"strconv"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// sample is what one replication of one candidate measured: each
// constraint's value (NaN when nothing was measured) and the start of its
// worst window (-1 for the whole run), and the variable cost; and the
// run's summary (a copy: the full results are not kept), for the winner's
// report.
type sample struct {
	vals    []float64
	at      []float64
	cost    float64
	main    float64 // the main latency figure
	summary *model.Summary
	peak    *model.PeakWindow // the busiest hour (a copy), or nil
	// bottleneck is what ran out, in words (the first replication's only).
	bottleneck string
	// overload, when not nil, says the replication stopped because its
	// backlog passed the in-flight bound; nothing else was measured.
	overload *model.TooManyInFlight
}

// measure reads every constraint off one replication's results.
func (pr *Problem) measure(r *model.Results, fixed float64) sample {
	s := sample{vals: make([]float64, len(pr.Cons)), at: make([]float64, len(pr.Cons)), cost: r.Summary.Cost.Total + fixed}
	minReq := int64(pr.Settings.WindowRequests)
	for i, c := range pr.Cons {
		v, at := math.NaN(), -1.0
		switch c.Kind {
		case "slo":
			g := r.Workloads[c.wl]
			if !c.Window {
				if den := g.Summary.Requests.Completed + g.Summary.Requests.Failed; den > 0 {
					v = float64(g.Summary.Goodput.Good) / float64(den)
				}
				break
			}
			for _, w := range g.Windows {
				den := w.Completed + w.Failed
				if den < max(minReq, 1) {
					continue
				}
				if a := float64(w.Good) / float64(den); math.IsNaN(v) || a < v {
					v, at = a, w.StartS
				}
			}
		case "percentile":
			g := r.Workloads[c.wl]
			if !c.Window {
				if q := latency(g.Summary.Latency, c.Metric); q.Count > 0 {
					v = pickStat(q, c)
				}
				break
			}
			for _, w := range g.Windows {
				q := windowLatency(w, c.Metric)
				if q.Count < max(minReq, 1) {
					continue
				}
				if x := pickStat(q, c); math.IsNaN(v) || x > v {
					v, at = x, w.StartS
				}
			}
		case "failed", "429":
			if !c.Window {
				if c.Kind == "failed" {
					if n := r.Summary.Requests.Offered; n > 0 {
						v = float64(r.Summary.Requests.Failed) / float64(n)
					}
				} else if n := r.Summary.Attempts.Total; n > 0 {
					var x int64
					for k, m := range r.Summary.Attempts.Rejected {
						if model.Status429(k) {
							x += m
						}
					}
					v = float64(x) / float64(n)
				}
				break
			}
			nw := 0
			for _, g := range r.Workloads {
				nw = max(nw, len(g.Windows))
			}
			for j := 0; j < nw; j++ {
				var num, den int64
				for _, g := range r.Workloads {
					if j >= len(g.Windows) {
						continue
					}
					w := g.Windows[j]
					if c.Kind == "failed" {
						num, den = num+w.Failed, den+w.Offered
					} else {
						num, den = num+w.Refused429, den+w.Attempts
					}
				}
				if den < max(minReq, 1) {
					continue
				}
				if x := float64(num) / float64(den); math.IsNaN(v) || x > v {
					v, at = x, float64(j)*pr.Settings.WindowS
				}
			}
		case "budget":
			v = s.cost
		}
		s.vals[i], s.at[i] = v, at
	}
	s.main = pr.mainLatency(r)
	sum := r.Summary
	s.summary = &sum
	if p := r.Findings.PeakWindow; p != nil {
		pk := *p
		s.peak = &pk
	}
	return s
}

func latency(l model.LatencySet, metric string) model.Quantiles {
	switch metric {
	case "e2e":
		return l.E2E
	case "tpot":
		return l.TPOT
	case "queue_wait":
		return l.QueueWait
	}
	return l.TTFT
}

func windowLatency(w model.WindowResult, metric string) model.Quantiles {
	return latency(model.LatencySet{TTFT: w.TTFT, E2E: w.E2E, TPOT: w.TPOT, QueueWait: w.QueueWait}, metric)
}

// pickStat is the target's statistic of q: its percentile or the mean.
func pickStat(q model.Quantiles, c Constraint) float64 {
	if c.Mean {
		return q.Mean
	}
	return pick(q, c.Percentile)
}

func pick(q model.Quantiles, pct float64) float64 {
	switch pct {
	case 50:
		return q.P50
	case 90:
		return q.P90
	case 99:
		return q.P99
	}
	return q.P95
}

// mainLatency is the figure the cost-latency chart plots: the first
// percentile target in its worst window, else the first workload's p95
// TTFT in its worst window.
func (pr *Problem) mainLatency(r *model.Results) float64 {
	con := Constraint{ConstraintInfo: report.ConstraintInfo{Metric: "ttft", Percentile: 95}}
	for _, c := range pr.Cons {
		if c.Kind == "percentile" {
			con = c
			break
		}
	}
	metric, wl := con.Metric, con.wl
	if wl >= len(r.Workloads) {
		return 0
	}
	g := r.Workloads[wl]
	v := 0.0
	for _, w := range g.Windows {
		if q := windowLatency(w, metric); q.Count > 0 {
			v = math.Max(v, pickStat(q, con))
		}
	}
	if len(g.Windows) == 0 {
		v = pickStat(latency(g.Summary.Latency, metric), con)
	}
	return v
}

// MainLatencyName names the main latency figure.
func (pr *Problem) MainLatencyName() string {
	for _, c := range pr.Cons {
		if c.Kind == "percentile" {
			stat := formatPct(c.Percentile)
			if c.Mean {
				stat = "mean"
			}
			where := " in its worst window"
			if pr.Settings.WindowS == 0 {
				where = " over the run"
			}
			return stat + " " + metricName(c.Metric) + " of " + c.Workload + where
		}
	}
	name := ""
	if len(pr.base.Workloads) > 0 {
		name = pr.base.Workloads[0].Name
	}
	if pr.Settings.WindowS == 0 {
		return "p95 TTFT of " + name + " over the run"
	}
	return "p95 TTFT of " + name + " in its worst window"
}

func formatPct(p float64) string { return "p" + strconv.FormatFloat(p, 'f', -1, 64) }

func metricName(m string) string {
	switch m {
	case "ttft":
		return "TTFT"
	case "e2e":
		return "E2E"
	case "tpot":
		return "TPOT"
	case "queue_wait":
		return "queue wait"
	}
	return m
}

// verdict is one constraint's outcome over a candidate's replications.
type verdict struct {
	value, mean float64 // the bound checked, and the plain mean
	measured    bool
	margin      float64
	score       float64 // log of the allowed amount over the measured one
	met         bool
	at          float64
}

// judge checks constraint c over values, one per replication, at the
// settings' confidence and bound.
func (pr *Problem) judge(c Constraint, vals, at []float64) verdict {
	var xs []float64
	worst := -1.0
	for i, v := range vals {
		if math.IsNaN(v) {
			continue
		}
		xs = append(xs, v)
		if worst < 0 || (c.AtLeast && v < vals[int(worst)]) || (!c.AtLeast && v > vals[int(worst)]) {
			worst = float64(i)
		}
	}
	if len(xs) == 0 {
		return verdict{met: true, at: -1, margin: 1, score: scoreCap}
	}
	out := verdict{measured: true, mean: stat.Mean(xs, nil), at: at[int(worst)]}
	out.value = bound(xs, c.AtLeast, pr.Settings.Confidence, pr.Settings.Bound)
	out.margin, out.score = margin(c, out.value)
	out.met = out.margin >= 0
	return out
}

// scoreCap bounds a score: a constraint met with nothing to spare at all
// (no misses, no failures) has an infinite log ratio.
const scoreCap = 20

// margin is the share of the allowed amount left, and the log ratio of
// the allowed amount to the measured one. An attainment level allows a
// share of misses, 1 − level.
func margin(c Constraint, v float64) (m, score float64) {
	allowed, got := c.Limit, v
	if c.AtLeast {
		allowed, got = 1-c.Limit, 1-v
	}
	got = math.Max(got, 0)
	switch {
	case allowed > 0:
		m = (allowed - got) / allowed
	case got == 0:
		m = 0
	default:
		m = -1 - got
	}
	switch {
	case got <= 0 && allowed <= 0:
		score = 0
	case got <= 0:
		score = scoreCap
	case allowed <= 0:
		score = -scoreCap
	default:
		score = math.Max(-scoreCap, math.Min(scoreCap, math.Log(allowed/got)))
	}
	return m, score
}

// bound is the value a constraint is checked with: with bound "mean", the
// one-sided confidence bound of the mean (Student's t, n−1 degrees of
// freedom; the mean itself with one value); with "quantile", the
// replications' confidence quantile (the lower one for an attainment
// level), nearest rank.
func bound(xs []float64, atLeast bool, conf float64, kind string) float64 {
	n := len(xs)
	if kind == "quantile" {
		s := append([]float64(nil), xs...)
		sort.Float64s(s)
		k := int(math.Ceil(conf*float64(n))) - 1
		k = max(0, min(n-1, k))
		if atLeast {
			return s[n-1-k]
		}
		return s[k]
	}
	mean := stat.Mean(xs, nil)
	if n < 2 {
		return mean
	}
	sd := stat.StdDev(xs, nil)
	if sd == 0 || math.IsNaN(sd) {
		return mean
	}
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(conf) * sd / math.Sqrt(float64(n))
	if atLeast {
		return mean - half
	}
	return mean + half
}
