package report

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/headroom-sim/headroom/model"
)

// Verdict says in a few sentences what a planner needs first: did the
// system hold, which limit binds, when and how far demand exceeds it,
// how the peak hour fared against the whole run, and what it cost. It
// reads the results' findings and figures; the model writes no words.
func Verdict(r *model.Results) []string {
	sm := &r.Summary
	req := sm.Requests
	if req.Offered == 0 {
		return []string{"No requests arrived within the horizon."}
	}
	var out []string
	line := fmt.Sprintf("%s of %s requests completed (%.1f%%)", Count(req.Completed), Count(req.Offered), percent(float64(req.Completed), float64(req.Offered)))
	if req.Failed > 0 {
		line += fmt.Sprintf(", %s failed (%.1f%%: %s)", Count(req.Failed), percent(float64(req.Failed), float64(req.Offered)), topReasons(req.FailedBy, 3))
	}
	if req.InFlightAtEnd > 0 {
		line += fmt.Sprintf(", %s still in flight at the end", Count(req.InFlightAtEnd))
	}
	out = append(out, line+".")
	out = append(out, limitLines(r)...)
	for _, b := range r.Backends {
		if c := b.Cluster; c != nil && (c.GPUHours > 0 || b.Attempts > 0) { // not switched off
			out = append(out, clusterLine(b, r.Findings.Clusters))
			out = append(out, fleetLines(r, b)...)
		}
	}
	out = append(out, routeLines(r)...)
	out = append(out, spillLines(r)...)
	other := map[string]int64{}
	for k, v := range sm.Attempts.Rejected {
		if !isLimitReason(k) && v > 0 {
			other[k] = v
		}
	}
	if len(other) > 0 {
		out = append(out, fmt.Sprintf("Other refusals: %s.", topReasons(other, 4)))
	}
	if sm.Attempts.Retries > 0 {
		out = append(out, fmt.Sprintf("Clients retried %s (%.2f retries per request).", Plural(sm.Attempts.Retries, "time", "times"), sm.Attempts.RetriesPerRequest))
	}
	if lat := sm.Latency; lat.TTFT.Count > 0 {
		s := fmt.Sprintf("TTFT p50 %s, p95 %s; queue wait p95 %s", Seconds(lat.TTFT.P50), Seconds(lat.TTFT.P95), Seconds(lat.QueueWait.P95))
		if w := r.Findings.WorstQueueWait; w != nil {
			s += fmt.Sprintf(", worst for requests sent at %s (p95 %s)", Clock(r, w.IntervalS), Seconds(w.Value))
		}
		out = append(out, s+".")
	}
	if p := r.Findings.PeakWindow; p != nil {
		out = append(out, PeakWindowSentence(r, p))
	}
	if b := r.Findings.Backlog; b != nil {
		out = append(out, BacklogSentence(r, b))
	}
	if sm.Cost.Total > 0 {
		fixed := ""
		if c := sm.Cost.Commitment; c > 0 {
			fixed = fmt.Sprintf("; %s of it tier commitments, prorated", Cents(c))
		}
		out = append(out, fmt.Sprintf("Cost %s over %s (%s; cache hit rate %.0f%%%s).",
			Cents(sm.Cost.Total), Seconds(Covered(r)), perMillion(sm.Cost.Total, sm.Tokens, sm.Cost.GPU > 0), 100*sm.Tokens.CacheHitRate, fixed))
	}
	return append(out, gatewayVerdict(r)...)
}

// limitLines says for each limit that refused what it refused, when, and
// how far demand went over it; or, when none refused, which came closest.
func limitLines(r *model.Results) []string {
	var out []string
	first := r.Findings.FirstToBind
	many := 0
	for _, b := range r.Backends {
		for _, l := range b.Limits {
			if l.Rejected > 0 {
				many++
			}
		}
	}
	for _, b := range r.Backends {
		for _, l := range b.Limits {
			if l.Rejected == 0 {
				continue
			}
			scope := ""
			if l.Scope != "org" {
				scope = " (" + l.Scope + ")"
			}
			s := fmt.Sprintf("%s %s%s limit %s binds: %s refused (429), first at %s, most in the interval from %s; peak use %.0f%% of the limit",
				b.Name, strings.ToUpper(l.Dimension), scope, LimitValue(l.Limit), Plural(l.Rejected, "attempt", "attempts"),
				Clock(r, l.FirstRejectS), Clock(r, l.PeakRejectIntervalS), 100*l.PeakUse)
			if d := demandText(r, l); d != "" {
				s += "; " + d
			}
			s += "."
			if many > 1 && first != nil && isRef(first, b.Name, &l) {
				// the first to bind leads, whatever the backends' order
				out = append([]string{"First to bind: " + s}, out...)
				continue
			}
			out = append(out, s)
		}
	}
	if many > 0 {
		return out
	}
	if b, l := Lookup(r, r.Findings.Tightest); l != nil && l.PeakDemand > 1 {
		out = append(out, fmt.Sprintf("No rate limit refused a request, but %s %s was at %.0f%% of its limit at peak while %s: the excess waited (in the bucket's burst, a client-side queue or a pacer).",
			b, strings.ToUpper(l.Dimension), 100*l.PeakUse, demandText(r, *l)))
	} else if l != nil && l.PeakUse > 0 {
		out = append(out, fmt.Sprintf("No rate limit refused a request; the tightest was %s %s at %s of its limit at peak (headroom %s).",
			b, strings.ToUpper(l.Dimension), useText(l.PeakUse), Times(1/l.PeakUse)))
	}
	return out
}

// demandText says how far the offered demand went over a limit at its
// peak ("" when it stayed within it).
func demandText(r *model.Results, l model.LimitResult) string {
	if l.PeakDemand <= 1 {
		return ""
	}
	if l.Dimension == "rpd" || l.Dimension == "tpd" {
		return fmt.Sprintf("offered demand is %s the daily limit", Times(l.PeakDemand))
	}
	return fmt.Sprintf("offered demand peaks at %s the limit in the interval from %s", Times(l.PeakDemand), Clock(r, l.PeakDemandIntervalS))
}

// Times formats a ratio as a multiple: 0.35×, 3.6×, 12×.
func Times(v float64) string {
	switch {
	case v >= 10:
		return Count(int64(math.Round(v))) + "×"
	case v >= 1:
		return fmt.Sprintf("%.1f×", v)
	}
	return fmt.Sprintf("%.2f×", v)
}

// perMillion is a cost per million tokens, labelled with the tokens it
// divides by (every prompt token, cached ones included, plus every output
// token): "$0.14 per million tokens in and out, cached input included";
// with output set, then per million output tokens, the figure to set
// beside a hosted API's output price: "; $0.87 per million output
// tokens".
func perMillion(cost float64, t model.TokenCounts, output bool) string {
	s := "no tokens"
	if n := t.Input + t.Output; n > 0 {
		s = fmt.Sprintf("$%.2f per million tokens in and out, cached input included", cost/float64(n)*1e6)
	}
	if output && t.Output > 0 {
		s += fmt.Sprintf("; $%.2f per million output tokens", cost/float64(t.Output)*1e6)
	}
	return s
}

// useText is a limit's peak use as a whole percentage, "59%", or to
// the first figure that shows when that would be 0%: "0.03%".
func useText(u float64) string {
	if 100*u < 0.5 {
		return Percent(u)
	}
	return fmt.Sprintf("%.0f%%", 100*u)
}

// isRef reports whether ref names limit l of backend.
func isRef(ref *model.LimitRef, backend string, l *model.LimitResult) bool {
	return ref.Backend == backend && ref.Scope == l.Scope && ref.Dimension == l.Dimension
}

// Lookup finds the limit a finding names: its backend's name and the
// limit; "" and nil when ref is nil or names nothing in r.
func Lookup(r *model.Results, ref *model.LimitRef) (string, *model.LimitResult) {
	if ref == nil {
		return "", nil
	}
	for i := range r.Backends {
		b := &r.Backends[i]
		if b.Name != ref.Backend {
			continue
		}
		for j := range b.Limits {
			if isRef(ref, b.Name, &b.Limits[j]) {
				return b.Name, &b.Limits[j]
			}
		}
	}
	return "", nil
}

// smallBacklog is the peak queue, in waiting requests on average over an
// interval, below which a backlog is a short standing queue rather than
// a pile of requests that drains.
const smallBacklog = 10

// BacklogSentence says how deep the queue got and when it cleared. A
// queue of a few requests that lingers reads as what it is (a standing
// queue of about that many), not as hours of draining.
func BacklogSentence(r *model.Results, b *model.Backlog) string {
	n := int64(math.Round(b.Peak))
	if b.Peak < smallBacklog {
		s := fmt.Sprintf("A short queue forms: at most %s on average, in the interval from %s",
			Plural(n, "waiting request", "waiting requests"), Clock(r, b.PeakIntervalS))
		if b.ClearedS >= 0 {
			return s + fmt.Sprintf("; it averages half a request or more until %s.", Clock(r, b.ClearedS))
		}
		return s + "; it still averages half a request or more at the end of the run."
	}
	s := fmt.Sprintf("Backlog peaks at %s in the interval from %s", Plural(n, "waiting request", "waiting requests"), Clock(r, b.PeakIntervalS))
	if b.ClearedS >= 0 {
		return s + fmt.Sprintf(" and clears by %s.", Clock(r, b.ClearedS))
	}
	return s + " and has not cleared by the end of the run."
}

// PeakWindowSentence sets the busiest hour's SLO results beside the
// whole run's.
func PeakWindowSentence(r *model.Results, p *model.PeakWindow) string {
	sm := &r.Summary
	s := fmt.Sprintf("Busiest hour, %s–%s (%s of the %s requests arrived then): ", Clock(r, p.StartS), Clock(r, p.EndS), Count(p.Offered), Count(sm.Requests.Offered))
	var parts []string
	if p.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%.1f%% of them failed (whole run %.1f%%)", percent(float64(p.Failed), float64(p.Offered)),
			percent(float64(sm.Requests.Failed), float64(sm.Requests.Offered))))
	}
	if !sm.Goodput.NoSLO {
		parts = append(parts, fmt.Sprintf("SLOs met by %.1f%% (whole run %.1f%%)", 100*p.SLOAttainment, 100*sm.Goodput.SLOAttainment))
	}
	if p.TTFT.Count > 0 {
		parts = append(parts, fmt.Sprintf("TTFT p95 %s (whole run %s)", Seconds(p.TTFT.P95), Seconds(sm.Latency.TTFT.P95)))
	}
	if len(parts) == 0 {
		return strings.TrimSuffix(s, ": ") + "."
	}
	return s + strings.Join(parts, ", ") + "."
}

// GPUs says what hardware a cluster is, as a planner counts it:
// "6 replicas × TP8 = 48 H100-SXM", with ", up to 64 at peak" when a
// schedule provisions more.
func GPUs(c *model.ClusterResult) string {
	gpu := c.GPU
	if gpu == "" {
		gpu = "GPUs"
	}
	tp := c.TensorParallel
	if tp <= 0 {
		tp = 1
		if c.Replicas > 0 && c.GPUs%c.Replicas == 0 && c.GPUs > 0 {
			tp = c.GPUs / c.Replicas
		}
	}
	n := c.Replicas * tp
	rep := "replicas"
	if c.Replicas == 1 {
		rep = "replica"
	}
	s := fmt.Sprintf("%d %s × TP%d = %d %s", c.Replicas, rep, tp, n, gpu)
	if c.PeakGPUs > n {
		s += fmt.Sprintf(", up to %d at peak", c.PeakGPUs)
	}
	return s
}

// clusterLine says how hard a GPU cluster worked and what limited it.
func clusterLine(b model.BackendResult, findings []model.ClusterFinding) string {
	c := b.Cluster
	if len(c.Pools) > 0 { // each pool's figures follow (verdict_fleet.go)
		return fmt.Sprintf("%s (%s): prefill and decode disaggregated. GPU cost %s (%.1f GPU-hours): %s.",
			b.Name, GPUs(c), Cents(b.Cost.Total), c.GPUHours, perMillion(b.Cost.Total, b.Tokens, true))
	}
	s := fmt.Sprintf("%s (%s): running iterations %.0f%% of the time, mean batch %.1f per replica (peak %.0f of max %d), KV %.0f%% used on average",
		b.Name, GPUs(c), 100*c.Utilization, c.MeanBatch, c.PeakBatch, c.MaxNumSeqs, 100*c.MeanKVUse)
	if c.Preemptions > 0 {
		s += fmt.Sprintf(", %s (KV memory ran out)", Plural(c.Preemptions, "preemption", "preemptions"))
	}
	for _, f := range findings {
		if f.Backend != b.Name {
			continue
		}
		switch f.Bound {
		case model.BoundBatch:
			s += "; saturated: the batch is full, so throughput has plateaued and waiting requests queue"
		case model.BoundKVMemory:
			s += "; KV memory limits the batch"
		}
	}
	return s + fmt.Sprintf(". GPU cost %s (%.1f GPU-hours): %s.", Cents(b.Cost.Total), c.GPUHours, perMillion(b.Cost.Total, b.Tokens, true))
}

// isLimitReason reports whether a refusal reason is a rate-limit
// dimension (org or key).
func isLimitReason(k string) bool {
	k = strings.TrimPrefix(k, "key_")
	switch k {
	case "rpm", "itpm", "otpm", "tpm", "rpd", "tpd":
		return true
	}
	return false
}

// topReasons lists up to n reasons by count, largest first, ties by name.
func topReasons(m map[string]int64, n int) string {
	keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b))
	})
	var parts []string
	for _, k := range keys[:min(n, len(keys))] {
		parts = append(parts, fmt.Sprintf("%s %s", k, Count(m[k])))
	}
	return strings.Join(parts, ", ")
}

// gatewayVerdict says what the gateway did to each tenant: the limit that
// refused it most, a reservation far above real use (a note about
// max_tokens, not a bigger quota), crashed streams, shed requests and the
// response cache.
func gatewayVerdict(r *model.Results) []string {
	g := r.Gateway
	if g == nil {
		return nil
	}
	var out []string
	for _, t := range g.Tenants {
		most, by := int64(0), ""
		for k, v := range t.Rejected {
			if v > most || v == most && k < by {
				most, by = v, k
			}
		}
		if most > 0 {
			out = append(out, fmt.Sprintf("Gateway: tenant %s had %.1f%% of its attempts refused, most by %s (%s).", t.Name, 100*float64(sum(t.Rejected))/float64(t.Attempts), by, Count(most)))
		}
		if t.ReservationToActual >= 3 {
			out = append(out, fmt.Sprintf("Gateway: tenant %s reserves %.1f× the units it uses: its max_tokens is far above its real output; lowering it admits more at once without a bigger quota.", t.Name, t.ReservationToActual))
		}
		if t.UnitsLost > 0 {
			out = append(out, fmt.Sprintf("Gateway: %s crashed streams of tenant %s left %s reserved units unrefunded; leases (lease_ttl) would reconcile them.", Count(t.Crashes), t.Name, Count(int64(math.Round(t.UnitsLost)))))
		}
	}
	if q := g.Queue; q != nil {
		for _, p := range q.ByPriority {
			if p.Shed > 0 {
				out = append(out, fmt.Sprintf("Gateway: %s %s requests were shed (503) after waiting past their target in the fair queue.", Count(p.Shed), p.Priority))
			}
		}
	}
	if c := g.Cache; c != nil && c.Lookups > 0 {
		out = append(out, fmt.Sprintf("Gateway: the response cache answered %.1f%% of lookups (%s of %s).", 100*c.HitRate, Count(c.Hits), Count(c.Lookups)))
	}
	if g.FailClosedRejects > 0 {
		out = append(out, fmt.Sprintf("Gateway: %s attempts refused with 503 while the limiter store was down (fail closed).", Count(g.FailClosedRejects)))
	}
	if g.FailOpenAdmits > 0 {
		out = append(out, fmt.Sprintf("Gateway: %s attempts admitted by local caps while the limiter store was down (fail open).", Count(g.FailOpenAdmits)))
	}
	return out
}
