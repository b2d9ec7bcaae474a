package sim

import (
	"math"
	"math/bits"
	"slices"
)

// Event is one scheduled occurrence. Kind, Obj and Gen are the model's to
// interpret: typically Kind selects the handler, Obj indexes a component or a
// request slot, and Gen lets a model ignore an event made stale by a later
// decision (compare it with the slot's current generation).
type Event struct {
	Time float64 // simulated seconds since t = 0
	Kind uint16
	Obj  int32
	Gen  uint32
}

// Queue is a 4-ary min-heap of events ordered by (Time, sequence), where the
// sequence counts pushes; a queue of a handful of events is kept flat
// instead (flat.go). It is written by hand rather than with
// container/heap because container/heap moves elements through interface
// values, which allocates on every push.
//
// Times compare as float64 values do, so -0 and +0 tie (Pop returns +0 for
// either). A NaN time, which Engine never schedules, sorts by its sign bit:
// after +Inf (the NaN arithmetic produces), or before -Inf.
type Queue struct {
	items []slot
	next  uint64 // sequence number of the next push
	// epoch counts renumberings (mod 2^15), so that a Stamp taken before
	// one is known to have lost its place.
	epoch uint16
	// lanes are the Engine's lanes (lane.go), whose events take their
	// sequence numbers from this queue; laneMin is the earliest of them.
	// Push, Pop, Peek and Len do not see them.
	lanes   []slot
	laneMin int
	// laneKey and laneOrd are lanes[laneMin]'s key and ord, inverted so
	// that the zero value (no lanes) reads as an empty lane: Run compares
	// them with the heap's top without looking at the lanes.
	laneKey, laneOrd uint64
	// heap is set while items is a 4-ary heap; while it is not, items is
	// flat: at most flatCap events, the earliest first and the others in
	// no order (flat.go). A heap of at most flatCap events is also flat,
	// so the queue turns flat again once it is small (flat.go).
	heap bool
	// win is the flat queue's tournament over items[1..8] (flat.go).
	win tree
}

// slot is an event as the heap stores it, 24 bytes. Its time is replaced by
// an unsigned integer with the same order and its kind rides below the
// sequence number, so that ordering by (time, sequence) is comparing
// (key, ord) as one 128-bit integer, without branches.
type slot struct {
	key uint64 // timeKey(Time)
	ord uint64 // sequence<<kindBits | Kind
	obj int32
	gen uint32
}

const (
	kindBits = 16
	// seqLimit is where sequence numbers would no longer fit in ord; Push
	// renumbers the pending events before reaching it.
	seqLimit = 1 << (64 - kindBits)
)

// timeKey maps a float64 to a uint64 with the same order: positive values
// get the sign bit set, negative ones have all their bits flipped. -0 is
// first folded into +0, as the two are equal as float64 values. A NaN maps
// above +Inf or below -Inf, by its sign.
func timeKey(t float64) uint64 {
	if t == 0 {
		t = 0
	}
	b := math.Float64bits(t)
	return b ^ (uint64(int64(b)>>63) | 1<<63)
}

// keyTime inverts timeKey.
func keyTime(k uint64) float64 {
	return math.Float64frombits(k ^ (uint64(int64(^k)>>63) | 1<<63))
}

func (s *slot) event() Event {
	return Event{Time: keyTime(s.key), Kind: uint16(s.ord), Obj: s.obj, Gen: s.gen}
}

// lessBit is 1 if a sorts before b and 0 otherwise: the borrow out of the
// 128-bit subtraction (a.key, a.ord) - (b.key, b.ord). Sequence numbers are
// unique, so the kind bits below them never decide.
func lessBit(a, b *slot) uint {
	_, borrow := bits.Sub64(a.ord, b.ord, 0)
	_, borrow = bits.Sub64(a.key, b.key, borrow)
	return uint(borrow)
}

// Len reports the number of pending events.
func (q *Queue) Len() int { return len(q.items) }

// Push schedules e. Events pushed with equal times pop in push order.
func (q *Queue) Push(e Event) {
	q.insert(q.slotOf(e))
}

// insert adds s to the queue. The common cases come first, each with a
// test or two: a flat queue with room (a model's components' events), a
// large heap (a hosted model's pending requests).
func (q *Queue) insert(s slot) {
	n := len(q.items)
	if !q.heap {
		if n < flatCap && cap(q.items) >= smallCap {
			q.items = q.items[:n+1]
			q.flatInsert(n, s)
			return
		}
	} else if n >= smallCap {
		q.items = append(q.items, s)
		q.up(n, s)
		return
	}
	q.insertRare(s)
}

// insertRare is insert's other cases: a queue without storage yet, a
// flat queue that becomes a heap, a small heap.
func (q *Queue) insertRare(s slot) {
	if cap(q.items) < smallCap {
		q.initSmall()
	}
	n := len(q.items)
	if !q.heap {
		if n < flatCap {
			q.items = q.items[:n+1]
			q.flatInsert(n, s)
			return
		}
		q.toHeap()
	}
	// A small heap: n < smallCap.
	q.items = q.items[:n+1]
	q.upSmall(n, s)
}

// smallCap is the size of a 4-ary heap of three levels (1 + 4 + 16). A
// heap of at most this many events is sifted along a path of fixed length
// without a branch that depends on the events (upSmall, downSmall): the
// slots past the last event hold sentinels that sort after every event, so
// a hole never sinks into them. Such a queue (a model's components' events:
// the services of an M/M/8 queue, the replicas of a cluster) would
// otherwise pay a mispredicted branch or two a sift, about as much as the
// sift itself.
const smallCap = 21

// sentinel sorts after every event: no event's key is above the all-ones
// one, and no event's ord (its sequence number is below seqLimit) reaches
// it.
var sentinel = slot{key: noKey, ord: noKey}

// initSmall gives the queue room for smallCap events, the slots past its
// events holding sentinels.
func (q *Queue) initSmall() {
	items := make([]slot, len(q.items), max(2*cap(q.items), 2*smallCap))
	copy(items, q.items)
	for i := len(items); i < smallCap; i++ {
		items[:smallCap][i] = sentinel
	}
	q.items = items
	if !q.heap {
		q.build() // a match's winner must lie in its subtree (flat.go)
	}
}

// upSmall places s, which belongs at index i or above, in a heap of at most
// smallCap events: two steps towards the root, each a copy and a select,
// whether s moves or not (once it stops, the next step finds the same
// parent and stops again; from the root, the parent of 0 is 0).
func (q *Queue) upSmall(i int, s slot) {
	items := q.items[:smallCap:smallCap]
	for range 2 {
		p := (i - 1) / 4
		mv := lessBit(&s, &items[p])
		items[i] = items[p]
		i += (p - i) * int(mv)
	}
	items[i] = s
}

// downSmall fills the hole at the root with s in a heap of at most
// smallCap events: two steps down, each taking the smallest of four
// children (the sentinels past the last event never win) and moving it up
// if it sorts before s. The copy is made either way: a hole that stops
// stays where it is, and the next step finds the same children and stops
// again; s finally fills it.
func (q *Queue) downSmall(s slot) {
	items := q.items[:smallCap:smallCap]
	h := 0
	for range 2 {
		c := 4*h + 1
		ch := items[c : c+4 : c+4]
		// The smallest of four children without branches or dependent
		// loads: all six comparisons at once, then the winner of pair
		// (0,1) against the winner of pair (2,3) is looked up among them.
		a := lessBit(&ch[1], &ch[0]) // winner of (0,1) is a
		b := lessBit(&ch[3], &ch[2]) // winner of (2,3) is 2+b
		beats := lessBit(&ch[2], &ch[0]) | lessBit(&ch[3], &ch[0])<<1 |
			lessBit(&ch[2], &ch[1])<<2 | lessBit(&ch[3], &ch[1])<<3
		w := beats >> (a<<1 | b) & 1 // 1 if 2+b beats a
		m := int(a+(2+b-a)*w) & 3
		mv := lessBit(&ch[m], &s)
		items[h] = ch[m]
		h += (c + m - h) * int(mv)
	}
	items[h] = s
}

// take returns the next sequence number, renumbering first when they have
// run out.
func (q *Queue) take() uint64 {
	if q.next == seqLimit {
		q.renumber()
	}
	q.next++
	return q.next - 1
}

// slotOf is e as the heap stores it, with the next sequence number.
func (q *Queue) slotOf(e Event) slot {
	return slot{key: timeKey(e.Time), ord: q.take()<<kindBits | uint64(e.Kind), obj: e.Obj, gen: e.Gen}
}

// renumber gives the pending events, the lanes' included, the sequence
// numbers 0, 1, ... in their current order, which keeps both that order and
// the heap as they are, and makes room for 2^48 - Len() more pushes.
func (q *Queue) renumber() {
	order := make([]*slot, 0, len(q.items)+len(q.lanes))
	for i := range q.items {
		order = append(order, &q.items[i])
	}
	for i := range q.lanes {
		if q.lanes[i].key != noKey {
			order = append(order, &q.lanes[i])
		}
	}
	slices.SortFunc(order, func(a, b *slot) int {
		return int(lessBit(b, a)) - int(lessBit(a, b))
	})
	const kindMask = 1<<kindBits - 1
	for seq, s := range order {
		s.ord = uint64(seq)<<kindBits | s.ord&kindMask
	}
	q.next = uint64(len(order))
	q.epoch = (q.epoch + 1) & (1<<(kindBits-1) - 1)
	if len(q.lanes) > 0 {
		q.fixLaneMin() // the earliest lane's ord changed
	}
}

// Peek returns the earliest event without removing it. ok is false when the
// queue is empty.
func (q *Queue) Peek() (e Event, ok bool) {
	if len(q.items) == 0 {
		return Event{}, false
	}
	return q.items[0].event(), true
}

// Pop removes and returns the earliest event. ok is false when the queue is
// empty.
func (q *Queue) Pop() (e Event, ok bool) {
	n := len(q.items)
	if n == 0 {
		return Event{}, false
	}
	top := q.items[0].event()
	q.removeTop()
	return top, true
}

// removeTop removes the earliest event, which must exist, without
// reading it (Pop without its result).
func (q *Queue) removeTop() {
	if !q.heap {
		q.flatPop()
		return
	}
	n := len(q.items) - 1
	last := q.items[n]
	// The slot left behind holds a sentinel, as the slots past the last
	// event of a small heap must.
	q.items[n] = sentinel
	q.items = q.items[:n]
	if n > smallCap {
		q.downLarge(last)
		return
	}
	if n > flatLow {
		q.downSmall(last)
		return
	}
	// The heap is flat as it stands; only its tournament is missing.
	q.heap = false
	q.build()
	if n > 0 {
		q.flatDown(last)
	}
}

// ReplaceTop removes the earliest event and schedules e, with one sift
// instead of the two a Pop and a Push would take. The queue must not be
// empty. The order events come out in is exactly that of Pop then Push.
func (q *Queue) ReplaceTop(e Event) {
	q.down(q.slotOf(e))
}

// Move finds the pending event of kind, obj and gen and schedules it
// again as e, as if it had been popped and e pushed now: e pops where a
// Push of e would. It reports false, changing nothing, if no such event is
// pending. The search is linear, for queues of a few dozen events (a
// model's components, not its requests), where it is cheaper than popping
// the stale event later. skipTop leaves the root out of the search (the
// engine's event being handled).
func (q *Queue) Move(kind uint16, obj int32, gen uint32, e Event, skipTop bool) bool {
	const kindMask = 1<<kindBits - 1
	i := 0
	if skipTop {
		i = 1
	}
	// obj and gen are compared as one word, the kind only on a match: one
	// well-predicted branch a slot.
	id := idOf(obj, gen)
	items := q.items
	for ; i < len(items); i++ {
		if idOf(items[i].obj, items[i].gen) == id && uint16(items[i].ord&kindMask) == kind {
			break
		}
	}
	if i >= len(items) {
		return false
	}
	// s takes slot i's place: (key, ord) are unique, so the order events
	// pop in does not depend on where in the heap they sit.
	s := slot{key: timeKey(e.Time), ord: q.take()<<kindBits | uint64(e.Kind), obj: e.Obj, gen: e.Gen} // slotOf
	q.fix(i, s)
	return true
}

// idOf packs an event's obj and gen into one word, in the order a slot
// holds them, so that a slot's are one load.
func idOf(obj int32, gen uint32) uint64 { return uint64(uint32(obj)) | uint64(gen)<<32 }

// fix places s at index i, sifting it up or down.
func (q *Queue) fix(i int, s slot) {
	if !q.heap {
		if i == 0 {
			q.flatDown(s)
			return
		}
		q.items[i] = s
		q.flatInsert(i, s)
		return
	}
	if i > 0 && lessBit(&s, &q.items[(i-1)/4]) == 1 {
		q.up(i, s)
		return
	}
	items := q.items
	n := len(items)
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < c+4 && j < n; j++ {
			if lessBit(&items[j], &items[m]) == 1 {
				m = j
			}
		}
		if lessBit(&items[m], &s) == 0 {
			break
		}
		items[i] = items[m]
		i = m
	}
	items[i] = s
}

// Reset empties the queue (and the lanes) but keeps its storage.
func (q *Queue) Reset() {
	q.items = q.items[:0]
	q.heap = false
	if cap(q.items) >= smallCap {
		for i := range q.items[:smallCap] {
			q.items[:smallCap][i] = sentinel
		}
	}
	for i := range q.lanes {
		q.lanes[i] = slot{key: noKey, ord: noKey}
	}
	q.laneKey, q.laneOrd = 0, 0 // every lane is empty
	q.next = 0
	q.epoch = (q.epoch + 1) & (1<<(kindBits-1) - 1) // stamps taken before are void
}

// up places s, which belongs at index i or above, by moving the hole at i
// towards the root past every parent that sorts after s.
func (q *Queue) up(i int, s slot) {
	items := q.items
	for i > 0 {
		p := (i - 1) / 4
		if lessBit(&s, &items[p]) == 0 {
			break
		}
		items[i] = items[p]
		i = p
	}
	items[i] = s
}

// down fills the hole at the root with s.
func (q *Queue) down(s slot) {
	if !q.heap {
		q.flatDown(s)
		return
	}
	if len(q.items) <= smallCap {
		q.downSmall(s)
		return
	}
	q.downLarge(s)
}

// downLarge is down in a heap of more than smallCap events. The hole
// first sinks to a leaf, always taking the place of its smallest child
// (Floyd's bottom-up heuristic: s came from the bottom and usually belongs
// near it, so this saves comparing each level's smallest child with s);
// then s rises from there to its place.
func (q *Queue) downLarge(s slot) {
	q.up(q.sink(), s)
}

// sink moves the hole at the root of a heap of more than smallCap events
// down to a leaf, each level's smallest child taking its place, and
// returns where it ends. It is downLarge's first half, apart so that s is
// not live in its loop (it would be reloaded at every level).
func (q *Queue) sink() int {
	items := q.items
	n := len(items)
	i := 0
	hole := &items[0]
	for {
		c := 4*i + 1
		if c+4 > n {
			break
		}
		ch := items[c : c+4 : c+4]
		// The smallest of four children as a tournament of three
		// comparisons, where downSmall's six would double the
		// instructions of a level (a large heap sifts through several);
		// the final's winner is taken arithmetically, as a branch on it
		// would be mispredicted half the time.
		a := uint(lessBit(&ch[1], &ch[0]))
		b := 2 + uint(lessBit(&ch[3], &ch[2]))
		a += (b - a) * lessBit(&ch[b&3], &ch[a&3])
		m := int(a & 3)
		*hole = ch[m]
		hole = &ch[m]
		i = c + m
	}
	// The last parent may have fewer than four children.
	if c := 4*i + 1; c < n {
		m := c
		for j := c + 1; j < n; j++ {
			if lessBit(&items[j], &items[m]) == 1 {
				m = j
			}
		}
		*hole = items[m]
		i = m
	}
	return i
}
