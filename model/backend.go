package model

// A request's way, step 5 of 6 (doc.go): the backend. The router
// (router.go) delivers an attempt to its target here: the backend counts
// it, caps its max_tokens, and hands it to a hosted API (hosted.go) or a
// GPU cluster (sendCluster, cluster_step.go, and the fleet in
// cluster_*.go). A backend that refuses calls reject: the refusal reaches
// the client (client.go) after the backend's error latency, through the
// router's fallback (router.go). A served request completes (complete.go).

// target is one backend a workload can send to, as that workload sees it.
type target struct {
	name    string
	prov    *provider // hosted, or nil
	clus    *cluster  // self-hosted, or nil
	key     int       // index into prov.keys, or -1
	bstats  *backendStats
	errTime float64
	maxTok  int
	// direct is set when an attempt at this hosted target has nothing to
	// meet before service (hosted.go, markDirect).
	direct  bool
	gpuTok  int64 // tokens this workload had served by the cluster (its cost share)
	hostTok int64 // tokens this workload had served by the hosted provider (its share of a commitment)
}

// sendTo delivers the attempt to its target (r.tgt).
func (s *Sim) sendTo(id int32, iv int) {
	r := &s.reqs[id]
	w := s.wls[r.wl]
	t := &w.targets[r.tgt]
	t.bstats.attempts++
	r.maxTok = int32(maxOut(r, t))
	if w.route != nil {
		w.route.stats.Targets[r.tgt].Sent++
	}
	if t.clus != nil {
		s.sendCluster(id, iv) // cluster_step.go
		return
	}
	s.sendHosted(id, r, t, iv)
}

// reject records a refused attempt and lets the client decide what next,
// after the provider's error latency.
func (s *Sim) reject(id int32, reason int, retryAfter float64, iv int) {
	s.countRejection(id, reason, iv)
	r := &s.reqs[id]
	r.out = false // answered: the refusal is on its way
	if et := s.tgt(r).errTime; et > 0 {
		r.lastRsn = int16(reason)
		r.retryAft = retryAfter
		r.state = stBackoff
		s.eng.Schedule(s.eng.Now()+et, evFail, id, r.gen)
		return
	}
	s.refused(id, reason, retryAfter)
}

// refusalDelivered is a refusal reaching its client after the backend's
// error latency (evFail); a batch-lane job that expired leaves the lane
// first.
func (s *Sim) refusalDelivered(id int32) {
	r := &s.reqs[id]
	if r.state == stService && r.batch {
		s.tgt(r).prov.batchQ -= float64(r.input) // a batch-lane job that expired
	}
	s.refused(id, int(r.lastRsn), r.retryAft)
}

// countRejection records a refused attempt for its workload, its backend
// and the series.
func (s *Sim) countRejection(id int32, reason, iv int) {
	r := &s.reqs[id]
	w := s.wls[r.wl]
	w.targets[r.tgt].bstats.rejected[reason]++
	if r.orphan {
		return // its client already counted the attempt as timed out
	}
	w.stats.rejected[reason]++
	s.windowRefused(w, reason)
	if w.route != nil {
		w.route.stats.Targets[r.tgt].Refused++
	}
	s.ser.reject(reason, iv)
}

// tgt is the target of a request's current attempt.
func (s *Sim) tgt(r *request) *target { return &s.wls[r.wl].targets[r.tgt] }
