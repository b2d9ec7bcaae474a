package sim

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// maxScheduled caps how many events one property run schedules, so that a
// handler that schedules children cannot grow the run without bound.
const maxScheduled = 400

// engineModel drives an Engine from rapid: each handled event may schedule
// children at random offsets (in the past, now, or later), and every
// scheduled event is given an id (its Obj) in scheduling order together with
// the time it must be handled at once the engine has clamped it.
type engineModel struct {
	t       *rapid.T
	eng     *Engine
	want    []float64 // id -> time the event must be handled at
	handled []int32   // ids in the order handled
	done    []bool    // id -> handled
	until   float64   // horizon of the current Run
	last    float64   // clock at the previous event
}

// genOffset draws an offset from now for a new event: often a tie with now
// or with another event, sometimes in the past (to be clamped), sometimes
// not a number at all.
func genOffset() *rapid.Generator[float64] {
	return rapid.OneOf(
		rapid.SampledFrom([]float64{0, 0, 0.5, 1, 1, 2, -1, -0.25, math.Inf(-1), math.NaN()}),
		rapid.Float64Range(-3, 10),
	)
}

// schedule adds one event at now+off, through Schedule or After.
func (m *engineModel) schedule(off float64) {
	id := int32(len(m.want))
	now := m.eng.Now()
	at := now + off
	if rapid.Bool().Draw(m.t, "viaAfter") {
		m.eng.After(off, 1, id, uint32(id))
	} else {
		m.eng.Schedule(at, 1, id, uint32(id))
	}
	if !(at >= now) { // in the past, or NaN: clamped to now
		at = now
	}
	m.want = append(m.want, at)
	m.done = append(m.done, false)
}

func (m *engineModel) Handle(e Event) {
	t := m.t
	now := m.eng.Now()
	if e.Time != now {
		t.Fatalf("event %d handled at time %v while the clock reads %v", e.Obj, e.Time, now)
	}
	if now < m.last {
		t.Fatalf("clock went back from %v to %v", m.last, now)
	}
	if e.Time > m.until {
		t.Fatalf("event %d at %v handled by Run(until=%v)", e.Obj, e.Time, m.until)
	}
	if e.Obj < 0 || int(e.Obj) >= len(m.want) || m.done[e.Obj] {
		t.Fatalf("unknown or repeated event %+v", e)
	}
	if e.Time != m.want[e.Obj] || e.Gen != uint32(e.Obj) || e.Kind != 1 {
		t.Fatalf("event %+v, want time %v (scheduling in the past clamps to now)", e, m.want[e.Obj])
	}
	if n := len(m.handled); n > 0 {
		prev := m.handled[n-1]
		if m.want[prev] == e.Time && prev > e.Obj {
			t.Fatalf("tie at %v: event %d scheduled after %d but handled first", e.Time, prev, e.Obj)
		}
	}
	m.last = now
	m.done[e.Obj] = true
	m.handled = append(m.handled, e.Obj)
	if got := m.eng.Events(); got != uint64(len(m.handled)) {
		t.Fatalf("Events() = %d after %d events", got, len(m.handled))
	}
	for range rapid.IntRange(0, 3).Draw(t, "children") {
		if len(m.want) >= maxScheduled {
			break
		}
		m.schedule(genOffset().Draw(t, "offset"))
	}
}

// TestEngineRunProperties checks Run over random models and horizons: the
// clock never moves backwards, only events at or before the horizon are
// handled and all of them are, ties go in scheduling order, scheduling in
// the past is clamped to now, and the clock ends at the horizon.
func TestEngineRunProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var eng Engine
		m := &engineModel{t: t, eng: &eng}
		for range rapid.IntRange(0, 30).Draw(t, "initial") {
			m.schedule(genOffset().Draw(t, "offset"))
		}
		horizon := rapid.OneOf(
			rapid.Custom(func(t *rapid.T) float64 { return float64(rapid.IntRange(-1, 12).Draw(t, "int")) }),
			rapid.Float64Range(-1, 20),
			rapid.Just(math.Inf(1)),
		)
		for run := range rapid.IntRange(1, 4).Draw(t, "runs") {
			// Between runs the model schedules from outside a handler too.
			if run > 0 {
				for range rapid.IntRange(0, 5).Draw(t, "between") {
					m.schedule(genOffset().Draw(t, "offset"))
				}
			}
			start := eng.Now()
			m.until = horizon.Draw(t, "until")
			if err := eng.Run(context.Background(), m.until, m); err != nil {
				t.Fatalf("Run: %v", err)
			}
			now := eng.Now()
			switch {
			case math.IsInf(m.until, 1):
				if now != m.last && now != start {
					t.Fatalf("Run(+Inf) left the clock at %v; last event at %v", now, m.last)
				}
			case m.until < start:
				if now != start {
					t.Fatalf("Run(until=%v) moved the clock from %v to %v", m.until, start, now)
				}
			default:
				if now != m.until {
					t.Fatalf("Run(until=%v) left the clock at %v", m.until, now)
				}
			}
			m.last = now
			// Everything due by the horizon was handled; the rest waits.
			pending := 0
			for id, at := range m.want {
				switch {
				case !m.done[id] && at <= m.until:
					t.Fatalf("event %d due at %v not handled by Run(until=%v)", id, at, m.until)
				case !m.done[id]:
					pending++
				}
			}
			if eng.Pending() != pending {
				t.Fatalf("Pending() = %d, want %d", eng.Pending(), pending)
			}
		}
	})
}

func TestEngineClock(t *testing.T) {
	var eng Engine
	ctx := context.Background()
	var seen []float64
	h := handlerFunc(func(e Event) { seen = append(seen, e.Time) })

	if err := eng.Run(ctx, 5, h); err != nil || eng.Now() != 5 {
		t.Fatalf("Run(5) on an empty engine: err %v, clock %v, want 5", err, eng.Now())
	}
	if err := eng.Run(ctx, 3, h); err != nil || eng.Now() != 5 {
		t.Fatalf("Run(3) after Run(5): err %v, clock %v, want 5", err, eng.Now())
	}
	eng.Schedule(7, 0, 0, 0)
	eng.Schedule(2, 0, 0, 0)           // in the past: runs at 5
	eng.After(-1, 0, 0, 0)             // in the past: runs at 5
	eng.Schedule(math.NaN(), 0, 0, 0)  // not a time: runs at 5
	eng.Schedule(math.Inf(1), 0, 0, 0) // never, short of Run(+Inf)
	if err := eng.Run(ctx, 6.5, h); err != nil || eng.Now() != 6.5 {
		t.Fatalf("Run(6.5): err %v, clock %v", err, eng.Now())
	}
	if want := []float64{5, 5, 5}; !equalFloats(seen, want) {
		t.Fatalf("handled at %v, want %v", seen, want)
	}
	if err := eng.Run(ctx, math.Inf(1), h); err != nil {
		t.Fatal(err)
	}
	if want := []float64{5, 5, 5, 7, math.Inf(1)}; !equalFloats(seen, want) {
		t.Fatalf("handled at %v, want %v", seen, want)
	}
	if eng.Now() != math.Inf(1) || eng.Pending() != 0 || eng.Events() != 5 {
		t.Fatalf("after Run(+Inf): clock %v, pending %d, events %d", eng.Now(), eng.Pending(), eng.Events())
	}
}

func TestEngineRunInfLeavesClockAtLastEvent(t *testing.T) {
	var eng Engine
	eng.Schedule(2.5, 0, 0, 0)
	if err := eng.Run(context.Background(), math.Inf(1), handlerFunc(func(Event) {})); err != nil {
		t.Fatal(err)
	}
	if eng.Now() != 2.5 {
		t.Fatalf("clock %v after Run(+Inf), want 2.5 (the last event)", eng.Now())
	}
}

// forever reschedules every event it handles, so a run never ends by
// itself; it cancels its context after cancelAfter events if that is set.
// As a safety net, so that a broken Run fails these tests instead of hanging
// them, it stops rescheduling after foreverLimit events.
type forever struct {
	eng         *Engine
	cancel      context.CancelFunc
	cancelAfter uint64
}

const foreverLimit = 1 << 24

func (f *forever) Handle(e Event) {
	if f.eng.Events() < foreverLimit {
		f.eng.After(0.001, e.Kind, e.Obj, e.Gen)
	}
	if f.cancel != nil && f.eng.Events() == f.cancelAfter {
		f.cancel()
	}
}

func TestEngineInterrupted(t *testing.T) {
	t.Run("cancelled before", func(t *testing.T) {
		var eng Engine
		eng.Schedule(0, 0, 0, 0)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := eng.Run(ctx, math.Inf(1), &forever{eng: &eng})
		if !errors.Is(err, ErrInterrupted) {
			t.Fatalf("Run = %v, want ErrInterrupted", err)
		}
		if eng.Events() == 0 || eng.Events() > checkEvery {
			t.Fatalf("handled %d events before noticing, want 1..%d", eng.Events(), checkEvery)
		}
	})
	t.Run("cancelled by the handler", func(t *testing.T) {
		var eng Engine
		for i := range 10 {
			eng.Schedule(float64(i), 0, int32(i), 0)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		f := &forever{eng: &eng, cancel: cancel, cancelAfter: 100}
		err := eng.Run(ctx, 1e300, f)
		if !errors.Is(err, ErrInterrupted) {
			t.Fatalf("Run = %v, want ErrInterrupted", err)
		}
		if eng.Events() < 100 || eng.Events() > 100+checkEvery {
			t.Fatalf("handled %d events, want 100..%d", eng.Events(), 100+checkEvery)
		}
		// The engine is intact: a later Run with a live context goes on
		// from where the interrupted one stopped.
		now, events := eng.Now(), eng.Events()
		if eng.Pending() != 10 {
			t.Fatalf("Pending = %d after interruption, want 10", eng.Pending())
		}
		if err := eng.Run(context.Background(), now+1, &forever{eng: &eng}); err != nil {
			t.Fatal(err)
		}
		if eng.Now() != now+1 || eng.Events() <= events {
			t.Fatalf("resumed run: clock %v (from %v), events %d (from %d)", eng.Now(), now, eng.Events(), events)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		var eng Engine
		eng.Schedule(0, 0, 0, 0)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		err := eng.Run(ctx, math.Inf(1), &forever{eng: &eng})
		if !errors.Is(err, ErrInterrupted) {
			t.Fatalf("Run = %v, want ErrInterrupted", err)
		}
	})
	t.Run("horizon first", func(t *testing.T) {
		var eng Engine
		eng.Schedule(0, 0, 0, 0)
		if err := eng.Run(context.Background(), 1, &forever{eng: &eng}); err != nil {
			t.Fatalf("Run = %v, want nil", err)
		}
		if eng.Now() != 1 || eng.Pending() != 1 {
			t.Fatalf("clock %v, pending %d; want 1 and 1", eng.Now(), eng.Pending())
		}
	})
}

// handlerFunc adapts a function to Handler in tests.
type handlerFunc func(Event)

func (f handlerFunc) Handle(e Event) { f(e) }

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestEngineNextAt(t *testing.T) {
	var eng Engine
	if _, ok := eng.NextAt(); ok {
		t.Fatal("NextAt on an empty engine reported an event")
	}
	eng.Schedule(3, 0, 0, 0)
	eng.Schedule(1.5, 0, 1, 0)
	if at, ok := eng.NextAt(); !ok || at != 1.5 {
		t.Fatalf("NextAt = %v, %v; want 1.5, true", at, ok)
	}
	if err := eng.Run(context.Background(), 2, handlerFunc(func(Event) {})); err != nil {
		t.Fatal(err)
	}
	if at, ok := eng.NextAt(); !ok || at != 3 {
		t.Fatalf("after Run(2): NextAt = %v, %v; want 3, true", at, ok)
	}
}

// zeroSigns records the events it handles and the sign of each's time.
type zeroSigns struct {
	order []int32
	neg   []bool
}

func (z *zeroSigns) Handle(e Event) {
	z.order = append(z.order, e.Obj)
	z.neg = append(z.neg, math.Signbit(e.Time))
}

// TestEngineNegativeZero: an event scheduled at -0, on the heap or on a
// lane, ties with those at +0 in scheduling order and is handled at +0.
func TestEngineNegativeZero(t *testing.T) {
	negZero := math.Copysign(0, -1)
	var eng Engine
	l := eng.NewLane()
	eng.Schedule(0, 0, 1, 0)
	eng.Schedule(negZero, 0, 2, 0)
	eng.ScheduleLane(l, negZero, 0, 3, 0)
	eng.Schedule(0, 0, 4, 0)
	eng.Schedule(negZero, 0, 5, 0)
	var z zeroSigns
	if err := eng.Run(context.Background(), math.Inf(1), &z); err != nil {
		t.Fatal(err)
	}
	if want := []int32{1, 2, 3, 4, 5}; !slices.Equal(z.order, want) {
		t.Fatalf("handled %v, want %v", z.order, want)
	}
	if slices.Contains(z.neg, true) {
		t.Fatalf("times handled with their signs %v, want +0 throughout", z.neg)
	}
	if math.Signbit(eng.Now()) {
		t.Fatal("the clock reads -0")
	}
}
