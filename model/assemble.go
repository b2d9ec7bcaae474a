package model

import (
	"sort"

	"github.com/headroom-sim/headroom/workloads"
)

// results turns the run's accumulators into Results.
func (s *Sim) results(interrupted bool) *Results {
	s.resolveTwins()
	c := &s.cfg
	res := &Results{Scenario: c.Name, Variant: c.Variant, Seed: c.Seed, Replication: c.Replication,
		DurationS: c.Duration, IntervalS: c.Interval, StartClock: workloads.ClockAt(c.StartClock), Interrupted: interrupted,
		Events: s.eng.Events()}
	horizon := c.Duration
	if interrupted {
		horizon = s.eng.Now()
		res.SimulatedS = horizon
	}
	unclaimed := s.shareGPUCost(horizon)
	unclaimedFixed := s.shareCommitments(horizon)
	total := newGroupStats()
	for _, w := range s.wls {
		total.merge(w.stats)
	}
	// A cluster or provider no workload can reach is billed all the same:
	// its GPU time or commitment is in the total (and no workload's or
	// tenant's share).
	total.tok.costGPU += unclaimed
	total.tok.costFixed += unclaimedFixed
	// In flight per workload: offered minus ended.
	res.Summary = summarize(total, horizon)
	for _, w := range s.wls {
		res.Workloads = append(res.Workloads, GroupResult{Name: w.spec.Name, Summary: summarize(w.stats, horizon), Curves: latencyCurves(w.stats), Windows: w.win.results()})
	}
	res.Tenants = s.groupBy(func(w *workload) string { return w.spec.Tenant }, horizon)
	res.Priorities = s.groupBy(func(w *workload) string { return w.spec.Priority }, horizon)
	for _, p := range s.provs {
		res.Backends = append(res.Backends, s.backendResult(p))
	}
	for _, c := range s.clus {
		if !c.isDecodePool() { // a decode pool is in its cluster's result
			res.Backends = append(res.Backends, s.clusterResult(c, horizon))
		}
	}
	for _, rt := range s.routes {
		res.Routes = append(res.Routes, rt.stats)
	}
	if s.gw != nil {
		res.Gateway = s.gatewayResult(res, horizon)
	}
	res.Series = s.series()
	res.Traces = s.traceResults()
	res.Findings = s.findings(res)
	return res
}

// groupBy summarises the workloads grouped by a label, sorted by label.
func (s *Sim) groupBy(label func(*workload) string, horizon float64) []GroupResult {
	groups := map[string]*groupStats{}
	var names []string
	for _, w := range s.wls {
		k := label(w)
		g := groups[k]
		if g == nil {
			g = newGroupStats()
			groups[k] = g
			names = append(names, k)
		}
		g.merge(w.stats)
	}
	sort.Strings(names)
	out := make([]GroupResult, 0, len(names))
	for _, n := range names {
		out = append(out, GroupResult{Name: n, Summary: summarize(groups[n], horizon)})
	}
	return out
}

func summarize(g *groupStats, horizon float64) Summary {
	var sm Summary
	sm.Requests = RequestCounts{Offered: g.offered, Completed: g.completed, Failed: g.failed,
		InFlightAtEnd: g.offered - g.completed - g.failed, FailedBy: reasonMap(&g.failedBy)}
	sm.Attempts = AttemptCounts{Total: g.attempts, Retries: g.retries, Rejected: reasonMap(&g.rejected)}
	if g.offered > 0 {
		sm.Attempts.RetriesPerRequest = float64(g.retries) / float64(g.offered)
	}
	sm.Latency = LatencySet{TTFT: quantiles(g.ttft), E2E: quantiles(g.e2e), QueueWait: quantiles(g.qwait),
		TPOT: quantiles(g.tpot), TTFTService: quantiles(g.ttftSvc)}
	if horizon > 0 {
		sm.Throughput = Throughput{RequestsPerS: float64(g.completed) / horizon,
			InputTokensPerS: float64(g.tok.input) / horizon, OutputTokensPerS: float64(g.tok.output) / horizon}
		sm.Goodput.RequestsPerS = float64(g.good) / horizon
	}
	sm.Tokens = tokenCounts(&g.tok)
	sm.Cost = cost(&g.tok)
	sm.Goodput.Good = g.good
	sm.Goodput.NoSLO = !g.sloSet
	if ended := g.completed + g.failed; ended > 0 {
		sm.Goodput.SLOAttainment = float64(g.good) / float64(ended)
	}
	sm.MakespanS = g.lastDone
	return sm
}

func tokenCounts(t *tokenTally) TokenCounts {
	tc := TokenCounts{Input: t.input, Uncached: t.uncached, CacheWrite: t.write, CacheRead: t.read, Output: t.output}
	if t.input > 0 {
		tc.CacheHitRate = float64(t.read) / float64(t.input)
	}
	return tc
}

func cost(t *tokenTally) Cost {
	c := Cost{Input: t.costIn, CacheWrite: t.costW, CacheRead: t.costR, Output: t.costOut, GPU: t.costGPU, Commitment: t.costFixed}
	c.Total = c.Input + c.CacheWrite + c.CacheRead + c.Output + c.GPU + c.Commitment
	if n := t.input + t.output; n > 0 {
		c.PerMillionTokens = c.Total / float64(n) * 1e6
	}
	return c
}

func reasonMap(a *[numReasons]int64) map[string]int64 {
	m := map[string]int64{}
	for i, v := range a {
		if v != 0 {
			m[reasonNames[i]] = v
		}
	}
	return m
}

func quantiles(sk interface {
	Count() float64
	Mean() float64
	Quantile(float64) float64
	Max() float64
}) Quantiles {
	return Quantiles{Count: int64(sk.Count()), Mean: sk.Mean(), P50: sk.Quantile(0.5), P90: sk.Quantile(0.9),
		P95: sk.Quantile(0.95), P99: sk.Quantile(0.99), Max: sk.Max()}
}

func (s *Sim) backendResult(p *provider) BackendResult {
	b := BackendResult{Name: p.spec.Name, Kind: "hosted", Attempts: p.stats.attempts, Admitted: p.stats.admitted,
		Abandoned: p.stats.abandoned, Rejected: reasonMap(&p.stats.rejected), Tokens: tokenCounts(&p.stats.tok), Cost: cost(&p.stats.tok)}
	var most int64
	for _, sc := range p.stats.scopes {
		for d := 0; d < numDims; d++ {
			if sc.set.win[d] == nil {
				continue
			}
			ds := &sc.dims[d]
			lr := LimitResult{Scope: sc.name, Dimension: dimNames[d], Limit: sc.set.limits[d], Window: sc.window,
				Rejected: ds.rejected, FirstRejectS: ds.firstReject}
			var peakRej int32 = -1
			for i, v := range ds.rejPer {
				if v > peakRej {
					peakRej = v
					lr.PeakRejectIntervalS = float64(i) * s.cfg.Interval
				}
			}
			perDay := d == dimRPD || d == dimTPD
			lr.PeakUse, _ = peakShare(ds.usePer, lr.Limit, s.cfg.Interval, s.cfg.Duration, perDay)
			lr.PeakDemand, lr.PeakDemandIntervalS = peakShare(ds.demandPer, lr.Limit, s.cfg.Interval, s.cfg.Duration, perDay)
			if ds.rejected > most {
				most = ds.rejected
			}
			b.Limits = append(b.Limits, lr)
		}
	}
	for i := range b.Limits {
		b.Limits[i].Binding = most > 0 && b.Limits[i].Rejected == most
	}
	return b
}

func (s *Sim) series() Series {
	n := s.nInt
	ss := s.ser
	se := Series{IntervalS: s.cfg.Interval, StartS: make([]float64, n), Clock: make([]string, n),
		Offered: ss.offered, Completed: ss.completed, Failed: ss.failed, Retries: ss.retries,
		InFlight: ss.inFlightMean, QueueLength: ss.queueMean, Rejected: map[string][]int64{},
		TTFTP95: make([]float64, n), TTFTP50: make([]float64, n), QueueWaitP95: make([]float64, n),
		InputTokens: ss.inputTok, OutputTokens: ss.outputTok, CostUSD: ss.cost}
	for i := 0; i < n; i++ {
		se.StartS[i] = float64(i) * s.cfg.Interval
		se.Clock[i] = ClockString(s.cfg.StartClock, se.StartS[i])
		if sk := ss.ttft[i]; sk != nil {
			se.TTFTP95[i] = sk.Quantile(0.95)
			se.TTFTP50[i] = sk.Quantile(0.5)
			se.QueueWaitP95[i] = ss.qwait[i].Quantile(0.95)
		}
	}
	for r, arr := range ss.rejected {
		if arr != nil {
			se.Rejected[reasonNames[r]] = arr
		}
	}
	return se
}
