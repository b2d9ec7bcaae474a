package model

import (
	"github.com/headroom-sim/headroom/sim"
	"github.com/headroom-sim/headroom/workloads"
)

// Closed-loop users as a pool (arrival, step 1 of a request's way). A user
// is either in a request (the client's, and counted in flight) or thinking;
// a thinking user costs no request record and, but for the next to wake,
// no event. How the pool holds its thinking users depends on the think
// time's distribution:
//
//   - exponential: no state per user at all. The users who are thinking
//     are split into a few groups, each with one pending wake, the
//     earliest of its members'. A group that wakes at t keeps its other m
//     members, whose residual think times are again exponential (the
//     exponential forgets), so its next wake is t plus one draw of the
//     minimum of m exponentials, an exponential of mean mean/m. A user who
//     starts thinking draws its think time d: if it would wake after the
//     earliest group, it joins that group (given that it wakes later, what
//     is left of its think time then is again exponential, like every
//     member's); if before, it starts a group of its own, which is then
//     the earliest. The wakes are those of independent users with
//     exponential think times, exactly in law; about ln(users) groups are
//     pending at once. The draws are not those of a user each, so results
//     differ from a user-by-user simulation by chance, not in law.
//   - any other distribution: each thinking user is its wake time and the
//     place its wake holds among events of the same time (a sim.Stamp), 16
//     bytes, in a heap; only the earliest is an event. The draws, the
//     events and their order are exactly those of an event per user. With
//     a fixed think time wakes come in the order users start thinking, so
//     the heap is a queue, and the users of the start, who all wake at the
//     same time, are one entry.
type userPool struct {
	kind uint8
	mean float64 // exponential: the mean think time

	// poolGroups
	groups []userGroup // a slot with n == 0 is free
	minG   int         // the group with the earliest wake, or -1

	// poolQueue and poolHeap
	wakes []userWake // poolHeap: a binary min-heap by (at, stamp); poolQueue: a ring
	head  int        // poolQueue: the ring's first entry
	size  int        // poolQueue: entries in the ring
	start userRun    // poolQueue: the users of the start, waking together
	cap   int        // at most this many entries: the users
}

// Kinds of pools.
const (
	poolGroups = iota // exponential think time
	poolQueue         // fixed think time
	poolHeap          // any other
)

// userGroup is a group of thinking users with exponential think times: n
// users, the earliest of whom wakes at at.
type userGroup struct {
	n  int
	at float64
}

// userWake is a thinking user: when it wakes, and the place of its wake
// among the events of that time. The stamp's top bit says that its event
// is scheduled.
type userWake struct {
	at float64
	st sim.Stamp
}

// scheduledBit marks a userWake whose event is scheduled.
const scheduledBit = sim.Stamp(1) << 63

// userRun is n users who wake at at with consecutive stamps from st.
type userRun struct {
	at float64
	st sim.Stamp
	n  int
}

// before orders wakes by time, then by stamp, as the event queue does.
func (a *userWake) before(b *userWake) bool {
	return a.at < b.at || a.at == b.at && a.st&^scheduledBit < b.st&^scheduledBit
}

// newUserPool returns the pool of a closed-loop workload.
func newUserPool(d *workloads.DemandSpec) *userPool {
	p := &userPool{minG: -1, cap: d.Users}
	switch d.Think.Kind {
	case workloads.KindExponential:
		p.kind, p.mean = poolGroups, d.Think.Mean
	case workloads.KindFixed:
		p.kind = poolQueue
	default:
		p.kind = poolHeap
	}
	return p
}

// startUsers sets every user of w thinking at the start of the run.
func (s *Sim) startUsers(w *workload) {
	p := w.users
	n := w.spec.Demand.Users
	if s.refUsers {
		for u := 0; u < n; u++ {
			s.eng.Schedule(w.spec.Demand.Think.Sample(w.rngThink), evArrival, int32(w.idx), 0)
		}
		return
	}
	if p.kind == poolGroups {
		// Their earliest wake; one at the horizon is still handled.
		if at := p.mean / float64(n) * w.rngThink.ExpFloat64(); at <= s.cfg.Duration {
			s.addGroup(w, n, at)
		}
		return
	}
	// Each user draws its first think time, in order, and takes the place
	// its event would have taken had it been scheduled now. A wake at the
	// horizon is still handled; later ones never are.
	think := &w.spec.Demand.Think
	for u := 0; u < n; u++ {
		at := think.Sample(w.rngThink)
		st := s.eng.Stamp()
		if at > s.cfg.Duration {
			continue
		}
		if p.kind == poolQueue {
			if r := &p.start; r.n > 0 && r.at == at && r.st+sim.Stamp(r.n) == st {
				r.n++
				continue
			}
			if p.start.n == 0 && p.size == 0 {
				p.start = userRun{at: at, st: st, n: 1}
				continue
			}
			p.pushQueue(userWake{at: at, st: st})
			continue
		}
		if p.wakes == nil {
			p.wakes = make([]userWake, 0, n-u)
		}
		p.wakes = append(p.wakes, userWake{at: at, st: st})
	}
	if p.kind == poolHeap {
		for i := len(p.wakes)/2 - 1; i >= 0; i-- {
			p.siftDown(i)
		}
	}
	s.scheduleNextWake(w)
}

// userThinks sets a user of w thinking from now, when its request ended.
func (s *Sim) userThinks(w *workload, now float64) {
	p := w.users
	if s.refUsers {
		if t := now + w.spec.Demand.Think.Sample(w.rngThink); t < s.cfg.Duration {
			s.eng.Schedule(t, evArrival, int32(w.idx), 0)
		}
		return
	}
	if p.kind == poolGroups {
		at := now + p.mean*w.rngThink.ExpFloat64()
		if p.minG >= 0 && at >= p.groups[p.minG].at {
			p.groups[p.minG].n++
			return
		}
		if at < s.cfg.Duration {
			s.addGroup(w, 1, at)
		}
		return
	}
	at := now + w.spec.Demand.Think.Sample(w.rngThink)
	if !(at < s.cfg.Duration) {
		return
	}
	wk := userWake{at: at, st: s.eng.Stamp()}
	if p.kind == poolQueue {
		// Wakes come in the order users start thinking: the queue's last.
		first := p.size == 0 && p.start.n == 0
		p.pushQueue(wk)
		if first {
			s.scheduleNextWake(w)
		}
		return
	}
	if len(p.wakes) == 0 || wk.before(&p.wakes[0]) {
		// It wakes before every other: its event is due now.
		s.eng.ScheduleStamped(wk.at, wk.st, evArrival, int32(w.idx), 0)
		wk.st |= scheduledBit
	}
	p.pushHeap(wk)
}

// userWakes takes the user whose wake is the event being handled (gen
// names its group) out of the pool, and makes sure the next to wake has
// its event.
func (s *Sim) userWakes(w *workload, gen uint32) {
	p := w.users
	now := s.eng.Now()
	if s.refUsers {
		return
	}
	switch p.kind {
	case poolGroups:
		g := int(gen) - 1
		gr := &p.groups[g]
		gr.n--
		if gr.n > 0 {
			gr.at = now + p.mean/float64(gr.n)*w.rngThink.ExpFloat64()
		}
		if gr.n == 0 || !(gr.at < s.cfg.Duration) {
			gr.n = 0 // none left, or past the horizon: they never wake
		} else {
			s.eng.Schedule(gr.at, evArrival, int32(w.idx), gen)
		}
		p.findMin()
		return
	case poolQueue:
		if p.start.n > 0 {
			p.start.st++
			p.start.n--
		} else {
			p.head = (p.head + 1) % len(p.wakes)
			p.size--
		}
	default:
		p.popHeap()
	}
	s.scheduleNextWake(w)
}

// scheduleNextWake schedules the event of the earliest wake of a queue or
// heap pool, unless it is scheduled already.
func (s *Sim) scheduleNextWake(w *workload) {
	p := w.users
	var wk *userWake
	switch {
	case p.kind == poolQueue && p.start.n > 0:
		s.eng.ScheduleStamped(p.start.at, p.start.st, evArrival, int32(w.idx), 0)
		return
	case p.kind == poolQueue && p.size > 0:
		wk = &p.wakes[p.head]
	case p.kind == poolHeap && len(p.wakes) > 0:
		wk = &p.wakes[0]
	default:
		return
	}
	if wk.st&scheduledBit == 0 {
		s.eng.ScheduleStamped(wk.at, wk.st, evArrival, int32(w.idx), 0)
		wk.st |= scheduledBit
	}
}

// addGroup starts a group of n thinking users, the earliest of whom wakes
// at at: it is then the earliest group.
func (s *Sim) addGroup(w *workload, n int, at float64) {
	p := w.users
	g := -1
	for i := range p.groups {
		if p.groups[i].n == 0 {
			g = i
			break
		}
	}
	if g < 0 {
		g = len(p.groups)
		p.groups = append(p.groups, userGroup{})
	}
	p.groups[g] = userGroup{n: n, at: at}
	p.minG = g
	s.eng.Schedule(at, evArrival, int32(w.idx), uint32(g+1))
}

// findMin finds the group with the earliest wake.
func (p *userPool) findMin() {
	p.minG = -1
	for i := range p.groups {
		if g := &p.groups[i]; g.n > 0 && (p.minG < 0 || g.at < p.groups[p.minG].at) {
			p.minG = i
		}
	}
}

// pushQueue appends a wake to the ring, growing it (up to the users) when
// full.
func (p *userPool) pushQueue(wk userWake) {
	if p.size == len(p.wakes) {
		grown := make([]userWake, min(max(2*len(p.wakes), 16), p.cap))
		for i := 0; i < p.size; i++ {
			grown[i] = p.wakes[(p.head+i)%len(p.wakes)]
		}
		p.wakes, p.head = grown, 0
	}
	p.wakes[(p.head+p.size)%len(p.wakes)] = wk
	p.size++
}

// pushHeap adds a wake to the heap, growing it (up to the users) when full.
func (p *userPool) pushHeap(wk userWake) {
	if len(p.wakes) == cap(p.wakes) {
		grown := make([]userWake, len(p.wakes), min(max(2*cap(p.wakes), 16), p.cap))
		copy(grown, p.wakes)
		p.wakes = grown
	}
	p.wakes = append(p.wakes, wk)
	i := len(p.wakes) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !p.wakes[i].before(&p.wakes[parent]) {
			break
		}
		p.wakes[i], p.wakes[parent] = p.wakes[parent], p.wakes[i]
		i = parent
	}
}

// popHeap removes the earliest wake.
func (p *userPool) popHeap() {
	n := len(p.wakes) - 1
	p.wakes[0] = p.wakes[n]
	p.wakes = p.wakes[:n]
	if n > 0 {
		p.siftDown(0)
	}
}

// siftDown moves the wake at i down to its place.
func (p *userPool) siftDown(i int) {
	h := p.wakes
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1].before(&h[c]) {
			c++
		}
		if !h[c].before(&h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// userBytes is what a pool holds per thinking user: nothing for
// exponential think times, a wake and its stamp otherwise.
func userBytes(think *workloads.Dist) float64 {
	if think.Kind == workloads.KindExponential {
		return 0
	}
	return 16
}
