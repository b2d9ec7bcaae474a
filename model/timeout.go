package model

// arm starts the timeout of the attempt being sent.
func (s *Sim) arm(id int32, w *workload) {
	r := &s.reqs[id]
	r.deadline = s.eng.Now() + w.timeout
	s.eng.Schedule(r.deadline, evTimeout, id, r.gen)
}

// timeout abandons an outstanding attempt: the client disconnects. The
// logical request moves to a fresh record and goes through the client's
// retry policy (or a route's fallback) as a refused attempt; the old record
// becomes an orphan that stays wherever the backend holds it (a queue, a
// running batch, a provider's stream) until the backend reaches it, and is
// then dropped: billed if it was served, never counted as completed. The
// gateway releases the orphan's stream slots and in-flight slot at once
// (its finally block runs on disconnect) and refunds the reservation but
// for the input it forwarded; a request still in its queue gets it all
// back. With a gateway, a timeout does not fall back within the route:
// the router sits behind the gateway, so the client's retry passes the
// gateway again.
func (s *Sim) timeout(id int32) { s.abandon(id, rsTimeout) }

// abandon drops an outstanding attempt as timeout says, counting it under
// reason: rsTimeout for the client's timeout, rsDisconnected for a live
// client that went away (never retried, never sent on down a route).
func (s *Sim) abandon(id int32, reason int) {
	nid := s.alloc() // may grow s.reqs: take pointers after
	gen := s.reqs[nid].gen + 1
	s.reqs[nid] = s.reqs[id]
	nr := &s.reqs[nid]
	nr.gen, nr.gw, nr.out = gen, 0, false
	old := &s.reqs[id]
	old.out = false
	w := s.wls[old.wl]
	switch {
	case old.state == stGwQueue:
		// Still in the gateway's fair queue: it leaves it when reached.
		s.gw.st.abandonedQueued++
		s.gwDisconnectQueued(id)
	case old.gw&gwHit != 0:
		// Being answered from the response cache: no backend involved.
	default:
		w.targets[old.tgt].bstats.abandoned++
		if w.route != nil {
			w.route.stats.Targets[old.tgt].Refused++
		}
		if old.gw != 0 {
			// The gateway's finally block: the prompt was forwarded, so
			// its input stays charged; the output reservation comes back
			// (the gateway does not count what was streamed before the
			// disconnect).
			s.gwRelease(id, s.gw.wIn*float64(old.input), false)
		}
	}
	old = &s.reqs[id]
	old.orphan = true
	iv := s.interval(s.eng.Now())
	w.stats.rejected[reason]++
	s.windowRefused(w, reason)
	s.ser.reject(reason, iv)
	s.refused(nid, reason, 0)
}

// dropOrphan frees an abandoned attempt's record once the backend is done
// with it.
func (s *Sim) dropOrphan(id int32) {
	r := &s.reqs[id]
	r.orphan = false
	r.state = stFree
	r.gen++
	s.free = append(s.free, id)
}
