package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"

	"github.com/headroom-sim/headroom/sim"
	"github.com/headroom-sim/headroom/workloads"
)

// Event kinds.
const (
	evArrival uint16 = iota // Obj = workload
	evSend                  // Obj = request: leaves the pacer, goes to the backend
	evRetry                 // Obj = request: backoff over, re-enters the pacer
	evDone                  // Obj = request: service finished
	evFail                  // Obj = request: error response delivered, client decides
	evTick                  // Obj = interval that just ended
)

// Request states.
const (
	stFree uint8 = iota
	stClientQueue
	stPacing
	stBackoff
	stBackendQueue
	stService
)

// request is one logical request from arrival to its end. Slots are reused.
type request struct {
	gen       uint32
	state     uint8
	batch     bool
	wl        int32
	input     int32
	output    int32
	maxTok    int32
	prefix    int32
	read      int32
	write     int32
	attempts  int32
	lastRsn   int16
	arrival   float64
	admitted  float64
	ttftSvc   float64
	doneAt    float64
	prevDelay float64
	retryAft  float64
}

// reqLimits is what a request was charged under each scope, kept apart
// from request so that requests to unlimited backends never touch it.
type reqLimits struct {
	orgCharge charge
	keyCharge charge
	orgTix    [numDims]uint64
	keyTix    [numDims]uint64
}

// workload is a workload's run-time state, including its client.
type workload struct {
	spec      *WorkloadSpec
	idx       int
	prov      *provider
	key       int // index into prov.keys, or -1
	batch     bool
	arrivals  *workloads.Arrivals
	closed    bool
	job       bool
	rngTok    *rand.Rand
	rngThink  *rand.Rand
	rngClient *rand.Rand
	retry     retryPolicy
	maxTok    int
	semCap    int
	semUsed   int
	semQ      ring
	paceReq   *tokenBucket
	paceTok   *tokenBucket
	slo       [3]float64
	stats     *groupStats
}

// Sim is one scenario wired for one run.
type Sim struct {
	cfg   Config
	eng   sim.Engine
	wls   []*workload
	provs []*provider
	reqs  []request
	lims  []reqLimits
	free  []int32
	nInt  int
	live  int64
	ser   *seriesStats
	ran   bool
}

// Build wires a validated configuration into a simulation. It applies
// defaults and validates first, so a Config straight from a file is fine.
func Build(cfg Config) (*Sim, error) {
	cfg.Workloads = append([]WorkloadSpec(nil), cfg.Workloads...)
	cfg.Providers = append([]ProviderSpec(nil), cfg.Providers...)
	cfg.ApplyDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Sim{cfg: cfg, nInt: cfg.intervals()}
	s.ser = newSeriesStats(s.nInt)
	byName := map[string]*provider{}
	for i := range s.cfg.Providers {
		p := newProvider(&s.cfg.Providers[i], i, &s.cfg, len(cfg.Workloads))
		s.provs = append(s.provs, p)
		byName[p.spec.Name] = p
	}
	for i := range s.cfg.Workloads {
		spec := &s.cfg.Workloads[i]
		w := &workload{spec: spec, idx: i, prov: byName[spec.Route], key: -1, batch: spec.Lane == LaneBatch}
		if len(w.prov.keys) > 0 {
			w.key = 0
			for k, ks := range w.prov.spec.Keys {
				if ks.Name == spec.Key {
					w.key = k
				}
			}
		}
		base := "workload/" + spec.Name
		w.rngTok = cfg.stream(base + "/tokens")
		w.rngThink = cfg.stream(base + "/think")
		w.rngClient = cfg.stream(base + "/client")
		w.closed = spec.Demand.Closed()
		w.job = spec.Demand.IsJob()
		if !w.closed && !w.job {
			curve, err := spec.Demand.BuildCurve(cfg.StartClock)
			if err != nil {
				return nil, workloads.Prefix("workload["+itoa(i)+"].demand", err)
			}
			w.arrivals = workloads.NewArrivals(curve, spec.Demand.Arrivals, cfg.stream(base+"/arrivals"))
		}
		w.retry = compileRetry(spec.Client.Retry)
		w.maxTok = spec.Tokens.MaxTokens
		if w.maxTok <= 0 {
			w.maxTok = w.prov.spec.MaxOutput
		}
		w.semCap = spec.Client.MaxConcurrency
		if pc := spec.Client.Pace; pc.RequestsPerMin > 0 {
			w.paceReq = newTokenBucket(pc.RequestsPerMin/60, pc.Burst)
		}
		if pc := spec.Client.Pace; pc.TokensPerMin > 0 {
			w.paceTok = newTokenBucket(pc.TokensPerMin/60, math.Max(pc.TokenBurst, 1))
		}
		w.slo = [3]float64{float64(spec.SLO.TTFT), float64(spec.SLO.TPOT), float64(spec.SLO.E2E)}
		w.stats = newGroupStats()
		prefixes := spec.Tokens.Prefixes
		if prefixes < 1 {
			prefixes = 1
		}
		for _, p := range s.provs {
			c := make([]float64, prefixes)
			for j := range c {
				c[j] = math.Inf(-1)
			}
			p.cache[i] = c
		}
		s.wls = append(s.wls, w)
	}
	return s, nil
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	n := len(b)
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	return string(b[n:])
}

// Run simulates to the horizon and returns the results. If ctx is cancelled
// first it returns the partial results, marked interrupted, and
// sim.ErrInterrupted. A Sim runs once.
func (s *Sim) Run(ctx context.Context) (*Results, error) {
	if s.ran {
		return nil, errors.New("model: a Sim runs only once; Build another")
	}
	s.ran = true
	s.start()
	err := s.eng.Run(ctx, s.cfg.Duration, s)
	res := s.results(err != nil)
	return res, err
}

// Engine exposes the kernel for tests and benchmarks.
func (s *Sim) Engine() *sim.Engine { return &s.eng }

func (s *Sim) start() {
	for _, w := range s.wls {
		switch {
		case w.closed:
			for u := 0; u < w.spec.Demand.Users; u++ {
				s.eng.Schedule(w.spec.Demand.Think.Sample(w.rngThink), evArrival, int32(w.idx), 0)
			}
		case w.job:
			s.eng.Schedule(float64(w.spec.Demand.At), evArrival, int32(w.idx), 0)
		default:
			if t := w.arrivals.Next(); t < s.cfg.Duration {
				s.eng.Schedule(t, evArrival, int32(w.idx), 0)
			}
		}
	}
	// Interval ticks are scheduled one at a time, so they add one pending
	// event rather than one per interval to the heap.
	s.scheduleTick(0)
}

// scheduleTick schedules the end of interval i, if there is one.
func (s *Sim) scheduleTick(i int) {
	if i < s.nInt {
		s.eng.Schedule(math.Min(float64(i+1)*s.cfg.Interval, s.cfg.Duration), evTick, int32(i), 0)
	}
}

// Handle dispatches one event (sim.Handler).
func (s *Sim) Handle(e sim.Event) {
	switch e.Kind {
	case evArrival:
		s.arrive(s.wls[e.Obj])
		return
	case evTick:
		s.ser.tick(int(e.Obj), s.eng.Now())
		s.scheduleTick(int(e.Obj) + 1)
		return
	}
	r := &s.reqs[e.Obj]
	if r.gen != e.Gen {
		return
	}
	switch e.Kind {
	case evSend:
		s.ser.queue.Add(s.eng.Now(), -1)
		s.send(e.Obj)
	case evRetry:
		s.ser.queue.Add(s.eng.Now(), -1)
		s.attempt(e.Obj)
	case evDone:
		s.done(e.Obj)
	case evFail:
		s.refused(e.Obj, int(r.lastRsn), r.retryAft)
	}
}

func (s *Sim) interval(t float64) int {
	i := int(t / s.cfg.Interval)
	if i >= s.nInt {
		i = s.nInt - 1
	}
	return i
}

func (s *Sim) alloc() int32 {
	if n := len(s.free); n > 0 {
		id := s.free[n-1]
		s.free = s.free[:n-1]
		return id
	}
	s.reqs = append(s.reqs, request{})
	s.lims = append(s.lims, reqLimits{})
	return int32(len(s.reqs) - 1)
}

// arrive creates the workload's next request(s) and schedules the next
// arrival of an open-loop workload.
func (s *Sim) arrive(w *workload) {
	now := s.eng.Now()
	n := 1
	if w.job {
		n = w.spec.Demand.Count
	}
	for k := 0; k < n; k++ {
		s.newRequest(w, now)
	}
	if w.arrivals != nil {
		if t := w.arrivals.Next(); t < s.cfg.Duration {
			s.eng.Schedule(t, evArrival, int32(w.idx), 0)
		}
	}
}

func (s *Sim) newRequest(w *workload, now float64) {
	id := s.alloc()
	r := &s.reqs[id]
	gen := r.gen + 1
	in, out, prefix := w.spec.Tokens.Sample(w.rngTok)
	*r = request{gen: gen, wl: int32(w.idx), batch: w.batch, input: int32(in), output: int32(out), prefix: int32(prefix),
		maxTok: int32(w.maxTok), arrival: now, lastRsn: -1}
	if int(r.output) > w.maxTok {
		r.output = int32(w.maxTok)
	}
	w.stats.offered++
	s.ser.offered[s.interval(now)]++
	s.live++
	s.ser.inFlight.Add(now, 1)
	if w.semCap > 0 && w.semUsed >= w.semCap {
		r.state = stClientQueue
		w.semQ.push(id)
		s.ser.queue.Add(now, 1)
		return
	}
	w.semUsed++
	s.attempt(id)
}

// attempt passes a request through the client's pacer towards the backend.
func (s *Sim) attempt(id int32) {
	r := &s.reqs[id]
	w := s.wls[r.wl]
	now := s.eng.Now()
	wait := 0.0
	if w.paceReq != nil {
		wait = reserve(w.paceReq, now, 1)
	}
	if w.paceTok != nil {
		wait = math.Max(wait, reserve(w.paceTok, now, float64(r.input+r.maxTok)))
	}
	if wait > 0 {
		r.state = stPacing
		s.ser.queue.Add(now, 1)
		s.eng.Schedule(now+wait, evSend, id, r.gen)
		return
	}
	s.send(id)
}

// reserve takes n from a pacing bucket unconditionally and returns how long
// the caller must wait for its reservation to mature.
func reserve(b *tokenBucket, now, n float64) float64 {
	b.refill(now)
	b.level -= n
	if b.level >= 0 {
		return 0
	}
	return -b.level / b.rate
}

// send is one attempt at the backend.
func (s *Sim) send(id int32) {
	r := &s.reqs[id]
	w := s.wls[r.wl]
	p := w.prov
	now := s.eng.Now()
	iv := s.interval(now)
	r.attempts++
	w.stats.attempts++
	p.stats.attempts++
	if r.attempts > 1 {
		w.stats.retries++
		s.ser.retries[iv]++
	}
	if rs := p.outageAt(now); rs >= 0 {
		s.reject(id, rs, 0, iv)
		return
	}
	if p.spec.Limits.SpendLimitUSD > 0 && p.spent >= p.spec.Limits.SpendLimitUSD {
		s.reject(id, rsSpendCap, 0, iv)
		return
	}
	if r.batch {
		s.sendBatch(id, iv)
		return
	}
	lm := &s.lims[id]
	read, write := p.cacheSplit(int(r.wl), int(r.prefix), w.spec.Tokens.SharedPrefix, int(r.input), now)
	uncached := int(r.input) - read - write
	ok, dim, wait := true, 0, 0.0
	if !p.org.empty {
		lm.orgCharge = p.org.chargeFor(uncached, write, read, int(r.maxTok))
		ok, dim, wait = p.org.check(now, &lm.orgCharge)
	}
	scope, rsBase := 0, 0
	if ok && w.key >= 0 {
		ks := p.keys[w.key]
		lm.keyCharge = ks.chargeFor(uncached, write, read, int(r.maxTok))
		ok, dim, wait = ks.check(now, &lm.keyCharge)
		scope, rsBase = w.key+1, rsKeyBase
	}
	if !ok {
		p.org.rejected(now)
		if w.key >= 0 {
			p.keys[w.key].rejected(now)
		}
		p.stats.reject(scope, dim, iv, now)
		if math.IsInf(wait, 1) {
			s.reject(id, rsTooLarge, 0, iv)
			return
		}
		s.reject(id, rsBase+dim, p.retryAfterHeader(wait), iv)
		return
	}
	if p.conCap > 0 && p.conUsed >= p.conCap && !p.conQueue {
		s.reject(id, rsConcurrency, p.retryAfterHeader(1), iv)
		return
	}
	if p.conCap > 0 && p.conUsed >= p.conCap && p.spec.Concurrency.QueueLimit > 0 && p.conQ.len() >= p.spec.Concurrency.QueueLimit {
		s.reject(id, rsQueueFull, p.retryAfterHeader(1), iv)
		return
	}
	// Admitted by every limit: charge them and commit the cache decision.
	if !p.org.empty {
		p.org.take(now, &lm.orgCharge, &lm.orgTix)
		p.stats.use(0, iv, &lm.orgCharge)
	}
	if w.key >= 0 {
		p.keys[w.key].take(now, &lm.keyCharge, &lm.keyTix)
		p.stats.use(w.key+1, iv, &lm.keyCharge)
	}
	p.commitCache(int(r.wl), int(r.prefix), read, write, now)
	r.read, r.write = int32(read), int32(write)
	p.stats.admitted++
	if p.conCap > 0 && p.conUsed >= p.conCap {
		r.state = stBackendQueue
		p.conQ.push(id)
		s.ser.queue.Add(now, 1)
		return
	}
	s.serve(id)
}

// serve starts service of an admitted request.
func (s *Sim) serve(id int32) {
	r := &s.reqs[id]
	p := s.wls[r.wl].prov
	now := s.eng.Now()
	if p.conCap > 0 {
		p.conUsed++
	}
	r.state = stService
	r.admitted = now
	uncached := int(r.input - r.read - r.write)
	r.ttftSvc = p.lat.ttft(uncached+int(r.write), p.rngLat)
	e2e := r.ttftSvc
	if r.output > 1 {
		e2e += p.lat.tpotDraw(p.rngLat) * float64(r.output-1)
	}
	r.doneAt = now + e2e
	s.eng.Schedule(r.doneAt, evDone, id, r.gen)
}

// sendBatch submits a request to the provider's batch lane.
func (s *Sim) sendBatch(id int32, iv int) {
	r := &s.reqs[id]
	p := s.wls[r.wl].prov
	now := s.eng.Now()
	if lim := p.spec.Batch.MaxEnqueuedTokens; lim > 0 && p.batchQ+float64(r.input) > lim {
		s.reject(id, rsBatchQueue, p.retryAfterHeader(60), iv)
		return
	}
	p.batchQ += float64(r.input)
	p.stats.admitted++
	r.state = stService
	r.admitted = now
	d := p.spec.Batch.Turnaround.Sample(p.rngBat)
	if d > float64(p.spec.Batch.Window) {
		r.lastRsn = rsBatchExpired
		r.retryAft = 0
		r.doneAt = now + float64(p.spec.Batch.Window)
		s.eng.Schedule(r.doneAt, evFail, id, r.gen)
		return
	}
	r.ttftSvc = d
	r.doneAt = now + d
	s.eng.Schedule(r.doneAt, evDone, id, r.gen)
}

// reject records a refused attempt and lets the client decide what next,
// after the provider's error latency.
func (s *Sim) reject(id int32, reason int, retryAfter float64, iv int) {
	r := &s.reqs[id]
	w := s.wls[r.wl]
	w.stats.rejected[reason]++
	w.prov.stats.rejected[reason]++
	s.ser.reject(reason, iv)
	if et := w.prov.errTime; et > 0 {
		r.lastRsn = int16(reason)
		r.retryAft = retryAfter
		r.state = stBackoff
		s.eng.Schedule(s.eng.Now()+et, evFail, id, r.gen)
		return
	}
	s.refused(id, reason, retryAfter)
}

// refused applies the client's retry policy to a refused attempt.
func (s *Sim) refused(id int32, reason int, retryAfter float64) {
	r := &s.reqs[id]
	w := s.wls[r.wl]
	r.lastRsn = int16(reason)
	if retryable(reason) {
		d, ok := w.retry.delay(int(r.attempts)-1, retryAfter, r.prevDelay, w.rngClient)
		if ok {
			r.prevDelay = d
			r.state = stBackoff
			s.ser.queue.Add(s.eng.Now(), 1)
			s.eng.Schedule(s.eng.Now()+d, evRetry, id, r.gen)
			return
		}
		if w.retry.honorRA && w.retry.overCap == 1 && retryAfter > w.retry.raCap && w.retry.raCap > 0 && int(r.attempts) < w.retry.attempts {
			reason = rsRetryAfterCap
		}
	}
	s.fail(id, reason)
}

// done completes a request: reconcile limits, bill, record, release.
func (s *Sim) done(id int32) {
	r := &s.reqs[id]
	w := s.wls[r.wl]
	p := w.prov
	now := s.eng.Now()
	if r.batch {
		p.batchQ -= float64(r.input)
	} else {
		iv := s.interval(now)
		lm := &s.lims[id]
		if !p.org.empty {
			p.org.settle(now, &lm.orgCharge, int(r.output), &lm.orgTix)
			p.stats.settle(0, iv, &lm.orgCharge, int(r.output))
		}
		if w.key >= 0 {
			p.keys[w.key].settle(now, &lm.keyCharge, int(r.output), &lm.keyTix)
			p.stats.settle(w.key+1, iv, &lm.keyCharge, int(r.output))
		}
		if p.conCap > 0 {
			p.conUsed--
			if next, ok := p.conQ.pop(); ok {
				s.ser.queue.Add(now, -1)
				s.serve(next)
			}
		}
	}
	uncached := int(r.input - r.read - r.write)
	ci, cw, cr, co := p.price(uncached, int(r.write), int(r.read), int(r.output), r.batch)
	p.spent += ci + cw + cr + co
	t := &w.stats.tok
	t.input += int64(r.input)
	t.uncached += int64(uncached)
	t.write += int64(r.write)
	t.read += int64(r.read)
	t.output += int64(r.output)
	t.costIn += ci
	t.costW += cw
	t.costR += cr
	t.costOut += co
	bt := &p.stats.tok
	bt.input += int64(r.input)
	bt.uncached += int64(uncached)
	bt.write += int64(r.write)
	bt.read += int64(r.read)
	bt.output += int64(r.output)
	bt.costIn += ci
	bt.costW += cw
	bt.costR += cr
	bt.costOut += co

	ttft := r.admitted + r.ttftSvc - r.arrival
	e2e := now - r.arrival
	qwait := r.admitted - r.arrival
	st := w.stats
	st.completed++
	st.ttft.Add(ttft)
	st.e2e.Add(e2e)
	st.qwait.Add(qwait)
	st.ttftSvc.Add(r.ttftSvc)
	tpot := 0.0
	if r.output > 1 {
		tpot = (e2e - ttft) / float64(r.output-1)
		st.tpot.Add(tpot)
	}
	if (w.slo[0] == 0 || ttft <= w.slo[0]) && (w.slo[1] == 0 || tpot <= w.slo[1]) && (w.slo[2] == 0 || e2e <= w.slo[2]) {
		st.good++
	}
	if now > st.lastDone {
		st.lastDone = now
	}
	iv := s.interval(now)
	s.ser.completed[iv]++
	s.ser.inputTok[iv] += int64(r.input)
	s.ser.outputTok[iv] += int64(r.output)
	s.ser.cost[iv] += ci + cw + cr + co
	s.ser.latency(s.interval(r.arrival), ttft, qwait)
	s.finish(id, w)
}

// fail ends a request without an answer.
func (s *Sim) fail(id int32, reason int) {
	r := &s.reqs[id]
	w := s.wls[r.wl]
	if r.state == stService && r.batch {
		w.prov.batchQ -= float64(r.input)
	}
	w.stats.failed++
	w.stats.failedBy[reason]++
	s.ser.failed[s.interval(s.eng.Now())]++
	s.finish(id, w)
}

// finish releases the request's client slot and its record.
func (s *Sim) finish(id int32, w *workload) {
	now := s.eng.Now()
	r := &s.reqs[id]
	r.state = stFree
	r.gen++
	s.free = append(s.free, id)
	s.live--
	s.ser.inFlight.Add(now, -1)
	if w.semCap > 0 {
		if next, ok := w.semQ.pop(); ok {
			s.ser.queue.Add(now, -1)
			s.attempt(next)
		} else {
			w.semUsed--
		}
	}
	if w.closed {
		if t := now + w.spec.Demand.Think.Sample(w.rngThink); t < s.cfg.Duration {
			s.eng.Schedule(t, evArrival, int32(w.idx), 0)
		}
	}
}
