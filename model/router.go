package model

import "math/rand/v2"

// A request's way, step 4 of 6 (doc.go): the router. An attempt that
// passed the client (client.go) and the gateway, if any (gateway.go),
// goes to its workload's backend, or a route picks one of several
// (weighted, overflow, fallback); it is then delivered (backend.go). A
// refused attempt comes back through reroute before its client decides:
// its target cools down, and a fallback route sends the same attempt on
// to its next target.

// route is a RouteSpec at run time, shared by the workloads that use it.
type route struct {
	spec     *RouteSpec
	idx      int
	names    []string
	cum      []float64 // weighted: cumulative weights
	rng      *rand.Rand
	coolTill []float64 // per target
	fallback bool
	stats    RouteResult
	spill    []bool // by request: its attempt spilled past a cluster scaling up (cluster_autoscale.go)
}

func newRoute(spec *RouteSpec, idx int, cfg *Config) *route {
	rt := &route{spec: spec, idx: idx, names: spec.Targets, rng: cfg.stream("route/" + spec.Name),
		coolTill: make([]float64, len(spec.Targets)), fallback: *spec.Fallback}
	total := 0.0
	for _, w := range spec.Weights {
		total += w
		rt.cum = append(rt.cum, total)
	}
	rt.stats = RouteResult{Name: spec.Name, Strategy: spec.Strategy}
	for _, n := range spec.Targets {
		rt.stats.Targets = append(rt.stats.Targets, RouteTarget{Name: n})
	}
	return rt
}

func (rt *route) cooling(i int, now float64) bool { return now < rt.coolTill[i] }

// route sends an attempt that passed the gateway (if any) to its backend
// (sendTo, backend.go): a route picks the target.
func (s *Sim) route(id int32, iv int) {
	r := &s.reqs[id]
	s.routeOn(id, r, s.wls[r.wl], iv)
}

// routeOn is route of r = s.reqs[id], a request of w, as its caller found
// them.
func (s *Sim) routeOn(id int32, r *request, w *workload, iv int) {
	s.routed++
	if w.route != nil {
		r.tgt = s.pick(w.route, w)
		s.markSpill(id)
	}
	s.sendTo(id, r, w, iv)
}

// pick chooses the target of a new client attempt.
func (s *Sim) pick(rt *route, w *workload) int8 {
	now := s.eng.Now()
	n := len(w.targets)
	switch rt.spec.Strategy {
	case StrategyWeighted:
		u := rt.rng.Float64() * rt.cum[n-1]
		i := 0
		for i < n-1 && u >= rt.cum[i] {
			i++
		}
		if rt.cooling(i, now) {
			for j := 1; j < n; j++ {
				if k := (i + j) % n; !rt.cooling(k, now) {
					rt.stats.CooldownSkips++
					return int8(k)
				}
			}
		}
		return int8(i)
	case StrategyOverflow:
		last := -1
		for i := range w.targets {
			if rt.cooling(i, now) {
				rt.stats.CooldownSkips++
				continue
			}
			if s.waiting(&w.targets[i]) < rt.spec.OverflowWaiting {
				if i > 0 {
					rt.stats.Overflows++
				}
				return int8(i)
			}
			last = i
		}
		if last < 0 {
			return 0
		}
		if last > 0 {
			rt.stats.Overflows++
		}
		return int8(last)
	}
	for i := range w.targets { // fallback: the first one not cooling down
		if !rt.cooling(i, now) {
			return int8(i)
		}
		rt.stats.CooldownSkips++
	}
	return 0
}

// waiting is how many requests wait at a target: a cluster's least-loaded
// accepting replica, or a provider's concurrency queue.
func (s *Sim) waiting(t *target) int {
	if t.clus != nil {
		if rep := t.clus.pickReplica(); rep != nil {
			return rep.waitingLen()
		}
		return int(^uint(0) >> 1)
	}
	return t.prov.conQ.len()
}

// reroute is a refused attempt passing back through its workload's route
// (w.route is set): when the reason is the backend's and worth another
// try, the target cools down and, on a fallback route, the attempt goes
// on to the next target. It reports whether the attempt went on. Refusals
// by the gateway, and timeouts behind one, do not come back this way: the
// router sits behind the gateway.
func (s *Sim) reroute(id int32, reason int) bool {
	r := &s.reqs[id]
	w := s.wls[r.wl]
	rt := w.route
	if !retryable(reason) || gatewayReason(reason) || (reason == rsTimeout && s.gw != nil) {
		return false
	}
	now := s.eng.Now()
	if rt.spec.Cooldown > 0 {
		rt.coolTill[r.tgt] = now + float64(rt.spec.Cooldown)
	}
	if !rt.fallback {
		return false
	}
	next := rt.nextTarget(r.tgt, now)
	if next < 0 {
		return false
	}
	rt.stats.Fallbacks++
	r.tgt = next
	r.out = true
	if w.timeout > 0 {
		s.arm(id, w) // a new deployment call, a new timeout
	}
	s.sendTo(id, r, w, s.interval(now))
	return true
}

// nextTarget is where a refused attempt goes on a fallback route, or -1.
func (rt *route) nextTarget(from int8, now float64) int8 {
	for i := int(from) + 1; i < len(rt.names); i++ {
		if !rt.cooling(i, now) {
			return int8(i)
		}
		rt.stats.CooldownSkips++
	}
	return -1
}
