package model

import (
	"math"
	"math/rand/v2"

	"github.com/headroom-sim/headroom/sim"
)

// A request's way, step 3 of 6 (doc.go): the gateway, when the scenario
// has one. A client's attempt (client.go) is answered from the response
// cache, refused (back to its client), queued in the fair queue, or
// admitted to the router (router.go), holding a reservation in weighted
// units and stream slots that completion (complete.go) reconciles.

// Gateway flags on a request (request.gw).
const (
	gwHeld  uint8 = 1 << iota // holds a reservation and stream slots
	gwSlot                    // holds one of the fair queue's in-flight slots
	gwLocal                   // its reservation came from a fail-open local bucket
	gwHit                     // answered from the response cache
)

// Priority classes in the fair queue, highest first.
const (
	classInteractive = iota
	classBatch
	numClasses
)

// gwScope is a tenant or one of its keys: a unit bucket and a stream cap.
type gwScope struct {
	bucket     *tokenBucket // nil: no unit limit
	local      *tokenBucket // fail-open local bucket during a store outage
	localFrac  float64
	maxStreams int
	streams    int
	st         gwScopeStats
}

// gwScopeStats is what a tenant or key did at the gateway.
type gwScopeStats struct {
	attempts, admitted                  int64
	rejected                            [numReasons]int64
	reserved, actual, refunded, lost    float64
	reservedServed                      float64 // reserved by requests that were served
	leaseRefunded                       float64
	streamCapHits, peakStreams, crashes int64
}

// gwTenant is a tenant at run time: its scope, keys and fair queues.
type gwTenant struct {
	gwScope
	spec     *TenantSpec
	index    int
	keys     []*gwScope
	weight   float64
	q        [numClasses]deque
	deficit  [numClasses]float64
	visited  [numClasses]bool // has had this round's quantum
	inActive [numClasses]bool
	served   [numClasses]float64 // units dispatched from the fair queue
}

// gwLease is a crashed stream's reservation awaiting reconciliation.
type gwLease struct {
	tenant, key int32
	local       bool
	units       float64
}

// gwOutage is a limiter-store outage window in simulation time.
type gwOutage struct {
	from, to  float64
	closed    bool
	localFrac float64
}

// gateway is the GatewaySpec at run time.
type gateway struct {
	spec               *GatewaySpec
	wIn, wCached, wOut float64 // unit weights
	tenants            []*gwTenant
	active             [numClasses][]*gwTenant
	pos                [numClasses]int
	maxInFlight        int
	inFlight           int
	dispatching        bool
	shedAfter          [numClasses]float64
	timerAt            float64 // when the pending shed timer fires; +Inf if none
	timerGen           uint32
	outages            []gwOutage
	leases             []gwLease
	freeLeases         []int32
	rng                *rand.Rand
	cacheExp           [][]float64 // per workload, per distinct request: when its cached answer expires
	st                 gwStats
}

// gwStats are gateway-wide figures.
type gwStats struct {
	cacheLookups, cacheHits int64
	queued, shed            [numClasses]int64
	wait                    [numClasses]*sim.Sketch
	peakQueue, queueLen     int
	failOpenAdmits          int64
	failClosed              int64
	abandonedQueued         int64 // clients timed out while their request waited here
}

func newGateway(spec *GatewaySpec, cfg *Config) *gateway {
	g := &gateway{spec: spec, maxInFlight: spec.Queue.MaxInFlight, timerAt: math.Inf(1), rng: cfg.stream("gateway")}
	g.wIn, g.wCached, g.wOut = spec.Weights.values()
	g.shedAfter = [numClasses]float64{float64(spec.Queue.ShedAfter.Interactive), float64(spec.Queue.ShedAfter.Batch)}
	for c := range g.st.wait {
		g.st.wait[c] = sim.NewSketch()
	}
	for i := range spec.Tenants {
		ts := &spec.Tenants[i]
		t := &gwTenant{spec: ts, index: i, weight: *ts.Weight, gwScope: newScope(ts.UnitsPerMin, ts.Burst, ts.MaxStreams)}
		for _, k := range ts.Keys {
			ks := newScope(k.UnitsPerMin, k.Burst, k.MaxStreams)
			t.keys = append(t.keys, &ks)
		}
		g.tenants = append(g.tenants, t)
	}
	for _, o := range spec.Outages {
		from := math.Mod(o.From.Seconds()-cfg.StartClock+2*86400, 86400)
		g.outages = append(g.outages, gwOutage{from: from, to: from + float64(o.For), closed: o.Mode == FailClosed, localFrac: o.LocalFraction})
	}
	g.cacheExp = make([][]float64, len(cfg.Workloads))
	if spec.Cache.TTL > 0 {
		for i, w := range cfg.Workloads {
			if w.Repeats.Distinct > 0 {
				e := make([]float64, w.Repeats.Distinct)
				for j := range e {
					e[j] = math.Inf(-1)
				}
				g.cacheExp[i] = e
			}
		}
	}
	return g
}

func newScope(perMin, burst float64, streams int) gwScope {
	sc := gwScope{maxStreams: streams}
	if perMin > 0 {
		sc.bucket = newTokenBucket(perMin/60, burst)
	}
	return sc
}

// outageAt is the store outage in force at now, or nil.
func (g *gateway) outageAt(now float64) *gwOutage {
	for i := range g.outages {
		if o := &g.outages[i]; now >= o.from && now < o.to {
			return o
		}
	}
	return nil
}

// bucketFor is the bucket a reservation is taken from at now: the shared
// one, or during a fail-open outage a local one at a fraction of it.
func (sc *gwScope) bucketFor(o *gwOutage, now float64) *tokenBucket {
	if sc.bucket == nil || o == nil {
		return sc.bucket
	}
	if sc.local == nil || sc.localFrac != o.localFrac {
		sc.local = newTokenBucket(sc.bucket.rate*o.localFrac, sc.bucket.size*o.localFrac)
		sc.local.last = now
		sc.localFrac = o.localFrac
	}
	return sc.local
}

// giveBack returns n units to the bucket a reservation came from (the
// seed's give_back: never above capacity).
func (sc *gwScope) giveBack(local bool, now, n float64) {
	b := sc.bucket
	if local && sc.local != nil {
		b = sc.local
	}
	if b != nil && n > 0 {
		b.refund(now, n, 0)
	}
}

// classOf is a workload's fair-queue class.
func classOf(w *workload) int {
	if w.spec.Priority == PriorityBatch {
		return classBatch
	}
	return classInteractive
}

// gwUnits is the reservation of a request at the gateway: every input
// token at the input weight (the most it can cost: the gateway cannot
// know what the engine has cached) plus max_tokens at the output weight.
func (g *gateway) gwUnits(in, maxOut int) float64 {
	return g.wIn*float64(in) + g.wOut*float64(maxOut)
}

// gwActual is what a served request really cost in units.
func (g *gateway) gwActual(t *tokenTally) float64 {
	return g.wIn*float64(t.input-t.read) + g.wCached*float64(t.read) + g.wOut*float64(t.output)
}

// retryAfter is the Retry-After (whole seconds, rounded up) for a wait.
func (g *gateway) retryAfter(wait float64) float64 {
	return math.Max(math.Ceil(wait-1e-9), float64(g.spec.RetryAfterMin))
}

// gwAdmit passes a client attempt through the gateway. It reports whether
// the attempt goes on to the router now; otherwise it was answered from
// the cache, refused, or queued.
func (s *Sim) gwAdmit(id int32, iv int) bool {
	g := s.gw
	r := &s.reqs[id]
	w := s.wls[r.wl]
	now := s.eng.Now()
	t := w.gwT
	t.st.attempts++
	var key *gwScope
	if w.gwK >= 0 {
		key = t.keys[w.gwK]
		key.st.attempts++
	}
	// The response cache answers repeats before any limit is charged.
	if exp := g.cacheExp[r.wl]; exp != nil && r.content >= 0 { // a live request may be uncacheable (-1)
		g.st.cacheLookups++
		if exp[r.content] > now {
			g.st.cacheHits++
			r.gw = gwHit
			r.state = stGwCached
			r.admitted = now
			r.ttftSvc = float64(g.spec.Cache.Latency)
			s.eng.Schedule(now+r.ttftSvc, evCacheHit, id, r.gen)
			return false
		}
	}
	o := g.outageAt(now)
	if o != nil && o.closed {
		g.st.failClosed++
		s.gwReject(id, key, rsGwStoreDown, g.retryAfter(o.to-now), iv)
		return false
	}
	units := g.gwUnits(int(r.input), askMax(r, w))
	// A reservation larger than a bucket can never succeed: 400, not 429.
	if (t.bucket != nil && units > t.bucket.size) || (key != nil && key.bucket != nil && units > key.bucket.size) {
		s.gwReject(id, key, rsGwTooLarge, 0, iv)
		return false
	}
	// One that only the smaller local caps of a fail-open outage cannot
	// hold fits again when the store is back.
	if o != nil && ((t.bucket != nil && units > t.bucket.size*o.localFrac) || (key != nil && key.bucket != nil && units > key.bucket.size*o.localFrac)) {
		s.gwReject(id, key, rsGwUnits, g.retryAfter(o.to-now), iv)
		return false
	}
	tb := t.bucketFor(o, now)
	if tb != nil {
		if ok, wait := tb.check(now, units); !ok {
			s.gwReject(id, key, rsGwUnits, g.retryAfter(wait), iv)
			return false
		}
	}
	var kb *tokenBucket
	if key != nil {
		kb = key.bucketFor(o, now)
		if kb != nil {
			if ok, wait := kb.check(now, units); !ok {
				s.gwReject(id, key, rsGwKeyUnits, g.retryAfter(wait), iv)
				return false
			}
		}
	}
	if t.maxStreams > 0 && t.streams >= t.maxStreams {
		t.st.streamCapHits++
		s.gwReject(id, key, rsGwStreams, g.retryAfter(1), iv)
		return false
	}
	if key != nil && key.maxStreams > 0 && key.streams >= key.maxStreams {
		key.st.streamCapHits++
		s.gwReject(id, key, rsGwKeyStreams, g.retryAfter(1), iv)
		return false
	}
	// Admitted: take the units, hold the stream slots.
	if tb != nil {
		tb.take(now, units)
	}
	if kb != nil {
		kb.take(now, units)
	}
	r.gw = gwHeld
	if o != nil {
		r.gw |= gwLocal
		g.st.failOpenAdmits++
	}
	r.gwRes, r.gwAt = units, now
	t.hold(units)
	if key != nil {
		key.hold(units)
	}
	if g.maxInFlight <= 0 {
		return true
	}
	if g.inFlight < g.maxInFlight {
		g.inFlight++
		r.gw |= gwSlot
		g.st.wait[s.reqClass(id)].Add(0)
		return true
	}
	s.gwEnqueue(id, w, now)
	return false
}

func (sc *gwScope) hold(units float64) {
	sc.st.admitted++
	sc.st.reserved += units
	sc.streams++
	if int64(sc.streams) > sc.st.peakStreams {
		sc.st.peakStreams = int64(sc.streams)
	}
}

// gwReject refuses an attempt at the gateway: no backend saw it.
func (s *Sim) gwReject(id int32, key *gwScope, reason int, retryAfter float64, iv int) {
	r := &s.reqs[id]
	w := s.wls[r.wl]
	w.stats.rejected[reason]++
	s.windowRefused(w, reason)
	w.gwT.st.rejected[reason]++
	if key != nil {
		key.st.rejected[reason]++
	}
	s.ser.reject(reason, iv)
	r.lastRsn = int16(reason)
	r.retryAft = retryAfter
	r.state = stBackoff
	r.out = false
	s.eng.Schedule(s.eng.Now()+float64(s.gw.spec.ErrorLatency), evFail, id, r.gen)
}

// gwEnqueue puts an admitted request in its tenant's fair queue.
func (s *Sim) gwEnqueue(id int32, w *workload, now float64) {
	g := s.gw
	r := &s.reqs[id]
	c := s.reqClass(id)
	t := w.gwT
	r.state = stGwQueue
	r.gwQueued = now
	t.q[c].pushBack(id)
	if !t.inActive[c] {
		t.inActive[c] = true
		t.visited[c] = false
		g.active[c] = append(g.active[c], t)
	}
	g.st.queued[c]++
	g.st.queueLen++
	if g.st.queueLen > g.st.peakQueue {
		g.st.peakQueue = g.st.queueLen
	}
	s.ser.queue.Add(now, 1)
	if sa := g.shedAfter[c]; sa > 0 && now+sa < g.timerAt {
		g.timerAt = now + sa
		g.timerGen++
		s.eng.Schedule(g.timerAt, evGateway, 0, g.timerGen)
	}
}

// gwNext pops the next request by strict priority between classes and
// deficit round robin by tenant weight, in units, within a class. Idle
// tenants leave the round and bank no credit. It returns -1 when every
// queue is empty.
func (g *gateway) gwNext(reqs []request) int32 {
	for c := 0; c < numClasses; c++ {
		misses := 0 // visits in a row that dispatched nothing
		for len(g.active[c]) > 0 {
			if misses >= len(g.active[c]) {
				g.skipRounds(c, reqs)
				misses = 0
			}
			if g.pos[c] >= len(g.active[c]) {
				g.pos[c] = 0
			}
			t := g.active[c][g.pos[c]]
			if t.q[c].len() == 0 {
				t.deficit[c], t.visited[c], t.inActive[c] = 0, false, false
				g.active[c] = append(g.active[c][:g.pos[c]], g.active[c][g.pos[c]+1:]...)
				misses = 0 // count a whole round of the tenants left
				continue
			}
			if !t.visited[c] {
				t.deficit[c] += g.spec.Queue.Quantum * t.weight
				t.visited[c] = true
			}
			head := t.q[c].front()
			if reqs[head].orphan { // abandoned by its client: it leaves without a turn
				t.q[c].popFront()
				return head
			}
			if u := reqs[head].gwRes; u <= t.deficit[c] {
				t.deficit[c] -= u
				t.served[c] += u
				t.q[c].popFront()
				return head
			}
			t.visited[c] = false
			g.pos[c]++
			misses++
		}
	}
	return -1
}

// skipRounds adds at once the quanta of the rounds in which no head would
// fit: after a whole round without a dispatch, k more rounds are needed
// before the first tenant's head fits, so k-1 empty rounds are credited
// in one step. The order of dispatches is exactly that of visiting them
// one by one; only the time spent spinning goes.
func (g *gateway) skipRounds(c int, reqs []request) {
	k := math.Inf(1)
	for _, t := range g.active[c] {
		if t.q[c].len() == 0 || reqs[t.q[c].front()].orphan {
			return
		}
		per := g.spec.Queue.Quantum * t.weight
		k = math.Min(k, math.Ceil((reqs[t.q[c].front()].gwRes-t.deficit[c])/per))
	}
	if k > 1 {
		for _, t := range g.active[c] {
			t.deficit[c] += (k - 1) * g.spec.Queue.Quantum * t.weight
		}
	}
}

// gwDispatch lets queued requests through while slots are free.
func (s *Sim) gwDispatch() {
	g := s.gw
	if g.dispatching {
		return
	}
	g.dispatching = true
	for g.inFlight < g.maxInFlight {
		id := g.gwNext(s.reqs)
		if id < 0 {
			break
		}
		r := &s.reqs[id]
		now := s.eng.Now()
		if r.orphan { // already taken off the counts when its client left
			s.dropOrphan(id)
			continue
		}
		g.st.queueLen--
		s.ser.queue.Add(now, -1)
		g.st.wait[s.reqClass(id)].Add(now - r.gwQueued)
		g.inFlight++
		r.gw |= gwSlot
		s.route(id, s.interval(now))
	}
	g.dispatching = false
}

// gwShed sheds the queued requests whose wait passed their class's target
// and sets the timer for the next one.
func (s *Sim) gwShed(gen uint32) {
	g := s.gw
	if gen != g.timerGen {
		return
	}
	now := s.eng.Now()
	g.timerAt = math.Inf(1)
	next := math.Inf(1)
	for c := 0; c < numClasses; c++ {
		sa := g.shedAfter[c]
		if sa <= 0 {
			continue
		}
		for _, t := range g.tenants {
			for t.q[c].len() > 0 {
				id := t.q[c].front()
				r := &s.reqs[id]
				if r.gwQueued+sa > now+1e-9 {
					next = math.Min(next, r.gwQueued+sa)
					break
				}
				t.q[c].popFront()
				if r.orphan {
					s.dropOrphan(id)
					continue
				}
				g.st.queueLen--
				s.ser.queue.Add(now, -1)
				g.st.shed[c]++
				w := s.wls[r.wl]
				var key *gwScope
				if w.gwK >= 0 {
					key = t.keys[w.gwK]
				}
				s.gwReject(id, key, rsGwShed, float64(g.spec.Queue.ShedRetryAfter), s.interval(now))
			}
		}
	}
	if !math.IsInf(next, 1) {
		g.timerAt = next
		g.timerGen++
		s.eng.Schedule(next, evGateway, 0, g.timerGen)
	}
}

// gwRelease ends a request's stay at the gateway on any exit path:
// actual is the units it used (0 when nothing was served), served whether
// it was answered. The unused reservation is refunded, the stream slots
// and the in-flight slot are released, and waiting requests are
// dispatched.
func (s *Sim) gwRelease(id int32, actual float64, served bool) {
	g := s.gw
	r := &s.reqs[id]
	w := s.wls[r.wl]
	now := s.eng.Now()
	if r.gw&gwHeld != 0 {
		refund := math.Max(r.gwRes-actual, 0)
		local := r.gw&gwLocal != 0
		s.gwScopes(w, func(sc *gwScope) {
			sc.giveBack(local, now, refund)
			sc.st.actual += r.gwRes - refund
			sc.st.refunded += refund
			if served {
				sc.st.reservedServed += r.gwRes
			}
			sc.streams--
		})
	}
	slot := r.gw&gwSlot != 0
	r.gw = 0
	if slot {
		g.inFlight--
		s.gwDispatch()
	}
}

// gwScopes calls f for the tenant of w and its key, if any.
func (s *Sim) gwScopes(w *workload, f func(*gwScope)) {
	f(&w.gwT.gwScope)
	if w.gwK >= 0 {
		f(w.gwT.keys[w.gwK])
	}
}

// gwCrash ends a served request whose gateway node died before the
// stream ended: the client gets a 502; the stream slots are freed with the
// process, but the refund in its finally block never ran. With leases the
// reservation is reconciled against the engine's usage when the lease
// expires; without, the reserved units stay spent.
func (s *Sim) gwCrash(id int32, actual float64) {
	g := s.gw
	r := &s.reqs[id]
	w := s.wls[r.wl]
	now := s.eng.Now()
	refund := math.Max(r.gwRes-actual, 0)
	s.gwScopes(w, func(sc *gwScope) {
		sc.streams--
		sc.st.crashes++
		sc.st.reservedServed += r.gwRes
		sc.st.actual += r.gwRes - refund
		if g.spec.LeaseTTL <= 0 {
			sc.st.lost += refund
		}
	})
	if g.spec.LeaseTTL > 0 {
		l := gwLease{tenant: int32(w.gwT.index), key: int32(w.gwK), local: r.gw&gwLocal != 0, units: refund}
		var li int32
		if n := len(g.freeLeases); n > 0 {
			li = g.freeLeases[n-1]
			g.freeLeases = g.freeLeases[:n-1]
			g.leases[li] = l
		} else {
			li = int32(len(g.leases))
			g.leases = append(g.leases, l)
		}
		s.eng.Schedule(math.Max(now, r.gwAt+float64(g.spec.LeaseTTL)), evLease, li, 0)
	}
	r.gw &^= gwHeld
	s.gwRelease(id, 0, false) // the in-flight slot
	r = &s.reqs[id]
	r.out = false
	r.lastRsn, r.retryAft, r.state = rsGwCrash, 0, stBackoff
	w.stats.rejected[rsGwCrash]++
	s.windowRefused(w, rsGwCrash)
	w.gwT.st.rejected[rsGwCrash]++
	s.ser.reject(rsGwCrash, s.interval(now))
	s.eng.Schedule(now+float64(g.spec.ErrorLatency), evFail, id, r.gen)
}

// gwLeaseExpired reconciles a crashed stream's lease: the units it did not
// use go back to its buckets.
func (s *Sim) gwLeaseExpired(li int32) {
	g := s.gw
	l := g.leases[li]
	now := s.eng.Now()
	t := g.tenants[l.tenant]
	t.giveBack(l.local, now, l.units)
	t.st.refunded += l.units
	t.st.leaseRefunded += l.units
	if l.key >= 0 {
		k := t.keys[l.key]
		k.giveBack(l.local, now, l.units)
		k.st.refunded += l.units
		k.st.leaseRefunded += l.units
	}
	g.freeLeases = append(g.freeLeases, li)
}

// gwDisconnectQueued releases what a request waiting in the fair queue
// held when its client disconnects: its reservation and stream slots. Its
// entry stays in the queue and is skipped when reached.
func (s *Sim) gwDisconnectQueued(id int32) {
	r := &s.reqs[id]
	w := s.wls[r.wl]
	now := s.eng.Now()
	local := r.gw&gwLocal != 0
	s.gwScopes(w, func(sc *gwScope) {
		sc.giveBack(local, now, r.gwRes)
		sc.st.refunded += r.gwRes
		sc.streams--
	})
	r.gw = 0
	// It leaves the queue's counts now; its entry is skipped when reached.
	s.gw.st.queueLen--
	s.ser.queue.Add(now, -1)
}
