package model

import "math/rand/v2"

// target is one backend a workload can send to, as that workload sees it.
type target struct {
	name    string
	prov    *provider // hosted, or nil
	clus    *cluster  // self-hosted, or nil
	key     int       // index into prov.keys, or -1
	bstats  *backendStats
	errTime float64
	maxTok  int
	gpuTok  int64 // tokens this workload had served by the cluster (its cost share)
	hostTok int64 // tokens this workload had served by the hosted provider (its share of a commitment)
}

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

// tgt is the target of a request's current attempt.
func (s *Sim) tgt(r *request) *target { return &s.wls[r.wl].targets[r.tgt] }
