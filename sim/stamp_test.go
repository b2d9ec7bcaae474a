package sim

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// stampScript is a model that, at every event it handles, schedules a few
// children at now + 0, 1 or 2 (ties are the rule). With defer set, some
// children are stamped and kept aside, as a pool of wake times is, and
// scheduled later with ScheduleStamped; the earliest one kept aside is
// always scheduled, which is what a pool guarantees.
type stampScript struct {
	t       *rapid.T
	rng     *rand.Rand // the script's decisions, the same in both runs while their orders agree
	release *rand.Rand // which events kept aside are scheduled early (the stamped run's own)
	eng     *Engine
	defers  bool
	next    int32
	handled []int32
	aside   []asideEvent // stamped, not yet scheduled
	budget  int
}

type asideEvent struct {
	at  float64
	st  Stamp
	id  int32
	out bool // scheduled
}

func (m *stampScript) Handle(e Event) {
	m.handled = append(m.handled, e.Obj)
	m.aside = slices.DeleteFunc(m.aside, func(a asideEvent) bool { return a.id == e.Obj })
	n := m.rng.IntN(4)
	for range n {
		if m.budget == 0 {
			break
		}
		m.budget--
		id := m.next
		m.next++
		at := m.eng.Now() + float64(m.rng.IntN(3))
		if m.rng.IntN(2) == 0 && m.defers {
			m.aside = append(m.aside, asideEvent{at: at, st: m.eng.Stamp(), id: id})
			continue
		}
		m.eng.Schedule(at, 0, id, 0)
	}
	// Release a random share of those kept aside, and always the earliest.
	for i := range m.aside {
		if a := &m.aside[i]; !a.out && m.release.IntN(3) == 0 {
			m.eng.ScheduleStamped(a.at, a.st, 0, a.id, 0)
			a.out = true
		}
	}
	m.releaseEarliest()
}

// releaseEarliest schedules the earliest event kept aside, by (time,
// stamp), if it is not scheduled yet.
func (m *stampScript) releaseEarliest() {
	best := -1
	for i, a := range m.aside {
		if best < 0 || a.at < m.aside[best].at || a.at == m.aside[best].at && a.st < m.aside[best].st {
			best = i
		}
	}
	if best >= 0 && !m.aside[best].out {
		a := &m.aside[best]
		m.eng.ScheduleStamped(a.at, a.st, 0, a.id, 0)
		a.out = true
	}
}

// TestScheduleStampedKeepsOrder: events stamped when decided and scheduled
// later are handled in exactly the order they would have been had they
// been scheduled when stamped, ties included.
func TestScheduleStampedKeepsOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seeds := rapid.IntRange(1, 4).Draw(t, "seeds")
		budget := rapid.IntRange(0, 60).Draw(t, "budget")
		seed := rapid.Uint64().Draw(t, "seed")
		run := func(defers bool) []int32 {
			var eng Engine
			m := &stampScript{t: t, rng: rand.New(rand.NewPCG(seed, 1)), release: rand.New(rand.NewPCG(seed, 2)), eng: &eng, defers: defers, budget: budget}
			for i := range seeds {
				eng.Schedule(float64(i%2), 0, m.next, 0)
				m.next++
			}
			if err := eng.Run(context.Background(), math.Inf(1), m); err != nil {
				t.Fatal(err)
			}
			return m.handled
		}
		// The two runs draw the same decisions in the same order as long
		// as they handle the same events in the same order, so the first
		// difference is a failure.
		got := run(true)
		want := run(false)
		if !slices.Equal(got, want) {
			t.Fatalf("handled %v with stamps, %v scheduled at once", got, want)
		}
	})
}

// handledOrder records the objects of the events it handles.
type handledOrder []int32

func (h *handledOrder) Handle(e Event) { *h = append(*h, e.Obj) }

// TestStampAcrossRenumber: a stamp taken before the queue renumbers loses
// its place (the event is ordered as if stamped when scheduled) but not
// its event; stamps taken after the renumbering keep theirs.
func TestStampAcrossRenumber(t *testing.T) {
	var eng Engine
	eng.queue.next = seqLimit - 2
	old := eng.Stamp()       // the last place of the epoch
	eng.Schedule(1, 0, 1, 0) // the epoch's last push
	eng.Schedule(1, 0, 2, 0) // renumbers: 1 and 2 become 0 and 1
	fresh := eng.Stamp()     // 2 in the new epoch
	eng.Schedule(1, 0, 3, 0)
	eng.ScheduleStamped(1, fresh, 0, 4, 0) // before 3, as stamped
	eng.ScheduleStamped(1, old, 0, 5, 0)   // lost its place: last
	var got handledOrder
	if err := eng.Run(context.Background(), math.Inf(1), &got); err != nil {
		t.Fatal(err)
	}
	if want := []int32{1, 2, 4, 3, 5}; !slices.Equal(got, want) {
		t.Fatalf("handled %v, want %v", got, want)
	}
}

// TestScheduleStampedNoAllocs: once the queue has grown, stamping and
// scheduling by stamp allocate nothing.
func TestScheduleStampedNoAllocs(t *testing.T) {
	var eng Engine
	for i := range 64 {
		eng.Schedule(float64(i), 0, 0, 0)
	}
	var h handledOrder
	_ = eng.Run(context.Background(), math.Inf(1), &h)
	allocs := testing.AllocsPerRun(100, func() {
		st := eng.Stamp()
		eng.Schedule(eng.Now()+1, 0, 0, 0)
		eng.ScheduleStamped(eng.Now()+1, st, 0, 0, 0)
		eng.queue.Pop()
		eng.queue.Pop()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations", allocs)
	}
}
