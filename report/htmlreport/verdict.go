package htmlreport

import (
	"fmt"
	"math"
	"strings"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
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
		who = "In " + report.VariantRef(base) + ", "
	}
	out := []string{capitalize(who + bindingSentence(base)), impactSentence(base)}
	if len(vs) > 1 {
		out = append(out, report.CheapestThatHolds(vs))
	}
	return out
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
	return fmt.Sprintf("%s%s %s (%s%s)", backend, scope, strings.ToUpper(l.Dimension), report.LimitValue(l.Limit), per)
}

// overText says how far the offered demand went over a limit at its peak
// ("" when within it).
func overText(l *model.LimitResult) string {
	if l.PeakDemand <= 1 {
		return ""
	}
	return fmt.Sprintf(", demand at the peak %s the limit", report.Times(l.PeakDemand))
}

// bindingSentence says which limit or resource binds first, and when,
// from the results' findings.
func bindingSentence(r *model.Results) string {
	f := &r.Findings
	if name, l := report.Lookup(r, f.FirstToBind); l != nil {
		s := fmt.Sprintf("the first limit to bind is %s, at %s%s", limitName(name, l), report.Clock(r, l.FirstRejectS), overText(l))
		if mostName, most := report.Lookup(r, f.MostRefused); most != nil && most != l {
			s += fmt.Sprintf("; %s refuses the most (%s attempts%s)", limitName(mostName, most), report.Count(most.Rejected), overText(most))
		} else {
			s += fmt.Sprintf(" (%s attempts refused)", report.Count(l.Rejected))
		}
		return s + "."
	}
	// No limit refused: a GPU cluster's memory or compute, or headroom.
	var parts []string
	for _, cf := range f.Clusters {
		var c *model.ClusterResult
		for i := range r.Backends {
			if r.Backends[i].Name == cf.Backend {
				c = r.Backends[i].Cluster
			}
		}
		if c == nil || c.GPUHours == 0 {
			continue // none provisioned
		}
		switch cf.Bound {
		case model.BoundKVMemory:
			parts = append(parts, fmt.Sprintf("KV memory binds on GPU cluster %s (%s): %s preemptions (mean KV use %s)", cf.Backend, report.GPUs(c), report.Count(c.Preemptions), share(c.MeanKVUse)))
		case model.BoundBatch, model.BoundCompute:
			parts = append(parts, fmt.Sprintf("GPU time binds on cluster %s (%s): running iterations %s of the time (mean batch %s per replica, peak %s of max %d)",
				cf.Backend, report.GPUs(c), share(c.Utilization), number(c.MeanBatch), number(c.PeakBatch), c.MaxNumSeqs))
		default:
			parts = append(parts, fmt.Sprintf("GPU cluster %s (%s) has room: busy %s of the time, mean KV use %s", cf.Backend, report.GPUs(c), share(c.Utilization), share(c.MeanKVUse)))
		}
	}
	if name, tight := report.Lookup(r, f.Tightest); tight != nil {
		h := ""
		if tight.PeakUse > 0 {
			h = ", headroom " + report.Times(1/tight.PeakUse) // 3,333×, not 3333.3×
		}
		parts = append(parts, fmt.Sprintf("no rate limit refused a request; the tightest is %s at %.0f%% of its limit at peak%s",
			limitName(name, tight), 100*tight.PeakUse, h))
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
	out += fmt.Sprintf(". Requests waited up to %s before service (p95 %s)", report.Quantile(s.Latency.QueueWait, s.Latency.QueueWait.Max), report.Quantile(s.Latency.QueueWait, s.Latency.QueueWait.P95))
	if b := r.Findings.Backlog; b != nil {
		out += fmt.Sprintf("; the backlog peaks at %s in the interval from %s", report.Plural(int64(math.Round(b.Peak)), "waiting request", "waiting requests"), report.Clock(r, b.PeakIntervalS))
	}
	if s.Goodput.NoSLO {
		out += fmt.Sprintf(". TTFT p95 is %s; no workload sets an SLO; cost %s.", report.Quantile(s.Latency.TTFT, s.Latency.TTFT.P95), report.USD(s.Cost.Total))
	} else {
		out += fmt.Sprintf(". TTFT p95 is %s; %s of requests met their SLOs; cost %s.",
			report.Quantile(s.Latency.TTFT, s.Latency.TTFT.P95), share(s.Goodput.SLOAttainment), report.USD(s.Cost.Total))
	}
	if p := r.Findings.PeakWindow; p != nil {
		out += " " + report.PeakWindowSentence(r, p)
	}
	return out
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
