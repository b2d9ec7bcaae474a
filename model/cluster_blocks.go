package model

// Block-level prefix caching, for requests whose prefixes a trace describes
// (ReplayRecord.Keys: key i names the first (i+1)·B tokens of the context).
// It works as vLLM's automatic prefix caching does, at the trace's block
// granularity B (a multiple of the KV block size):
//
//   - at admission a request reuses its longest run of leading blocks the
//     replica holds, capped so that at least one prompt token is computed;
//   - the blocks of the prompt become cache entries as soon as their
//     prefill is scheduled (vLLM v1 caches blocks when it allocates them
//     for scheduled tokens), so a request admitted later, even in the same
//     iteration, can share them; when a request completes, the whole
//     blocks of its generated tokens become entries too, when its keys
//     cover them (a session's next turn starts with this turn's answer);
//   - an entry holds its KV blocks while any running sequence uses it;
//     unused entries stay resident and are evicted least recently used
//     first when KV memory is needed, a request's deepest blocks before
//     its shallower ones.
//
// Entries live in an lruSlab (slab_lru.go) whose list holds the unused
// ones, so lookups, pins and evictions cost O(1) each and allocate nothing
// once the slab has grown to the replica's working set (bounded by its KV
// capacity).

// blockCache is a replica's cached prefix blocks: an entry per block key,
// its size the KV blocks it holds, its refs the running sequences using
// it; used is the KV blocks held by all entries.
type blockCache struct {
	lruSlab
}

func newBlockCache() *blockCache {
	return &blockCache{newLRUSlab()}
}

// pin marks entry i in use.
func (bc *blockCache) pin(i int32) {
	e := &bc.ents[i]
	if e.refs == 0 {
		bc.unlink(i)
	}
	e.refs++
}

// unpin releases one use of entry i; unused, it joins the LRU tail.
func (bc *blockCache) unpin(i int32) {
	e := &bc.ents[i]
	e.refs--
	if e.refs == 0 {
		bc.pushTail(i)
	}
}

// evictOne frees the least recently used unused entry and returns its KV
// blocks, or 0 when every entry is in use.
func (bc *blockCache) evictOne() int { return bc.evictHead() }

// blockHits is how many leading blocks of a prompt of input tokens the
// replica holds, at most (input−1)/B so that one token is computed.
func (rep *replica) blockHits(keys []uint64, b, input int) int {
	bc := rep.bc
	if bc == nil {
		return 0
	}
	n := min(len(keys), (input-1)/b)
	for j := 0; j < n; j++ {
		if !bc.has(keys[j]) {
			return j
		}
	}
	return n
}

// pinKeys marks the first n keys' entries in use (they are resident).
func (rep *replica) pinKeys(keys []uint64) {
	for _, k := range keys {
		rep.bc.pin(rep.bc.idx[k])
	}
}

// unpinKeys releases the entries of keys, deepest first, so that a
// request's deepest blocks are evicted before its shallower ones.
func (rep *replica) unpinKeys(keys []uint64) {
	for j := len(keys) - 1; j >= 0; j-- {
		rep.bc.unpin(rep.bc.idx[keys[j]])
	}
}

// cacheBlocks makes the request's blocks within its first upto tokens
// cache entries, moving their KV blocks from the sequence's private ones,
// from its first unregistered block on; it stops at a block another
// sequence has already registered (that copy stays private, as in vLLM).
func (s *Sim) cacheBlocks(c *cluster, rep *replica, id int32, upto int) {
	keys, b := s.reqKeys(id)
	if keys == nil || !c.spec.PrefixCaching {
		return
	}
	sq := &s.seqs[id]
	if rep.bc == nil {
		rep.bc = newBlockCache()
	}
	kv := int32(b / c.bs)
	for j := int(sq.nref); j < len(keys) && (j+1)*b <= upto && sq.blocks >= kv; j++ {
		if rep.bc.has(keys[j]) {
			return
		}
		rep.bc.insert(keys[j], kv, 1)
		sq.blocks -= kv
		sq.shared += kv
		sq.nref++
	}
}

// cachePrompt registers the prompt blocks whose prefill is scheduled (the
// sequence's first computed+chunk tokens).
func (s *Sim) cachePrompt(c *cluster, rep *replica, id int32) {
	sq := &s.seqs[id]
	s.cacheBlocks(c, rep, id, min(int(sq.computed+sq.chunk), int(s.reqs[id].input)))
}

// cacheOutput registers a completed sequence's blocks, generated tokens
// included (the KV of all but the last token is computed).
func (s *Sim) cacheOutput(c *cluster, rep *replica, id int32) {
	r := &s.reqs[id]
	s.cacheBlocks(c, rep, id, int(r.input+r.output)-1)
}

// releaseBlocks drops a sequence's use of its cached blocks.
func (s *Sim) releaseBlocks(rep *replica, id int32) {
	sq := &s.seqs[id]
	if sq.nref > 0 {
		keys, _ := s.reqKeys(id)
		rep.unpinKeys(keys[:sq.nref])
	}
	sq.shared, sq.nref = 0, 0
}

// evictBlock frees one unused cached block, reporting whether it could.
func (rep *replica) evictBlock() bool {
	if rep.bc == nil {
		return false
	}
	kv := rep.bc.evictOne()
	rep.free += kv
	return kv > 0
}

// cachedKV is the KV blocks held by the replica's cached blocks.
func (rep *replica) cachedKV() int {
	if rep.bc == nil {
		return 0
	}
	return rep.bc.used
}
