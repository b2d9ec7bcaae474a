package sim

// A queue of at most flatCap events is kept flat rather than as a heap:
// the earliest event first, the others after it in no order. Replacing the
// first is then one step, the earliest of the others found by a tournament
// of fixed shape (the slots past the last event hold sentinels), compared
// with the new event and swapped with it if earlier; adding one is a
// comparison with the first. Neither has a branch that depends on the
// events, where a heap of a handful of events sifts along paths of varying
// length (an M/M/8 queue's eight services and its interval tick: the
// heap's sifts took about a seventh of its time). A flat queue that
// outgrows flatCap becomes a heap; a heap that shrinks to flatLow events
// is flat as it stands (its first event is the earliest), so the queue
// changes back without moving an event. The order events are handled in
// does not depend on the form: (time, sequence) orders them totally.

const (
	// flatCap is the most events a flat queue holds: one and eight
	// others, the tournament's leaves.
	flatCap = 9
	// flatLow is the size at which a heap turns flat again: below
	// flatCap, so that a queue whose size wavers at flatCap does not
	// rebuild its heap at every turn.
	flatLow = 6
)

// flatDown fills the first slot of a flat queue with s: the earliest of s
// and the other events takes it, and s takes that one's slot (or the
// first, if s is the earliest).
func (q *Queue) flatDown(s slot) {
	it := q.items[:flatCap:flatCap]
	// The tournament over it[1..8]: four pairs, two semifinals, a final.
	a := 1 + lessBit(&it[2], &it[1])
	b := 3 + lessBit(&it[4], &it[3])
	c := 5 + lessBit(&it[6], &it[5])
	d := 7 + lessBit(&it[8], &it[7])
	ab := a + (b-a)*lessBit(&it[b], &it[a])
	cd := c + (d-c)*lessBit(&it[d], &it[c])
	m := ab + (cd-ab)*lessBit(&it[cd], &it[ab])
	mv := lessBit(&it[m], &s) // the earliest other event precedes s
	it[0] = it[m]
	it[m*mv] = s
}

// flatInsert places s, just stored at index i > 0 of a flat queue (or at
// 0 of an empty one), swapping it with the first event if it is earlier.
func (q *Queue) flatInsert(i int, s slot) {
	it := q.items[:flatCap:flatCap]
	mv := uint(lessBit(&s, &it[0]))
	it[i] = it[0]
	it[uint(i)*(1-mv)] = s
}

// toHeap makes a flat queue of flatCap events a 4-ary heap, adding its
// events one by one.
func (q *Queue) toHeap() {
	var held [flatCap]slot
	n := copy(held[:], q.items)
	for i := range q.items[:smallCap] {
		q.items[:smallCap][i] = sentinel
	}
	q.items = q.items[:0]
	q.heap = true
	for _, s := range held[:n] {
		k := len(q.items)
		q.items = q.items[:k+1]
		q.upSmall(k, s)
	}
}
