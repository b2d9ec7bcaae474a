package model

import (
	"math"

	"github.com/headroom-sim/headroom/sim"
)

// Reactive autoscaling, in the manner of Kubernetes' HPA:
//
//   - every period the metric is averaged over the period just ended and
//     summed over the cluster (waiting requests, running sequences, busy
//     replicas, replicas' worth of KV blocks in use, or arrivals per
//     second); the recommendation is ceil(total ÷ target), unless the
//     metric per provisioned replica is within the tolerance of the target
//     (then the count stays), clamped to [max(min, the schedule's floor),
//     max], and never 0 while the cluster holds a request;
//   - stabilisation: the count rises only to the lowest recommendation of
//     the up window and falls only to the highest of the down window, both
//     windows closed (a recommendation exactly one window old counts), so a
//     step in demand at an evaluation boundary is acted on exactly one
//     period plus the up window later;
//   - a replica added takes provisioning + model_load to accept requests
//     (billed from the decision); one removed drains its work first;
//   - after an action, none other for the cooldown;
//   - with min = 0 the cluster scales to zero when idle; a request arriving
//     then starts a replica at once (a cold start, as Knative's activator
//     does) and waits at it, unless a route's overflow sends it elsewhere.

// autoscaler is a cluster's autoscaler at run time.
type autoscaler struct {
	spec                  *AutoscaleSpec
	period, tol, upW, dnW float64
	cool                  float64
	floor                 int
	hist                  []recPoint // recommendations within the longer window
	lastAct               float64
	lastT                 float64
	cumWait, cumRun       float64
	cumKVQ                float64 // a decode pool's: the wait for its KV blocks
	cumBusy, cumKV        float64
	arrivals              int64
	rec                   int // latest recommendation
	ready                 int // replicas up
	readyG, shortG, undG  sim.Gauge
	readySer, recSer      []float64
	events                []ScaleEvent
	dropped               int64
	evals, ups, downs     int64
	colds                 int64
	peak                  int
}

type recPoint struct {
	t float64
	n int
}

// maxScaleEvents bounds the scale events kept in the results.
const maxScaleEvents = 1000

func newAutoscaler(spec *AutoscaleSpec, nInt int) *autoscaler {
	return &autoscaler{spec: spec, period: float64(spec.Period), tol: *spec.Tolerance, upW: float64(spec.UpWindow),
		dnW: float64(*spec.DownWindow), cool: float64(spec.Cooldown), lastAct: math.Inf(-1),
		readySer: make([]float64, nInt), recSer: make([]float64, nInt)}
}

// startupDelay is how long a replica added now takes to accept requests.
func (c *cluster) startupDelay() float64 {
	if c.as != nil {
		return float64(c.as.spec.Provisioning + c.as.spec.ModelLoad)
	}
	return float64(c.spec.Startup)
}

// asStart sets the count at t = 0 (replicas, or the schedule's entry then,
// within [min, max]) and schedules the first evaluation.
func (s *Sim) asStart(c *cluster, n int) int {
	a := c.as
	if k := c.scheduleAt(s.cfg.StartClock); k >= 0 && c.spec.Schedule[k].Replicas > 0 {
		a.floor = c.spec.Schedule[k].Replicas
	}
	n = min(max(n, *a.spec.Min, a.floor), a.spec.Max)
	a.rec = n
	s.eng.Schedule(a.period, evCluster, int32(c.idx), clScale)
	return n
}

// asFloor applies a schedule entry: its count becomes the floor, and a
// cluster below it scales up at once.
func (s *Sim) asFloor(c *cluster, n int) {
	a := c.as
	a.floor = n
	if c.target < n {
		s.scaleAction(c, n, ScaleSchedule, 0, n)
	}
}

// coldStart returns the replica a request arriving at a cluster with no
// accepting replica waits at: one already starting, or one started now.
func (s *Sim) coldStart(c *cluster) *replica {
	for _, rep := range c.replicas {
		if rep.state == repStarting {
			return rep
		}
	}
	if c.target > 0 || c.as.spec.Max < 1 {
		return nil // replicas are provisioned but failed: nothing to start
	}
	s.scaleAction(c, 1, ScaleCold, 0, 1)
	c.as.colds++
	for _, rep := range c.replicas {
		if rep.state == repStarting || rep.accepting() {
			return rep
		}
	}
	return nil
}

// scaleAction changes the count and records why.
func (s *Sim) scaleAction(c *cluster, n int, reason string, metric float64, rec int) {
	a := c.as
	now := s.eng.Now()
	from := c.target
	if n == from {
		return
	}
	s.scaleTo(c, n)
	a.lastAct = now
	ev := ScaleEvent{AtS: now, Clock: ClockString(s.cfg.StartClock, now), From: from, To: n, Reason: reason, Metric: metric, Recommended: rec}
	if n > from {
		a.ups++
		ev.ReadyAtS = now + c.startupDelay()
	} else {
		a.downs++
	}
	if len(a.events) < maxScaleEvents {
		a.events = append(a.events, ev)
	} else {
		a.dropped++
	}
	for _, rep := range c.replicas {
		if rep.accepting() && !rep.busy {
			s.startStep(c, rep)
		}
	}
	s.asCount(c)
}

// asCount recounts the replicas up and provisioned after a change, and
// moves the shortfall gauges.
func (s *Sim) asCount(c *cluster) {
	a := c.as
	now := s.eng.Now()
	up, prov := 0, 0
	for _, rep := range c.replicas {
		if rep.state == repUp {
			up++
		}
		if rep.state != repDown {
			prov++
		}
	}
	a.ready = up
	a.peak = max(a.peak, prov)
	a.readyG.Set(now, float64(up))
	short := max(0, a.rec-up)
	a.shortG.Set(now, float64(short))
	if short > 0 {
		a.undG.Set(now, 1)
	} else {
		a.undG.Set(now, 0)
	}
}

// hasWork reports whether any replica holds a request.
func (c *cluster) hasWork() bool {
	for _, rep := range c.replicas {
		if rep.waitingLen() > 0 || len(rep.running) > 0 {
			return true
		}
	}
	return false
}

// evaluate is one autoscaler evaluation.
func (s *Sim) evaluate(c *cluster) {
	a := c.as
	now := s.eng.Now()
	s.eng.Schedule(now+a.period, evCluster, int32(c.idx), clScale)
	a.evals++
	total := s.asMetric(c, now)
	sp := a.spec
	n := c.target
	var want int
	switch {
	case n > 0 && math.Abs(total/(float64(n)*sp.Target)-1) <= a.tol:
		want = n
	default:
		want = int(math.Ceil(total/sp.Target - 1e-9))
	}
	lo := max(*sp.Min, a.floor)
	want = min(max(want, lo), sp.Max)
	if want == 0 && c.hasWork() {
		want = 1
	}
	a.rec = want
	a.hist = append(a.hist, recPoint{now, want})
	keep := max(a.upW, a.dnW)
	i := 0
	for i < len(a.hist) && a.hist[i].t < now-keep-1e-9 {
		i++
	}
	if i > 0 {
		a.hist = append(a.hist[:0], a.hist[i:]...)
	}
	up, down := want, want
	for _, h := range a.hist {
		if h.t >= now-a.upW-1e-9 {
			up = min(up, h.n)
		}
		if h.t >= now-a.dnW-1e-9 {
			down = max(down, h.n)
		}
	}
	next := n
	if n < up {
		next = up
	} else if n > down {
		next = down
	}
	next = min(max(next, lo), sp.Max)
	per := total
	if n > 0 {
		per = total / float64(n)
	}
	if next != n && now-a.lastAct >= a.cool-1e-9 {
		s.scaleAction(c, next, ScaleMetric, per, want)
		return
	}
	s.asCount(c)
}

// asMetric is the metric summed over the cluster, averaged over the period
// since the last evaluation.
func (s *Sim) asMetric(c *cluster, now float64) float64 {
	a := c.as
	p := now - a.lastT
	a.lastT = now
	if p <= 0 {
		return 0
	}
	avg := func(g *sim.Gauge, last *float64) float64 {
		v := g.Integral(now)
		d := v - *last
		*last = v
		return d / p
	}
	wait := avg(&c.cs.waitG, &a.cumWait)
	if c.isDecodePool() {
		wait += avg(&c.pd.other.pd.kvqG, &a.cumKVQ) // prefilled, waiting for its blocks
	}
	run := avg(&c.cs.batchG, &a.cumRun)
	busy := avg(&c.cs.busyG, &a.cumBusy)
	kv := 0.0
	for _, rep := range c.replicas {
		rep.syncSpan(now)
		kv += rep.kvG.Integral(now)
	}
	kvAvg := (kv - a.cumKV) / p / float64(c.blocks)
	a.cumKV = kv
	arr := float64(a.arrivals) / p
	a.arrivals = 0
	switch a.spec.Metric {
	case MetricKVUse:
		return kvAvg
	case MetricRunning:
		return run
	case MetricUtilization:
		return busy
	case MetricArrivalRate:
		return arr
	}
	return wait
}

// scalingUp reports whether the cluster is short of replicas now: some are
// starting, or fewer accept requests than the autoscaler recommends.
func (c *cluster) scalingUp() bool {
	if c.as == nil {
		return false
	}
	if c.as.rec > c.as.ready {
		return true
	}
	for _, rep := range c.replicas {
		if rep.state == repStarting {
			return true
		}
	}
	return false
}

// tickAutoscale closes interval iv of the autoscaler's series.
func (a *autoscaler) tick(iv int, t float64) {
	if iv < 0 || iv >= len(a.readySer) {
		return
	}
	a.readySer[iv], _ = a.readyG.Mark(t)
	a.recSer[iv] = float64(a.rec)
}

func (c *cluster) autoscaleResult(horizon float64) *AutoscaleResult {
	a := c.as
	sp := a.spec
	ev := a.events
	if ev == nil {
		ev = []ScaleEvent{}
	}
	return &AutoscaleResult{Metric: sp.Metric, Target: sp.Target, Min: *sp.Min, Max: sp.Max, Evaluations: a.evals,
		ScaleUps: a.ups, ScaleDowns: a.downs, ColdStarts: a.colds, PeakReplicas: a.peak,
		UnderProvisionedS: a.undG.Integral(horizon), ReplicaSecondsShort: a.shortG.Integral(horizon),
		Events: ev, EventsDropped: a.dropped, Ready: a.readySer, Recommended: a.recSer}
}

// markSpill records whether an attempt a route sent past an autoscaled
// cluster went elsewhere because the cluster was short of replicas. An
// attempt passed over still counts in such a cluster's arrival rate (the
// demand offered to it, as a gateway's request rate shows it), and one
// passed over a cluster scaled to zero starts a replica, as a request
// reaching it would.
func (s *Sim) markSpill(id int32) {
	r := &s.reqs[id]
	w := s.wls[r.wl]
	spill := false
	if w.route != nil && w.route.spec.Strategy == StrategyOverflow && r.tgt > 0 {
		for i := 0; i < int(r.tgt); i++ {
			c := w.targets[i].clus
			if c == nil || c.as == nil {
				continue
			}
			c.as.arrivals++
			if c.target == 0 {
				s.coldStart(c)
			}
			if w.targets[r.tgt].clus == nil && c.scalingUp() {
				spill = true
			}
		}
	}
	if spill {
		st := &w.route.stats
		st.ScaleUpSpill++
		if st.ScaleUpSpillSeries == nil {
			st.ScaleUpSpillSeries, st.ScaleUpSpillCostSeries = make([]int64, s.nInt), make([]float64, s.nInt)
		}
		st.ScaleUpSpillSeries[s.interval(s.eng.Now())]++
	}
	if rt := w.route; rt != nil && (spill || int(id) < len(rt.spill)) {
		for int(id) >= len(rt.spill) {
			rt.spill = append(rt.spill, false)
		}
		rt.spill[id] = spill
	}
}

// spillDone adds a completed spilled request's cost to its route.
func (s *Sim) spillDone(id int32, t *tokenTally) {
	rt := s.wls[s.reqs[id].wl].route
	if int(id) >= len(rt.spill) || !rt.spill[id] {
		return
	}
	rt.spill[id] = false
	cost := t.costIn + t.costW + t.costR + t.costOut
	rt.stats.ScaleUpSpillCompleted++
	rt.stats.ScaleUpSpillCostUSD += cost
	rt.stats.ScaleUpSpillCostSeries[s.interval(s.eng.Now())] += cost
}
