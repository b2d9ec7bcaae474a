package model

import "math"

// arrive creates the workload's next request(s) and schedules the next
// arrival of an open-loop workload. A job's requests arrive all at once;
// those beyond the client's free slots wait as one entry of its queue and
// are made one by one as slots free, so a job of 10M requests
// behind 16 slots holds 16 requests, not 10M.
func (s *Sim) arrive(w *workload) {
	if w.trace != nil {
		s.arriveTrace(w)
		return
	}
	now := s.eng.Now()
	if w.job {
		n := w.spec.Demand.Count
		for k := 0; k < n; k++ {
			if w.semCap > 0 && w.semUsed >= w.semCap {
				s.arrived(w, now, n-k)
				w.waiting.push(now, n-k)
				s.ser.queue.Add(now, float64(n-k))
				break
			}
			s.newRequest(w, now)
		}
	} else {
		s.newRequest(w, now)
	}
	if w.arrivals != nil {
		if t := w.arrivals.Next(); t < s.cfg.Duration {
			s.eng.Schedule(t, evArrival, int32(w.idx), 0)
		}
	}
}

// newRequest is the arrival of one request of w at now: counted as
// offered, then sent through the client, or queued for a client slot.
func (s *Sim) newRequest(w *workload, now float64) {
	s.arrived(w, now, 1)
	if w.semCap > 0 && w.semUsed >= w.semCap {
		w.waiting.push(now, 1)
		s.ser.queue.Add(now, 1)
		return
	}
	w.semUsed++
	s.attempt(s.issue(w, now))
}

// arrived counts n requests of w arriving at now: offered and in flight.
func (s *Sim) arrived(w *workload, now float64, n int) {
	w.stats.offered += int64(n)
	s.ser.offered[s.interval(now)] += int64(n)
	if w.win != nil {
		w.win.offered[w.win.at(now)] += int64(n)
	}
	s.live += int64(n)
	s.ser.inFlight.Add(now, float64(n))
}

// issue makes the record of a request of w that arrived at arrival and
// holds a client slot: its tokens and content are drawn now, in the order
// requests leave the client queue, which is the order they arrived in (the
// queue is first in, first out, and nobody passes it), so the draws are
// those of a request made at its arrival.
func (s *Sim) issue(w *workload, arrival float64) int32 {
	id := s.alloc()
	r := &s.reqs[id]
	gen := r.gen + 1
	var in, out, prefix int
	switch {
	case w.trace != nil:
		in, out = w.traceTokens()
	case w.fixedTok:
		in, out = w.fixIn, w.fixOut
	default:
		in, out, prefix = w.tok.Sample(w.rngTok)
	}
	*r = request{gen: gen, wl: int32(w.idx), batch: w.batch, input: int32(in), output: int32(out), prefix: int32(prefix),
		maxTok: int32(w.maxTok), arrival: arrival, lastRsn: -1}
	if int(r.output) > w.maxTok {
		r.output = int32(w.maxTok)
	}
	if w.trace != nil {
		s.attachKeys(id, w)
	}
	if w.rngRep != nil {
		if w.zipf != nil {
			r.content = int32(w.zipf.Uint64())
		} else {
			r.content = int32(w.rngRep.IntN(w.spec.Repeats.Distinct))
		}
	}
	return id
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

// refused applies the client's retry policy to a refused attempt.
func (s *Sim) refused(id int32, reason int, retryAfter float64) {
	r := &s.reqs[id]
	if r.orphan {
		s.dropOrphan(id)
		return
	}
	w := s.wls[r.wl]
	r.lastRsn = int16(reason)
	r.retryAft = retryAfter
	r.out = false
	if rt := w.route; rt != nil && retryable(reason) && !gatewayReason(reason) && !(reason == rsTimeout && s.gw != nil) {
		now := s.eng.Now()
		if rt.spec.Cooldown > 0 {
			rt.coolTill[r.tgt] = now + float64(rt.spec.Cooldown)
		}
		if rt.fallback {
			if next := rt.nextTarget(r.tgt, now); next >= 0 {
				rt.stats.Fallbacks++
				r.tgt = next
				r.out = true
				if w.timeout > 0 {
					s.arm(id, w) // a new deployment call, a new timeout
				}
				s.sendTo(id, s.interval(now)) // the same client attempt, another backend
				return
			}
		}
	}
	if r.gw != 0 {
		s.gwRelease(id, 0, false) // the attempt left the gateway with nothing served
	}
	if w.retry.retries(reason) {
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
func (s *Sim) finish(id int32, w *workload) {
	now := s.eng.Now()
	r := &s.reqs[id]
	r.state = stFree
	r.gen++
	s.free = append(s.free, id)
	s.live--
	s.ser.inFlight.Add(now, -1)
	if w.semCap > 0 {
		if w.waiting.len() > 0 {
			at := w.waiting.pop()
			s.ser.queue.Add(now, -1)
			s.attempt(s.issue(w, at))
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
