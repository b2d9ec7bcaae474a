package htmlreport

import (
	"fmt"
	"math"
	"strings"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// Holding thresholds for the cross-variant sentence: a variant holds when
// at most HoldMaxFailed of its requests fail and at least HoldMinSLO of
// them meet their SLOs.
const (
	HoldMaxFailed = 0.001
	HoldMinSLO    = 0.99
)

// headline is the verdict in words at the top of the page: what binds
// first in the base and when, what it cost the requests, and the cheapest
// variant that holds.
func headline(vs []*model.Results) []string {
	if len(vs) == 0 {
		return []string{"The document holds no results."}
	}
	base := vs[0]
	who := ""
	if len(vs) > 1 {
		who = "In the " + report.VariantName(base) + ", "
	}
	out := []string{capitalize(who + bindingSentence(base)), impactSentence(base)}
	if len(vs) > 1 {
		out = append(out, variantsSentence(vs))
	}
	return out
}

// firstBinding returns the backend and limit that refused first, if any.
func firstBinding(r *model.Results) (string, *model.LimitResult) {
	var name string
	var first *model.LimitResult
	for i := range r.Backends {
		b := &r.Backends[i]
		for j := range b.Limits {
			l := &b.Limits[j]
			if l.Rejected > 0 && l.FirstRejectS >= 0 && (first == nil || l.FirstRejectS < first.FirstRejectS) {
				name, first = b.Name, l
			}
		}
	}
	return name, first
}

// limitName names a limit for sentences: "sonnet ITPM (800k/min)".
func limitName(backend string, l *model.LimitResult) string {
	per := "/min"
	if l.Dimension == "rpd" || l.Dimension == "tpd" {
		per = "/day"
	}
	scope := ""
	if l.Scope != "" && l.Scope != "org" {
		scope = " " + l.Scope
	}
	return fmt.Sprintf("%s%s %s (%s%s)", backend, scope, strings.ToUpper(l.Dimension), limitText(l.Limit), per)
}

// bindingSentence says which limit or resource binds first, and when.
func bindingSentence(r *model.Results) string {
	if name, l := firstBinding(r); l != nil {
		s := fmt.Sprintf("the first limit to bind is %s, at %s", limitName(name, l), clockAt(string(r.StartClock), l.FirstRejectS))
		// The one that refuses most, if another.
		var most *model.LimitResult
		var mostName string
		for i := range r.Backends {
			for j := range r.Backends[i].Limits {
				x := &r.Backends[i].Limits[j]
				if x.Rejected > 0 && (most == nil || x.Rejected > most.Rejected) {
					most, mostName = x, r.Backends[i].Name
				}
			}
		}
		if most != nil && most != l {
			s += fmt.Sprintf("; %s refuses the most (%s attempts)", limitName(mostName, most), report.Count(most.Rejected))
		} else {
			s += fmt.Sprintf(" (%s attempts refused)", report.Count(l.Rejected))
		}
		return s + "."
	}
	// No limit refused: a GPU cluster's memory or compute, or headroom.
	var parts []string
	for _, b := range r.Backends {
		c := b.Cluster
		if c == nil || c.GPUHours == 0 {
			continue // not a cluster, or none provisioned
		}
		switch {
		case c.Preemptions > 0:
			parts = append(parts, fmt.Sprintf("KV memory binds on GPU cluster %s: %s preemptions (mean KV use %s)", b.Name, report.Count(c.Preemptions), share(c.MeanKVUse)))
		case c.Utilization >= 0.9:
			parts = append(parts, fmt.Sprintf("GPU time binds on cluster %s: running iterations %s of the time (mean batch %s, peak %s of max %d)",
				b.Name, share(c.Utilization), number(c.MeanBatch), number(c.PeakBatch), c.MaxNumSeqs))
		default:
			parts = append(parts, fmt.Sprintf("GPU cluster %s has room: busy %s of the time, mean KV use %s", b.Name, share(c.Utilization), share(c.MeanKVUse)))
		}
	}
	var tight *model.LimitResult
	var tightName string
	for i := range r.Backends {
		for j := range r.Backends[i].Limits {
			l := &r.Backends[i].Limits[j]
			if tight == nil || l.PeakUse > tight.PeakUse {
				tight, tightName = l, r.Backends[i].Name
			}
		}
	}
	if tight != nil {
		h := ""
		if tight.PeakUse > 0 {
			h = fmt.Sprintf(", headroom %.1f×", 1/tight.PeakUse)
		}
		parts = append(parts, fmt.Sprintf("no rate limit refused a request; the tightest is %s at %.0f%% of its limit at peak%s",
			limitName(tightName, tight), 100*tight.PeakUse, h))
	}
	if len(parts) == 0 {
		return "nothing refused a request."
	}
	return strings.Join(parts, "; ") + "."
}

// impactSentence says how many requests were refused, failed or delayed.
func impactSentence(r *model.Results) string {
	s := &r.Summary
	var refused int64
	for _, v := range s.Attempts.Rejected {
		refused += v
	}
	q := s.Requests
	out := fmt.Sprintf("%s of %s requests completed (%s)", report.Count(q.Completed), report.Count(q.Offered), pctOf(q.Completed, q.Offered))
	if q.Failed > 0 {
		out += fmt.Sprintf(", %s failed (%s)", report.Count(q.Failed), pctOf(q.Failed, q.Offered))
	}
	if refused > 0 {
		out += fmt.Sprintf("; %s attempts were refused and clients retried %s times", report.Count(refused), report.Count(s.Attempts.Retries))
	}
	out += fmt.Sprintf(". Requests waited up to %s before service (p95 %s)", report.Seconds(s.Latency.QueueWait.Max), report.Seconds(s.Latency.QueueWait.P95))
	if i, peak := peakIndex(r.Series.QueueLength); peak >= 1 && i < len(r.Series.Clock) {
		out += fmt.Sprintf("; the backlog peaks at %s waiting requests in the interval from %s", number(peak), r.Series.Clock[i])
	}
	out += fmt.Sprintf(". TTFT p95 is %s; %s of requests met their SLOs; cost %s.",
		report.Seconds(s.Latency.TTFT.P95), share(s.Goodput.SLOAttainment), report.USD(s.Cost.Total))
	return out
}

// peakIndex returns the index and value of the largest element.
func peakIndex(v []float64) (int, float64) {
	best, at := math.Inf(-1), -1
	for i, x := range v {
		if x > best {
			best, at = x, i
		}
	}
	return at, best
}

// holds reports whether a variant holds: few failures, SLOs met.
func holds(r *model.Results) bool {
	q := r.Summary.Requests
	if q.Offered == 0 {
		return false
	}
	return float64(q.Failed)/float64(q.Offered) <= HoldMaxFailed && r.Summary.Goodput.SLOAttainment >= HoldMinSLO
}

// variantsSentence names the cheapest variant that holds, or else the one
// with the best goodput, with its cost against the base's.
func variantsSentence(vs []*model.Results) string {
	base := vs[0]
	var cheapest, best *model.Results
	for _, r := range vs {
		if holds(r) && (cheapest == nil || r.Summary.Cost.Total < cheapest.Summary.Cost.Total) {
			cheapest = r
		}
		if best == nil || r.Summary.Goodput.SLOAttainment > best.Summary.Goodput.SLOAttainment {
			best = r
		}
	}
	rule := fmt.Sprintf("at most %.1f%% of requests failing and at least %.0f%% meeting their SLOs", 100*HoldMaxFailed, 100*HoldMinSLO)
	vsBase := func(r *model.Results) string {
		if r == base {
			return ""
		}
		d := r.Summary.Cost.Total - base.Summary.Cost.Total
		sign := "+"
		if d < 0 {
			sign, d = "−", -d
		}
		return fmt.Sprintf(" (%s%s against the %s)", sign, report.USD(d), report.VariantName(base))
	}
	if cheapest != nil {
		s := fmt.Sprintf("Cheapest change that holds (%s): %s, at %s%s", rule, quoteName(cheapest), report.USD(cheapest.Summary.Cost.Total), vsBase(cheapest))
		if cheapest == base {
			s = fmt.Sprintf("The %s already holds (%s) at %s; no variant is needed", report.VariantName(base), rule, report.USD(base.Summary.Cost.Total))
		}
		if best != cheapest && best.Summary.Goodput.SLOAttainment > cheapest.Summary.Goodput.SLOAttainment {
			s += fmt.Sprintf("; %s has the best goodput (%s meet their SLOs) at %s", quoteName(best), share(best.Summary.Goodput.SLOAttainment), report.USD(best.Summary.Cost.Total))
		}
		return s + "."
	}
	return fmt.Sprintf("No variant holds (%s). The best goodput is %s's: %s of requests meet their SLOs and %s fail, at %s%s.",
		rule, quoteName(best), share(best.Summary.Goodput.SLOAttainment), pctOf(best.Summary.Requests.Failed, best.Summary.Requests.Offered),
		report.USD(best.Summary.Cost.Total), vsBase(best))
}

// quoteName names a variant in a sentence.
func quoteName(r *model.Results) string {
	if r.Variant == "" {
		return "the base"
	}
	return "“" + r.Variant + "”"
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
