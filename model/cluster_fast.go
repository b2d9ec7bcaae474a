package model

import "github.com/headroom-sim/headroom/model/perf"

// Fast stepping. The reference stepping (refRunning, refEnd) visits every
// running sequence twice per iteration, O(batch). The fast stepping keeps
// decoding sequences in an aggregate whose per-iteration work is O(1):
//
//   - a sequence's generated count is g0 + (iter - it0), read on demand;
//   - the batch's decode count and total context are kept as sums, the
//     context growing by the decode count each iteration;
//   - with paged KV, a decoding sequence needs a new block at iteration k
//     exactly when its context crosses a block boundary, which repeats
//     every block_size iterations: sequences are counted by the phase of
//     that cycle, so the blocks an iteration needs are one array lookup;
//   - the iteration at which each sequence produces its last token is known
//     when it starts decoding: a min-heap yields the finishers.
//
// Prefilling sequences (a few at a time) are handled one by one. An
// iteration is planned the fast way only when nothing competes: the token
// budget covers every running sequence's full need and the free KV blocks
// cover every allocation. Then the reference would give each sequence the
// same, in any order, so the two are identical; otherwise the aggregate is
// turned back into explicit state and the reference plans the iteration.
// Tests run both and compare the outputs byte for byte.

// finEntry is a decoding sequence's last iteration.
type finEntry struct {
	k     int64 // iteration that produces its last token
	order int64 // admission order, for a deterministic tie-break
	id    int32
	stamp uint32 // the sequence's lazyGen when pushed; stale if it changed
}

// finHeap is a min-heap on (k, order), written out to avoid boxing; the
// finQueue keeps the entries beyond its horizon in one.
type finHeap []finEntry

func (h finHeap) less(i, j int) bool {
	if h[i].k != h[j].k {
		return h[i].k < h[j].k
	}
	return h[i].order < h[j].order
}

func (h *finHeap) push(e finEntry) {
	*h = append(*h, e)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !a.less(i, p) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *finHeap) pop() finEntry {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && a.less(r, l) {
			m = r
		}
		if !a.less(m, i) {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}

// mod is a modulo m in [0, m), for m > 0. A block size is usually a power
// of two, whose modulo is a mask (the same value, without a division).
func mod(a, m int64) int64 {
	if m&(m-1) == 0 {
		return a & (m - 1)
	}
	r := a % m
	if r < 0 {
		r += m
	}
	return r
}

// paged reports whether the cluster allocates KV in blocks as needed.
func (c *cluster) paged() bool { return c.pagedKV }

// sharedBlocks is the number of prefix-cache blocks a sequence uses.
func (rep *replica) sharedBlocks(sq *seqState) int { return int(sq.shared) }

// joinDecode moves a sequence that has its whole prompt computed (and
// generated < output) into the decoding aggregate, between iterations.
func (s *Sim) joinDecode(c *cluster, rep *replica, id int32) {
	sq := &s.seqs[id]
	r := &s.reqs[id]
	sq.lazy = true
	sq.g0 = sq.generated
	sq.it0 = rep.iter
	ctx := int64(r.input + sq.generated) // context at its next iteration
	rep.dec++
	rep.cdec += float64(ctx)
	if c.paged() {
		if len(rep.cnt) == 0 {
			rep.cnt = make([]int32, c.bs)
		}
		sq.phase = int32(c.phase(ctx - 1 - rep.iter))
		rep.cnt[sq.phase]++
	}
	sq.lazyGen++
	rep.fin.push(finEntry{k: rep.iter + int64(r.output-sq.generated) - 1, order: sq.order, id: id, stamp: sq.lazyGen})
}

// leaveDecode takes a sequence out of the aggregate, writing back its
// generated count and (paged) its private blocks, between iterations.
func (s *Sim) leaveDecode(c *cluster, rep *replica, id int32) {
	sq := &s.seqs[id]
	r := &s.reqs[id]
	sq.generated = sq.g0 + int32(rep.iter-sq.it0)
	sq.lazy = false
	sq.lazyGen++
	rep.dec--
	rep.cdec -= float64(r.input + sq.generated)
	if c.paged() {
		rep.cnt[sq.phase]--
		sq.blocks = int32(c.blocksOf(int(r.input+sq.generated)-1) - rep.sharedBlocks(sq))
	}
}

// materialize turns the aggregate back into explicit per-sequence state.
func (s *Sim) materialize(c *cluster, rep *replica) {
	if rep.dec > 0 {
		for _, id := range rep.running {
			if s.seqs[id].lazy {
				s.leaveDecode(c, rep, id)
			}
		}
	}
	rep.fin.reset(rep.iter)
	rep.prefilling = rep.prefilling[:0]
}

// lazify rebuilds the aggregate from explicit state after a reference
// iteration.
func (s *Sim) lazify(c *cluster, rep *replica) {
	rep.prefilling = rep.prefilling[:0]
	for _, id := range rep.running {
		sq := &s.seqs[id]
		if sq.computed < sq.target {
			rep.prefilling = append(rep.prefilling, id)
		} else {
			s.joinDecode(c, rep, id)
		}
	}
}

// fastStart plans the running sequences' part of an iteration from the
// aggregate, if nothing competes for budget or blocks.
func (s *Sim) fastStart(c *cluster, rep *replica, budget *int, b *perf.Batch) bool {
	dec, pre := rep.dec, rep.prefilling
	if dec+len(pre) != len(rep.running) {
		return false // the aggregate is not built (first iteration after a reference one)
	}
	crossing := 0 // decoding sequences whose context crosses a block boundary now
	if c.pagedKV && dec > 0 {
		crossing = int(rep.cnt[c.phase(-rep.iter)])
	}
	need, blocks := dec, crossing
	for _, id := range pre {
		sq := &s.seqs[id]
		need += int(sq.target - sq.computed)
		if n := c.blocksOf(int(sq.target)) - rep.sharedBlocks(sq) - int(sq.blocks); n > 0 {
			blocks += n
		}
	}
	if need > *budget || blocks > rep.free {
		return false
	}
	rep.free -= crossing
	b.Decode = dec
	b.Context += rep.cdec
	*budget -= dec
	for _, id := range pre {
		sq := &s.seqs[id]
		ch := int(sq.target - sq.computed)
		if n := c.blocksOf(int(sq.target)) - rep.sharedBlocks(sq) - int(sq.blocks); n > 0 {
			rep.free -= n
			sq.blocks += int32(n)
		}
		sq.chunk = int32(ch)
		s.cachePrompt(c, rep, id)
		*budget -= ch
		b.Prefill += ch
		b.PrefillSeqs++
		b.Context += float64(sq.target)
		b.PrefillContext += float64(sq.target)
	}
	return true
}

// fastEnd applies an iteration planned by fastStart.
func (s *Sim) fastEnd(c *cluster, rep *replica) {
	if len(rep.prefilling) > 0 {
		s.fastEndPrefills(c, rep)
		return
	}
	// Nothing prefilled (most iterations, every span's last): no first
	// tokens and no sequence joining, only the decode step and its
	// finishers, without fastEndPrefills's lists kept across its calls.
	k := rep.iter
	rep.cdec += float64(rep.dec) // every decoding sequence's context grew by one
	rep.iter++
	if rep.fin.due(k) {
		s.finishAll(c, rep, s.dueFinishers(rep, k, rep.finBuf[:0]))
	} else {
		rep.fin.skip(k)
	}
}

// fastEndPrefills is fastEnd of an iteration with prefill chunks.
func (s *Sim) fastEndPrefills(c *cluster, rep *replica) {
	k := rep.iter
	nf, nj := s.endPrefills(c, rep)
	fin, join := rep.finBuf[:nf], rep.joinBuf[:nj]
	rep.cdec += float64(rep.dec) // every decoding sequence's context grew by one
	rep.iter++
	if rep.fin.due(k) {
		s.finishAll(c, rep, s.dueFinishers(rep, k, fin))
	} else {
		rep.fin.skip(k) // the test inlined: most iterations finish nobody
		if len(fin) > 0 {
			s.finishAll(c, rep, fin)
		}
	}
	for _, id := range join {
		s.joinDecode(c, rep, id)
	}
}

// endPrefills applies the iteration's prefill chunks: a sequence whose
// prompt is now computed has its first token and finishes (the first nf of
// rep.finBuf) or joins the aggregate (the first nj of rep.joinBuf), the
// others stay prefilling. The three lists are written by index, not
// appended to: each holds at most as many ids as were prefilling, so their
// room is made once up front, and the loop keeps its state in registers
// (with three appends the compiler spilled it around every growth path).
// It returns the two counts, not the two lists, for the caller to slice
// the buffers: six words returned cost more than two.
func (s *Sim) endPrefills(c *cluster, rep *replica) (nf, nj int) {
	now := s.eng.Now()
	pre := rep.prefilling
	n := len(pre)
	fin, join := rep.finBuf[:0], rep.joinBuf[:0]
	if cap(fin) < n {
		fin = make([]int32, 0, max(n, 2*cap(fin)))
		rep.finBuf = fin
	}
	if cap(join) < n {
		join = make([]int32, 0, max(n, 2*cap(join)))
		rep.joinBuf = join
	}
	fin, join = fin[:n], join[:n]
	nk := 0
	for _, id := range pre {
		sq := &s.seqs[id]
		if sq.chunk == 0 {
			pre[nk] = id
			nk++
			continue
		}
		sq.computed += sq.chunk
		sq.chunk = 0
		if sq.computed < sq.target {
			pre[nk] = id
			nk++
			continue
		}
		r := &s.reqs[id]
		if sq.generated == 0 {
			r.ttftSvc = now - r.admitted
		}
		sq.generated++
		if sq.prefix < 0 { // registerPrefix's test, inlined: most have their entry
			s.registerPrefix(c, rep, id)
		}
		if sq.generated >= c.lastToken(r) {
			fin[nf] = id
			nf++
		} else {
			join[nj] = id
			nj++
		}
	}
	// Stores that only shorten a slice in place write its length, not its
	// pointer, so they take no GC write barrier.
	rep.prefilling = pre[:nk]
	return nf, nj
}

// dueFinishers appends to fin the decoding sequences whose last token
// iteration k produced.
func (s *Sim) dueFinishers(rep *replica, k int64, fin []int32) []int32 {
	return rep.fin.drainLive(k, s.seqs, fin)
}

// finishAll completes the sequences of fin, which have their last token.
func (s *Sim) finishAll(c *cluster, rep *replica, fin []int32) {
	// Finish in running (admission) order, as the reference does. The list
	// is short; an insertion sort does not allocate, sort.Slice would.
	for i := 1; i < len(fin); i++ {
		for j := i; j > 0 && s.seqs[fin[j]].order < s.seqs[fin[j-1]].order; j-- {
			fin[j], fin[j-1] = fin[j-1], fin[j]
		}
	}
	plain := c.pagedKV && len(s.keys) == 0 // no trace: no cached blocks to release or write
	for _, id := range fin {
		sq := &s.seqs[id]
		if sq.lazy && plain {
			s.finishLazy(c, rep, id, sq)
			continue
		}
		if sq.lazy {
			s.leaveDecode(c, rep, id)
		}
		s.removeRunning(rep, id)
		if int(id) < len(s.keys) { // reqKeys's test: without a trace's keys nothing is cached
			s.cacheOutput(c, rep, id)
		}
		s.releaseKV(rep, id)
		s.completeCluster(c, id)
	}
	if cap(fin) != cap(rep.finBuf) {
		rep.finBuf = fin[:0] // it grew
	}
}

// finishLazy is finishAll's leaveDecode, removeRunning, releaseKV and
// completeCluster of a finishing sequence in the aggregate of a paged
// cluster without a trace's block keys, in one pass over its state: the
// blocks leaveDecode would write back are freed at once (releaseKV adds
// them to the free count and zeroes them), and there are no cached blocks
// to unpin (releaseBlocks) or to write (cacheOutput). sq is s.seqs[id],
// which finishAll has at hand. The stepping tests hold it to the
// reference byte for byte.
func (s *Sim) finishLazy(c *cluster, rep *replica, id int32, sq *seqState) {
	r := &s.reqs[id]
	gen := sq.g0 + int32(rep.iter-sq.it0)
	sq.generated = gen
	sq.lazy = false
	sq.lazyGen++
	rep.dec--
	rep.cdec -= float64(r.input + gen)
	rep.cnt[sq.phase]--
	s.removeRunning(rep, id)
	rep.free += c.blocksOf(int(r.input+gen)-1) - int(sq.shared)
	sq.blocks = 0
	rep.committed -= int(sq.reserve)
	sq.reserve = 0
	sq.shared, sq.nref = 0, 0
	if sq.prefix >= 0 {
		if e := rep.prefixes.get(int64(sq.prefix)); e != nil {
			e.refs--
		}
		sq.prefix = -1
	}
	s.completeSeq(c, id, r, sq.cached)
}

// removeRunning deletes a sequence from the running list, which is in
// admission order. The search gallops from the front (positions 0, 2, 6,
// 14, ...) and then bisects: a finishing sequence is usually among the
// oldest (sequences admitted first finish first when outputs are alike),
// so it is found in a probe or two instead of log2(batch), each probe a
// load from another sequence's state. Written out: sort.Search's closure
// costs more than the search here.
func (s *Sim) removeRunning(rep *replica, id int32) {
	run := rep.running
	if len(run) > 0 && run[0] == id {
		// The oldest, as often: no search, and the list starts one later
		// in its buffer (or, alone, stays where it is), as below.
		if len(run) > 1 {
			rep.running = run[1:]
			rep.runOff++
		} else {
			rep.running = run[:0]
		}
		rep.noteLoad()
		return
	}
	o := s.seqs[id].order
	i, j := 0, len(run)
	for step := 1; i < j; step *= 2 {
		if p := i + step - 1; p >= j || s.seqs[run[p]].order >= o {
			j = min(j, p+1)
			break
		} else {
			i = p + 1
		}
	}
	for i < j {
		h := int(uint(i+j) >> 1)
		if s.seqs[run[h]].order < o {
			i = h + 1
		} else {
			j = h
		}
	}
	if i < len(run) && run[i] == id {
		if i < len(run)/2 {
			// Nearer the front: the sequences before it move up one
			// place and the list starts one later in its buffer (see
			// pushRunning), instead of moving the hundred behind it.
			copy(run[1:i+1], run[:i])
			rep.running = run[1:]
			rep.runOff++
		} else {
			copy(run[i:], run[i+1:])
			rep.running = rep.running[:len(run)-1]
		}
		rep.noteLoad()
	}
}

// pushRunning appends a sequence to the running list. The list is a window
// of runBuf from runOff on (removeRunning moves its start); when the window
// reaches the buffer's end it moves back to the start, so that the list
// grows its buffer only when it holds more sequences than ever before.
func (rep *replica) pushRunning(id int32) {
	if len(rep.running) == cap(rep.running) && rep.runOff > 0 {
		n := copy(rep.runBuf, rep.running)
		rep.running, rep.runOff = rep.runBuf[:n], 0
	}
	rep.running = append(rep.running, id)
	if rep.runOff == 0 && cap(rep.running) != cap(rep.runBuf) {
		rep.runBuf = rep.running[:cap(rep.running)] // it grew
	}
}

// privateBlocks is a running sequence's own KV blocks, aggregate or not.
// While a fast iteration runs, its blocks for this iteration's token are
// already allocated.
func (s *Sim) privateBlocks(c *cluster, rep *replica, id int32) int {
	sq := &s.seqs[id]
	if sq.lazy && c.paged() {
		tokens := int(s.reqs[id].input + sq.g0 + int32(rep.curIter()-sq.it0))
		if !(rep.busy && rep.fast) {
			tokens--
		}
		return blocksFor(tokens, c.bs) - rep.sharedBlocks(sq)
	}
	return int(sq.blocks)
}
