package sim

import (
	"context"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// laneModel is a model with k sources, each keeping exactly its next
// occurrence pending, and other events that come and go; it runs once with
// the sources on lanes and once with them in the heap.
type laneModel struct {
	eng    *Engine
	lanes  []Lane // nil: the sources schedule in the heap
	delays []float64
	i      int
	budget int
	order  []Event
}

// Handle records e and schedules what a draw of delays says: a source's
// next occurrence (Kind 0, Obj the source), and an other event (Kind 1).
func (m *laneModel) Handle(e Event) {
	m.order = append(m.order, e)
	if m.budget <= 0 {
		return
	}
	m.budget--
	d := m.delays[m.i%len(m.delays)]
	m.i++
	if m.i%3 == 0 {
		m.eng.After(d, 1, int32(m.i), 0)
	}
	if e.Kind != 0 {
		return
	}
	t := m.eng.Now() + m.delays[m.i%len(m.delays)]
	m.i++
	if m.lanes != nil {
		m.eng.ScheduleLane(m.lanes[e.Obj], t, 0, e.Obj, e.Gen+1)
	} else {
		m.eng.Schedule(t, 0, e.Obj, e.Gen+1)
	}
}

// TestLaneOrderAsHeap: sources on lanes are handled in exactly the order
// they are in the heap, ties included (delays on a coarse grid make many),
// and Pending and NextAt count the lanes.
func TestLaneOrderAsHeap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(1, 5).Draw(t, "sources")
		delays := rapid.SliceOfN(rapid.IntRange(0, 3), 1, 40).Draw(t, "delays")
		budget := rapid.IntRange(0, 300).Draw(t, "budget")
		until := float64(rapid.IntRange(0, 100).Draw(t, "until"))
		run := func(onLanes bool) ([]Event, int, float64, bool) {
			m := &laneModel{eng: &Engine{}, budget: budget}
			for _, d := range delays {
				m.delays = append(m.delays, float64(d)/2)
			}
			for s := range k {
				if onLanes {
					m.lanes = append(m.lanes, m.eng.NewLane())
					m.eng.ScheduleLane(m.lanes[s], m.delays[s%len(m.delays)], 0, int32(s), 0)
				} else {
					m.eng.Schedule(m.delays[s%len(m.delays)], 0, int32(s), 0)
				}
				m.eng.Schedule(m.delays[(s+1)%len(m.delays)], 1, int32(-s), 0)
			}
			if err := m.eng.Run(context.Background(), until, m); err != nil {
				t.Fatal(err)
			}
			next, ok := m.eng.NextAt()
			return m.order, m.eng.Pending(), next, ok
		}
		heap, hp, hn, hok := run(false)
		lane, lp, ln, lok := run(true)
		if !slices.Equal(heap, lane) {
			t.Fatalf("order on lanes %v, in the heap %v", lane, heap)
		}
		if hp != lp || hn != ln || hok != lok {
			t.Fatalf("pending %d, next %v %v on lanes; %d, %v %v in the heap", lp, ln, lok, hp, hn, hok)
		}
	})
}

// TestLaneAcrossRenumber: a lane's event keeps its place among events of
// its time when the queue renumbers its sequence numbers.
func TestLaneAcrossRenumber(t *testing.T) {
	var eng Engine
	l := eng.NewLane()
	eng.queue.next = seqLimit - 2
	eng.Schedule(1, 0, 1, 0)
	eng.ScheduleLane(l, 1, 0, 2, 0)
	eng.Schedule(1, 0, 3, 0) // renumbers: 1, 2 and 3 keep their order
	var got handledOrder
	if err := eng.Run(context.Background(), math.Inf(1), &got); err != nil {
		t.Fatal(err)
	}
	if want := []int32{1, 2, 3}; !slices.Equal(got, want) {
		t.Fatalf("handled %v, want %v", got, want)
	}
}

// TestScheduleLaneNoAllocs: rescheduling a lane allocates nothing.
func TestScheduleLaneNoAllocs(t *testing.T) {
	var eng Engine
	l := eng.NewLane()
	allocs := testing.AllocsPerRun(100, func() {
		eng.ScheduleLane(l, eng.Now()+1, 0, 0, 0)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations", allocs)
	}
}
