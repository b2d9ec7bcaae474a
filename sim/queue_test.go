package sim

import (
	"math"
	"sort"
	"testing"

	"pgregory.net/rapid"
)

// genTime draws event times that collide often (small integers, so ties
// are common) but also cover the awkward corners of float64: negative
// times, both zeros, infinities and arbitrary values.
func genTime() *rapid.Generator[float64] {
	return rapid.OneOf(
		rapid.Custom(func(t *rapid.T) float64 {
			return float64(rapid.IntRange(0, 8).Draw(t, "small"))
		}),
		rapid.SampledFrom([]float64{
			0, math.Copysign(0, -1), -1, 0.5, 1e-300, -1e-300,
			math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64,
		}),
		rapid.Float64(),
	)
}

// refQueue is the reference model of Queue: the pending events in push
// order; the next to pop is the first of a stable sort by time.
type refQueue struct {
	pending []Event
}

func (r *refQueue) push(e Event) { r.pending = append(r.pending, e) }

func (r *refQueue) pop() (Event, bool) {
	if len(r.pending) == 0 {
		return Event{}, false
	}
	sorted := append([]Event(nil), r.pending...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Time < sorted[j].Time })
	top := sorted[0]
	for i, e := range r.pending {
		if e.Obj == top.Obj {
			r.pending = append(r.pending[:i], r.pending[i+1:]...)
			break
		}
	}
	return top, true
}

// sameEvent compares the fields a caller sees. Times compare with == so that
// -0 and +0, which the queue treats as equal, match.
func sameEvent(a, b Event) bool {
	return a.Time == b.Time && a.Kind == b.Kind && a.Obj == b.Obj && a.Gen == b.Gen
}

// TestQueueMatchesReference interleaves random pushes and pops and checks
// every pop, Peek and Len against the reference model, then drains both.
func TestQueueMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q Queue
		var ref refQueue
		var id int32
		check := func(label string) {
			if q.Len() != len(ref.pending) {
				t.Fatalf("%s: Len = %d, reference has %d", label, q.Len(), len(ref.pending))
			}
		}
		push := func(t *rapid.T) {
			e := Event{
				Time: genTime().Draw(t, "time"),
				Kind: rapid.Uint16().Draw(t, "kind"),
				Obj:  id,
				Gen:  rapid.Uint32().Draw(t, "gen"),
			}
			id++
			q.Push(e)
			ref.push(e)
			check("push")
		}
		pop := func(t *rapid.T) {
			peek, pok := q.Peek()
			got, ok := q.Pop()
			want, wok := ref.pop()
			if ok != wok || pok != ok {
				t.Fatalf("Pop ok = %v, Peek ok = %v, reference ok = %v", ok, pok, wok)
			}
			if ok && (!sameEvent(got, want) || !sameEvent(peek, got)) {
				t.Fatalf("Pop = %+v, Peek = %+v, reference pops %+v", got, peek, want)
			}
			check("pop")
		}
		move := func(t *rapid.T) {
			if len(ref.pending) == 0 {
				return
			}
			// Move a pending event (by its identity) to a new time: the
			// reference removes it and pushes the new one at the back.
			old := ref.pending[rapid.IntRange(0, len(ref.pending)-1).Draw(t, "which")]
			e := Event{Time: genTime().Draw(t, "newtime"), Kind: old.Kind, Obj: id, Gen: rapid.Uint32().Draw(t, "newgen")}
			id++
			if !q.Move(old.Kind, old.Obj, old.Gen, e, false) {
				t.Fatalf("Move did not find %+v", old)
			}
			for i, p := range ref.pending {
				if p.Obj == old.Obj {
					ref.pending = append(ref.pending[:i], ref.pending[i+1:]...)
					break
				}
			}
			ref.push(e)
			check("move")
			if q.Move(old.Kind, old.Obj, old.Gen, e, false) {
				t.Fatalf("Move found %+v again", old)
			}
		}
		t.Repeat(map[string]func(*rapid.T){
			"push": push,
			"move": move,
			"pushBurst": func(t *rapid.T) { // grow the heap past a few levels
				for range rapid.IntRange(1, 40).Draw(t, "burst") {
					push(t)
				}
			},
			"pop": pop,
			"":    func(t *rapid.T) { check("invariant") },
		})
		for q.Len() > 0 || len(ref.pending) > 0 {
			pop(t)
		}
		if _, ok := q.Pop(); ok {
			t.Fatal("Pop on an empty queue reported ok")
		}
	})
}

// TestQueueDrainSorted pushes a batch and checks that draining it yields
// exactly a stable sort of the batch by time, in non-decreasing
// (time, push order).
func TestQueueDrainSorted(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		times := rapid.SliceOfN(genTime(), 0, 300).Draw(t, "times")
		var q Queue
		in := make([]Event, len(times))
		for i, tm := range times {
			in[i] = Event{Time: tm, Obj: int32(i), Kind: uint16(i), Gen: uint32(i)}
			q.Push(in[i])
			if q.Len() != i+1 {
				t.Fatalf("Len = %d after %d pushes", q.Len(), i+1)
			}
		}
		want := append([]Event(nil), in...)
		sort.SliceStable(want, func(i, j int) bool { return want[i].Time < want[j].Time })
		for i := range want {
			got, ok := q.Pop()
			if !ok {
				t.Fatalf("Pop %d: queue empty, want %+v", i, want[i])
			}
			if !sameEvent(got, want[i]) {
				t.Fatalf("Pop %d = %+v, want %+v", i, got, want[i])
			}
			if i > 0 {
				prev := want[i-1]
				if got.Time < prev.Time || (got.Time == prev.Time && got.Obj < prev.Obj) {
					t.Fatalf("Pop %d = %+v came after %+v", i, got, prev)
				}
			}
			if q.Len() != len(want)-i-1 {
				t.Fatalf("Len = %d after %d pops of %d", q.Len(), i+1, len(want))
			}
		}
	})
}

// TestQueueSteadyState runs the pattern a simulation produces, pop the
// earliest and push at a later time, and checks that pops never go back in
// time and that ties keep push order.
func TestQueueSteadyState(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q Queue
		n := rapid.IntRange(1, 200).Draw(t, "pending")
		pushed := make(map[int32]int) // Obj -> push order of its latest push
		order := 0
		for i := range n {
			q.Push(Event{Time: float64(rapid.IntRange(0, 5).Draw(t, "t0")), Obj: int32(i)})
			pushed[int32(i)] = order
			order++
		}
		var last Event
		lastOrder := -1
		for range rapid.IntRange(0, 500).Draw(t, "steps") {
			e, ok := q.Pop()
			if !ok {
				t.Fatal("queue emptied")
			}
			o := pushed[e.Obj]
			if e.Time < last.Time || (e.Time == last.Time && o < lastOrder) {
				t.Fatalf("popped %+v (push %d) after %+v (push %d)", e, o, last, lastOrder)
			}
			last, lastOrder = e, o
			e.Time += float64(rapid.IntRange(0, 3).Draw(t, "delay"))
			q.Push(e)
			pushed[e.Obj] = order
			order++
			if q.Len() != n {
				t.Fatalf("Len = %d, want %d", q.Len(), n)
			}
		}
	})
}

func TestQueueEmptyAndReset(t *testing.T) {
	var q Queue
	if q.Len() != 0 {
		t.Fatalf("zero Queue Len = %d", q.Len())
	}
	if e, ok := q.Peek(); ok || e != (Event{}) {
		t.Fatalf("Peek on empty = %+v, %v", e, ok)
	}
	if e, ok := q.Pop(); ok || e != (Event{}) {
		t.Fatalf("Pop on empty = %+v, %v", e, ok)
	}
	for i := range 100 {
		q.Push(Event{Time: float64(i % 7), Obj: int32(i)})
	}
	q.Reset()
	if q.Len() != 0 {
		t.Fatalf("Len after Reset = %d", q.Len())
	}
	if _, ok := q.Pop(); ok {
		t.Fatal("Pop after Reset reported ok")
	}
	// Ties after a Reset still pop in push order.
	for i := range 10 {
		q.Push(Event{Time: 1, Obj: int32(i)})
	}
	for i := range 10 {
		e, _ := q.Pop()
		if e.Obj != int32(i) {
			t.Fatalf("after Reset pop %d = Obj %d, want %d", i, e.Obj, i)
		}
	}
}

// TestQueueKeepsPayload checks that Kind, Obj and Gen come back unchanged
// at their extremes, and so does Time, bit for bit.
func TestQueueKeepsPayload(t *testing.T) {
	var q Queue
	in := []Event{
		{Time: -math.MaxFloat64, Kind: math.MaxUint16, Obj: math.MinInt32, Gen: math.MaxUint32},
		{Time: -1e-310, Kind: 1, Obj: -1, Gen: 1},
		{Time: 5e-324, Kind: 0, Obj: math.MaxInt32, Gen: 0},
		{Time: 3.25, Kind: 7, Obj: 42, Gen: 9},
		{Time: math.Inf(1), Kind: 2, Obj: 2, Gen: 2},
	}
	for i := len(in) - 1; i >= 0; i-- {
		q.Push(in[i])
	}
	for i, want := range in {
		got, _ := q.Pop()
		if got.Kind != want.Kind || got.Obj != want.Obj || got.Gen != want.Gen ||
			math.Float64bits(got.Time) != math.Float64bits(want.Time) {
			t.Fatalf("pop %d = %+v, want %+v", i, got, want)
		}
	}
}

// TestQueueRenumber runs pushes across the point where sequence numbers run
// out of room and the queue renumbers its pending events: ties must still
// pop in push order and payloads must survive.
func TestQueueRenumber(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q Queue
		q.next = seqLimit - uint64(rapid.IntRange(0, 40).Draw(t, "room"))
		var ref refQueue
		var id int32
		for range rapid.IntRange(0, 120).Draw(t, "ops") {
			if q.Len() > 0 && rapid.IntRange(0, 2).Draw(t, "op") == 0 {
				got, _ := q.Pop()
				want, _ := ref.pop()
				if !sameEvent(got, want) {
					t.Fatalf("Pop = %+v, reference pops %+v", got, want)
				}
				continue
			}
			e := Event{
				Time: float64(rapid.IntRange(0, 3).Draw(t, "time")),
				Kind: rapid.Uint16().Draw(t, "kind"),
				Obj:  id,
				Gen:  uint32(id),
			}
			id++
			q.Push(e)
			ref.push(e)
			if q.next > seqLimit {
				t.Fatalf("sequence %d reached the limit", q.next)
			}
		}
		for q.Len() > 0 {
			got, _ := q.Pop()
			want, _ := ref.pop()
			if !sameEvent(got, want) {
				t.Fatalf("Pop = %+v, reference pops %+v", got, want)
			}
		}
	})
}

// BenchmarkQueueMove moves one of a dozen pending events (a cluster's
// replicas' step events) to an earlier time, as a replica's cut span does.
func BenchmarkQueueMove(b *testing.B) {
	const n = 12
	var q Queue
	gens := make([]uint32, n)
	for i := range n {
		q.Push(Event{Time: float64(i), Kind: 3, Obj: int32(i)})
	}
	r := Stream(1, "move", 0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		obj := int32(r.Uint64() % n)
		e := Event{Time: r.Float64() * n, Kind: 3, Obj: obj, Gen: gens[obj] + 1}
		if !q.Move(3, obj, gens[obj], e, false) {
			b.Fatal("not found")
		}
		gens[obj]++
	}
}

// moveBySearch is Move as it was before it compared obj and gen as one
// word: the field by field search, then the same fix.
func (q *Queue) moveBySearch(kind uint16, obj int32, gen uint32, e Event, skipTop bool) bool {
	const kindMask = 1<<kindBits - 1
	i := 0
	if skipTop {
		i = 1
	}
	for ; i < len(q.items); i++ {
		it := &q.items[i]
		if it.obj == obj && it.gen == gen && uint16(it.ord&kindMask) == kind {
			break
		}
	}
	if i >= len(q.items) {
		return false
	}
	q.fix(i, q.slotOf(e))
	return true
}

// TestMoveMatchesSearch runs random schedules of a few objects' events,
// stale generations and moves of events that are not pending included, on
// a queue moved by Move and on one moved by the field by field search, and
// checks that both pop exactly the same events in the same
// order and agree on every Move.
func TestMoveMatchesSearch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var a, b Queue // a by Move, b by moveBySearch
		next := map[[2]int32]uint32{}
		ident := func(t *rapid.T) (uint16, int32) {
			return uint16(rapid.IntRange(1, 3).Draw(t, "kind")), int32(rapid.IntRange(-1, 6).Draw(t, "obj"))
		}
		t.Repeat(map[string]func(*rapid.T){
			"push": func(t *rapid.T) {
				kind, obj := ident(t)
				k := [2]int32{int32(kind), obj}
				e := Event{Time: genTime().Draw(t, "time"), Kind: kind, Obj: obj, Gen: next[k]}
				next[k]++
				a.Push(e)
				b.Push(e)
			},
			"move": func(t *rapid.T) {
				kind, obj := ident(t)
				k := [2]int32{int32(kind), obj}
				old := uint32(rapid.IntRange(0, int(next[k])).Draw(t, "oldgen"))
				e := Event{Time: genTime().Draw(t, "time"), Kind: kind, Obj: obj, Gen: next[k]}
				skip := rapid.Bool().Draw(t, "skipTop")
				ga, gb := a.Move(kind, obj, old, e, skip), b.moveBySearch(kind, obj, old, e, skip)
				if ga != gb {
					t.Fatalf("Move(%d, %d, %d) = %v, the search says %v", kind, obj, old, ga, gb)
				}
				if ga {
					next[k]++
				}
			},
			"pop": func(t *rapid.T) {
				ea, oka := a.Pop()
				eb, okb := b.Pop()
				if oka != okb || !sameEvent(ea, eb) {
					t.Fatalf("Pop = %+v %v, the search's queue pops %+v %v", ea, oka, eb, okb)
				}
			},
		})
		for a.Len() > 0 || b.Len() > 0 {
			ea, oka := a.Pop()
			eb, okb := b.Pop()
			if oka != okb || !sameEvent(ea, eb) {
				t.Fatalf("drain: Pop = %+v %v, the search's queue pops %+v %v", ea, oka, eb, okb)
			}
		}
	})
}

// TestQueueSmallMatchesReference holds the queue to the reference model
// around the size where its sifts change from the fixed paths of a small
// heap (smallCap events) to the general ones, with ReplaceTop (a Pop then
// a Push) and Reset among the operations, and checks that the slots past
// the last event of a small heap hold sentinels.
func TestQueueSmallMatchesReference(t *testing.T) {
	runs := 0
	rapid.Check(t, func(t *rapid.T) {
		crossed := false
		defer func() {
			if crossed {
				runs++
			}
		}()
		var q Queue
		var ref refQueue
		var id int32
		newEvent := func(t *rapid.T) Event {
			id++
			return Event{Time: genTime().Draw(t, "time"), Kind: rapid.Uint16().Draw(t, "kind"), Obj: id, Gen: rapid.Uint32().Draw(t, "gen")}
		}
		pop := func(t *rapid.T) {
			got, ok := q.Pop()
			want, wok := ref.pop()
			if ok != wok || ok && !sameEvent(got, want) {
				t.Fatalf("Pop = %+v, %v; the reference pops %+v, %v", got, ok, want, wok)
			}
		}
		t.Repeat(map[string]func(*rapid.T){
			"push": func(t *rapid.T) {
				e := newEvent(t)
				q.Push(e)
				ref.push(e)
			},
			"pushBurst": func(t *rapid.T) { // past smallCap and back
				for range rapid.IntRange(1, 30).Draw(t, "burst") {
					e := newEvent(t)
					q.Push(e)
					ref.push(e)
				}
				crossed = crossed || q.Len() > smallCap
			},
			"pop": pop,
			"popBurst": func(t *rapid.T) {
				for range rapid.IntRange(1, 30).Draw(t, "burst") {
					pop(t)
				}
			},
			"replaceTop": func(t *rapid.T) {
				if q.Len() == 0 {
					return
				}
				top, _ := q.Peek()
				want, _ := ref.pop()
				if !sameEvent(top, want) {
					t.Fatalf("Peek = %+v, the reference pops %+v", top, want)
				}
				e := newEvent(t)
				q.ReplaceTop(e)
				ref.push(e)
			},
			"reset": func(t *rapid.T) {
				if rapid.IntRange(0, 9).Draw(t, "resetNow") == 0 {
					q.Reset()
					ref.pending = nil
				}
			},
			"": func(t *rapid.T) {
				if q.Len() != len(ref.pending) {
					t.Fatalf("Len = %d, the reference has %d", q.Len(), len(ref.pending))
				}
				if n := q.Len(); n <= smallCap && cap(q.items) >= smallCap {
					for i, s := range q.items[n:smallCap] {
						if s != sentinel {
							t.Fatalf("slot %d of %d events holds %+v, not a sentinel", n+i, n, s)
						}
					}
				}
			},
		})
		for q.Len() > 0 || len(ref.pending) > 0 {
			pop(t)
		}
	})
	if runs < 20 {
		t.Fatalf("only %d runs grew past %d events", runs, smallCap)
	}
}

// checkTournament fails unless every match of a flat queue's tournament
// records a leaf that sorts first in its subtree, and the first event
// sorts before every leaf.
func checkTournament(t *rapid.T, q *Queue) {
	if q.heap || cap(q.items) < smallCap {
		return
	}
	lv := q.items[1:flatCap:flatCap]
	// first is the earliest leaf of node k's subtree, found by brute force.
	var first func(k int) int
	first = func(k int) int {
		if k >= 4 {
			a := 2 * (k - 4)
			return a + int(lessBit(&lv[a+1], &lv[a]))
		}
		a, b := first(2*k), first(2*k+1)
		if lessBit(&lv[b], &lv[a]) == 1 {
			return b
		}
		return a
	}
	for k := 1; k < 8; k++ {
		w := int(q.win[k])
		if f := first(k); w > 7 || lv[w] != lv[f] {
			t.Fatalf("match %d records leaf %d, the earliest of its subtree is leaf %d", k, w, f)
		}
	}
	for i := range lv {
		if q.Len() > 0 && lessBit(&lv[i], &q.items[0]) == 1 {
			t.Fatalf("leaf %d sorts before the first event", i)
		}
	}
}

// TestFlatTournamentMatchesReference holds a queue that stays around the
// flat size (pushes, pops, ReplaceTop, Move, Reset, crossing into a heap
// and back) to the reference model, and checks the flat queue's
// tournament against one played from scratch after every step.
func TestFlatTournamentMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q Queue
		var ref refQueue
		var id int32
		newEvent := func(t *rapid.T) Event {
			id++
			return Event{Time: genTime().Draw(t, "time"), Kind: 1, Obj: id}
		}
		pop := func(t *rapid.T) {
			got, ok := q.Pop()
			want, wok := ref.pop()
			if ok != wok || ok && !sameEvent(got, want) {
				t.Fatalf("Pop = %+v, %v; the reference pops %+v, %v", got, ok, want, wok)
			}
		}
		t.Repeat(map[string]func(*rapid.T){
			"push": func(t *rapid.T) {
				if q.Len() < 12 {
					e := newEvent(t)
					q.Push(e)
					ref.push(e)
				}
			},
			"pop": pop,
			"replaceTop": func(t *rapid.T) {
				if q.Len() == 0 {
					return
				}
				want, _ := ref.pop()
				if top, _ := q.Peek(); !sameEvent(top, want) {
					t.Fatalf("Peek = %+v, the reference pops %+v", top, want)
				}
				e := newEvent(t)
				q.ReplaceTop(e)
				ref.push(e)
			},
			"move": func(t *rapid.T) {
				if len(ref.pending) == 0 {
					return
				}
				i := rapid.IntRange(0, len(ref.pending)-1).Draw(t, "which")
				old := ref.pending[i]
				e := newEvent(t)
				if !q.Move(old.Kind, old.Obj, old.Gen, e, false) {
					t.Fatalf("Move did not find %+v", old)
				}
				ref.pending = append(ref.pending[:i], ref.pending[i+1:]...)
				ref.push(e)
			},
			"reset": func(t *rapid.T) {
				if rapid.IntRange(0, 19).Draw(t, "resetNow") == 0 {
					q.Reset()
					ref.pending = nil
				}
			},
			"": func(t *rapid.T) {
				if q.Len() != len(ref.pending) {
					t.Fatalf("Len = %d, the reference has %d", q.Len(), len(ref.pending))
				}
				checkTournament(t, &q)
			},
		})
		for q.Len() > 0 || len(ref.pending) > 0 {
			pop(t)
		}
	})
}
