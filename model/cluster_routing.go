package model

import (
	"github.com/headroom-sim/headroom/workloads"
	"math"
	"math/rand/v2"
)

// Routing across a cluster's replicas. Every policy chooses among the
// accepting replicas (up, not failed); the load it compares is a replica's
// outstanding work (waiting plus running requests) and its KV blocks in
// use, read live or, with a refresh period, as of the last refresh (a
// metrics scrape). Prefix-aware routing reads the replicas' prefix caches
// as they are (an engine's KV events keep a router's index current).

// Policies at run time.
const (
	polLeastWork = iota
	polRoundRobin
	polRandom
	polPowerOfTwo
	polLeastKV
	polPrefix
	polSession
	polWeighted
)

var policyCodes = map[string]int{RouteLeastWork: polLeastWork, RouteRoundRobin: polRoundRobin, RouteRandom: polRandom,
	RoutePowerOfTwo: polPowerOfTwo, RouteLeastKV: polLeastKV, RoutePrefix: polPrefix, RouteSession: polSession, RouteWeighted: polWeighted}

// router is a cluster's replica picker.
type router struct {
	policy int
	// keyed: least work read off the routing keys, with no stale view,
	// autoscaler or pools in the way (markClusterDirect, sendDirect)
	keyed bool
	rr    int // next round-robin position
	rng   *rand.Rand
	bound float64
	// stale views, refreshed every refresh seconds (refresh > 0)
	refresh  float64
	snapLoad []int32
	snapKV   []int32
	wq, wkv  float64
	wpre     float64
	wses     float64
	routed   []int64 // requests routed to each replica
	cand     []*replica
	// prefix-cache lookups at first admission (counted in admitWaiting)
	gpuHits, cpuHits, misses int64
	gpuTok, cpuTok           int64
	cpuRead                  float64 // seconds of CPU-tier read-back added to iterations
}

func newRouter(spec *ClusterSpec, cfg *Config, n int) *router {
	r := &router{policy: policyCodes[spec.Routing.Policy], bound: spec.Routing.LoadBound, refresh: float64(spec.Routing.Refresh),
		routed: make([]int64, n)}
	if r.policy == polRandom || r.policy == polPowerOfTwo {
		r.rng = cfg.stream("cluster/" + spec.Name + "/routing")
	}
	if w := spec.Routing.Weights; w.Queue != nil {
		r.wq, r.wkv, r.wpre, r.wses = *w.Queue, *w.KV, *w.Prefix, *w.Session
	}
	if r.refresh > 0 {
		r.snapLoad, r.snapKV = make([]int32, n), make([]int32, n)
	}
	return r
}

// accepting reports whether a replica takes new requests.
func (rep *replica) accepting() bool { return rep.state == repUp && !rep.failed }

// routeNone is the routing key of a replica that does not accept
// requests: above any other.
const routeNone = int(^uint(0) >> 1)

// routeIdxBits holds a replica's index in its routing key (a cluster's
// replicas are fewer, see buildCluster).
const routeIdxBits = 20

// routeKey is the routing key of a replica of index i and load l.
func routeKey(l, i int) int { return l<<routeIdxBits | i }

// noteLoad brings the replica's routing key up to date: routeKey of its
// outstanding work (load) when it accepts requests, else routeNone. It is
// called
// wherever the load or acceptance may have changed (a request queued, a
// sequence finished, an orphan dropped, a failure, a state change); an
// admission moves a request from waiting to running and leaves it as it
// is.
func (rep *replica) noteLoad() {
	k := routeKey(rep.load(), rep.idx)
	if !rep.accepting() {
		k = routeNone
	}
	rep.cl.rkey[rep.idx] = k
}

// leastKey is the least of a cluster's routing keys, routeNone when it has
// none. It takes them eight at a time, as arrays: one length check for
// eight keys, as the loop's own work is most of it.
func leastKey(keys []int) int {
	if len(keys) == 8 { // the common fleet: no loop at all
		k := (*[8]int)(keys)
		return min(k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7])
	}
	bk := routeNone
	for len(keys) >= 8 {
		k := (*[8]int)(keys)
		bk = min(bk, k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7])
		keys = keys[8:]
	}
	for _, k := range keys {
		bk = min(bk, k)
	}
	return bk
}

// viewLoad is a replica's outstanding work as the router sees it.
func (c *cluster) viewLoad(rep *replica) int {
	if c.rt.refresh > 0 {
		return int(c.rt.snapLoad[rep.idx])
	}
	return rep.load()
}

// viewKV is a replica's KV blocks in use as the router sees it.
func (s *Sim) viewKV(c *cluster, rep *replica) int {
	if c.rt.refresh > 0 {
		return int(c.rt.snapKV[rep.idx])
	}
	rep.syncSpan(s.eng.Now())
	return c.blocks - rep.free
}

// refreshView takes the router's snapshot of every replica's load.
func (s *Sim) refreshView(c *cluster) {
	now := s.eng.Now()
	for _, rep := range c.replicas {
		rep.syncSpan(now)
		c.rt.snapLoad[rep.idx] = int32(rep.load())
		c.rt.snapKV[rep.idx] = int32(c.blocks - rep.free)
	}
	s.eng.Schedule(now+c.rt.refresh, evCluster, int32(c.idx), clRefresh)
}

// pickFor chooses the replica for request id, or nil when none accepts.
// An autoscaled cluster with no replica at all starts one (a cold start)
// and queues the request at it.
func (s *Sim) pickFor(c *cluster, id int32) *replica {
	rt := c.rt
	if c.as != nil {
		c.as.arrivals++
	}
	var best *replica
	if rt.policy == polLeastWork {
		// The first accepting replica with the least outstanding work:
		// leastLoaded over the candidates, without listing them, read off
		// the routing keys (noteLoad), one cache line for eight replicas.
		// A key is the load above the replica's index, so the least key is
		// the first replica of the least load, and min is a conditional
		// move: which replica holds the least is a coin toss at every
		// arrival, a branch the processor would mispredict every other
		// time.
		bk := routeNone
		if rt.refresh > 0 || c.scanRoute {
			for i, rep := range c.replicas {
				l := rep.load()
				if rt.refresh > 0 {
					l = int(rt.snapLoad[rep.idx]) // viewLoad
				}
				if rep.accepting() {
					bk = min(bk, routeKey(l, i))
				}
			}
		} else {
			bk = leastKey(c.rkey)
		}
		if bk != routeNone {
			best = c.replicas[bk&(1<<routeIdxBits-1)]
		}
	} else {
		cand := rt.cand[:0]
		for _, rep := range c.replicas {
			if rep.accepting() {
				cand = append(cand, rep)
			}
		}
		rt.cand = cand
		switch len(cand) {
		case 0:
		case 1:
			best = cand[0]
		default:
			if best = s.choose(c, id, cand); best == nil {
				return nil
			}
		}
	}
	if best == nil && c.as != nil {
		best = s.coldStart(c) // no replica accepts
	}
	if best != nil {
		rt.routed[best.idx]++
		if c.pd != nil && c.pd.prefill {
			c.pd.at(id).prep = int32(best.idx)
		}
	}
	return best
}

// choose applies the routing policy to two or more candidates.
func (s *Sim) choose(c *cluster, id int32, cand []*replica) *replica {
	rt := c.rt
	switch rt.policy {
	case polRoundRobin:
		n := len(c.replicas)
		for k := 0; k < n; k++ {
			rep := c.replicas[(rt.rr+k)%n]
			if rep.accepting() {
				rt.rr = (rep.idx + 1) % n
				return rep
			}
		}
	case polRandom:
		return cand[rt.rng.IntN(len(cand))]
	case polPowerOfTwo:
		i := rt.rng.IntN(len(cand))
		j := rt.rng.IntN(len(cand) - 1)
		if j >= i {
			j++
		}
		if c.viewLoad(cand[j]) < c.viewLoad(cand[i]) {
			return cand[j]
		}
		return cand[i]
	case polLeastKV:
		best, bk := cand[0], s.viewKV(c, cand[0])
		for _, rep := range cand[1:] {
			k := s.viewKV(c, rep)
			if k < bk || k == bk && c.viewLoad(rep) < c.viewLoad(best) {
				best, bk = rep, k
			}
		}
		return best
	case polPrefix:
		if rep := s.prefixPick(c, id, cand); rep != nil {
			return rep
		}
	case polSession:
		return sessionPick(s.sessionKey(id), cand)
	case polWeighted:
		return s.weightedPick(c, id, cand)
	}
	return c.leastLoaded(cand)
}

// leastLoaded is the first candidate with the least outstanding work.
func (c *cluster) leastLoaded(cand []*replica) *replica {
	best, bl := cand[0], c.viewLoad(cand[0])
	for _, rep := range cand[1:] {
		if l := c.viewLoad(rep); l < bl {
			best, bl = rep, l
		}
	}
	return best
}

// prefixQuery is what a request's prefix is looked up by: a trace
// request's block keys, or its workload's shared prefix (key, whole blocks
// of tokens).
type prefixQuery struct {
	keys  []uint64
	kb    int
	input int
	key   int64
	n     int
}

// query prepares request id's prefix lookups; ok is false when it has no
// prefix a cache could hold.
func (s *Sim) query(c *cluster, id int32) (q prefixQuery, ok bool) {
	if !c.spec.PrefixCaching {
		return q, false
	}
	r := &s.reqs[id]
	q.input = int(r.input)
	if keys, kb := s.reqKeys(id); keys != nil {
		q.keys, q.kb = keys, kb
		return q, true
	}
	q.n = s.sharedPrefix(r) / c.bs * c.bs
	q.key = s.prefixKey(r)
	return q, q.n > 0
}

// on is how many leading prompt tokens a replica holds, and whether they
// are in GPU memory (tier 2) or only in the CPU tier (tier 1); 0, 0 when
// it holds none. A trace's requests are matched block by block (their
// longest cached run), others by their workload's shared prefix.
func (q *prefixQuery) on(rep *replica) (tokens, tier int) {
	if q.keys != nil {
		if h := rep.blockHits(q.keys, q.kb, q.input); h > 0 {
			return h * q.kb, 2
		}
		return 0, 0
	}
	if rep.prefixes.get(q.key) != nil {
		return q.n, 2
	}
	if rep.tier != nil && rep.tier.has(q.key) {
		return q.n, 1
	}
	return 0, 0
}

// cachedOn is prefixQuery.on for one lookup.
func (s *Sim) cachedOn(c *cluster, rep *replica, id int32) (tokens, tier int) {
	q, ok := s.query(c, id)
	if !ok {
		return 0, 0
	}
	return q.on(rep)
}

// hasPrefix reports whether a request has a prefix a cache could hold.
func (s *Sim) hasPrefix(c *cluster, id int32) bool {
	if keys, _ := s.reqKeys(id); keys != nil {
		return true
	}
	return s.sharedPrefix(&s.reqs[id]) >= c.bs
}

// sessionKey is what session affinity hashes: a trace request's first
// block (a conversation's turns share it), or the workload's prefix the
// request uses (a workload's prefixes stand for its conversations).
func (s *Sim) sessionKey(id int32) int64 {
	if keys, _ := s.reqKeys(id); keys != nil {
		return int64(keys[0])
	}
	return s.prefixKey(&s.reqs[id])
}

// prefixPick is consistent hashing with bounded loads (Mirrokni, Thorup
// and Zadimoghaddam) on the caches' contents: among the replicas holding
// part of the prompt, the one holding the most (a GPU hit weighing twice a
// CPU-tier one), the least loaded of equals, provided it has a free batch
// slot (fewer outstanding requests than max_num_seqs) or its outstanding
// work, the request added, stays within ceil(bound × the mean); nil to
// fall back to the least loaded replica, which then caches the prefix too.
// The slot rule keeps affinity while a replica admits at once, as SGLang's
// cache-aware router does below its absolute imbalance threshold; the
// bound alone would spread prefixes at light load, where ceil(bound ×
// mean) is 1, for no gain.
func (s *Sim) prefixPick(c *cluster, id int32, cand []*replica) *replica {
	q, ok := s.query(c, id)
	if !ok {
		return nil
	}
	total := 0
	for _, rep := range cand {
		total += c.viewLoad(rep)
	}
	limit := math.Ceil(c.rt.bound * float64(total+1) / float64(len(cand)))
	var best *replica
	bv, bl := 0, 0
	for _, rep := range cand {
		l := c.viewLoad(rep)
		if l >= c.maxSeqs && float64(l+1) > limit {
			continue
		}
		tok, tier := q.on(rep)
		if tok == 0 {
			continue
		}
		v := tok * tier
		if best == nil || v > bv || v == bv && l < bl {
			best, bv, bl = rep, v, l
		}
	}
	return best
}

// sessionPick is rendezvous (highest random weight) hashing of a session
// over the candidates: a session stays on its replica while that replica
// accepts, and only the sessions of a replica that leaves move.
func sessionPick(key int64, cand []*replica) *replica {
	var best *replica
	var bh uint64
	for _, rep := range cand {
		if h := workloads.Mix64(uint64(key)*0x9e3779b97f4a7c15 ^ uint64(rep.idx+1)); best == nil || h > bh {
			best, bh = rep, h
		}
	}
	return best
}

// weightedPick scores every candidate as llm-d's scheduler does and takes
// the best sum (the first of equals).
func (s *Sim) weightedPick(c *cluster, id int32, cand []*replica) *replica {
	rt := c.rt
	lo, hi := math.MaxInt, 0
	for _, rep := range cand {
		l := c.viewLoad(rep)
		lo, hi = min(lo, l), max(hi, l)
	}
	var sess *replica
	if rt.wses > 0 {
		sess = sessionPick(s.sessionKey(id), cand)
	}
	in := float64(max(s.reqs[id].input, 1))
	q, hasPrefix := s.query(c, id)
	var best *replica
	bs := math.Inf(-1)
	for _, rep := range cand {
		sc := 0.0
		if rt.wq > 0 {
			q := 1.0
			if hi > lo {
				q = float64(hi-c.viewLoad(rep)) / float64(hi-lo)
			}
			sc += rt.wq * q
		}
		if rt.wkv > 0 {
			sc += rt.wkv * (1 - float64(s.viewKV(c, rep))/float64(c.blocks))
		}
		if rt.wpre > 0 && hasPrefix {
			if tok, tier := q.on(rep); tok > 0 {
				sc += rt.wpre * float64(tok) / in * float64(tier) / 2
			}
		}
		if rep == sess {
			sc += rt.wses
		}
		if sc > bs {
			best, bs = rep, sc
		}
	}
	return best
}

// countPrefix records where a request's prefix came from at its first
// admission: GPU memory, the CPU tier, or nowhere. A delta of -1 takes an
// attempt's count back, when a replica failure refuses it after admitting
// it (it is counted as refused, not admitted, and its retry counts anew).
func (c *cluster) countPrefix(s *Sim, id int32, tokens int, fromCPU bool, delta int64) {
	if !c.spec.PrefixCaching || !s.hasPrefix(c, id) {
		return
	}
	c.countHit(tokens, fromCPU, delta)
}

// countHit is countPrefix for a request known to have a prefix a cache
// could hold (hasPrefix), on a cluster with prefix caching.
func (c *cluster) countHit(tokens int, fromCPU bool, delta int64) {
	rt := c.rt
	switch {
	case tokens == 0:
		rt.misses += delta
	case fromCPU:
		rt.cpuHits += delta
		rt.cpuTok += delta * int64(tokens)
	default:
		rt.gpuHits += delta
		rt.gpuTok += delta * int64(tokens)
	}
}

// routingResult summarises how requests were spread over the replicas.
func (c *cluster) routingResult() *RoutingResult {
	rt := c.rt
	res := &RoutingResult{Policy: c.spec.Routing.Policy, RefreshS: rt.refresh, Routed: rt.routed}
	var sum, n, most float64
	for _, v := range rt.routed {
		if v > 0 {
			sum += float64(v)
			n++
			most = max(most, float64(v))
		}
	}
	if n > 0 && sum > 0 {
		mean := sum / n
		var ss float64
		for _, v := range rt.routed {
			if v > 0 {
				ss += (float64(v) - mean) * (float64(v) - mean)
			}
		}
		res.MaxOverMean = most / mean
		res.CV = math.Sqrt(ss/n) / mean
	}
	return res
}

// prefixResult is the cluster's prefix-cache hits by tier.
func (c *cluster) prefixResult(tok *tokenTally) *PrefixCacheResult {
	if !c.spec.PrefixCaching {
		return nil
	}
	rt := c.rt
	p := &PrefixCacheResult{GPUHits: rt.gpuHits, CPUHits: rt.cpuHits, Misses: rt.misses, GPUTokens: rt.gpuTok, CPUTokens: rt.cpuTok, CPUReadS: rt.cpuRead}
	if tok.input > 0 {
		p.HitRate = float64(tok.read) / float64(tok.input)
	}
	if n := rt.gpuHits + rt.cpuHits + rt.misses; n > 0 {
		p.RequestHitRate = float64(rt.gpuHits+rt.cpuHits) / float64(n)
	}
	return p
}
