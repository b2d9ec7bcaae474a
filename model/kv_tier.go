package model

import "math"

// The CPU tier of the KV cache (LMCache-style offloading). A prefix entry
// evicted from a replica's GPU memory is kept in the replica's CPU memory,
// least recently used first out when that fills. The tiers are inclusive:
// an entry read back into GPU memory keeps its CPU copy, so evicting it
// again costs nothing. A request whose prefix is found only in the CPU
// tier has it read back over the host link instead of recomputing it: the
// iteration that admits it takes bytes ÷ bandwidth longer (the engine
// loads the blocks before the forward pass, as a synchronous connector
// does), and the prefix counts as a cache hit. A replica failure loses
// both tiers.

// kvTier is one replica's CPU tier: entries in a slab with a doubly linked
// LRU list (head least recently used), so each operation is O(1).
type kvTier struct {
	capBlocks  int
	used       int
	idx        map[int64]int32
	ents       []tierEntry
	free       []int32
	head, tail int32
	secPerBlk  float64 // read-back time of one block
}

type tierEntry struct {
	key        int64
	blocks     int32
	prev, next int32
}

// newKVTier sizes a tier from its spec; bytesPerToken is the KV size of a
// token.
func newKVTier(t *KVTierSpec, bs int, bytesPerToken float64) *kvTier {
	blk := bytesPerToken * float64(bs)
	return &kvTier{capBlocks: int(math.Floor(t.SizeGB * 1e9 / blk)), idx: map[int64]int32{}, head: -1, tail: -1,
		secPerBlk: blk / (t.BandwidthGBs * 1e9)}
}

func (t *kvTier) has(key int64) bool {
	_, ok := t.idx[key]
	return ok
}

func (t *kvTier) unlink(i int32) {
	e := &t.ents[i]
	if e.prev >= 0 {
		t.ents[e.prev].next = e.next
	} else {
		t.head = e.next
	}
	if e.next >= 0 {
		t.ents[e.next].prev = e.prev
	} else {
		t.tail = e.prev
	}
	e.prev, e.next = -1, -1
}

func (t *kvTier) pushTail(i int32) {
	e := &t.ents[i]
	e.prev, e.next = t.tail, -1
	if t.tail >= 0 {
		t.ents[t.tail].next = i
	} else {
		t.head = i
	}
	t.tail = i
}

// touch marks an entry most recently used.
func (t *kvTier) touch(key int64) {
	if i, ok := t.idx[key]; ok {
		t.unlink(i)
		t.pushTail(i)
	}
}

// put stores an entry evicted from GPU memory (or refreshes its copy),
// evicting the least recently used entries to make room; an entry larger
// than the whole tier is not kept.
func (t *kvTier) put(key int64, blocks int32) {
	if i, ok := t.idx[key]; ok {
		t.unlink(i)
		t.pushTail(i)
		return
	}
	if int(blocks) > t.capBlocks {
		return
	}
	for t.used+int(blocks) > t.capBlocks {
		t.evictHead()
	}
	var i int32
	if n := len(t.free); n > 0 {
		i = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		t.ents = append(t.ents, tierEntry{})
		i = int32(len(t.ents) - 1)
	}
	t.ents[i] = tierEntry{key: key, blocks: blocks, prev: -1, next: -1}
	t.idx[key] = i
	t.used += int(blocks)
	t.pushTail(i)
}

func (t *kvTier) evictHead() {
	i := t.head
	t.unlink(i)
	e := &t.ents[i]
	delete(t.idx, e.key)
	t.used -= int(e.blocks)
	t.free = append(t.free, i)
}

// reset empties the tier (the replica failed).
func (t *kvTier) reset() {
	clear(t.idx)
	t.ents, t.free = t.ents[:0], t.free[:0]
	t.head, t.tail, t.used = -1, -1, 0
}

// tierFetch brings a prefix found only in the CPU tier back into GPU
// memory as an unused cache entry, making room as an admission would
// (idle entries out, none running evicted), and charges the read to the
// iteration being planned. It returns the entry's blocks, or 0 when the
// prefix is not in the tier or there is no room.
func (s *Sim) tierFetch(c *cluster, rep *replica, key int64) int {
	t := rep.tier
	i, ok := t.idx[key]
	if !ok {
		return 0
	}
	nb := int(t.ents[i].blocks)
	t.touch(key) // making room offloads others to the tier: keep this one
	if nb+c.watermark > rep.free && !s.evictPrefixes(rep, nb+c.watermark) {
		return 0
	}
	rep.free -= nb
	rep.prefixes[key] = &prefixEntry{key: key, blocks: int32(nb), lastUse: s.eng.Now()}
	dt := float64(nb) * t.secPerBlk
	rep.extraDT += dt
	c.rt.cpuRead += dt
	return nb
}

// tierUnfetch takes back a fetch whose request was then not admitted (no
// room in the iteration or the blocks): the entry leaves GPU memory again
// (its CPU copy stays) and the read is not charged. An engine loads the
// blocks of the requests it schedules only, and the request, admitted
// later, counts as a CPU-tier hit with its read in the iteration that
// admits it. extra and read are the charges from before the fetch.
func (s *Sim) tierUnfetch(c *cluster, rep *replica, key int64, nb int, extra, read float64) {
	delete(rep.prefixes, key)
	rep.free += nb
	rep.extraDT, c.rt.cpuRead = extra, read
}

// offload keeps a prefix entry leaving GPU memory in the CPU tier.
func (rep *replica) offload(e *prefixEntry) {
	if rep.tier != nil {
		rep.tier.put(e.key, e.blocks)
	}
}

// takeExtra returns and clears the time the iteration being launched
// spends reading CPU-tier hits back.
func (rep *replica) takeExtra() float64 {
	dt := rep.extraDT
	rep.extraDT = 0
	return dt
}
