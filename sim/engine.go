package sim

import (
	"context"
	"errors"
	"math"
	"math/bits"
)

// Handler receives events in time order. It may schedule further events on
// the engine it was given.
type Handler interface {
	Handle(e Event)
}

// ErrInterrupted is returned by Run when its context was cancelled before
// the horizon was reached.
var ErrInterrupted = errors.New("simulation interrupted")

// Engine is a discrete-event clock and queue. The zero value is ready to
// use; it is not safe for concurrent use (run one engine per goroutine).
type Engine struct {
	now    float64
	queue  Queue
	events uint64
	// topHandled is true while the event at the top of the queue is being
	// handled and has not been replaced yet.
	topHandled bool
}

// Now is the current simulated time in seconds.
func (e *Engine) Now() float64 { return e.now }

// Events is the number of events handled so far.
func (e *Engine) Events() uint64 { return e.events }

// Pending is the number of events still scheduled, the lanes' included.
func (e *Engine) Pending() int {
	n := e.queue.Len() + e.queue.pendingLanes()
	if e.topHandled {
		n--
	}
	return n
}

// Schedule adds an event at absolute time t. A time in the past is treated
// as now, so causality is never violated.
func (e *Engine) Schedule(t float64, kind uint16, obj int32, gen uint32) {
	q := &e.queue
	s := slot{key: e.keyAt(t), ord: q.take()<<kindBits | uint64(kind), obj: obj, gen: gen} // slotOf
	if e.topHandled {
		e.topHandled = false
		// ReplaceTop, without the calls between.
		switch {
		case !q.heap:
			q.flatDown(s)
		case len(q.items) <= smallCap:
			q.downSmall(s)
		default:
			q.downLarge(s)
		}
		return
	}
	q.insert(s)
}

// keyAt is timeKey of t, or of now if t is earlier or NaN. The clock is
// never NaN nor -0, so t is neither once clamped: adding +0 folds -0 into
// +0 (-0 + +0 is +0 in IEEE arithmetic, and x + 0 is x otherwise) without
// the branch timeKey takes, and !(t >= now) takes a NaN along with the
// past in one comparison.
func (e *Engine) keyAt(t float64) uint64 {
	if !(t >= e.now) {
		t = e.now
	}
	b := math.Float64bits(t + 0)
	return b ^ (uint64(int64(b)>>63) | 1<<63)
}

// Reschedule moves the pending event of kind, obj and gen to time t with
// generation newGen, as if the old one were cancelled and Schedule(t,
// kind, obj, newGen) called; it reports false, scheduling nothing, if no
// such event is pending (the event being handled does not count). Its
// search is linear in the pending events, so it is for queues that hold a
// few components' events.
func (e *Engine) Reschedule(t float64, kind uint16, obj int32, gen, newGen uint32) bool {
	if t < e.now || math.IsNaN(t) {
		t = e.now
	}
	return e.queue.Move(kind, obj, gen, Event{Time: t, Kind: kind, Obj: obj, Gen: newGen}, e.topHandled)
}

// After schedules an event d seconds from now.
func (e *Engine) After(d float64, kind uint16, obj int32, gen uint32) {
	e.Schedule(e.now+d, kind, obj, gen)
}

// checkEvery is how many events pass between looks at the context.
const checkEvery = 1 << 14

// Run handles events in order until the queue is empty or the next event is
// later than until; the clock then stands at until, unless until is +Inf
// (the clock stays at the last event handled) or already past (the clock
// never goes back). It returns ErrInterrupted if ctx is cancelled first; the
// context is looked at once every checkEvery events, to keep its cost out of
// the per-event path.
func (e *Engine) Run(ctx context.Context, until float64, h Handler) error {
	// A sentinel (an empty queue's top, an empty lane) has the largest
	// key; the limit stays below it even for a NaN until.
	limit := min(timeKey(until), noKey-1)
	for !e.round(limit, h) {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
	}
	if until > e.now && !math.IsInf(until, 1) {
		e.now = until
	}
	return nil
}

// round is Run for up to checkEvery events; it reports true when no event
// is left before limit. It is a function of its own so that the context
// and until, which Run needs only between rounds, are not live in the
// loop across the handler's calls (they would be reloaded every event).
func (e *Engine) round(limit uint64, h Handler) bool {
	// Counted on the events handled, which the loop increments anyway.
	for end := e.events + checkEvery; e.events != end; {
		// The earliest of the heap's top and the earliest lane's event.
		top := &sentinel
		if len(e.queue.items) > 0 {
			top = &e.queue.items[0]
		}
		_, b := bits.Sub64(^e.queue.laneOrd, top.ord, 0)
		_, b = bits.Sub64(^e.queue.laneKey, top.key, b)
		if b != 0 {
			if ^e.queue.laneKey > limit {
				return true
			}
			// A lane's event leaves its lane before it is handled; the
			// handler may put the lane's next one there (ScheduleLane
			// keeps laneMin and its copy up to date).
			l := &e.queue.lanes[e.queue.laneMin]
			next := l.event()
			e.now = next.Time
			e.events++
			*l = slot{key: noKey, ord: noKey}
			if len(e.queue.lanes) == 1 {
				e.queue.laneKey, e.queue.laneOrd = 0, 0 // the only lane is empty
			} else {
				e.queue.fixLaneMin()
			}
			h.Handle(next)
			continue
		}
		if top.key > limit {
			return true
		}
		next := top.event()
		e.now = next.Time
		e.events++
		// The event stays at the top while it is handled: the handler's
		// first Schedule replaces it (one sift instead of two), and if
		// the handler schedules nothing it is popped afterwards.
		e.topHandled = true
		h.Handle(next)
		if e.topHandled {
			e.topHandled = false
			e.queue.removeTop()
		}
	}
	return false
}
