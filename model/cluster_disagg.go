package model

import (
	"math"

	"github.com/headroom-sim/headroom/model/perf"
	"github.com/headroom-sim/headroom/sim"
	"github.com/headroom-sim/headroom/workloads"
)

// Prefill/decode disaggregation (DistServe, Splitwise, Dynamo). A
// disaggregated cluster is two pools of replicas, each a cluster of its own
// at run time with its own replicas, GPUs, tensor parallelism, batch limits
// and KV capacity; workloads route to the cluster's name, which is the
// prefill pool's.
//
//   - A request is prefilled on a prefill replica, which computes its prompt
//     and its first token, then holds the prompt's KV blocks until the
//     transfer is done.
//   - Decode admission is limited by the decode pool's KV: the decode
//     replica with the most free blocks that can take the prompt's blocks
//     (and the first token's) beside its watermark reserves them, and only
//     then does the transfer start; when none can, the request waits, first
//     come first served, for a decode replica to free blocks.
//   - The transfer takes prompt tokens × KV bytes per token ÷ bandwidth +
//     latency. Transfers do not contend for the link.
//   - Transferred, the request joins the decode replica's queue with its
//     prompt computed and its first token generated; the first token
//     reaches the client now (TTFT includes the wait for decode KV and the
//     transfer), and the decode replica admits it as soon as its batch has
//     room, decoding from its next iteration. A decode replica that must
//     preempt recomputes the sequence itself, as vLLM's decode instances do.
//   - Requests with one output token finish on the prefill pool.
//   - The decode pool keeps no prefix cache; failures, schedules and
//     autoscaling are not modelled for pools.

// pdState is one pool's side of a disaggregated cluster.
type pdState struct {
	prefill bool
	other   *cluster // the decode pool (from prefill), the prefill pool (from decode)
	// on the prefill pool:
	seq     []pdSeq // by request id
	kvq     deque   // prefilled requests waiting for decode KV blocks
	kvqG    sim.Gauge
	bw      float64 // bytes per second
	latency float64
	bpt     float64 // KV bytes per prompt token
	xfers   int64
	bytes   float64
	xferSk  *sim.Sketch
	waitSk  *sim.Sketch
	// both pools' replicas and GPUs provisioned now, and at most (kept on
	// the prefill pool's side)
	prov, provGPUs, peak, peakGPUs int
}

// provision counts a replica of either pool coming up (on) or down.
func (pd *pdState) provision(on bool, tp int) {
	if !pd.prefill {
		pd = pd.other.pd
	}
	if on {
		pd.prov++
		pd.provGPUs += tp
	} else {
		pd.prov--
		pd.provGPUs -= tp
	}
	pd.peak, pd.peakGPUs = max(pd.peak, pd.prov), max(pd.peakGPUs, pd.provGPUs)
}

// pdSeq is a request's hand-over state.
type pdSeq struct {
	prep     int32   // prefill replica
	held     int32   // KV blocks it holds there until the transfer ends
	drep     int32   // decode replica
	nb       int32   // KV blocks reserved there
	queued   float64 // when it began waiting for decode KV
	prefixed bool    // its prompt is computed: the decode replica admits it as decoding
}

func (pd *pdState) at(id int32) *pdSeq {
	for int(id) >= len(pd.seq) {
		pd.seq = append(pd.seq, pdSeq{})
	}
	return &pd.seq[id]
}

// poolSpec derives one pool's cluster from a disaggregated cluster's spec.
func poolSpec(spec *ClusterSpec, p *PoolSpec, name string) ClusterSpec {
	ps := *spec
	ps.Name = name
	ps.Replicas = p.Replicas
	if p.GPU != "" {
		ps.GPU = p.GPU
	}
	if p.TensorParallel > 0 {
		ps.TensorParallel = p.TensorParallel
	}
	if p.MaxNumSeqs > 0 {
		ps.MaxNumSeqs = p.MaxNumSeqs
	}
	if p.MaxNumBatchedTokens > 0 {
		ps.MaxNumBatchedTokens = p.MaxNumBatchedTokens
	}
	if p.PerGPUHour > 0 {
		ps.Price.PerGPUHour = p.PerGPUHour
	}
	ps.Prefill, ps.Decode, ps.Transfer, ps.Autoscale = nil, nil, TransferSpec{}, p.Autoscale
	ps.Schedule, ps.Failures = nil, nil
	return ps
}

// buildDisagg builds a disaggregated cluster: the prefill pool, standing
// for the cluster, with the decode pool beside it.
func buildDisagg(spec *ClusterSpec, idx, nInt int) (*cluster, error) {
	ps := poolSpec(spec, spec.Prefill, spec.Name)
	c, err := buildCluster(&ps, idx, nInt)
	if err != nil {
		return nil, prefixErr("prefill", err)
	}
	ds := poolSpec(spec, spec.Decode, spec.Name+"/decode")
	ds.PrefixCaching = false
	ds.KV.CPU = nil
	ds.Routing = RoutingSpec{Policy: RouteLeastKV}
	ds.fleetDefaults()
	d, err := buildCluster(&ds, -1, nInt)
	if err != nil {
		return nil, prefixErr("decode", err)
	}
	pd := &pdState{prefill: true, other: d, latency: float64(spec.Transfer.Latency), bpt: spec.Transfer.BytesPerToken,
		xferSk: sim.NewSketch(), waitSk: sim.NewSketch()}
	var g perf.GPU
	if pd.bpt == 0 || spec.Transfer.BandwidthGBs == 0 {
		var m perf.Model
		g, m, err = ps.hardware()
		if err != nil {
			return nil, prefixErr("prefill", err)
		}
		if pd.bpt == 0 {
			pd.bpt = m.KVBytesPerToken()
		}
	}
	if bw := spec.Transfer.BandwidthGBs; bw > 0 {
		pd.bw = bw * 1e9
	} else {
		pd.bw = g.InterconnectGBs * 1e9 * float64(min(ps.TensorParallel, ds.TensorParallel))
	}
	if !(pd.bw > 0) || !(pd.bpt > 0) {
		return nil, fieldErr("transfer", "the link's bandwidth and the KV bytes per token must be > 0; set transfer.bandwidth_gbs and transfer.bytes_per_token")
	}
	c.pd = pd
	d.pd = &pdState{other: c}
	return c, nil
}

func prefixErr(p string, err error) error { return workloads.Prefix(p, err) }

// pools lists a cluster's pools: itself, and its decode pool if it has one.
func (c *cluster) pools() []*cluster {
	if c.pd != nil && c.pd.prefill {
		return []*cluster{c, c.pd.other}
	}
	return []*cluster{c}
}

// isDecodePool reports whether c is the decode pool of another cluster.
func (c *cluster) isDecodePool() bool { return c.pd != nil && !c.pd.prefill }

// lastToken is the token at which a sequence leaves this cluster: its
// first on a prefill pool (unless it is its only one), its last otherwise.
func (c *cluster) lastToken(r *request) int32 {
	if c.pd != nil && c.pd.prefill {
		return 1
	}
	return r.output
}

// addPools registers the decode pools as clusters of the simulation (after
// the configuration's clusters, so their indices stay as written).
func (s *Sim) addPools() error {
	n := len(s.clus)
	for _, c := range s.clus[:n] {
		if c.pd == nil || !c.pd.prefill {
			continue
		}
		d := c.pd.other
		if err := s.initFleet(d); err != nil {
			return err
		}
		d.idx = len(s.clus)
		d.replicaBase = len(s.reps)
		s.reps = append(s.reps, d.replicas...)
		d.stats = c.stats
		s.clus = append(s.clus, d)
	}
	return nil
}

// pdHandoff takes a request whose prompt the prefill pool has computed: the
// prefill replica holds its KV, and a decode replica reserves blocks for
// it and the transfer starts, or it waits for decode KV.
func (s *Sim) pdHandoff(c *cluster, id int32) {
	pd := c.pd
	q := pd.at(id)
	rep := c.replicas[q.prep]
	r := &s.reqs[id]
	cached, _ := s.cachedOn(c, rep, id)
	held := min(max(blocksFor(int(r.input), c.bs)-cached/c.bs, 0), rep.free)
	rep.free -= held
	rep.outgoing += held
	q.held = int32(held)
	q.queued = s.eng.Now()
	if d := pd.other; d.as != nil {
		d.as.arrivals++ // the decode pool's arrivals are the hand-overs
	}
	if pd.kvq.len() == 0 {
		if d := s.decodeRoom(c, id); d != nil {
			s.pdTransfer(c, d, id)
			return
		}
	}
	pd.kvq.pushBack(id)
	pd.kvqG.Add(s.eng.Now(), 1)
}

// decodeBlocks is what a prefilled request needs on a decode replica: its
// prompt and its first token.
func (d *cluster) decodeBlocks(r *request) int { return blocksFor(int(r.input)+1, d.bs) }

// decodeRoom is the decode replica with the most free KV blocks that can
// take request id beside its watermark, or nil.
func (s *Sim) decodeRoom(c *cluster, id int32) *replica {
	d := c.pd.other
	need := d.decodeBlocks(&s.reqs[id]) + d.watermark
	var best *replica
	for _, rep := range d.replicas {
		if !rep.accepting() {
			continue
		}
		rep.syncSpan(s.eng.Now())
		if rep.free < need {
			continue
		}
		if best == nil || rep.free > best.free || rep.free == best.free && rep.load() < best.load() {
			best = rep
		}
	}
	return best
}

// pdTransfer reserves decode blocks for request id and starts its KV
// transfer.
func (s *Sim) pdTransfer(c *cluster, drep *replica, id int32) {
	pd := c.pd
	q := pd.at(id)
	r := &s.reqs[id]
	d := pd.other
	now := s.eng.Now()
	nb := d.decodeBlocks(r)
	if drep.span.on {
		// A span planned its iterations' blocks on the free blocks it
		// saw; with fewer, the next iteration must be planned (and may
		// preempt) as one event per iteration would.
		s.cutSpan(d, drep)
	}
	drep.free -= nb
	drep.incoming += nb
	q.drep, q.nb = int32(drep.idx), int32(nb)
	bytes := float64(r.input) * pd.bpt
	dt := bytes/pd.bw + pd.latency
	pd.xfers++
	pd.bytes += bytes
	pd.xferSk.Add(dt)
	pd.waitSk.Add(now - q.queued)
	s.clusterGauges(d, drep)
	s.eng.Schedule(now+dt, evTransfer, id, r.gen)
}

// pdPump starts the transfers that a decode replica about to plan an
// iteration has room for, in order.
func (s *Sim) pdPump(d *cluster, drep *replica) {
	c := d.pd.other
	pd := c.pd
	for pd.kvq.len() > 0 && drep.accepting() {
		id := pd.kvq.front()
		if drep.free < d.decodeBlocks(&s.reqs[id])+d.watermark {
			return
		}
		pd.kvq.popFront()
		pd.kvqG.Add(s.eng.Now(), -1)
		s.pdTransfer(c, drep, id)
	}
}

// transferDone ends request id's KV transfer: the prefill replica frees
// its blocks, and the request joins the decode replica's queue with its
// first token delivered.
func (s *Sim) transferDone(id int32) {
	r := &s.reqs[id]
	w := s.wls[r.wl]
	c := w.targets[r.tgt].clus
	pd := c.pd
	q := pd.at(id)
	now := s.eng.Now()
	prep := c.replicas[q.prep]
	prep.free += int(q.held)
	prep.outgoing -= int(q.held)
	q.held = 0
	s.clusterGauges(c, prep)
	if !prep.busy {
		s.startStep(c, prep)
	}
	d := pd.other
	drep := d.replicas[q.drep]
	if r.orphan {
		// Its client went away: nothing decodes it.
		if drep.span.on {
			s.cutSpan(d, drep) // blocks freed: the next iteration may admit
		}
		drep.free += int(q.nb)
		drep.incoming -= int(q.nb)
		q.nb = 0
		s.clusterGauges(d, drep)
		s.dropOrphan(id)
		s.maybeRetire(d, drep) // a draining replica waited for it
		return
	}
	r.ttftSvc = now - r.admitted
	sq := &s.seqs[id]
	*sq = seqState{computed: r.input, target: r.input, generated: 1, blocks: q.nb, started: true, cached: sq.cached,
		prefix: -1, lazyGen: sq.lazyGen}
	q.prefixed = true
	s.enqueue(d, drep, id, &drep.waiting)
}

// admitPrefilled admits a transferred request at the head of a decode
// replica's queue into the iteration being planned, decoding its second
// token. It reports whether the request was one (handled), and whether
// admission must stop here (no room in the batch or the budget).
func (s *Sim) admitPrefilled(d *cluster, rep *replica, id int32, budget *int, b *perf.Batch) (handled, stop bool) {
	pd := d.pd.other.pd
	if int(id) >= len(pd.seq) || !pd.seq[id].prefixed {
		return false, false
	}
	now := s.eng.Now()
	q := &pd.seq[id]
	if s.reqs[id].orphan {
		// Its client went away while it waited: the engine aborts it.
		q.prefixed = false
		rep.popWaiting()
		rep.noteLoad()
		s.ser.queue.Add(now, -1)
		d.cs.waitG.Add(now, -1)
		rep.waitG.Add(now, -1)
		rep.free += int(s.seqs[id].blocks)
		rep.incoming -= int(s.seqs[id].blocks)
		s.seqs[id].blocks = 0
		s.dropOrphan(id)
		return true, false
	}
	if len(rep.running) >= d.maxSeqs || *budget < 1 {
		return true, true
	}
	q.prefixed = false
	r := &s.reqs[id]
	sq := &s.seqs[id]
	rep.popWaiting()
	s.ser.queue.Add(now, -1)
	d.cs.waitG.Add(now, -1)
	rep.waitG.Add(now, -1)
	rep.incoming -= int(sq.blocks)
	q.nb = 0
	r.state = stService
	rep.pushRunning(id)
	rep.admitted++
	sq.order = rep.admitted
	ctx := int(r.input + sq.generated)
	if rep.fast {
		s.joinDecode(d, rep, id) // counted from this iteration, its blocks already held
	} else {
		sq.decoding = true
	}
	*budget--
	b.Decode++
	b.Context += float64(ctx)
	return true, false
}

// pdResults fills a disaggregated cluster's result: its pools, its
// transfers, and its totals over both pools.
func (s *Sim) pdResults(c *cluster, cr *ClusterResult, horizon float64) {
	pd := c.pd
	d := pd.other
	dr := s.clusterResult(d, horizon).Cluster
	pool := func(role string, p *cluster, r *ClusterResult) PoolResult {
		usd, hours := s.gpuCost(p, horizon)
		pr := PoolResult{Role: role, Replicas: p.spec.Replicas, TensorParallel: p.spec.TensorParallel, GPUs: p.spec.Replicas * p.spec.TensorParallel,
			PeakReplicas: p.spec.Replicas, GPU: p.gpuName, KVBlocks: p.blocks, Steps: r.Steps, Preemptions: r.Preemptions, MeanBatch: r.MeanBatch, MeanKVUse: r.MeanKVUse,
			Utilization: r.Utilization, GPUHours: hours, CostUSD: usd}
		if p.as != nil {
			pr.Autoscale = p.autoscaleResult(horizon)
			pr.PeakReplicas = p.as.peak
		}
		var sum float64
		for i, v := range p.cs.wait {
			sum += v * min(s.cfg.Interval, horizon-float64(i)*s.cfg.Interval)
		}
		if horizon > 0 {
			pr.MeanWaiting = sum / horizon
		}
		return pr
	}
	pp, dp := pool("prefill", c, cr), pool("decode", d, dr)
	if horizon > 0 {
		dp.MeanWaiting += pd.kvqG.Integral(horizon) / horizon
	}
	cr.Pools = []PoolResult{pp, dp}
	cr.Transfer = &TransferResult{BandwidthGBs: pd.bw / 1e9, LatencyS: pd.latency, BytesPerToken: pd.bpt, Transfers: pd.xfers, Bytes: pd.bytes,
		Time: quantiles(pd.xferSk), KVWait: quantiles(pd.waitSk)}
	cr.Replicas = pp.Replicas + dp.Replicas
	cr.GPUs = pp.GPUs + dp.GPUs
	cr.PeakReplicas, cr.PeakGPUs = pd.peak, pd.peakGPUs
	cr.TensorParallel = 0 // the pools' differ; see pools
	cr.GPUHours = pp.GPUHours + dp.GPUHours
	cr.Steps += dr.Steps
	cr.Preemptions += dr.Preemptions
	cr.ITL = dr.ITL // tokens after the first are decoded on the decode pool
	if cr.GPUHours > 0 {
		cr.OutputTokensPerGPUSecond = float64(c.stats.tok.output) / (cr.GPUHours * 3600)
	}
	se := &cr.Series
	for i := range se.Replicas {
		se.Replicas[i] += dr.Series.Replicas[i]
		se.CostUSD[i] += dr.Series.CostUSD[i]
		se.CostPerHour[i] += dr.Series.CostPerHour[i]
		if g := c.cs.gpus[i] + d.cs.gpus[i]; g > 0 {
			span := math.Min(s.cfg.Interval, horizon-float64(i)*s.cfg.Interval)
			if span > 0 {
				se.OutputTokensPerGPUSecond[i] = float64(d.cs.outTok[i]+c.cs.outTok[i]) / (g * span)
			}
		}
	}
}
