package model

import "github.com/headroom-sim/headroom/model/perf"

// Spans. When an iteration is pure decode from the aggregate (nothing
// prefilling, nothing to admit), the iterations after it are too, until a
// sequence finishes or KV blocks run out: the batch does not change. Such
// a run of m iterations is one span with one event at its end. Every
// iteration's time is still computed from its own batch (the context grows
// by the decode count each iteration) and summed in the same order as
// per-iteration events would be, so the span ends at exactly the time the
// last of those events would. What happens at each iteration's start (a
// block for every sequence crossing a block boundary, the KV gauge, the
// step count) is replayed in order when the replica is next looked at: at
// an interval tick, at the span's end, or when the span is cut. An arrival
// that can join the batch cuts the span at the next iteration boundary, as
// does a schedule change of max_num_seqs; a failure brings it up to date
// and ends it. Tests compare spans with one event per iteration byte for
// byte.

// maxSpan bounds the iterations in one span. Every iteration's time is
// still computed (that is what keeps spans exact), so a span saves events
// and per-iteration planning, not step-time work, and a span cut short
// wastes what was planned past the cut. Each replica adapts its cap: it
// doubles after a span that ran to its end and halves after one that was
// cut, between minSpanCap and maxSpan. A long uncut run simply continues
// as the next span. The floor is 4, not 1: on the cluster-day benchmark
// (100 requests/s on 8 replicas, an arrival every few iterations of a
// replica) a cap that halved down to 1 left most decode iterations as
// single steps; with the floor at 4 there are 12% fewer events and 5%
// less time, though most spans are cut.
const (
	maxSpan    = 32
	minSpanCap = 4
)

// span is a replica's span in progress.
type span struct {
	on      bool
	k0      int64   // iteration index of its first iteration
	m       int     // iterations in it
	applied int     // iterations whose start has been applied
	at      float64 // start time of iteration k0+applied (when applied < m)
	dec     int     // decode count (constant over the span)
	cut     bool    // ended early by cutSpan
}

// curIter is the index of the iteration running now (or next, between
// iterations).
func (rep *replica) curIter() int64 {
	if rep.span.on && rep.span.applied > 0 {
		return rep.span.k0 + int64(rep.span.applied) - 1
	}
	return rep.iter
}

// spanNeed is how many KV blocks iteration k needs from the aggregate.
func (c *cluster) spanNeed(rep *replica, k int64) int {
	if !c.paged() {
		return 0
	}
	return int(rep.cnt[mod(-k, int64(c.bs))])
}

// launchSpan turns a planned pure-decode iteration of dec sequences at
// context ctx (its blocks already taken by fastStart) into a span of as
// many iterations as stay unchanged. It reports false when the span would
// be a single iteration. It takes the batch's two fields, not the batch:
// startStep's decode case then builds one only for the single iteration.
func (s *Sim) launchSpan(c *cluster, rep *replica, dec int, ctx float64) bool {
	if rep.fin.len() == 0 || rep.extraDT > 0 {
		// A CPU-tier read comes with the admission it serves (tierUnfetch),
		// which is no pure decode; should one be pending, the iteration
		// runs alone and launch charges it, as the reference does.
		return false
	}
	k0 := rep.iter
	last := rep.fin.minK() // an iteration where a sequence finishes ends the span
	if rep.spanCap == 0 {
		rep.spanCap = 4
	}
	// Iterations k0..last at most, within the cap; each after the first
	// takes the blocks of the sequences crossing a block boundary.
	m := int(min(int64(rep.spanCap), last-k0+1))
	if c.paged() && rep.dec*c.blocksOf(m-1) > rep.free { // ⌈(m−1)/bs⌉, by the cluster's shift
		// A sequence crosses at most one boundary in bs iterations: with
		// fewer free blocks than that bound, count them iteration by
		// iteration.
		n, free := 1, rep.free
		for n < m {
			need := c.spanNeed(rep, k0+int64(n))
			if need > free {
				break // the reference decides what to preempt
			}
			free -= need
			n++
		}
		m = n
	}
	if m < 2 {
		return false
	}
	now := s.eng.Now()
	sp := &rep.span
	sp.on, sp.k0, sp.m, sp.applied, sp.dec, sp.cut = true, k0, m, 1, dec, false
	// Iteration times, kept for syncSpan; the buffer is reused.
	if cap(rep.spanDT) < m {
		rep.spanDT = make([]float64, 0, maxSpan)
	}
	rep.spanDT = rep.spanDT[:m] // no write barrier: only its length changes
	dts := rep.spanDT
	var t float64
	if c.roof != nil {
		t = c.roof.DecodeSpanEnd(dec, ctx, dts, now) // decodeSpan's first case, without its call
	} else {
		t = c.decodeSpan(dec, ctx, dts, now)
	}
	rep.span.at = now + dts[0]
	if !c.cs.itl.TryAddN(dts[0], uint64(dec)) {
		c.cs.itl.AddN(dts[0], uint64(dec))
	}
	if !rep.busy {
		rep.busy = true
		c.cs.busyG.Add(now, 1)
	}
	c.cs.steps++
	// clusterGauges, written in place (the same updates in the same
	// order): its call cost more than its work on most spans.
	if d := len(rep.running) - rep.lastBatch; d != 0 {
		c.cs.batchG.Add(now, float64(d))
		rep.batchG.Set(now, float64(len(rep.running)))
		rep.lastBatch = len(rep.running)
	}
	if used := c.blocks - rep.free; used != rep.lastUsed {
		rep.kvG.Set(now, float64(used))
		rep.lastUsed = used
	}
	s.eng.Schedule(t, evStep, int32(c.replicaBase+rep.idx), rep.gen)
	return true
}

// decodeSpan fills dts with the times of pure decode iterations of d
// sequences from context ctx on, the context growing by d each iteration,
// and returns the end of the span starting at t0 (t0 plus each time, added
// in order). How is resolved when the cluster is built: the roofline is
// called directly (no interface call), times and sum in one pass; another
// SpanStepper through its interface; any other step model one iteration
// at a time.
func (c *cluster) decodeSpan(d int, ctx float64, dts []float64, t0 float64) float64 {
	if c.roof != nil {
		return c.roof.DecodeSpanEnd(d, ctx, dts, t0)
	}
	if c.spanStep != nil {
		c.spanStep.DecodeSpan(d, ctx, dts)
	} else {
		for j := range dts {
			dts[j] = c.step.StepTime(perf.Batch{Decode: d, Context: ctx + float64(j*d)})
		}
	}
	for _, dt := range dts {
		t0 += dt
	}
	return t0
}

// syncSpan applies the starts of the span's iterations that began before
// t. An iteration starting exactly at t starts after whatever is handled at
// t now: with one event per iteration, its event would have been scheduled
// later than the tick, arrival or failure being handled (they are
// scheduled further ahead), so it would come after them.
func (rep *replica) syncSpan(t float64) {
	// A span that is off has every iteration applied (endSpan and
	// failReplica see to it), so that this test, inlined at every call,
	// need not look at on.
	if sp := &rep.span; sp.applied < sp.m && sp.at < t {
		rep.applySpan(t)
	}
}

// applySpan is syncSpan's loop, with the span's state in locals (the
// stores of each iteration's gauge and sketch would otherwise make the
// compiler write them back and load them again).
func (rep *replica) applySpan(t float64) {
	c := rep.cl
	sp := &rep.span
	a0 := sp.applied // the iterations applied are counted from it: a counter of their own was one more value kept across the loop
	applied, at, free := a0, sp.at, rep.free
	dts := rep.spanDT[:sp.m]
	dec := uint64(sp.dec)
	itl := c.cs.itl
	k := sp.k0 + int64(applied)
	var cnt []int32
	bm := int64(c.bs) - 1
	pow2 := c.bsShift >= 0
	if c.paged() {
		cnt = rep.cnt
	}
	for ; applied < len(dts) && at < t; applied++ {
		if cnt != nil {
			// spanNeed: the sequences crossing a block boundary at k
			if pow2 {
				free -= int(cnt[-k&bm])
			} else {
				free -= int(cnt[mod(-k, bm+1)])
			}
		}
		if used := c.blocks - free; used != rep.lastUsed {
			rep.kvG.Set(at, float64(used))
			rep.lastUsed = used
		}
		dt := dts[applied]
		at += dt
		if !itl.TryAddN(dt, dec) {
			itl.AddN(dt, dec)
		}
		k++
	}
	sp.applied, sp.at, rep.free = applied, at, free
	c.cs.steps += int64(applied - a0)
}

// cutSpan ends the span at the first iteration boundary after now.
func (s *Sim) cutSpan(c *cluster, rep *replica) {
	now := s.eng.Now()
	rep.syncSpan(now)
	sp := &rep.span
	if !sp.on || sp.applied >= sp.m {
		return // already in its last iteration
	}
	sp.m = sp.applied // the running iteration is the last
	sp.cut = true
	// Move the span's end event to the cut rather than leave it to be
	// popped stale.
	old, obj := rep.gen, int32(c.replicaBase+rep.idx)
	rep.gen++
	if !s.eng.Reschedule(sp.at, evStep, obj, old, rep.gen) {
		s.eng.Schedule(sp.at, evStep, obj, rep.gen)
	}
}

// endSpan applies a finished span as its m iterations' ends would have.
func (s *Sim) endSpan(c *cluster, rep *replica) {
	now := s.eng.Now()
	rep.syncSpan(now)
	sp := &rep.span // its fields read, not the span copied
	m := sp.m
	sp.on, sp.applied = false, m
	if sp.cut {
		rep.spanCap = max(minSpanCap, rep.spanCap/2)
	} else {
		rep.spanCap = min(maxSpan, 2*max(rep.spanCap, m))
	}
	// All but the last iteration changed nothing but the context; the last
	// is applied like any fast iteration (finishers, next plan).
	rep.iter += int64(m - 1)
	rep.cdec += float64((m - 1) * sp.dec)
	s.fastEnd(c, rep)
	s.startStep(c, rep)
}
