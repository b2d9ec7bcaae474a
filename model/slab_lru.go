package model

// lruSlab is a set of sized entries found by key, kept in a slab with a
// doubly linked list in least-recently-used order (head first), so that a
// lookup, an insertion, a move to the tail and an eviction cost O(1) each
// and allocate nothing once the slab has grown to the working set. It is
// what a replica's cached prefix blocks (blockCache) and its CPU tier of
// the KV cache (kvTier) are built on. An entry may be kept off the list
// while it is in use (blockCache pins entries that running sequences
// use); only listed entries are evicted. Written by hand: container/list
// allocates per element and knows no keys.
type lruSlab struct {
	idx        map[uint64]int32 // key -> slab slot
	ents       []lruEntry
	free       []int32 // unused slab slots
	head, tail int32   // listed entries, least recently used at head; -1 when none
	used       int     // size of all entries, listed or not
}

// lruEntry is one entry of an lruSlab.
type lruEntry struct {
	key        uint64
	size       int32 // KV blocks it holds
	refs       int32 // users keeping it off the list (blockCache)
	prev, next int32 // list links; -1 ends
}

func newLRUSlab() lruSlab {
	return lruSlab{idx: map[uint64]int32{}, head: -1, tail: -1}
}

// slot is the slab slot of key.
func (l *lruSlab) slot(key uint64) (int32, bool) {
	i, ok := l.idx[key]
	return i, ok
}

// has reports whether key has an entry.
func (l *lruSlab) has(key uint64) bool {
	_, ok := l.idx[key]
	return ok
}

// insert adds an entry for key, which must have none, off the list, with
// refs users, and returns its slot.
func (l *lruSlab) insert(key uint64, size, refs int32) int32 {
	var i int32
	if n := len(l.free); n > 0 {
		i = l.free[n-1]
		l.free = l.free[:n-1]
	} else {
		l.ents = append(l.ents, lruEntry{})
		i = int32(len(l.ents) - 1)
	}
	l.ents[i] = lruEntry{key: key, size: size, refs: refs, prev: -1, next: -1}
	l.idx[key] = i
	l.used += int(size)
	return i
}

// unlink takes listed entry i off the list.
func (l *lruSlab) unlink(i int32) {
	e := &l.ents[i]
	if e.prev >= 0 {
		l.ents[e.prev].next = e.next
	} else {
		l.head = e.next
	}
	if e.next >= 0 {
		l.ents[e.next].prev = e.prev
	} else {
		l.tail = e.prev
	}
	e.prev, e.next = -1, -1
}

// pushTail lists entry i, which is off the list, as the most recently used.
func (l *lruSlab) pushTail(i int32) {
	e := &l.ents[i]
	e.prev, e.next = l.tail, -1
	if l.tail >= 0 {
		l.ents[l.tail].next = i
	} else {
		l.head = i
	}
	l.tail = i
}

// evictHead removes the least recently used listed entry and returns its
// size, or 0 when the list is empty.
func (l *lruSlab) evictHead() int {
	i := l.head
	if i < 0 {
		return 0
	}
	l.unlink(i)
	e := &l.ents[i]
	delete(l.idx, e.key)
	size := int(e.size)
	l.used -= size
	l.free = append(l.free, i)
	return size
}

// reset removes every entry.
func (l *lruSlab) reset() {
	clear(l.idx)
	l.ents, l.free = l.ents[:0], l.free[:0]
	l.head, l.tail, l.used = -1, -1, 0
}
