package model

import "math"

// A request's way, step 2 of 6 (doc.go): the client. A request holding a
// client slot (arrival.go) passes the client's pacer and is sent: the
// attempt is counted, its timeout armed (timeout.go), and it goes to the
// gateway (gateway.go) when there is one, else to the router (router.go).
// A refused attempt comes back here, after the router has tried its
// fallback targets: the retry policy (retry.go) backs off and tries again
// or gives the request up (complete.go).

// attempt passes a request through the client's pacer towards the backend.
func (s *Sim) attempt(id int32) {
	r := &s.reqs[id]
	s.attemptOn(id, r, s.wls[r.wl], s.eng.Now())
}

// attemptOn is attempt of r = s.reqs[id], a request of w, at now (the
// engine's time), as its caller found them.
func (s *Sim) attemptOn(id int32, r *request, w *workload, now float64) {
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
	s.sendOn(id, r, w, now)
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

// send is one client attempt: counted, its timeout armed, then through
// the gateway (if any) to the router.
func (s *Sim) send(id int32) {
	r := &s.reqs[id]
	s.sendOn(id, r, s.wls[r.wl], s.eng.Now())
}

// sendOn is send of r = s.reqs[id], a request of w, at now (the engine's
// time), as its caller found them: passed on, not looked up again, as far
// as the router's delivery.
func (s *Sim) sendOn(id int32, r *request, w *workload, now float64) {
	iv := s.interval(now)
	r.attempts++
	w.stats.attempts++
	if w.win != nil {
		w.win.attempts[w.win.at(now)]++
	}
	if r.attempts > 1 {
		w.stats.retries++
		s.ser.retries[iv]++
	}
	r.out = true
	if w.timeout > 0 {
		s.arm(id, w)
	}
	if s.gw != nil {
		if s.gwAdmit(id, iv) {
			s.route(id, iv)
		}
		return
	}
	s.routeOn(id, r, w, iv)
}

// refused applies the client's retry policy to a refused attempt, once
// the router has had its say (a cooldown, a fallback to another target).
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
	if w.route != nil && s.reroute(id, reason) {
		return // the same client attempt, another backend
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
