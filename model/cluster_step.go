package model

import "github.com/headroom-sim/headroom/model/perf"

// sendCluster hands the attempt of r = s.reqs[id], a request of w, to the
// least-loaded replica of its target, cluster c.
func (s *Sim) sendCluster(id int32, r *request, w *workload, c *cluster, iv int) {
	rep := s.pickFor(c, id)
	if rep == nil {
		s.reject(id, rsUnavailable, 0, iv)
		return
	}
	if c.spec.MaxWaiting > 0 && rep.waitingLen() >= c.spec.MaxWaiting {
		s.reject(id, rsQueueFull, 1, iv)
		return
	}
	if int(r.input)+askMax(r, w) > c.maxTokens() {
		// Like an engine's max_model_len check: it could never be served.
		s.reject(id, rsTooLarge, 0, iv)
		return
	}
	c.stats.admitted++
	// Zeroed in place, then filled (a composite literal would be built on
	// the stack and copied); lazyGen carries over, so that the stamps of
	// old finisher entries stay stale.
	sq := &s.seqs[id]
	lg := sq.lazyGen
	*sq = seqState{}
	sq.target, sq.prefix, sq.lazyGen = r.input, -1, lg
	q := &rep.waiting
	if c.priority && s.reqClass(id) == classBatch {
		q = &rep.waitingB
	}
	s.enqueue(c, rep, id, q)
}

// enqueue puts request id at the back of replica rep's queue q and wakes
// the replica: an idle one at the end of this instant, so that every
// request arriving at the same time joins the same first iteration (vLLM
// schedules all waiting requests that fit at each step); a busy one in a
// span with room cuts the span, so that it joins at the next iteration.
// sendDirect (backend.go) has its own copy, which
// TestClusterDirectEqualsGeneral holds to this one.
func (s *Sim) enqueue(c *cluster, rep *replica, id int32, q *deque) {
	now := s.eng.Now()
	s.reqs[id].state = stBackendQueue
	s.ser.queue.Add(now, 1)
	c.cs.waitG.Add(now, 1)
	rep.waitG.Add(now, 1)
	q.pushBack(id)
	rep.noteLoad()
	if !rep.busy {
		if !rep.kick {
			rep.kick = true
			s.eng.Schedule(now, evCluster, int32(c.idx), uint32(clKick|rep.idx))
		}
	} else if rep.span.on && len(rep.running) < c.maxSeqs {
		s.cutSpan(c, rep)
	}
}

// nextWaiting returns the request a replica would admit next.
func (rep *replica) nextWaiting() (id int32, ok bool) {
	if rep.waiting.len() > 0 {
		return rep.waiting.front(), true
	}
	if rep.waitingB.len() > 0 {
		return rep.waitingB.front(), true
	}
	return 0, false
}

func (rep *replica) popWaiting() int32 {
	if rep.waiting.len() > 0 {
		return rep.waiting.popFront()
	}
	return rep.waitingB.popFront()
}

// startStep plans and starts one engine iteration on an idle replica.
func (s *Sim) startStep(c *cluster, rep *replica) {
	if rep.failed || rep.state < repUp { // down or starting
		return
	}
	if c.isDecodePool() {
		s.pdPump(c, rep)
	}
	if c.static {
		s.startStaticStep(c, rep)
		return
	}
	if rep.fast && len(rep.prefilling) == 0 && rep.waitingLen() == 0 {
		// The common case on a fast replica with nothing prefilling and
		// nothing waiting: a pure decode iteration from the aggregate
		// (fastStart with no prefills) and, when the batch stays the same
		// for a while, a span of them (launchSpan); otherwise the single
		// iteration (launch). When the aggregate is not built or the
		// budget or the free blocks do not cover the decode, nothing is
		// changed and the iteration is planned the general way below.
		// Written here, not called: a call of its own cost its arguments'
		// reloads and a frame on two events in three.
		dec := rep.dec
		if dec == len(rep.running) && dec <= c.spec.MaxNumBatchedTokens && !s.refStepping {
			crossing := 0 // decoding sequences whose context crosses a block boundary now
			if c.pagedKV && dec > 0 {
				crossing = int(rep.cnt[c.phase(-rep.iter)])
			}
			if crossing <= rep.free {
				rep.preempted = false
				rep.free -= crossing
				if dec > 0 && !s.noSpans && s.launchSpan(c, rep, dec, rep.cdec) {
					return
				}
				s.launch(c, rep, &perf.Batch{Decode: dec, Context: rep.cdec})
				return
			}
		}
	}
	budget := c.spec.MaxNumBatchedTokens
	rep.preempted = false
	var b perf.Batch
	if !s.refStepping && s.fastStart(c, rep, &budget, &b) {
		rep.fast = true
	} else {
		s.materialize(c, rep)
		rep.fast = false
		s.refRunning(c, rep, &budget, &b)
	}
	if rep.waitingLen() > 0 {
		s.admitWaiting(c, rep, &budget, &b) // which admits nothing from empty queues
	}
	if rep.fast && b.Prefill == 0 && b.Decode > 0 && !s.noSpans && s.launchSpan(c, rep, b.Decode, b.Context) {
		return
	}
	s.launch(c, rep, &b)
}

// refRunning plans the running sequences one by one (the reference
// stepping): each decoding sequence takes a token of budget and, when its
// context crosses a block, a KV block; each prefilling one its next chunk.
// Out of blocks, it preempts from the most recently admitted.
func (s *Sim) refRunning(c *cluster, rep *replica, budgetp *int, b *perf.Batch) {
	budget := *budgetp
	defer func() { *budgetp = budget }()
	for i := 0; i < len(rep.running); i++ {
		id := rep.running[i]
		sq := &s.seqs[id]
		sq.chunk, sq.decoding = 0, false
		if sq.computed < sq.target {
			if budget == 0 {
				continue
			}
			ch := min(int(sq.target-sq.computed), budget)
			if !s.ensureBlocks(c, rep, id, i, int(sq.computed)+ch) {
				i-- // it preempted itself; the loop ends
				continue
			}
			sq.chunk = int32(ch)
			s.cachePrompt(c, rep, id)
			budget -= ch
			b.Prefill += ch
			b.PrefillSeqs++
			b.Context += float64(int(sq.computed) + ch)
			b.PrefillContext += float64(int(sq.computed) + ch)
			continue
		}
		if budget == 0 {
			continue
		}
		ctx := int(s.reqs[id].input + sq.generated) // prompt plus tokens so far
		if !s.ensureBlocks(c, rep, id, i, ctx) {
			i--
			continue
		}
		sq.decoding = true
		budget--
		b.Decode++
		b.Context += float64(ctx)
	}
}

// admitWaiting admits waiting requests, in order, while the batch has room,
// the iteration has budget and KV blocks can be found.
func (s *Sim) admitWaiting(c *cluster, rep *replica, budgetp *int, b *perf.Batch) {
	if rep.preempted {
		return // vLLM admits nothing in an iteration that had to preempt
	}
	if c.plainAdmit && len(s.keys) == 0 && !c.isDecodePool() && !s.noPlain {
		s.admitPlain(c, rep, budgetp, b)
		return
	}
	now := s.eng.Now()
	budget := *budgetp
	for len(rep.running) < c.maxSeqs && budget > 0 {
		id, ok := rep.nextWaiting()
		if !ok {
			break
		}
		if c.isDecodePool() {
			if handled, stop := s.admitPrefilled(c, rep, id, &budget, b); stop {
				break
			} else if handled {
				continue
			}
		}
		if s.reqs[id].orphan {
			// Its client went away while it waited: the engine aborts it.
			rep.popWaiting()
			rep.noteLoad()
			s.ser.queue.Add(now, -1)
			c.cs.waitG.Add(now, -1)
			rep.waitG.Add(now, -1)
			s.dropOrphan(id)
			continue
		}
		r := &s.reqs[id]
		sq := &s.seqs[id]
		shared, key, hit, fromCPU := 0, int64(-1), 0, false
		var extra0, read0 float64 // the read charges before a CPU-tier fetch
		var pe *prefixEntry       // the cached prefix entry, looked up once
		keys, kb := s.reqKeys(id)
		if c.spec.PrefixCaching && sq.computed == 0 {
			if keys != nil {
				hit = rep.blockHits(keys, kb, int(r.input))
				shared = hit * kb / c.bs
			} else {
				key = s.prefixKey(r)
				if pe = rep.prefixes.get(key); pe != nil {
					shared = int(pe.blocks)
				} else if rep.tier != nil {
					extra0, read0 = rep.extraDT, c.rt.cpuRead
					shared = s.tierFetch(c, rep, key)
					if fromCPU = shared > 0; fromCPU {
						pe = rep.prefixes.get(key) // brought back from the CPU tier
					}
				}
			}
		}
		computed := min(shared*c.bs, int(sq.target)-1)
		rem := int(sq.target) - computed
		ch := min(rem, budget)
		if !c.chunked && ch < rem {
			if budget < c.spec.MaxNumBatchedTokens {
				if fromCPU {
					s.tierUnfetch(c, rep, key, shared, extra0, read0)
				}
				break // the whole prompt must fit one iteration
			}
			ch = rem
		}
		// Blocks for the whole prompt at admission (as vLLM's block manager
		// requires before admitting a prompt), even when the iteration
		// computes only a chunk of it: a long prompt admitted on a chunk's
		// blocks would be preempted as soon as its later chunks need theirs.
		tokens := int(sq.target)
		if !c.paged() {
			tokens = int(r.input) + askMax(r, s.wls[r.wl]) // the whole length it may reach
			if c.spec.KV.MaxModelLen > 0 {
				tokens = c.spec.KV.MaxModelLen
			}
		}
		need := blocksFor(tokens, c.bs) - shared - int(sq.blocks)
		reserve := 0
		if c.noEvict {
			// Guaranteed no eviction: the blocks it may ever need beside
			// what every running request may still need.
			reserve = blocksFor(int(r.input)+s.wls[r.wl].maxTok, c.bs) - shared
			if rep.committed+reserve+rep.pinnedPrefixBlocks(key, shared) > c.blocks {
				if fromCPU {
					s.tierUnfetch(c, rep, key, shared, extra0, read0)
				}
				break
			}
		}
		var e *prefixEntry
		if shared > 0 && hit == 0 {
			e = pe
			e.refs++ // pinned, so making room cannot evict it
		}
		if hit > 0 {
			rep.pinKeys(keys[:hit])
		}
		keep := need + c.watermark // a new admission leaves the watermark free
		if c.noEvict {
			keep = need
		}
		if keep > rep.free && !s.evictPrefixes(rep, keep) {
			if e != nil {
				e.refs--
			}
			if hit > 0 {
				rep.unpinKeys(keys[:hit])
			}
			if fromCPU {
				s.tierUnfetch(c, rep, key, shared, extra0, read0)
			}
			break
		}
		if reserve > 0 {
			rep.committed += reserve
			sq.reserve = int32(reserve)
		}
		rep.popWaiting()
		s.ser.queue.Add(now, -1)
		c.cs.waitG.Add(now, -1)
		rep.waitG.Add(now, -1)
		if need > 0 {
			rep.free -= need
			sq.blocks += int32(need)
		}
		if e != nil {
			e.lastUse = now
			sq.prefix, sq.shared = int32(key), e.blocks
		}
		if hit > 0 {
			sq.shared, sq.nref = int32(shared), int32(hit)
		}
		sq.computed = int32(computed)
		if !sq.started {
			sq.started = true
			sq.cached, sq.fromCPU = int32(computed), fromCPU
			r.admitted = now
			// countPrefix, with what admission knows: prefix caching is on
			// when anything was looked up, and a request has a prefix to
			// count when it has block keys or a shared prefix of a block
			// (hasPrefix)
			if c.spec.PrefixCaching && (keys != nil || s.sharedPrefix(r) >= c.bs) {
				c.countHit(computed, fromCPU, 1)
			}
		}
		r.state = stService
		rep.pushRunning(id)
		rep.admitted++
		sq.order = rep.admitted
		if rep.fast {
			rep.prefilling = append(rep.prefilling, id)
		}
		sq.chunk = int32(ch)
		if keys != nil {
			s.cachePrompt(c, rep, id) // only a trace's block keys are cached at scheduling
		}
		budget -= ch
		b.Prefill += ch
		b.PrefillSeqs++
		b.Context += float64(computed + ch)
		b.PrefillContext += float64(computed + ch)
	}
	*budgetp = budget
}

// admitPlain is admitWaiting for a plain cluster (cluster.plainAdmit: paged
// KV, no CPU tier, no no-evict reservation, no disaggregated decode pool)
// without a trace's block keys: the same admissions in the same order, with
// what such a cluster never does left out, so that the loop stays in
// registers. TestAdmitPlainEqualsGeneral holds the two to the same bytes.
func (s *Sim) admitPlain(c *cluster, rep *replica, budgetp *int, b *perf.Batch) {
	now := s.eng.Now()
	budget := *budgetp
	for len(rep.running) < c.maxSeqs && budget > 0 {
		id, ok := rep.nextWaiting()
		if !ok {
			break
		}
		r := &s.reqs[id]
		if r.orphan {
			// Its client went away while it waited: the engine aborts it.
			rep.popWaiting()
			rep.noteLoad()
			s.ser.queue.Add(now, -1)
			c.cs.waitG.Add(now, -1)
			rep.waitG.Add(now, -1)
			s.dropOrphan(id)
			continue
		}
		sq := &s.seqs[id]
		shared, key := 0, int64(-1)
		var e *prefixEntry // the cached prefix entry it shares, pinned below
		if c.spec.PrefixCaching && sq.computed == 0 {
			key = s.prefixKey(r)
			if pe := rep.prefixes.get(key); pe != nil {
				if shared = int(pe.blocks); shared > 0 {
					e = pe
				}
			}
		}
		computed := min(shared*c.bs, int(sq.target)-1)
		rem := int(sq.target) - computed
		ch := min(rem, budget)
		if !c.chunked && ch < rem {
			if budget < c.spec.MaxNumBatchedTokens {
				break // the whole prompt must fit one iteration
			}
			ch = rem
		}
		// Blocks for the whole prompt at admission, as admitWaiting says
		// (blocksOf: blocksFor by the cluster's shift, not one found anew).
		need := c.blocksOf(int(sq.target)) - shared - int(sq.blocks)
		if e != nil {
			e.refs++ // pinned, so making room cannot evict it
		}
		if keep := need + c.watermark; keep > rep.free && !s.evictPrefixes(rep, keep) {
			if e != nil {
				e.refs--
			}
			break
		}
		rep.popWaiting()
		s.ser.queue.Add(now, -1)
		c.cs.waitG.Add(now, -1)
		rep.waitG.Add(now, -1)
		if need > 0 {
			rep.free -= need
			sq.blocks += int32(need)
		}
		if e != nil {
			e.lastUse = now
			sq.prefix, sq.shared = int32(key), e.blocks
		}
		sq.computed = int32(computed)
		if !sq.started {
			sq.started = true
			sq.cached, sq.fromCPU = int32(computed), false
			r.admitted = now
			if c.spec.PrefixCaching && s.sharedPrefix(r) >= c.bs { // countPrefix, as admitWaiting has it
				c.countHit(computed, false, 1)
			}
		}
		r.state = stService
		rep.pushRunning(id)
		rep.admitted++
		sq.order = rep.admitted
		if rep.fast {
			rep.prefilling = append(rep.prefilling, id)
		}
		sq.chunk = int32(ch)
		budget -= ch
		b.Prefill += ch
		b.PrefillSeqs++
		b.Context += float64(computed + ch)
		b.PrefillContext += float64(computed + ch)
	}
	*budgetp = budget
}

// launch starts the planned iteration, or idles the replica if there is
// nothing to run.
func (s *Sim) launch(c *cluster, rep *replica, b *perf.Batch) {
	now := s.eng.Now()
	if b.Decode == 0 && b.Prefill == 0 {
		s.idle(c, rep)
		return
	}
	var dt float64
	if c.roof != nil {
		// No interface call on the hot path; a pure decode step's fixed
		// part is looked up (DecodeTime is StepTime for it, bit for bit).
		ok := false
		if b.Prefill == 0 && b.PrefillSeqs == 0 && b.PrefillContext == 0 && b.Decode > 0 {
			dt, ok = c.roof.DecodeTime(b.Decode, b.Context)
		}
		if !ok {
			dt = c.roof.StepTime(*b)
		}
	} else {
		dt = c.step.StepTime(*b)
	}
	dt += rep.takeExtra()
	if b.Decode > 0 && !c.static {
		if !c.cs.itl.TryAddN(dt, uint64(b.Decode)) {
			c.cs.itl.AddN(dt, uint64(b.Decode))
		}
	}
	if !rep.busy {
		rep.busy = true
		c.cs.busyG.Add(now, 1)
	}
	c.cs.steps++
	// clusterGauges, written in place as in launchSpan (the same updates
	// in the same order): called, it measured 3–4% more CPU time on the
	// cluster day, where a replica launches an iteration or a span on
	// every event.
	if d := len(rep.running) - rep.lastBatch; d != 0 {
		c.cs.batchG.Add(now, float64(d))
		rep.batchG.Set(now, float64(len(rep.running)))
		rep.lastBatch = len(rep.running)
	}
	if used := c.blocks - rep.free; used != rep.lastUsed {
		rep.kvG.Set(now, float64(used))
		rep.lastUsed = used
	}
	s.eng.Schedule(now+dt, evStep, int32(c.replicaBase+rep.idx), rep.gen)
}

// ensureBlocks makes room for a running sequence (at position pos) to hold
// tokens of KV, evicting idle cached prefixes, then preempting the most
// recently admitted sequences. It returns false if it had to preempt the
// sequence itself.
func (s *Sim) ensureBlocks(c *cluster, rep *replica, id int32, pos, tokens int) bool {
	sq := &s.seqs[id]
	shared := int(sq.shared)
	need := blocksFor(tokens, c.bs) - shared - int(sq.blocks)
	if need <= 0 {
		return true
	}
	if need > rep.free {
		s.evictPrefixes(rep, need)
	}
	for need > rep.free {
		last := len(rep.running) - 1
		victim := rep.running[last]
		s.preempt(c, rep, last)
		if victim == id {
			return false
		}
		_ = pos
	}
	rep.free -= need
	sq.blocks += int32(need)
	return true
}

// evictPrefixes frees cached prefixes no running sequence uses, least
// recently used first, until need blocks are free. It reports success.
func (s *Sim) evictPrefixes(rep *replica, need int) bool {
	for need > rep.free {
		if rep.evictBlock() {
			continue
		}
		var victim *prefixEntry
		for _, e := range rep.prefixes.slots {
			if e != nil && e.refs == 0 && (victim == nil || e.lastUse < victim.lastUse || e.lastUse == victim.lastUse && e.key < victim.key) {
				victim = e
			}
		}
		if victim == nil {
			return false
		}
		rep.free += int(victim.blocks)
		rep.offload(victim)
		rep.prefixes.del(victim.key)
	}
	return true
}

// preempt evicts the running sequence at position pos by recompute: its
// KV is dropped and it goes back to the head of the waiting queue, to
// prefill its prompt and what it had generated again.
func (s *Sim) preempt(c *cluster, rep *replica, pos int) {
	now := s.eng.Now()
	id := rep.running[pos]
	rep.running = append(rep.running[:pos], rep.running[pos+1:]...)
	sq := &s.seqs[id]
	s.releaseKV(rep, id)
	sq.target = s.reqs[id].input + sq.generated
	sq.computed, sq.chunk, sq.decoding = 0, 0, false
	s.reqs[id].state = stBackendQueue
	rep.waiting.pushFront(id)
	s.ser.queue.Add(now, 1)
	c.cs.waitG.Add(now, 1)
	rep.waitG.Add(now, 1)
	c.cs.preempt(s.interval(now))
	rep.preempted = true
}

func (s *Sim) releaseKV(rep *replica, id int32) {
	sq := &s.seqs[id]
	rep.free += int(sq.blocks)
	sq.blocks = 0
	rep.committed -= int(sq.reserve)
	sq.reserve = 0
	s.releaseBlocks(rep, id)
	if sq.prefix >= 0 {
		if e := rep.prefixes.get(int64(sq.prefix)); e != nil {
			e.refs--
		}
		sq.prefix = -1
	}
}

// endStep applies a finished iteration: prefill progress, one token per
// decoding sequence, first tokens, completions; then starts the next.
func (s *Sim) endStep(c *cluster, rep *replica) {
	if c.static {
		s.endStaticStep(c, rep)
		return
	}
	if rep.fast {
		s.fastEnd(c, rep)
	} else {
		s.refEnd(c, rep)
	}
	s.startStep(c, rep)
}

// refEnd applies a reference iteration sequence by sequence: first every
// sequence's progress (prefill chunks, first tokens, prefixes computed,
// decode tokens), then the completions in running order. An iteration's
// work lands at one instant, so a request a completion lets in (a client
// slot freed) is routed seeing every prefix the iteration computed, as in
// the aggregate stepping, not only those of the sequences before it.
func (s *Sim) refEnd(c *cluster, rep *replica) {
	now := s.eng.Now()
	for _, id := range rep.running {
		sq := &s.seqs[id]
		switch {
		case sq.chunk > 0:
			sq.computed += sq.chunk
			sq.chunk = 0
			if sq.computed >= sq.target {
				if sq.generated == 0 {
					s.reqs[id].ttftSvc = now - s.reqs[id].admitted
				}
				sq.generated++
				s.registerPrefix(c, rep, id)
			}
		case sq.decoding:
			sq.generated++
			sq.decoding = false
		}
	}
	for i := 0; i < len(rep.running); {
		id := rep.running[i]
		if s.seqs[id].generated >= c.lastToken(&s.reqs[id]) {
			rep.running = append(rep.running[:i], rep.running[i+1:]...)
			rep.noteLoad()
			s.cacheOutput(c, rep, id)
			s.releaseKV(rep, id)
			s.completeCluster(c, id)
			continue
		}
		i++
	}
	rep.iter++
	if !s.refStepping {
		s.lazify(c, rep)
	}
}

// idle marks a replica with nothing to run.
func (s *Sim) idle(c *cluster, rep *replica) {
	if rep.busy {
		rep.busy = false
		c.cs.busyG.Add(s.eng.Now(), -1)
	}
	s.clusterGauges(c, rep)
	s.maybeRetire(c, rep)
}

// registerPrefix makes a sequence's shared prefix a cache entry the first
// time it is computed on a replica.
func (s *Sim) registerPrefix(c *cluster, rep *replica, id int32) {
	if !c.spec.PrefixCaching {
		return
	}
	sq := &s.seqs[id]
	r := &s.reqs[id]
	if sq.prefix >= 0 {
		return
	}
	nb := s.sharedPrefix(r) / c.bs
	if nb <= 0 || int(sq.blocks) < nb {
		return
	}
	key := s.prefixKey(r)
	if rep.prefixes.get(key) != nil {
		return
	}
	rep.prefixes.put(&prefixEntry{key: key, blocks: int32(nb), refs: 1, lastUse: s.eng.Now()})
	sq.blocks -= int32(nb)
	sq.prefix, sq.shared = int32(key), int32(nb)
}

// completeCluster records a request served by a cluster. GPU time is
// priced by the hour, not per token, so the tally carries no cost here.
func (s *Sim) completeCluster(c *cluster, id int32) {
	s.completeSeq(c, id, &s.reqs[id], s.seqs[id].cached)
}

// completeSeq is completeCluster of r = s.reqs[id], whose sequence served
// cached prompt tokens from the prefix cache: finishLazy has both at hand.
func (s *Sim) completeSeq(c *cluster, id int32, r *request, cached32 int32) {
	if c.pd != nil && c.pd.prefill && r.output > 1 {
		s.pdHandoff(c, id) // to the decode pool
		return
	}
	w := s.wls[r.wl]
	tg := &w.targets[r.tgt]
	if tg.cdirect && !r.orphan {
		s.doneDirect(id, r, w, cached32) // complete.go
		return
	}
	var t tokenTally
	cached := int64(cached32)
	t.input, t.uncached, t.read, t.output = int64(r.input), int64(r.input)-cached, cached, int64(r.output)
	c.stats.tok.addTokens(&t)
	c.cs.outTok[s.interval(s.eng.Now())] += t.output
	tg.gpuTok += t.input + t.output
	s.completeBilled(id, &t, false) // its costs are zeros, which would leave every sum as it is
}

// startStaticStep serves up to max_num_seqs waiting requests as one batch
// whose every request completes after the table's time for that batch.
func (s *Sim) startStaticStep(c *cluster, rep *replica) {
	now := s.eng.Now()
	for len(rep.running) < c.maxSeqs {
		if _, ok := rep.nextWaiting(); !ok {
			break
		}
		id := rep.popWaiting()
		s.ser.queue.Add(now, -1)
		c.cs.waitG.Add(now, -1)
		rep.waitG.Add(now, -1)
		s.reqs[id].admitted = now
		s.reqs[id].state = stService
		rep.pushRunning(id)
	}
	s.launch(c, rep, &perf.Batch{Decode: len(rep.running)})
}

func (s *Sim) endStaticStep(c *cluster, rep *replica) {
	now := s.eng.Now()
	done := rep.running
	rep.running = nil
	rep.noteLoad() // the batch is done: routing sees an empty replica
	for _, id := range done {
		r := &s.reqs[id]
		r.ttftSvc = now - r.admitted
		s.completeCluster(c, id)
	}
	rep.running = done[:0]
	s.startStaticStep(c, rep)
}

// clusterGauges updates the cluster-wide batch and KV gauges after a
// replica changed. launch and launchSpan, which run on nearly every event
// of a cluster, have these updates written in place; change all three
// together (the stepping tests compare them).
func (s *Sim) clusterGauges(c *cluster, rep *replica) {
	now := s.eng.Now()
	d := len(rep.running) - rep.lastBatch
	if d != 0 {
		c.cs.batchG.Add(now, float64(d))
		rep.batchG.Set(now, float64(len(rep.running)))
		rep.lastBatch = len(rep.running)
	}
	used := c.blocks - rep.free
	if du := used - rep.lastUsed; du != 0 {
		rep.kvG.Set(now, float64(used))
		rep.lastUsed = used
	}
}

// pinnedPrefixBlocks is the blocks of cached prefixes that cannot be
// evicted: those running sequences use, and the entry key an admission
// sharing its first shared blocks would pin.
func (rep *replica) pinnedPrefixBlocks(key int64, shared int) int {
	n := 0
	for _, e := range rep.prefixes.slots {
		if e != nil && (e.refs > 0 || e.key == key && shared > 0) {
			n += int(e.blocks)
		}
	}
	return n
}
