package sim

import "math/bits"

// A queue of at most flatCap events is kept flat rather than as a heap:
// the earliest event first, the others after it (items[1..8], the leaves)
// in no order, with a tournament over the leaves kept beside them (tree):
// each of its seven matches records the leaf that wins it. Replacing the
// first event is then one comparison with the tournament's winner, a swap
// if the winner is earlier, and the three matches on the path of the leaf
// that changed played again; adding one is a comparison with the first
// and the same replay. None of this has a branch that depends on the
// events, where a heap of a handful of events sifts along paths of varying
// length (an M/M/8 queue's eight services and its interval tick: the
// heap's sifts took about a seventh of its time), and replaying one path
// is three matches where playing the whole tournament again is seven. The
// slots past the last event hold sentinels, which never win against an
// event. A flat queue that outgrows flatCap becomes a heap; a heap that
// shrinks to flatLow events is flat as it stands (its first event is the
// earliest), so the queue changes back without moving an event, only
// playing the tournament once. The order events are handled in does not
// depend on the form: (time, sequence) orders them totally.

const (
	// flatCap is the most events a flat queue holds: one and eight
	// others, the tournament's leaves.
	flatCap = 9
	// flatLow is the size at which a heap turns flat again: below
	// flatCap, so that a queue whose size wavers at flatCap does not
	// rebuild its heap at every turn.
	flatLow = 6
)

// tree is the tournament over a flat queue's leaves: node 1 is the final,
// nodes 2 and 3 the semifinals, node 4+k the match of leaves 2k and 2k+1;
// each holds the leaf (0 to 7, the event at items[1+leaf]) that wins it.
// Node 0 is unused. Leaves that tie are sentinels, so either may win,
// but the winner must lie in the match's subtree even then: a replay
// reads only the matches beside its path, so one that named a leaf
// elsewhere would be read with that leaf's later events. The zero value
// names leaf 0 everywhere, so the tournament is played once when the
// queue first gets its storage (initSmall); replays and build keep it so.
type tree [8]uint8

// flatDown fills the first slot of a flat queue with s: the earliest of s
// and the other events takes it, and s takes that one's slot (or the
// first, if s is the earliest).
func (q *Queue) flatDown(s slot) {
	it := q.items[:flatCap:flatCap]
	lv := (*[8]slot)(it[1:])
	m := uint(q.win[1]) & 7 // the earliest leaf
	p := &lv[m]
	_, b := bits.Sub64(p.ord, s.ord, 0)
	_, b = bits.Sub64(p.key, s.key, b) // p precedes s
	it[0] = *p
	dst, ck, co := &it[0], p.key, p.ord
	if b != 0 {
		dst, ck, co = p, s.key, s.ord
	}
	*dst = s
	// If s took the first slot the leaf is unchanged and its replay finds
	// the same winners. Replaying anyway takes no branch to mispredict,
	// and fewer instructions on a cluster, whose replicas' next events
	// are seldom the earliest (a branch around it measured 1.7M more on
	// BenchmarkClusterHour, 3.2M fewer on BenchmarkMM8).
	q.replay(lv, m, ck, co)
}

// flatInsert places s, just stored at index i > 0 of a flat queue (or at
// 0 of an empty one), swapping it with the first event if it is earlier.
func (q *Queue) flatInsert(i int, s slot) {
	it := q.items[:flatCap:flatCap]
	mv := uint(lessBit(&s, &it[0]))
	it[i] = it[0]
	it[uint(i)*(1-mv)] = s
	// i-1 is the leaf that changed; for i = 0 every leaf is a sentinel,
	// and replaying leaf 7 changes nothing.
	l := uint(i-1) & 7
	lv := (*[8]slot)(it[1:])
	q.replay(lv, l, lv[l].key, lv[l].ord)
}

// flatPop removes the first event of a flat queue, which must have one:
// the tournament's winner takes its place, the last leaf's event takes the
// winner's leaf, and the last leaf holds a sentinel; the two leaves' paths
// are replayed, the last one's first (a match beside it that reads the
// winner's leaf is one on the winner's path, replayed after it).
func (q *Queue) flatPop() {
	n := len(q.items) - 1
	it := q.items[:flatCap:flatCap]
	q.items = q.items[:n]
	if n == 0 {
		it[0] = sentinel
		return
	}
	lv := (*[8]slot)(it[1:])
	j := uint(n-1) & 7 // the last leaf
	m := uint(q.win[1]) & 7
	last := lv[j]
	it[0] = lv[m]
	lv[m] = last
	lv[j] = sentinel // when m is j, the last leaf's event has taken the first slot
	q.replay(lv, j, noKey, noKey)
	q.replay(lv, m, lv[m].key, lv[m].ord)
}

// replay plays again the matches on the path of leaf l of lv, whose event
// changed to one of key ck and ord co. The winner so far is carried in
// registers (its leaf, key and ord), each match loading only the other
// side.
func (q *Queue) replay(lv *[8]slot, l uint, ck, co uint64) {
	w := &q.win
	l &= 7
	c := l
	o := l ^ 1
	ok, oo := lv[o].key, lv[o].ord
	_, b := bits.Sub64(oo, co, 0)
	_, b = bits.Sub64(ok, ck, b)
	if b != 0 {
		c, ck, co = o, ok, oo
	}
	k := 4 + l>>1
	w[k] = uint8(c)
	o = uint(w[k^1]) & 7
	ok, oo = lv[o].key, lv[o].ord
	_, b = bits.Sub64(oo, co, 0)
	_, b = bits.Sub64(ok, ck, b)
	if b != 0 {
		c, ck, co = o, ok, oo
	}
	k >>= 1
	w[k] = uint8(c)
	o = uint(w[k^1]) & 7
	ok, oo = lv[o].key, lv[o].ord
	_, b = bits.Sub64(oo, co, 0)
	_, b = bits.Sub64(ok, ck, b)
	if b != 0 {
		c = o
	}
	w[1] = uint8(c)
}

// build plays the whole tournament, for a heap turned flat.
func (q *Queue) build() {
	lv := q.items[1:flatCap:flatCap]
	w := &q.win
	for k := uint(4); k < 8; k++ {
		a := 2 * (k - 4)
		w[k] = uint8(a + lessBit(&lv[a+1], &lv[a]))
	}
	for k := uint(3); k >= 1; k-- {
		a, b := uint(w[2*k])&7, uint(w[2*k+1])&7
		if lessBit(&lv[b], &lv[a]) == 1 {
			a = b
		}
		w[k] = uint8(a)
	}
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
