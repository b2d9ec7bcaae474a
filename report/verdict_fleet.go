package report

import (
	"fmt"
	"strings"

	"github.com/headroom-sim/headroom/model"
)

// fleetLines says what a cluster's fleet did: its autoscaler, how its
// router spread requests and what its prefix cache held, its pools and
// their KV transfers. A cluster with none of these gets no line.
func fleetLines(r *model.Results, b model.BackendResult) []string {
	c := b.Cluster
	var out []string
	if a := c.Autoscale; a != nil {
		s := fmt.Sprintf("%s autoscaled on %s (target %s per replica): %d scale-ups and %d scale-downs", b.Name, metricWords(a.Metric), targetWords(a.Metric, a.Target), a.ScaleUps, a.ScaleDowns)
		if a.ColdStarts > 0 {
			s += fmt.Sprintf(", %d from zero", a.ColdStarts)
		}
		s += fmt.Sprintf(", at most %d %s", a.PeakReplicas, plural(a.PeakReplicas, "replica", "replicas"))
		if a.UnderProvisionedS > 0 {
			s += fmt.Sprintf("; short of replicas for %s in all", Seconds(a.UnderProvisionedS))
		}
		for _, e := range a.Events {
			if e.To > e.From {
				s += fmt.Sprintf("; first scale-up at %s (%d → %d), serving from %s", Clock(r, e.AtS), e.From, e.To, Clock(r, e.ReadyAtS))
				break
			}
		}
		out = append(out, s+".")
	}
	if rt := c.Routing; rt != nil && (rt.Policy != model.RouteLeastWork || rt.RefreshS > 0) {
		s := fmt.Sprintf("%s routes by %s", b.Name, policyWords(rt.Policy))
		if rt.RefreshS > 0 {
			s += fmt.Sprintf(" on a view of load refreshed every %s", Seconds(rt.RefreshS))
		}
		if rt.MaxOverMean > 0 {
			s += fmt.Sprintf(": the busiest replica took %.2f× the mean", rt.MaxOverMean)
		}
		out = append(out, s+".")
	}
	if pc := c.PrefixCache; pc != nil && (pc.CPUHits > 0 || c.Routing != nil && c.Routing.Policy != model.RouteLeastWork) {
		s := fmt.Sprintf("%s prefix cache: %.0f%% of prompt tokens read from it", b.Name, 100*pc.HitRate)
		if pc.CPUHits > 0 {
			all := float64(pc.GPUTokens + pc.CPUTokens)
			s += fmt.Sprintf(" (%.0f%% of them from the CPU tier, read back in %s in all)", percent(float64(pc.CPUTokens), all), Seconds(pc.CPUReadS))
		}
		s += fmt.Sprintf("; %s requests recomputed their prefix", Count(pc.Misses))
		out = append(out, s+".")
	}
	if len(c.Pools) > 0 {
		var parts []string
		for _, p := range c.Pools {
			parts = append(parts, fmt.Sprintf("%s pool %d × TP%d, running iterations %.0f%% of the time, mean batch %.1f, KV %.0f%% used",
				p.Role, p.Replicas, p.TensorParallel, 100*p.Utilization, p.MeanBatch, 100*p.MeanKVUse))
		}
		s := b.Name + ": " + strings.Join(parts, "; ")
		if t := c.Transfer; t != nil && t.Transfers > 0 {
			s += fmt.Sprintf("; KV transfers take %s on average (p95 %s)", Seconds(t.Time.Mean), Seconds(t.Time.P95))
			if t.KVWait.Max > 0 {
				s += fmt.Sprintf(", after waiting for decode KV blocks up to %s (p95 %s)", Seconds(t.KVWait.Max), Seconds(t.KVWait.P95))
			}
		}
		out = append(out, s+".")
	}
	return out
}

// spillLines says what an overflow route sent elsewhere while an
// autoscaled cluster started replicas, and what it cost.
func spillLines(r *model.Results) []string {
	var out []string
	for _, rt := range r.Routes {
		if rt.ScaleUpSpill == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("Route %s sent %s attempts past %s while it was short of replicas; the %s that completed elsewhere cost %s.",
			rt.Name, Count(rt.ScaleUpSpill), rt.Targets[0].Name, Count(rt.ScaleUpSpillCompleted), Cents(rt.ScaleUpSpillCostUSD)))
	}
	return out
}

func metricWords(m string) string {
	switch m {
	case model.MetricWaiting:
		return "waiting requests"
	case model.MetricKVUse:
		return "KV use"
	case model.MetricRunning:
		return "running sequences"
	case model.MetricUtilization:
		return "utilisation"
	case model.MetricArrivalRate:
		return "the arrival rate"
	}
	return m
}

func targetWords(m string, v float64) string {
	switch m {
	case model.MetricKVUse, model.MetricUtilization:
		return fmt.Sprintf("%.0f%%", 100*v)
	case model.MetricArrivalRate:
		return fmt.Sprintf("%g requests/s", v)
	}
	return fmt.Sprintf("%g", v)
}

func policyWords(p string) string {
	switch p {
	case model.RouteRoundRobin:
		return "round robin"
	case model.RouteRandom:
		return "random choice"
	case model.RoutePowerOfTwo:
		return "the power of two choices"
	case model.RouteLeastKV:
		return "least KV use"
	case model.RoutePrefix:
		return "prefix affinity within a load bound"
	case model.RouteSession:
		return "session affinity"
	case model.RouteWeighted:
		return "weighted scorers"
	}
	return "least outstanding work"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
