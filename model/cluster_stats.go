package model

import "github.com/headroom-sim/headroom/sim"

// clusterStats accumulates a cluster's engine-level measurements.
type clusterStats struct {
	batchG, kvG, waitG, busyG sim.Gauge
	gpuG                      sim.Gauge // billed GPUs (provisioned replicas x tensor parallel)
	gpus                      []float64
	steps                     int64
	preemptions               int64
	preemptPer                []int64
	batch, kv, wait, busy     []float64 // per-interval time-weighted means
	batchMax                  []float64
	outTok                    []int64 // output tokens completed per interval
}

// maxReplicaSeries bounds the clusters whose replicas get series of
// their own, to keep results small.
const maxReplicaSeries = 32

func newClusterStats(n int) *clusterStats {
	return &clusterStats{preemptPer: make([]int64, n), batch: make([]float64, n), kv: make([]float64, n),
		wait: make([]float64, n), busy: make([]float64, n), batchMax: make([]float64, n), gpus: make([]float64, n), outTok: make([]int64, n)}
}

func (cs *clusterStats) preempt(iv int) {
	cs.preemptions++
	if iv >= 0 && iv < len(cs.preemptPer) {
		cs.preemptPer[iv]++
	}
}

func (c *cluster) tick(iv int, t float64) {
	c.cs.tick(iv, t)
	for _, r := range c.replicas {
		if r.series == nil || iv < 0 || iv >= len(r.series.Batch) {
			continue
		}
		r.series.Batch[iv], _ = r.batchG.Mark(t)
		kv, _ := r.kvG.Mark(t)
		r.series.KVUse[iv] = kv / float64(c.blocks)
		r.series.Waiting[iv], _ = r.waitG.Mark(t)
	}
}

func (cs *clusterStats) tick(iv int, t float64) {
	if iv < 0 || iv >= len(cs.batch) {
		return
	}
	cs.batch[iv], cs.batchMax[iv] = cs.batchG.Mark(t)
	cs.kv[iv], _ = cs.kvG.Mark(t)
	cs.wait[iv], _ = cs.waitG.Mark(t)
	cs.busy[iv], _ = cs.busyG.Mark(t)
	cs.gpus[iv], _ = cs.gpuG.Mark(t)
}
