package sim

// NextAt is the time of the earliest pending event, and false when none is
// pending. Call it between runs, not from a Handler: a driver that
// advances the engine to a wall clock uses it to know how long it may
// sleep.
func (e *Engine) NextAt() (float64, bool) {
	if e.topHandled {
		return 0, false
	}
	ev, ok := e.queue.Peek()
	q := &e.queue
	if len(q.lanes) > 0 {
		if l := &q.lanes[q.laneMin]; l.key != noKey && (!ok || lessBit(l, &q.items[0]) == 1) {
			return l.event().Time, true
		}
	}
	return ev.Time, ok
}
