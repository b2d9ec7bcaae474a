package model

// The few places where the simulation meets a live driver (live.go). Each
// is one call in the model's own code; without a live driver they cost a
// nil check, and a request's ask and share are zero.

// maxOut is the max_tokens an attempt to t carries: the target's, or the
// client's own when it asked for less (a live request).
func maxOut(r *request, t *target) int {
	if r.ask > 0 && int(r.ask) < t.maxTok {
		return int(r.ask)
	}
	return t.maxTok
}

// askMax is the max_tokens a request is reserved for before its target is
// known (the gateway, a cluster's length check).
func askMax(r *request, w *workload) int {
	if r.ask > 0 && int(r.ask) < w.maxTok {
		return int(r.ask)
	}
	return w.maxTok
}

// sharedPrefix is the length of a request's cacheable prefix: its
// workload's shared_prefix, or a live request's own.
func (s *Sim) sharedPrefix(r *request) int {
	if s.driver != nil {
		return int(r.share)
	}
	return s.wls[r.wl].spec.Tokens.SharedPrefix
}

// observeStart tells a live driver that a hosted request began service:
// its first token is ttftSvc from now, its last e2e from now.
func (s *Sim) observeStart(id int32, e2e float64) {
	if s.driver != nil {
		s.driver.started(s, id, e2e)
	}
}

// observeDone tells a live driver that a request completed.
func (s *Sim) observeDone(id int32, t *tokenTally) {
	if s.driver != nil {
		s.driver.done(s, id, t)
	}
}

// observeFail tells a live driver that a request failed for reason.
func (s *Sim) observeFail(id int32, reason int) {
	if s.driver != nil {
		s.driver.failed(s, id, reason)
	}
}

// reqClass is a request's priority class: a live request's own when it
// chose one, else its workload's.
func (s *Sim) reqClass(id int32) int {
	if s.driver != nil {
		if c, ok := s.driver.classOf(id); ok {
			return c
		}
	}
	return classOf(s.wls[s.reqs[id].wl])
}
