package model

import "math"

// A request's way, step 5 of 6 (doc.go), at a hosted API: an attempt
// delivered (backend.go) meets the provider's outages, spend cap and
// batch lane, then every limit of its org and key (limiter.go, window.go),
// its concurrency cap and prompt cache (provider.go); admitted, it is
// served with drawn TTFT and TPOT, billed, and completed (complete.go).
// A refusal goes back through reject (backend.go).

// sendHosted is an attempt at a hosted API: outages, the spend cap, the
// batch lane, every limit of its org and key, concurrency; admitted, it
// is served now or waits for a concurrency slot.
//
// r is s.reqs[id] and t its target, as sendTo found them.
func (s *Sim) sendHosted(id int32, r *request, t *target, iv int) {
	p := t.prov
	if t.direct {
		// Nothing below would refuse, charge or cache it: admitted.
		r.read, r.write = 0, 0
		p.stats.admitted++
		s.serve(id, r, p)
		return
	}
	now := s.eng.Now()
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
	var lm *reqLimits
	if s.needLims {
		lm = &s.lims[id]
	}
	read, write := s.promptCacheSplit(p, id, now)
	uncached := int(r.input) - read - write
	ok, dim, wait := true, 0, 0.0
	if !p.org.empty {
		lm.orgCharge = p.org.chargeFor(uncached, write, read, int(r.maxTok))
		ok, dim, wait = p.org.check(now, &lm.orgCharge)
	}
	if r.attempts == 1 && lm != nil {
		s.offerDemand(p, t.key, id, &lm.orgCharge, uncached, write, read)
	}
	scope, rsBase := 0, 0
	if ok && t.key >= 0 {
		ks := p.keys[t.key]
		lm.keyCharge = ks.chargeFor(uncached, write, read, int(r.maxTok))
		ok, dim, wait = ks.check(now, &lm.keyCharge)
		scope, rsBase = t.key+1, rsKeyBase
	}
	if !ok {
		p.org.rejected(now)
		if t.key >= 0 {
			p.keys[t.key].rejected(now)
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
	if t.key >= 0 {
		p.keys[t.key].take(now, &lm.keyCharge, &lm.keyTix)
		p.stats.use(t.key+1, iv, &lm.keyCharge)
	}
	s.commitPromptCache(p, id, read, write, now)
	r.read, r.write = int32(read), int32(write)
	p.stats.admitted++
	if p.conCap > 0 && p.conUsed >= p.conCap {
		r.state = stBackendQueue
		p.conQ.pushBack(id)
		s.ser.queue.Add(now, 1)
		return
	}
	s.serve(id, r, p)
}

// markDirect marks the hosted targets whose attempts meet nothing before
// service: no outage, spend cap, batch lane, rate limit or concurrency cap
// at the provider, and a prompt cache that can neither read nor write
// their prompts (off, or a shared prefix below its minimum, for
// requests without trace keys or a live client's own prefix). Their
// attempts skip those checks, which would all pass and change nothing. It
// runs at the start of a run, once any live driver is set.
func (s *Sim) markDirect() {
	for _, w := range s.wls {
		for k := range w.targets {
			t := &w.targets[k]
			p := t.prov
			if p == nil {
				continue
			}
			bare := len(p.outages) == 0 && !(p.spec.Limits.SpendLimitUSD > 0) && !w.batch &&
				p.org.empty && t.key < 0 && p.conCap <= 0
			noCache := !p.cacheOn
			if sp := w.spec.Tokens.SharedPrefix; w.trace == nil && s.driver == nil && (sp < p.cacheMin || sp <= 0) {
				noCache = true
			}
			t.direct = bare && noCache
		}
		w.direct = len(w.targets) == 1 && w.targets[0].direct && w.route == nil && s.gw == nil &&
			s.driver == nil && w.paceReq == nil && w.paceTok == nil && !(w.timeout > 0) && !s.noDirect
	}
}

// startDirect sends the new request id of a direct workload (w.direct)
// from its client straight into service: what attempt, send, route, sendTo
// and sendHosted do for it, in one step. Its attempt is its first (a direct
// target refuses nothing, and without a timeout nothing is retried); no
// pacer, timeout, gateway or route is on its way, and its target admits it
// as it is (markDirect).
func (s *Sim) startDirect(id int32, w *workload) {
	r := &s.reqs[id]
	t := &w.targets[0]
	r.attempts = 1
	w.stats.attempts++
	if w.win != nil {
		w.win.attempts[w.win.at(s.eng.Now())]++
	}
	r.out = true
	s.routed++
	t.bstats.attempts++
	r.maxTok = int32(t.maxTok) // maxOut: no live client asks for less
	r.read, r.write = 0, 0
	t.bstats.admitted++ // the provider's stats
	s.serve(id, r, t.prov)
}

// serve starts service of an admitted request r = s.reqs[id] at its
// provider p.
func (s *Sim) serve(id int32, r *request, p *provider) {
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
	s.eng.Schedule(now+e2e, evDone, id, r.gen)
	s.observeStart(id, e2e)
}

// sendBatch submits a request to the provider's batch lane.
func (s *Sim) sendBatch(id int32, iv int) {
	r := &s.reqs[id]
	p := s.tgt(r).prov
	now := s.eng.Now()
	if lim := p.spec.Batch.MaxEnqueuedTokens; lim > 0 && p.batchQ+float64(r.input) > lim {
		s.reject(id, rsBatchQueue, p.retryAfterHeader(60), iv)
		return
	}
	p.batchQ += float64(r.input)
	if p.spec.Batch.PromptCache {
		// The batch's prompts meet the cache as they are submitted, as
		// if the provider ran them at once: the most hits it can give.
		read, write := s.promptCacheSplit(p, id, now)
		s.commitPromptCache(p, id, read, write, now)
		r = &s.reqs[id]
		r.read, r.write = int32(read), int32(write)
	}
	p.stats.admitted++
	r.state = stService
	r.admitted = now
	d := p.spec.Batch.Turnaround.Sample(p.rngBat)
	if d > float64(p.spec.Batch.Window) {
		r.lastRsn = rsBatchExpired
		r.retryAft = 0
		s.eng.Schedule(now+float64(p.spec.Batch.Window), evFail, id, r.gen)
		return
	}
	r.ttftSvc = d
	s.eng.Schedule(now+d, evDone, id, r.gen)
}

// done completes a request: reconcile limits, bill, record, release.
func (s *Sim) done(id int32) {
	r := &s.reqs[id]
	if w := s.wls[r.wl]; w.direct {
		s.doneDirect(id, r, w, 0) // complete.go
		return
	}
	t := s.tgt(r)
	p := t.prov
	now := s.eng.Now()
	switch {
	case t.direct:
		// Nothing to settle or hand on at the provider (markDirect).
	case r.batch:
		p.batchQ -= float64(r.input)
	default:
		s.settleLimits(id, t, int(r.output))
		if p.conCap > 0 {
			p.conUsed--
			for p.conQ.len() > 0 {
				next := p.conQ.popFront()
				s.ser.queue.Add(now, -1)
				if s.reqs[next].orphan {
					// Abandoned while queued: the provider drops it and
					// gives back what its admission reserved.
					s.settleLimits(next, s.tgt(&s.reqs[next]), 0)
					s.dropOrphan(next)
					continue
				}
				s.serve(next, &s.reqs[next], p)
				break
			}
		}
	}
	uncached := int(r.input - r.read - r.write)
	var c tokenTally
	c.input, c.uncached, c.write, c.read, c.output = int64(r.input), int64(uncached), int64(r.write), int64(r.read), int64(r.output)
	if p.priced {
		c.costIn, c.costW, c.costR, c.costOut = p.price(uncached, int(r.write), int(r.read), int(r.output), r.batch)
		p.spent += c.costIn + c.costW + c.costR + c.costOut
		p.stats.tok.add(&c)
	} else {
		p.stats.tok.addTokens(&c) // every cost is zero: the sums stay as they are
	}
	t.hostTok += c.input + c.output
	s.completeBilled(id, &c, p.priced)
}

// settleLimits reconciles what a request's admission charged the
// provider's limits with the output it really produced.
func (s *Sim) settleLimits(id int32, t *target, output int) {
	p := t.prov
	if p.org.empty && t.key < 0 {
		return
	}
	now := s.eng.Now()
	iv := s.interval(now)
	lm := &s.lims[id]
	if !p.org.empty {
		p.org.settle(now, &lm.orgCharge, output, &lm.orgTix)
		p.stats.settle(0, iv, &lm.orgCharge, output)
	}
	if t.key >= 0 {
		p.keys[t.key].settle(now, &lm.keyCharge, output, &lm.keyTix)
		p.stats.settle(t.key+1, iv, &lm.keyCharge, output)
	}
}
