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

// kvTier is one replica's CPU tier: an lruSlab (slab_lru.go) of prefix
// entries, every one listed (head least recently used), so each operation
// is O(1); used is the blocks it holds.
type kvTier struct {
	lruSlab
	capBlocks int
	secPerBlk float64 // read-back time of one block
}

// newKVTier sizes a tier from its spec; bytesPerToken is the KV size of a
// token.
func newKVTier(t *KVTierSpec, bs int, bytesPerToken float64) *kvTier {
	blk := bytesPerToken * float64(bs)
	return &kvTier{lruSlab: newLRUSlab(), capBlocks: int(math.Floor(t.SizeGB * 1e9 / blk)),
		secPerBlk: blk / (t.BandwidthGBs * 1e9)}
}

// has reports whether the tier holds the entry of key.
func (t *kvTier) has(key int64) bool { return t.lruSlab.has(uint64(key)) }

// touch marks an entry most recently used.
func (t *kvTier) touch(key int64) {
	if i, ok := t.slot(uint64(key)); ok {
		t.unlink(i)
		t.pushTail(i)
	}
}

// put stores an entry evicted from GPU memory (or refreshes its copy),
// evicting the least recently used entries to make room; an entry larger
// than the whole tier is not kept.
func (t *kvTier) put(key int64, blocks int32) {
	if i, ok := t.slot(uint64(key)); ok {
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
	t.pushTail(t.insert(uint64(key), blocks, 0))
}

// tierFetch brings a prefix found only in the CPU tier back into GPU
// memory as an unused cache entry, making room as an admission would
// (idle entries out, none running evicted), and charges the read to the
// iteration being planned. It returns the entry's blocks, or 0 when the
// prefix is not in the tier or there is no room.
func (s *Sim) tierFetch(c *cluster, rep *replica, key int64) int {
	t := rep.tier
	i, ok := t.slot(uint64(key))
	if !ok {
		return 0
	}
	nb := int(t.ents[i].size)
	t.touch(key) // making room offloads others to the tier: keep this one
	if nb+c.watermark > rep.free && !s.evictPrefixes(rep, nb+c.watermark) {
		return 0
	}
	rep.free -= nb
	rep.prefixes.put(&prefixEntry{key: key, blocks: int32(nb), lastUse: s.eng.Now()})
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
	rep.prefixes.del(key)
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
