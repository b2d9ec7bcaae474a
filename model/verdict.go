package model

import (
	"fmt"
	"math"
	"strings"
)

// verdict states in a few sentences what a planner needs first: did the
// system hold, which limit binds, when, how bad, and what it cost.
func verdict(r *Results) []string {
	var out []string
	sm := r.Summary
	req := sm.Requests
	if req.Offered == 0 {
		return []string{"No requests arrived within the horizon."}
	}
	pct := func(a, b int64) float64 {
		if b == 0 {
			return 0
		}
		return 100 * float64(a) / float64(b)
	}
	line := fmt.Sprintf("%d of %d requests completed (%.1f%%)", req.Completed, req.Offered, pct(req.Completed, req.Offered))
	if req.Failed > 0 {
		line += fmt.Sprintf(", %d failed (%.1f%%: %s)", req.Failed, pct(req.Failed, req.Offered), topReasons(req.FailedBy, 3))
	}
	if req.InFlightAtEnd > 0 {
		line += fmt.Sprintf(", %d still in flight at the end", req.InFlightAtEnd)
	}
	out = append(out, line+".")

	start := r.StartClock.Seconds()
	type bind struct {
		backend string
		lr      LimitResult
	}
	var binds []bind
	var tightest *bind
	for _, b := range r.Backends {
		for _, lr := range b.Limits {
			lr := lr
			if lr.Rejected > 0 {
				binds = append(binds, bind{b.Name, lr})
			}
			if tightest == nil || lr.PeakUse > tightest.lr.PeakUse {
				tightest = &bind{b.Name, lr}
			}
		}
	}
	if len(binds) > 0 {
		first := binds[0]
		for _, b := range binds[1:] {
			if b.lr.FirstRejectS < first.lr.FirstRejectS {
				first = b
			}
		}
		for _, b := range binds {
			scope := ""
			if b.lr.Scope != "org" {
				scope = " (" + b.lr.Scope + ")"
			}
			s := fmt.Sprintf("%s %s%s limit %s binds: %d attempts refused (429), first at %s, most in the interval from %s; peak use %.0f%% of the limit.",
				b.backend, strings.ToUpper(b.lr.Dimension), scope, fmtNum(b.lr.Limit), b.lr.Rejected,
				ClockString(start, b.lr.FirstRejectS), ClockString(start, b.lr.PeakRejectIntervalS), 100*b.lr.PeakUse)
			if b == first && len(binds) > 1 {
				s = "First to bind: " + s
			}
			out = append(out, s)
		}
	} else if tightest != nil {
		if tightest.lr.PeakUse > 0 {
			out = append(out, fmt.Sprintf("No rate limit refused a request; the tightest was %s %s at %.0f%% of its limit at peak (headroom %.1fx).",
				tightest.backend, strings.ToUpper(tightest.lr.Dimension), 100*tightest.lr.PeakUse, 1/tightest.lr.PeakUse))
		}
	}
	for _, b := range r.Backends {
		if c := b.Cluster; c != nil {
			out = append(out, clusterVerdict(b.Name, c, r))
		}
	}
	var otherRej int64
	for k, v := range sm.Attempts.Rejected {
		if !isLimitReason(k) {
			otherRej += v
		}
	}
	if otherRej > 0 {
		out = append(out, fmt.Sprintf("Other refusals: %s.", topReasons(filterReasons(sm.Attempts.Rejected), 4)))
	}
	if sm.Attempts.Retries > 0 {
		out = append(out, fmt.Sprintf("Clients retried %d times (%.2f retries per request).", sm.Attempts.Retries, sm.Attempts.RetriesPerRequest))
	}
	lat := sm.Latency
	if lat.TTFT.Count > 0 {
		s := fmt.Sprintf("TTFT p50 %s, p95 %s; queue wait p95 %s", fmtDur(lat.TTFT.P50), fmtDur(lat.TTFT.P95), fmtDur(lat.QueueWait.P95))
		worst, at := 0.0, -1
		for i, v := range r.Series.QueueWaitP95 {
			if v > worst {
				worst, at = v, i
			}
		}
		if at >= 0 && worst > 1 {
			s += fmt.Sprintf(", worst for requests sent at %s (p95 %s)", r.Series.Clock[at], fmtDur(worst))
		}
		out = append(out, s+".")
	}
	// Backlog: longest queue and when it cleared.
	peak, peakAt := 0.0, -1
	for i, v := range r.Series.QueueLength {
		if v > peak {
			peak, peakAt = v, i
		}
	}
	if peakAt >= 0 && peak >= 1 {
		clear := -1
		for i := peakAt + 1; i < len(r.Series.QueueLength); i++ {
			if r.Series.QueueLength[i] < 0.5 {
				clear = i
				break
			}
		}
		s := fmt.Sprintf("Backlog peaks at %.0f waiting requests in the interval from %s", peak, r.Series.Clock[peakAt])
		if clear >= 0 {
			s += fmt.Sprintf(" and clears by %s.", r.Series.Clock[clear])
		} else {
			s += " and has not cleared by the end of the run."
		}
		out = append(out, s)
	}
	if sm.Cost.Total > 0 {
		out = append(out, fmt.Sprintf("Cost $%.2f over %s ($%.2f per million tokens; cache hit rate %.0f%%).",
			sm.Cost.Total, fmtDur(r.DurationS), sm.Cost.PerMillionTokens, 100*sm.Tokens.CacheHitRate))
	}
	out = append(out, gatewayVerdict(r)...)
	return out
}

func isLimitReason(k string) bool {
	for _, d := range dimNames {
		if k == d || k == "key_"+d {
			return true
		}
	}
	return false
}

func filterReasons(m map[string]int64) map[string]int64 {
	o := map[string]int64{}
	for k, v := range m {
		if !isLimitReason(k) {
			o[k] = v
		}
	}
	return o
}

// topReasons lists up to n reasons by count, largest first, ties by name.
func topReasons(m map[string]int64, n int) string {
	type kv struct {
		k string
		v int64
	}
	var all []kv
	for k, v := range m {
		all = append(all, kv{k, v})
	}
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && (all[j].v > all[j-1].v || all[j].v == all[j-1].v && all[j].k < all[j-1].k); j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	var parts []string
	for i, e := range all {
		if i == n {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", e.k, e.v))
	}
	return strings.Join(parts, ", ")
}

func fmtNum(v float64) string {
	switch {
	case v >= 1e6 && math.Mod(v, 1e5) == 0:
		return fmt.Sprintf("%gM", v/1e6)
	case v >= 1e3 && math.Mod(v, 100) == 0:
		return fmt.Sprintf("%gk", v/1e3)
	}
	return fmt.Sprintf("%g", v)
}

// fmtDur formats seconds for people: 350ms, 4.2s, 3m10s, 2h05m.
func fmtDur(s float64) string {
	switch {
	case s < 1:
		return fmt.Sprintf("%.0fms", s*1000)
	case s < 60:
		return fmt.Sprintf("%.1fs", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
	}
	return fmt.Sprintf("%dh%02dm", int(s)/3600, (int(s)%3600)/60)
}

// clusterVerdict says how hard a GPU cluster worked and what limited it.
func clusterVerdict(name string, c *ClusterResult, r *Results) string {
	s := fmt.Sprintf("%s (%d x %s): running iterations %.0f%% of the time, mean batch %.1f (peak %.0f of max %d), KV %.0f%% used on average",
		name, c.Replicas, orDash(c.GPU), 100*c.Utilization, c.MeanBatch, c.PeakBatch, c.MaxNumSeqs, 100*c.MeanKVUse)
	if c.Preemptions > 0 {
		s += fmt.Sprintf(", %d preemptions (KV memory ran out)", c.Preemptions)
	}
	switch {
	case c.PeakBatch >= float64(c.MaxNumSeqs) && c.Utilization > 0.95:
		s += "; saturated: the batch is full, so throughput has plateaued and waiting requests queue"
	case c.Preemptions > 0:
		s += "; KV memory limits the batch"
	}
	return s + fmt.Sprintf(". GPU cost $%.2f (%.1f GPU-hours, $%.2f per million tokens).", costOf(r, name), c.GPUHours, c.CostPerMillionTokens)
}

func orDash(s string) string {
	if s == "" {
		return "GPU"
	}
	return s
}

func costOf(r *Results, backend string) float64 {
	for _, b := range r.Backends {
		if b.Name == backend {
			return b.Cost.Total
		}
	}
	return 0
}
