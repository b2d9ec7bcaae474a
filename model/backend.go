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
	direct bool
	// cdirect is set when this cluster is its workload's only target and
	// a new request's first attempt meets nothing on its way there (no
	// pacer, timeout, gateway, route or live driver): sendDirect takes it
	// (markClusterDirect).
	cdirect bool
	// cbatch: its requests wait in the replicas' batch queues (order =
	// priority, a batch workload); fitIn is the longest prompt the
	// cluster takes with the workload's max_tokens (sendCluster's length
	// check). Both are set with cdirect.
	cbatch  bool
	fitIn   int
	gpuTok  int64 // tokens this workload had served by the cluster (its cost share)
	hostTok int64 // tokens this workload had served by the hosted provider (its share of a commitment)
}

// markClusterDirect sets cdirect on w's target when w sends to one
// cluster with nothing on the way, as markDirect does for hosted targets,
// and the cluster's router reads its routing keys (router.keyed) when its
// policy lets it. It runs at the start of a run, once any live driver is
// set.
func (s *Sim) markClusterDirect(w *workload) {
	if len(w.targets) != 1 || w.targets[0].clus == nil || w.route != nil || s.gw != nil || s.driver != nil ||
		w.paceReq != nil || w.paceTok != nil || w.timeout > 0 || s.noDirect {
		return
	}
	t := &w.targets[0]
	c := t.clus
	t.cdirect = true
	t.cbatch = c.priority && classOf(w) == classBatch
	t.fitIn = c.maxTokens() - w.maxTok // a cluster's blocks and lengths are fixed when it is built
	c.rt.keyed = c.rt.policy == polLeastWork && !(c.rt.refresh > 0) && !c.scanRoute && c.as == nil && c.pd == nil
}

// sendDirect is attempt, send, route, sendTo, sendCluster, pickFor and
// enqueue in one step for the new request id of a workload whose target
// t is marked cdirect: its first attempt, with no pacer, timeout, gateway,
// route or live driver on its way (so no ask of its own: it carries the
// target's max_tokens, and its class is its workload's). A refusal goes
// back the general way (reject); a retry comes back through attempt.
// r is s.reqs[id], now the engine's time and iv its interval, as
// newRequest found them.
func (s *Sim) sendDirect(id int32, r *request, w *workload, t *target, now float64, iv int) {
	r.attempts = 1
	w.stats.attempts++
	if w.win != nil {
		w.win.attempts[w.win.at(now)]++
	}
	r.out = true
	s.routed++
	t.bstats.attempts++
	r.maxTok = int32(t.maxTok)
	c := t.clus
	var rep *replica
	if rt := c.rt; rt.keyed {
		bk := leastKey(c.rkey) // pickFor's least-work choice
		if bk == routeNone {
			s.reject(id, rsUnavailable, 0, iv)
			return
		}
		rep = c.replicas[bk&(1<<routeIdxBits-1)]
		rt.routed[rep.idx]++
	} else if rep = s.pickFor(c, id); rep == nil {
		s.reject(id, rsUnavailable, 0, iv)
		return
	}
	if c.spec.MaxWaiting > 0 && rep.waitingLen() >= c.spec.MaxWaiting {
		s.reject(id, rsQueueFull, 1, iv)
		return
	}
	if int(r.input) > t.fitIn {
		s.reject(id, rsTooLarge, 0, iv)
		return
	}
	c.stats.admitted++
	sq := &s.seqs[id]
	lg := sq.lazyGen
	*sq = seqState{}
	sq.target, sq.prefix, sq.lazyGen = r.input, -1, lg
	// enqueue, written out: a call less on every request (7M
	// instructions of the cluster-day hour's 1.8G).
	r.state = stBackendQueue
	s.ser.queue.Add(now, 1)
	c.cs.waitG.Add(now, 1)
	rep.waitG.Add(now, 1)
	if t.cbatch {
		rep.waitingB.pushBack(id)
	} else {
		rep.waiting.pushBack(id)
	}
	rep.noteLoad()
	if !rep.busy {
		if !rep.kick {
			rep.kick = true
			s.eng.Schedule(now, evCluster, int32(c.idx), uint32(clKick|rep.idx))
		}
	} else if rep.span.on && len(rep.running) < c.maxSeqs {
		s.cutSpan(c, rep)
	}
}

// sendTo delivers the attempt of r = s.reqs[id], a request of w, to its
// target (r.tgt).
func (s *Sim) sendTo(id int32, r *request, w *workload, iv int) {
	t := &w.targets[r.tgt]
	t.bstats.attempts++
	r.maxTok = int32(maxOut(r, t))
	if w.route != nil {
		w.route.stats.Targets[r.tgt].Sent++
	}
	if t.clus != nil {
		s.sendCluster(id, r, w, t.clus, iv) // cluster_step.go
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
