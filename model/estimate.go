package model

import (
	"math"

	"github.com/headroom-sim/headroom/model/perf"
)

// Work is what one simulation is expected to cost, estimated before it runs
// from its demand (rates and curves over the horizon, users and their think
// times, jobs), its tokens and its backends' fastest answers. It counts
// what the demand alone implies; retries, refusals and backlogs only add
// to it, so a run that the estimate refuses would cost at least that much.
type Work struct {
	// Requests the demand issues over the horizon (a closed loop issues at
	// most this many: one per user per think time and fastest answer).
	Requests float64
	// Events the engine handles: two per request to a hosted provider
	// (arrival, answer), three to a cluster (arrival, admission, answer),
	// and the interval ticks.
	Events float64
	// InFlight is how many requests the input itself puts in flight at
	// once: a job's, and the closed-loop users in a request (by Little's
	// law with the fastest answer), up to the clients' concurrency caps
	// (those waiting for a client slot cost almost nothing).
	InFlight float64
	// Bytes is the simulation's peak memory: its series, one record per
	// request InFlight, and its results.
	Bytes float64
}

// Memory costs, measured with go test -benchmem and the CLI's peak
// resident size (model/PERFORMANCE.md).
const (
	// BytesPerInterval is what one interval of the series costs while the
	// simulation runs and in its results.
	BytesPerInterval = 600
	// BytesPerRequest is what one request in flight costs: its record, its
	// limit charges and engine state, an event and the slices' slack.
	BytesPerRequest = 450
	// BytesPerSim is a simulation's fixed cost.
	BytesPerSim = 1 << 20
)

// Add returns the sum of two estimates (Bytes as well: two simulations
// held at once).
func (w Work) Add(o Work) Work {
	return Work{Requests: w.Requests + o.Requests, Events: w.Events + o.Events, InFlight: w.InFlight + o.InFlight, Bytes: w.Bytes + o.Bytes}
}

// EstimateWork estimates what simulating c costs (see Work). c should be
// valid; an invalid configuration gives some estimate, never a panic.
func EstimateWork(c Config) Work {
	c.ApplyDefaults()
	var w Work
	thinking := 0.0 // bytes the closed-loop users hold while thinking (users.go)
	clusters := map[string]*ClusterSpec{}
	for i := range c.Clusters {
		clusters[c.Clusters[i].Name] = &c.Clusters[i]
	}
	providers := map[string]*ProviderSpec{}
	for i := range c.Providers {
		providers[c.Providers[i].Name] = &c.Providers[i]
	}
	routes := map[string]*RouteSpec{}
	for i := range c.Routes {
		routes[c.Routes[i].Name] = &c.Routes[i]
	}
	for i := range c.Workloads {
		ws := &c.Workloads[i]
		d := &ws.Demand
		target := ws.Route
		if rt := routes[target]; rt != nil && len(rt.Targets) > 0 {
			target = rt.Targets[0]
		}
		target, _ = splitTarget(target)
		perReq := 2.0
		if clusters[target] != nil {
			perReq = 3
		}
		var n, inFlight float64 // requests, and in flight at once
		capped := float64(ws.Client.MaxConcurrency)
		switch {
		case d.Closed():
			answer := fastestAnswer(ws, providers[target], clusters[target])
			cycle := math.Max(d.Think.MeanValue(), 0) + answer
			users := float64(d.Users)
			inFlight = users
			if cycle > 0 {
				n = users * c.Duration / cycle
				// Little's law: users in a request at once, at least.
				inFlight = users * answer / cycle
			} else {
				n = math.Inf(1)
			}
			thinking += users * userBytes(&d.Think)
		case d.IsJob():
			if float64(d.At) < c.Duration {
				n = float64(d.Count)
				inFlight = n
			}
		default:
			if curve, err := d.BuildCurve(c.StartClock); err == nil {
				n = curve.Cumulative(c.Duration)
			}
		}
		if capped > 0 {
			inFlight = math.Min(inFlight, capped)
		}
		w.Requests += n
		w.Events += perReq * n
		w.InFlight += inFlight
	}
	n := float64(c.intervals())
	w.Events += n
	w.Bytes = BytesPerSim + BytesPerInterval*n + BytesPerRequest*w.InFlight + thinking
	for _, v := range []*float64{&w.Requests, &w.Events, &w.InFlight, &w.Bytes} {
		if math.IsNaN(*v) {
			*v = math.Inf(1)
		}
	}
	return w
}

// fastestAnswer is a lower bound on the time a backend takes to answer
// one of the workload's requests of mean size: a hosted provider's base
// latencies, a cluster's prefill and decode steps of that request alone.
func fastestAnswer(ws *WorkloadSpec, p *ProviderSpec, cl *ClusterSpec) float64 {
	in, out := ws.Tokens.MeanInput(), ws.Tokens.MeanOutput()
	switch {
	case p != nil:
		l := p.Latency
		tpot := float64(l.TPOT.Base)
		if l.TPOT.Mean > 0 {
			tpot = float64(l.TPOT.Mean)
		}
		t := float64(l.TTFT.Base) + float64(l.TTFT.PerInputToken)*in + tpot*math.Max(out-1, 0)
		return math.Max(t, 0)
	case cl != nil:
		c, err := buildCluster(cl, 0, 1)
		if err != nil || c.step == nil {
			return 0
		}
		pre := c.step.StepTime(perf.Batch{PrefillSeqs: 1, Prefill: int(in), Context: in})
		dec := c.step.StepTime(perf.Batch{Decode: 1, Context: in + out/2})
		return math.Max(pre+dec*math.Max(out-1, 0), 0)
	}
	return 0
}
