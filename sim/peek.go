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
	return ev.Time, ok
}
