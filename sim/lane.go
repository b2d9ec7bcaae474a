package sim

// A Lane holds at most one pending event, kept beside the queue's heap
// rather than in it. A source that always has exactly its next occurrence
// pending, such as an open-loop arrival stream, reschedules itself on its
// lane at the cost of a comparison, where the heap would take a sift each
// time; Run handles the earliest of the heap's top and the lanes' events.
// An event on a lane is ordered exactly as Schedule would order it (by
// time, then by when it was scheduled among the events of that time), so
// moving a source onto a lane changes nothing in the order events are
// handled. Lanes are for a few sources: every lane is looked at when one
// changes.
type Lane int32

// noKey marks an empty lane: it sorts after every event.
const noKey = ^uint64(0)

// NewLane adds a lane, empty, and returns it.
func (e *Engine) NewLane() Lane {
	e.queue.lanes = append(e.queue.lanes, slot{key: noKey, ord: noKey})
	return Lane(len(e.queue.lanes) - 1)
}

// ScheduleLane schedules the event of lane l at absolute time t, in place
// of the one pending on it, if any (which is then never handled). A time
// in the past is treated as now.
func (e *Engine) ScheduleLane(l Lane, t float64, kind uint16, obj int32, gen uint32) {
	q := &e.queue
	s := slot{key: e.keyAt(t), ord: q.take()<<kindBits | uint64(kind), obj: obj, gen: gen} // slotOf
	q.lanes[l] = s
	if len(q.lanes) == 1 {
		// The only lane is the earliest (laneMin is 0).
		q.laneKey, q.laneOrd = ^s.key, ^s.ord
		return
	}
	q.fixLaneMin()
}

// fixLaneMin points laneMin at the earliest lane, and copies its key and
// ord, inverted, to laneKey and laneOrd. There must be a lane. It is
// kept small enough to be inlined; a single lane (an open-loop model's
// arrivals) is kept without it, by ScheduleLane and Run.
func (q *Queue) fixLaneMin() {
	lanes := q.lanes
	m := 0
	for i, l := range lanes[1:] {
		if lessBit(&l, &lanes[m]) == 1 {
			m = i + 1
		}
	}
	q.laneMin = m
	q.laneKey, q.laneOrd = ^lanes[m].key, ^lanes[m].ord
}

// pendingLanes is the number of lanes with an event pending.
func (q *Queue) pendingLanes() int {
	n := 0
	for i := range q.lanes {
		if q.lanes[i].key != noKey {
			n++
		}
	}
	return n
}
