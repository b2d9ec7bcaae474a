package model

import (
	"math"
)

// Cluster events carry what happened in Gen: a schedule entry, a failure
// starting or ending, or a replica becoming ready.
const (
	clSchedule    = 0 << 20
	clFailStart   = 1 << 20
	clFailEnd     = 2 << 20
	clReady       = 3 << 20
	clKick        = 4 << 20
	clScale       = 5 << 20 // an autoscaler evaluation (cluster_autoscale.go)
	clRefresh     = 6 << 20 // the router's view of load is refreshed (cluster_routing.go)
	clActionMask  = 0xF << 20
	clArgumentMax = 1<<20 - 1
)

// startCluster provisions the replicas in effect at t = 0 and schedules
// the day's changes and failures.
func (s *Sim) startCluster(c *cluster) {
	n, seqs := c.spec.Replicas, c.spec.MaxNumSeqs
	if k := c.scheduleAt(s.cfg.StartClock); k >= 0 {
		e := c.spec.Schedule[k]
		if e.Replicas > 0 {
			n = e.Replicas
		}
		if e.MaxNumSeqs > 0 {
			seqs = e.MaxNumSeqs
		}
	}
	c.maxSeqs = seqs
	if c.as != nil {
		n = s.asStart(c, n)
	}
	if c.rt.refresh > 0 {
		s.refreshView(c)
	}
	for i := 0; i < n; i++ {
		s.setState(c, c.replicas[i], repUp)
	}
	c.target = n
	for k, e := range c.spec.Schedule {
		at := e.At.Seconds()
		t := math.Mod(at-s.cfg.StartClock+2*86400, 86400)
		if t == 0 {
			t = 86400
		}
		s.eng.Schedule(t, evCluster, int32(c.idx), uint32(clSchedule|k))
	}
	for j, f := range c.spec.Failures {
		start := float64(f.After)
		if f.At.IsSet() {
			start = math.Mod(f.At.Seconds()-s.cfg.StartClock+86400, 86400)
		}
		s.eng.Schedule(start, evCluster, int32(c.idx), uint32(clFailStart|j))
		s.eng.Schedule(start+float64(f.Duration), evCluster, int32(c.idx), uint32(clFailEnd|j))
	}
}

// scheduleAt is the schedule entry in effect at a clock time, or -1.
func (c *cluster) scheduleAt(clock float64) int {
	best, bestAt := -1, -1.0
	latest, latestAt := -1, -1.0
	for k, e := range c.spec.Schedule {
		at := e.At.Seconds()
		if at <= clock && at > bestAt {
			best, bestAt = k, at
		}
		if at > latestAt {
			latest, latestAt = k, at
		}
	}
	if best >= 0 {
		return best
	}
	return latest // the previous day's last entry
}

// clusterEvent handles a schedule change, a failure or a replica ready.
func (s *Sim) clusterEvent(c *cluster, code uint32) {
	arg := int(code & clArgumentMax)
	switch code & clActionMask {
	case clSchedule:
		e := c.spec.Schedule[arg]
		if e.MaxNumSeqs > 0 {
			c.maxSeqs = e.MaxNumSeqs
			for _, rep := range c.replicas {
				if rep.span.on {
					s.cutSpan(c, rep) // the new batch size applies from the next iteration
				}
			}
		}
		if e.Replicas > 0 {
			if c.as != nil {
				s.asFloor(c, e.Replicas) // with an autoscaler a schedule sets the floor
			} else {
				s.scaleTo(c, e.Replicas)
			}
		}
		for _, rep := range c.replicas {
			if rep.state == repUp && !rep.failed && !rep.busy {
				s.startStep(c, rep)
			}
		}
		s.eng.Schedule(s.eng.Now()+86400, evCluster, int32(c.idx), code)
	case clFailStart:
		s.failReplica(c, c.replicas[c.spec.Failures[arg].Replica], c.spec.Failures[arg].Requests == "lose")
	case clFailEnd:
		rep := c.replicas[c.spec.Failures[arg].Replica]
		rep.failures--
		rep.failed = rep.failures > 0
		rep.noteLoad()
		if !rep.failed && (rep.state == repUp || rep.state == repDraining) {
			s.startStep(c, rep)
		}
	case clKick:
		rep := c.replicas[arg]
		rep.kick = false
		if !rep.busy {
			s.startStep(c, rep)
		}
	case clScale:
		s.evaluate(c)
	case clRefresh:
		s.refreshView(c)
	case clReady:
		rep := c.replicas[arg]
		// A replica scaled down and up again before it was ready has a
		// later ready time; the earlier event is stale.
		if rep.state == repStarting && s.eng.Now() >= rep.readyAt {
			s.setState(c, rep, repUp)
			s.startStep(c, rep)
		}
	}
}

// setState moves a replica between provisioning states and keeps the
// billed-GPU gauge.
func (s *Sim) setState(c *cluster, rep *replica, st uint8) {
	was := rep.state != repDown
	rep.state = st
	rep.noteLoad()
	if is := st != repDown; is != was {
		d := float64(c.spec.TensorParallel)
		if !is {
			d = -d
		}
		c.cs.gpuG.Add(s.eng.Now(), d)
		if c.pd != nil {
			c.pd.provision(is, c.spec.TensorParallel)
		}
	}
	if c.as != nil {
		s.asCount(c)
	}
}

// scaleTo provisions or releases replicas so n are active. New ones start
// after the startup delay; released ones drain their work first.
func (s *Sim) scaleTo(c *cluster, n int) {
	active := 0
	for _, rep := range c.replicas {
		if rep.state == repUp || rep.state == repStarting {
			active++
		}
	}
	for _, rep := range c.replicas { // grow: revive draining ones first
		if active >= n {
			break
		}
		if rep.state == repDraining {
			s.setState(c, rep, repUp)
			active++
		}
	}
	for _, rep := range c.replicas {
		if active >= n {
			break
		}
		if rep.state == repDown {
			rep.gen++
			if d := c.startupDelay(); d > 0 {
				s.setState(c, rep, repStarting)
				rep.readyAt = s.eng.Now() + d
				s.eng.Schedule(rep.readyAt, evCluster, int32(c.idx), uint32(clReady|rep.idx))
			} else {
				s.setState(c, rep, repUp)
			}
			active++
		}
	}
	for i := len(c.replicas) - 1; i >= 0 && active > n; i-- { // shrink from the top
		rep := c.replicas[i]
		switch rep.state {
		case repStarting:
			s.setState(c, rep, repDown)
			active--
		case repUp:
			s.setState(c, rep, repDraining)
			s.maybeRetire(c, rep)
			active--
		}
	}
	c.target = n
}

// maybeRetire releases a draining replica once it has nothing left: no
// request running or waiting, and in a disaggregated cluster no KV held
// for a transfer out or reserved for one coming in.
func (s *Sim) maybeRetire(c *cluster, rep *replica) {
	if rep.state == repDraining && !rep.busy && len(rep.running) == 0 && rep.waitingLen() == 0 && rep.outgoing == 0 && rep.incoming == 0 {
		s.setState(c, rep, repDown)
	}
}

// failReplica takes a replica down: its KV cache is lost and the requests
// it held are refused back to their clients (retry) or failed (lose).
func (s *Sim) failReplica(c *cluster, rep *replica, lose bool) {
	now := s.eng.Now()
	rep.syncSpan(now)
	rep.span.on, rep.span.m = false, rep.span.applied // nothing left to apply
	rep.failures++
	if rep.failed {
		return // already down: overlapping failures
	}
	rep.failed = true
	rep.gen++ // its running iteration never ends
	s.materialize(c, rep)
	rep.fast = false
	if rep.busy {
		rep.busy = false
		c.cs.busyG.Add(now, -1)
	}
	var held []int32
	for _, id := range rep.running {
		held = append(held, id)
		sq := &s.seqs[id]
		sq.blocks, sq.prefix = 0, -1
		sq.shared, sq.nref = 0, 0
	}
	rep.running = rep.running[:0]
	rep.committed = 0
	for _, id := range held {
		s.seqs[id].reserve = 0
	}
	for rep.waitingLen() > 0 {
		held = append(held, rep.popWaiting())
		s.ser.queue.Add(now, -1)
		c.cs.waitG.Add(now, -1)
		rep.waitG.Add(now, -1)
	}
	rep.noteLoad() // failed, and empty
	rep.free = c.blocks
	rep.prefixes.clear()
	if rep.tier != nil {
		rep.tier.reset()
	}
	rep.bc = nil
	s.clusterGauges(c, rep)
	iv := s.interval(now)
	for _, id := range held {
		// Admitted, then refused by the failure: it counts as refused,
		// so attempts = admitted + refused holds, and its prefix-cache
		// hit (if it reached a batch) is taken back with its admission.
		c.stats.admitted--
		if sq := &s.seqs[id]; sq.started {
			c.countPrefix(s, id, int(sq.cached), sq.fromCPU, -1)
		}
		if lose {
			s.countRejection(id, rsReplicaLost, iv)
			s.fail(id, rsReplicaLost)
			continue
		}
		s.reject(id, rsReplicaFailure, 0, iv)
	}
}
