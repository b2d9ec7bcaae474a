package model

// A request's way, step 1 of 6 (doc.go): arrival. The demand makes a
// request: an open-loop arrival (workloads.Arrivals), a closed-loop
// user's wake-up, a job's batch, or a trace record (trace_source.go). It
// is counted as offered and goes to its client (client.go), which gives it
// a slot or queues it; its record (tokens, content) is made when it gets
// the slot.

// startArrivals schedules a workload's first arrivals at the start of a
// run. It reports false when a trace could not be opened (the run then
// stops with the error).
func (s *Sim) startArrivals(w *workload) bool {
	s.markClusterDirect(w) // backend.go
	switch {
	case w.closed:
		s.startUsers(w) // users.go
	case w.job:
		s.eng.Schedule(float64(w.spec.Demand.At), evArrival, int32(w.idx), 0)
	case w.trace != nil:
		if s.startTrace(w) != nil {
			return false
		}
	default:
		s.nextArrival(w)
	}
	return true
}

// maxArrivalLanes is how many open-loop workloads have their arrival
// stream on an engine lane (sim.Lane); those beyond schedule arrivals in
// the heap, as every lane is looked at when one changes.
const maxArrivalLanes = 4

// nextArrival schedules the next arrival of an open-loop workload, on its
// lane when it has one, if it falls before the horizon.
func (s *Sim) nextArrival(w *workload) {
	t := w.arrivals.Next()
	if !(t < s.cfg.Duration) {
		return
	}
	if w.onLane {
		s.eng.ScheduleLane(w.lane, t, evArrival, int32(w.idx), 0)
		return
	}
	s.eng.Schedule(t, evArrival, int32(w.idx), 0)
}

// arrive creates the workload's next request(s) and schedules the next
// arrival of an open-loop workload; gen is the event's (a group of
// closed-loop users, users.go). A job's requests arrive all at once; those
// beyond the client's free slots wait as one entry of its queue and are
// made one by one as slots free, so a job of 10M requests behind 16 slots
// holds 16 requests, not 10M.
func (s *Sim) arrive(w *workload, gen uint32) {
	if w.trace != nil {
		s.arriveTrace(w)
		return
	}
	now := s.eng.Now()
	if w.users != nil {
		s.userWakes(w, gen) // before its request, which may end at once
	}
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
	if a := w.arrivals; a != nil {
		// nextArrival, written out: a call less on every arrival.
		t, ok := a.Ahead()
		if !ok {
			t = a.Next()
		}
		if t < s.cfg.Duration {
			if w.onLane {
				s.eng.ScheduleLane(w.lane, t, evArrival, int32(w.idx), 0)
			} else {
				s.eng.Schedule(t, evArrival, int32(w.idx), 0)
			}
		}
	}
}

// newRequest is the arrival of one request of w at now: counted as
// offered, then sent through the client, or queued for a client slot.
func (s *Sim) newRequest(w *workload, now float64) {
	// arrived(w, now, 1), written out: a call less on every arrival.
	iv := s.interval(now)
	w.stats.offered++
	s.ser.offered[iv]++
	if w.win != nil {
		w.win.offered[w.win.at(now)]++
	}
	s.live++
	s.ser.inFlight.Add(now, 1)
	if w.semCap > 0 && w.semUsed >= w.semCap {
		w.waiting.push(now, 1)
		s.ser.queue.Add(now, 1)
		return
	}
	w.semUsed++
	// alloc, its common case written in: the last free record.
	var id int32
	if n := len(s.free); n > 0 {
		id, s.free = s.free[n-1], s.free[:n-1]
	} else {
		id = s.alloc()
	}
	r := s.issueIn(id, w, now)
	if w.direct {
		s.startDirect(id, w) // hosted.go
	} else if t := &w.targets[0]; t.cdirect {
		s.sendDirect(id, r, w, t, now, iv) // backend.go
	} else {
		s.attemptOn(id, r, w, now) // client.go
	}
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

// issueIn makes the record of a request of w that arrived at arrival and
// holds a client slot, in the free record id, and returns it: its tokens
// and content are drawn now, in the order requests leave the client
// queue, which is the order they arrived in (the queue is first in, first
// out, and nobody passes it), so the draws are those of a request made at
// its arrival.
func (s *Sim) issueIn(id int32, w *workload, arrival float64) *request {
	r := &s.reqs[id]
	gen := r.gen + 1
	var in, out, prefix int
	switch {
	case w.trace != nil:
		in, out = w.traceTokens()
	case w.fixedTok:
		in, out = w.fixIn, w.fixOut
	default:
		// The next of w's token draws (token_draws.go), a batch at a time.
		d := &w.tokAhead
		if d.left == 0 {
			w.drawTokens()
		}
		t := &d.buf[len(d.buf)-d.left]
		d.left--
		in, out, prefix = int(t.In), int(t.Out), int(t.Prefix)
	}
	// Zeroed in place, then filled field by field: a composite literal
	// with these fields is built on the stack and copied, and the copy's
	// wide loads of the narrow stores just made stall.
	*r = request{}
	r.gen, r.wl, r.batch = gen, int32(w.idx), w.batch
	r.input, r.output, r.prefix = int32(in), int32(min(out, w.maxTok)), int32(prefix)
	r.maxTok, r.arrival, r.lastRsn = int32(w.maxTok), arrival, -1
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
	return r
}
