package model

// A request's way, step 6 of 6 (doc.go): completion. A request ends
// answered (complete: its tokens, cost, latencies, goodput and series are
// recorded) or given up (fail); either way finish frees its record and its
// client slot, which the next request waiting in the client's queue takes,
// and sets a closed-loop user thinking.

// complete records a finished request: its tokens and cost (tally), its
// latencies, goodput and series; then releases it. The backend has already
// released what it held. r.admitted is when service began and r.ttftSvc the
// time from then to the first token.
func (s *Sim) complete(id int32, tally *tokenTally) { s.completeBilled(id, tally, true) }

// completeBilled is complete of a tally whose costs, when billed is
// false, are all zero: they are then not added (which would leave every
// sum as it is).
func (s *Sim) completeBilled(id int32, tally *tokenTally, billed bool) {
	r := &s.reqs[id]
	w := s.wls[r.wl]
	now := s.eng.Now()
	st := w.stats
	hit := r.gw&gwHit != 0 // answered whole by the response cache: no TPOT
	if billed {
		st.tok.add(tally) // billed even when nobody was waiting for it
	} else {
		st.tok.addTokens(tally)
	}
	if w.route != nil {
		s.spillDone(id, tally)
	}
	iv := s.interval(now)
	s.ser.inputTok[iv] += tally.input
	s.ser.outputTok[iv] += tally.output
	if billed {
		s.ser.cost[iv] += tally.costIn + tally.costW + tally.costR + tally.costOut
	}
	if r.orphan {
		s.dropOrphan(id)
		return
	}
	if g := s.gw; g != nil {
		if r.gw&gwHeld != 0 {
			actual := g.gwActual(tally)
			if g.spec.CrashRate > 0 && g.rng.Float64() < g.spec.CrashRate {
				s.gwCrash(id, actual)
				return
			}
			s.gwRelease(id, actual, true)
		} else if r.gw&gwSlot != 0 {
			s.gwRelease(id, 0, false)
		}
		if exp := g.cacheExp[r.wl]; exp != nil && r.gw&gwHit == 0 && r.content >= 0 {
			exp[r.content] = now + float64(g.spec.Cache.TTL)
		}
		r.gw = 0
	}
	ttft := r.admitted + r.ttftSvc - r.arrival
	e2e := now - r.arrival
	qwait := r.admitted - r.arrival
	st.completed++
	if st.twin { // the series records the values (markTwins)
		st.ttftSum.Add(ttft)
		st.qwaitSum.Add(qwait)
	} else {
		if !st.ttft.TryAdd(ttft) {
			st.ttft.Add(ttft)
		}
		if !st.qwait.TryAdd(qwait) {
			st.qwait.Add(qwait)
		}
	}
	if !st.e2e.TryAdd(e2e) {
		st.e2e.Add(e2e)
	}
	if !st.ttftSvc.TryAdd(r.ttftSvc) {
		st.ttftSvc.Add(r.ttftSvc)
	}
	tpot := 0.0
	if r.output > 1 && !hit {
		tpot = (e2e - ttft) / float64(r.output-1)
		if !st.tpot.TryAdd(tpot) {
			st.tpot.Add(tpot)
		}
	}
	good := !st.sloSet || (w.slo[0] == 0 || ttft <= w.slo[0]) && (w.slo[1] == 0 || tpot <= w.slo[1]) && (w.slo[2] == 0 || e2e <= w.slo[2])
	arrIv := s.interval(r.arrival)
	if good {
		st.good++
		s.ser.arrGood[arrIv]++
	}
	if w.win != nil {
		w.win.complete(r.arrival, ttft, e2e, qwait, tpot, r.output > 1 && !hit, good)
	}
	if now > st.lastDone {
		st.lastDone = now
	}
	s.ser.completed[iv]++
	s.ser.latency(arrIv, ttft, qwait)
	s.observeDone(id, tally)
	// r again: a live driver told of the completion may have issued
	// requests, which can move the records.
	s.release(id, &s.reqs[id], w, now)
}

// doneDirect is the completion of a request r = s.reqs[id] of a direct
// workload w in one step: done, completeBilled and finish for a hosted
// target (startDirect, hosted.go), completeCluster, completeBilled and
// finish for a cluster (sendDirect, backend.go; cached is the prompt tokens
// its sequence read from the prefix cache, 0 for a hosted target). Nothing
// else is on its way back: no route, gateway, orphan, live driver or
// timeout, so no response-cache hit. A hosted target settles nothing (no
// limit, concurrency cap or batch lane) and its tokens are all uncached
// input (no prompt cache) and output; a cluster's tally carries no cost
// (GPU time is priced by the hour). Every figure is added as the general
// path adds it; a zero it would add is left out, which leaves an integer
// sum as it is. The latency statistics from ttft on are completeBilled's,
// written out again on purpose: sharing them through one call made the
// M/M/8 run of make compare-simpy 5–20% slower when measured, and 1.4%
// slower still after the fifth pass. TestDirectEqualsGeneral and
// TestClusterDirectEqualsGeneral hold the copies to the same bytes.
func (s *Sim) doneDirect(id int32, r *request, w *workload, cached32 int32) {
	t := &w.targets[0]
	now := s.eng.Now()
	st := w.stats
	in, out := int64(r.input), int64(r.output)
	iv := s.interval(now)
	ser := s.ser
	if c := t.clus; c != nil {
		cached := int64(cached32)
		ct := &c.stats.tok
		ct.input, ct.uncached, ct.read, ct.output = ct.input+in, ct.uncached+(in-cached), ct.read+cached, ct.output+out
		c.cs.outTok[iv] += out
		t.gpuTok += in + out
		wt := &st.tok
		wt.input, wt.uncached, wt.read, wt.output = wt.input+in, wt.uncached+(in-cached), wt.read+cached, wt.output+out
	} else if p := t.prov; p.priced {
		var c tokenTally
		c.input, c.uncached, c.output = in, in, out
		c.costIn, c.costW, c.costR, c.costOut = p.price(int(r.input), 0, 0, int(r.output), false)
		cost := c.costIn + c.costW + c.costR + c.costOut
		p.spent += cost
		p.stats.tok.add(&c)
		st.tok.add(&c)
		ser.cost[iv] += cost
		t.hostTok += in + out
	} else {
		pt := &p.stats.tok
		pt.input, pt.uncached, pt.output = pt.input+in, pt.uncached+in, pt.output+out
		wt := &st.tok
		wt.input, wt.uncached, wt.output = wt.input+in, wt.uncached+in, wt.output+out
		t.hostTok += in + out
	}
	ser.inputTok[iv] += in
	ser.outputTok[iv] += out
	ttft := r.admitted + r.ttftSvc - r.arrival
	e2e := now - r.arrival
	qwait := r.admitted - r.arrival
	st.completed++
	if st.twin { // the series records the values (markTwins)
		st.ttftSum.Add(ttft)
		st.qwaitSum.Add(qwait)
	} else {
		if !st.ttft.TryAdd(ttft) {
			st.ttft.Add(ttft)
		}
		if !st.qwait.TryAdd(qwait) {
			st.qwait.Add(qwait)
		}
	}
	if !st.e2e.TryAdd(e2e) {
		st.e2e.Add(e2e)
	}
	if !st.ttftSvc.TryAdd(r.ttftSvc) {
		st.ttftSvc.Add(r.ttftSvc)
	}
	tpot := 0.0
	if r.output > 1 {
		tpot = (e2e - ttft) / float64(r.output-1)
		if !st.tpot.TryAdd(tpot) {
			st.tpot.Add(tpot)
		}
	}
	good := !st.sloSet || (w.slo[0] == 0 || ttft <= w.slo[0]) && (w.slo[1] == 0 || tpot <= w.slo[1]) && (w.slo[2] == 0 || e2e <= w.slo[2])
	arrIv := s.interval(r.arrival)
	if good {
		st.good++
		ser.arrGood[arrIv]++
	}
	if w.win != nil {
		w.win.complete(r.arrival, ttft, e2e, qwait, tpot, r.output > 1, good)
	}
	if now > st.lastDone {
		st.lastDone = now
	}
	ser.completed[iv]++
	ser.latency(arrIv, ttft, qwait)
	s.release(id, r, w, now)
}

// fail ends a request without an answer.
func (s *Sim) fail(id int32, reason int) {
	r := &s.reqs[id]
	if r.orphan {
		s.dropOrphan(id)
		return
	}
	s.observeFail(id, reason)
	w := s.wls[r.wl]
	if r.gw != 0 {
		s.gwRelease(id, 0, false)
	}
	w.stats.failed++
	w.stats.failedBy[reason]++
	if w.win != nil {
		w.win.failed[w.win.at(r.arrival)]++
	}
	s.ser.failed[s.interval(s.eng.Now())]++
	s.ser.arrFailed[s.interval(r.arrival)]++
	s.finish(id, w)
}

// finish releases the request's client slot and its record.
func (s *Sim) finish(id int32, w *workload) { s.release(id, &s.reqs[id], w, s.eng.Now()) }

// release is finish of r = s.reqs[id] at now, the engine's time, for the
// callers that have both at hand.
func (s *Sim) release(id int32, r *request, w *workload, now float64) {
	r.state = stFree
	r.gen++
	s.live--
	s.ser.inFlight.Add(now, -1)
	if w.semCap > 0 && w.waiting.len() > 0 {
		// The first request waiting for the client slot takes it, and
		// this record, which is the one alloc would give it (free records
		// are reused last in, first out).
		at := w.waiting.pop()
		s.ser.queue.Add(now, -1)
		if s.issueIn(id, w, at); w.direct {
			s.startDirect(id, w) // hosted.go
		} else {
			s.attempt(id)
		}
	} else {
		s.free = append(s.free, id)
		if w.semCap > 0 {
			w.semUsed--
		}
	}
	if w.closed {
		s.userThinks(w, now) // users.go
	}
}
