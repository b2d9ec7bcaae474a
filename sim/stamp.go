package sim

import "math"

// A Stamp is a place in the order of events that fall at the same time:
// the place an event scheduled at the moment of stamping would take. A
// model that keeps pending occurrences of its own outside the queue (the
// wake times of users who think, of which only the next needs to be an
// event) stamps each when it decides it, and schedules it with
// ScheduleStamped only when it comes next: the event is then handled
// exactly where it would have been had it been scheduled when stamped,
// before the events scheduled after the stamp at the same time and after
// those scheduled before it. Stamps are below 2^63, so a model may keep a
// flag in the top bit of one it stores.
type Stamp uint64

// stampEpochShift places a stamp's renumbering epoch above its sequence
// number.
const stampEpochShift = 64 - kindBits

// Stamp takes the place in the order that Schedule would give an event
// now, without scheduling one.
func (e *Engine) Stamp() Stamp { return e.queue.stamp() }

// ScheduleStamped adds an event at absolute time t, ordered among the
// events of that time by its stamp st rather than by when it is scheduled.
// Schedule each stamp at most once. A time in the past is treated as now.
// A stamp taken before the queue last renumbered its sequence numbers
// (once every 2^48 schedules and stamps) has lost its place, and the event
// is ordered as if stamped now.
func (e *Engine) ScheduleStamped(t float64, st Stamp, kind uint16, obj int32, gen uint32) {
	if t < e.now || math.IsNaN(t) {
		t = e.now
	}
	seq, ok := e.queue.stamped(st)
	if !ok {
		e.Schedule(t, kind, obj, gen)
		return
	}
	s := slot{key: timeKey(t), ord: seq<<kindBits | uint64(kind), obj: obj, gen: gen}
	if e.topHandled {
		e.topHandled = false
		e.queue.down(s)
		return
	}
	e.queue.insert(s)
}

// stamp takes the next sequence number, as a push would, and returns it
// with the current epoch.
func (q *Queue) stamp() Stamp {
	seq := q.take()
	return Stamp(uint64(q.epoch)<<stampEpochShift | seq)
}

// stamped returns the sequence number of a stamp of the current epoch.
func (q *Queue) stamped(st Stamp) (seq uint64, ok bool) {
	if uint16(st>>stampEpochShift) != q.epoch {
		return 0, false
	}
	return uint64(st) & (seqLimit - 1), true
}
