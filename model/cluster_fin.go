package model

import "math/bits"

// finQueue holds a replica's decoding sequences by the iteration that
// produces their last token. Iterations are integers handed out one after
// another, so a calendar does what a heap would in O(1): a ring of
// buckets, one per iteration from base over a horizon, with a bitmap of
// the non-empty ones; entries beyond the horizon wait in a heap. Entries
// of one iteration come out in no particular order (fastEnd sorts the
// finishers by admission), and stale ones (see finEntry.stamp) are the
// caller's to skip. The horizon grows with the outputs seen up to 1,024
// iterations (4 KB a replica); longer outputs finish through the heap.
// Written by hand: no library offers a calendar queue, and this one
// allocates only when a replica's horizon or pool grows.
type finQueue struct {
	head []int32 // per bucket: its first entry in pool, or -1; a power of two long
	bits []uint64
	pool []finEntry
	link []int32 // per pool entry: the next in its bucket, or in the free list
	free int32   // first free pool entry, or -1
	base int64   // every entry in the ring has k >= base
	ring int     // entries in the ring
	next int64   // the smallest k in the ring, when ring > 0
	far  finHeap // entries at or beyond base + len(head)
}

const (
	finMinHorizon = 64
	finMaxHorizon = 1024
)

// len is the number of entries, stale ones included.
func (q *finQueue) len() int { return q.ring + len(q.far) }

// reset empties the queue; the next entries start at iteration base.
func (q *finQueue) reset(base int64) {
	if q.ring > 0 {
		for w, word := range q.bits {
			for word != 0 {
				b := bits.TrailingZeros64(word)
				word &= word - 1
				q.head[w*64+b] = -1
			}
			q.bits[w] = 0
		}
		q.pool, q.link, q.free, q.ring = q.pool[:0], q.link[:0], -1, 0
	}
	q.far = q.far[:0]
	q.base = base
}

// push adds e; e.k must be at least base.
func (q *finQueue) push(e finEntry) {
	if uint64(e.k-q.base) >= uint64(len(q.head)) { // beyond the horizon, or no ring yet
		q.pushBeyond(e)
		return
	}
	q.insert(e)
}

// pushBeyond is push of an entry beyond the horizon: the ring grows to
// take it if it can, else it waits in the far heap.
func (q *finQueue) pushBeyond(e finEntry) {
	if q.head == nil {
		q.grow(finMinHorizon)
	}
	d := e.k - q.base
	if d >= int64(len(q.head)) && len(q.head) < finMaxHorizon {
		q.grow(int(min(max(int64(2*len(q.head)), int64(nextPow2(int(d+1)))), finMaxHorizon)))
	}
	if d >= int64(len(q.head)) {
		q.far.push(e)
		return
	}
	q.insert(e)
}

// grow widens the horizon to n buckets (a power of two) and rehashes.
func (q *finQueue) grow(n int) {
	live := make([]finEntry, 0, q.ring)
	for _, h := range q.head {
		for i := h; i >= 0; i = q.link[i] {
			live = append(live, q.pool[i])
		}
	}
	q.head = make([]int32, n)
	for i := range q.head {
		q.head[i] = -1
	}
	q.bits = make([]uint64, (n+63)/64)
	q.pool, q.link, q.free, q.ring = q.pool[:0], q.link[:0], -1, 0
	for _, e := range live {
		q.insert(e)
	}
}

// insert puts e, which is within the horizon, in its bucket. The pool
// grows out of line (morePool), so that the common way, a free entry
// reused, keeps its state in registers.
func (q *finQueue) insert(e finEntry) {
	if q.free < 0 {
		q.morePool()
	}
	i := q.free
	q.free = q.link[i]
	q.pool[i] = e
	b := int(e.k) & (len(q.head) - 1)
	q.link[i] = q.head[b]
	q.head[b] = i
	q.bits[b>>6] |= 1 << (b & 63)
	if q.ring == 0 || e.k < q.next {
		q.next = e.k
	}
	q.ring++
}

// morePool adds an entry to the pool and makes it the free list's only
// one, which the free list is empty for.
//
//go:noinline
func (q *finQueue) morePool() {
	q.free = int32(len(q.pool))
	q.pool = append(q.pool, finEntry{})
	q.link = append(q.link, -1)
}

func nextPow2(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// minK is the smallest k of any entry; the queue must not be empty.
func (q *finQueue) minK() int64 {
	best := int64(-1)
	if q.ring > 0 {
		best = q.next
	}
	if len(q.far) > 0 && (best < 0 || q.far[0].k < best) {
		best = q.far[0].k
	}
	return best
}

// nextBucket is the distance from base to the first non-empty bucket of
// the ring, which must not be empty.
func (q *finQueue) nextBucket() int {
	start := int(q.base) & (len(q.head) - 1)
	if word := q.bits[start>>6] >> (start & 63); word != 0 {
		return bits.TrailingZeros64(word)
	}
	return q.nextBucketOn(start)
}

// nextBucketOn is nextBucket past the word of bucket start, whose buckets
// from start on are empty. Kept out of line: drainLive looks at the rest
// of base's word itself (the next finisher is usually a few iterations
// on) and calls this only past it, so that it keeps its state in
// registers on the common way.
//
//go:noinline
func (q *finQueue) nextBucketOn(start int) int {
	w, off := start>>6, start&63
	dist := 64 - off
	for i := 1; i <= len(q.bits); i++ {
		ww := (w + i) & (len(q.bits) - 1) // a power of two long
		if word := q.bits[ww]; word != 0 {
			return dist + bits.TrailingZeros64(word)
		}
		dist += 64
	}
	return 0
}

// due reports whether any entry has k <= upTo (drainLive would visit one).
func (q *finQueue) due(upTo int64) bool {
	return q.ring > 0 && q.next <= upTo || len(q.far) > 0 && q.far[0].k <= upTo
}

// skip is drainLive when nothing is due: it moves base past upTo.
func (q *finQueue) skip(upTo int64) {
	if upTo+1 > q.base {
		q.base = upTo + 1
	}
}

// drainLive removes every entry with k <= upTo and appends to fin the ids
// of those whose sequence is still in the aggregate with the stamp it was
// pushed with (the others are stale), bucket by bucket in k order and
// then from the far heap (the order of drain, the tests' reference),
// without copying the entries out first.
func (q *finQueue) drainLive(upTo int64, seqs []seqState, fin []int32) []int32 {
	for q.ring > 0 && q.next <= upTo {
		k := q.next
		b := int(k) & (len(q.head) - 1)
		for i := q.head[b]; i >= 0; {
			e := &q.pool[i]
			if sq := &seqs[e.id]; sq.lazy && sq.lazyGen == e.stamp {
				fin = append(fin, e.id)
			}
			nx := q.link[i]
			q.link[i] = q.free
			q.free = i
			q.ring--
			i = nx
		}
		q.head[b] = -1
		q.bits[b>>6] &^= 1 << (b & 63)
		q.base = k + 1
		if q.ring > 0 { // nextBucket, its common way written out
			start := int(q.base) & (len(q.head) - 1)
			if word := q.bits[start>>6] >> (start & 63); word != 0 {
				q.next = q.base + int64(bits.TrailingZeros64(word))
			} else {
				q.next = q.base + int64(q.nextBucketOn(start))
			}
		}
	}
	for len(q.far) > 0 && q.far[0].k <= upTo {
		e := q.far.pop()
		if sq := &seqs[e.id]; sq.lazy && sq.lazyGen == e.stamp {
			fin = append(fin, e.id)
		}
	}
	if upTo+1 > q.base {
		q.base = upTo + 1
	}
	return fin
}
