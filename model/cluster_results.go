package model

import (
	"fmt"

	"github.com/headroom-sim/headroom/sim"
)

// gpuCost is a cluster's GPU bill up to horizon: every provisioned GPU,
// busy or idle (the billed-GPU gauge, interval by interval).
func (s *Sim) gpuCost(c *cluster, horizon float64) (usd, hours float64) {
	for i := range c.cs.gpus {
		span := min(s.cfg.Interval, horizon-float64(i)*s.cfg.Interval)
		if span > 0 {
			hours += c.billedGPUs(i) * span / 3600
		}
	}
	return hours * c.spec.Price.PerGPUHour, hours
}

// billedGPUs is the GPUs billed in interval i: those provisioned
// (on-demand), or the most the cluster ever has (reserved).
func (c *cluster) billedGPUs(i int) float64 {
	if c.spec.Price.Billing == "reserved" {
		return float64(c.spec.maxReplicas() * c.spec.TensorParallel)
	}
	return c.cs.gpus[i]
}

// shareGPUCost charges each cluster's GPU bill to the workloads it served,
// in proportion to their tokens (all of it to the first workload routed to
// an idle cluster, so totals always add up), and adds it to the series. It
// returns the bills of clusters no workload can reach.
func (s *Sim) shareGPUCost(horizon float64) (unclaimed float64) {
	for _, c := range s.clus {
		if c.isDecodePool() {
			continue // billed with its cluster
		}
		bill := 0.0
		for _, p := range c.pools() {
			b, _ := s.gpuCost(p, horizon)
			bill += b
		}
		var users []costUser
		for _, w := range s.wls {
			for i := range w.targets {
				if w.targets[i].clus == c {
					users = append(users, costUser{w, w.targets[i].gpuTok})
				}
			}
		}
		// provisioned, and used by no workload: unclaimed
		unclaimed += apportion(users, bill, func(w *workload, usd float64) { w.stats.tok.costGPU += usd })
		c.stats.tok.costGPU = bill
		for _, p := range c.pools() {
			for i := range s.ser.cost {
				span := min(s.cfg.Interval, horizon-float64(i)*s.cfg.Interval)
				if span > 0 {
					s.ser.cost[i] += p.billedGPUs(i) * p.spec.Price.PerGPUHour * span / 3600
				}
			}
		}
	}
	return unclaimed
}

func (s *Sim) clusterResult(c *cluster, horizon float64) BackendResult {
	b := BackendResult{Name: c.spec.Name, Kind: "cluster", Attempts: c.stats.attempts, Admitted: c.stats.admitted,
		Abandoned: c.stats.abandoned, Rejected: reasonMap(&c.stats.rejected), Tokens: tokenCounts(&c.stats.tok), Cost: cost(&c.stats.tok), Limits: []LimitResult{}}
	cs := c.cs
	n := len(cs.batch)
	tp := float64(c.spec.TensorParallel)
	_, hours := s.gpuCost(c, horizon)
	peak := c.spec.maxReplicas()
	cr := &ClusterResult{Replicas: c.spec.Replicas, TensorParallel: c.spec.TensorParallel, GPUs: c.spec.Replicas * c.spec.TensorParallel,
		PeakReplicas: peak, PeakGPUs: peak * c.spec.TensorParallel, GPU: c.gpuName, Model: c.modelName,
		WeightDtype: c.spec.WeightDtype, KVCacheDtype: c.spec.KVCacheDtype, Scheduler: c.spec.Scheduler, ITL: itlQuantiles(c.cs.itl),
		StepModel: c.spec.Step.Kind, KVBlocks: c.blocks, KVBlockTokens: c.bs, MaxNumSeqs: c.spec.MaxNumSeqs,
		Steps: cs.steps, Preemptions: cs.preemptions, GPUHours: hours}
	if c.spec.Step.Kind == "table" {
		cr.StepModel = fmt.Sprintf("table per %s", c.spec.Step.Per)
	}
	se := ClusterSeries{Batch: make([]float64, n), BatchMax: cs.batchMax, KVUse: make([]float64, n), Waiting: cs.wait,
		Preemptions: cs.preemptPer, Utilization: make([]float64, n), CostUSD: make([]float64, n), Replicas: make([]float64, n),
		OutputTokensPerGPUSecond: make([]float64, n), CostPerHour: make([]float64, n)}
	for _, r := range c.replicas {
		if r.series != nil {
			se.PerReplica = append(se.PerReplica, *r.series)
		}
	}
	var wsum, bsum, kvsum, busy float64
	for i := 0; i < n; i++ {
		span := min(s.cfg.Interval, horizon-float64(i)*s.cfg.Interval)
		if span <= 0 {
			continue
		}
		reps := cs.gpus[i] / tp
		if reps <= 0 {
			continue
		}
		se.Batch[i] = cs.batch[i] / reps
		se.KVUse[i] = cs.kv[i] / (reps * float64(c.blocks))
		se.Utilization[i] = cs.busy[i] / reps
		se.CostUSD[i] = c.billedGPUs(i) * c.spec.Price.PerGPUHour * span / 3600
		se.CostPerHour[i] = c.billedGPUs(i) * c.spec.Price.PerGPUHour
		se.OutputTokensPerGPUSecond[i] = float64(cs.outTok[i]) / (cs.gpus[i] * span)
		wsum += span
		bsum += se.Batch[i] * span
		kvsum += se.KVUse[i] * span
		busy += se.Utilization[i] * span
		if cs.batchMax[i]/reps > cr.PeakBatch {
			cr.PeakBatch = cs.batchMax[i] / reps
		}
		se.Replicas[i] = reps
	}
	if wsum > 0 {
		cr.MeanBatch, cr.MeanKVUse, cr.Utilization = bsum/wsum, kvsum/wsum, busy/wsum
	}
	if hours > 0 {
		cr.OutputTokensPerGPUSecond = float64(c.stats.tok.output) / (hours * 3600)
	}
	if t := c.stats.tok.input + c.stats.tok.output; t > 0 {
		cr.CostPerMillionTokens = b.Cost.Total / float64(t) * 1e6
	}
	cr.Series = se
	s.fleetResult(c, cr, horizon)
	b.Cluster = cr
	return b
}

// itlQuantiles summarises the pooled inter-token gaps.
func itlQuantiles(sk *sim.Sketch) Quantiles {
	if sk.Count() == 0 {
		return Quantiles{}
	}
	return Quantiles{Count: int64(sk.Count()), Mean: sk.Mean(), P50: sk.Quantile(0.5), P90: sk.Quantile(0.9), P95: sk.Quantile(0.95), P99: sk.Quantile(0.99), Max: sk.Max()}
}
