package model

import "github.com/headroom-sim/headroom/sim"

// clusterStats accumulates a cluster's engine-level measurements.
type clusterStats struct {
	batchG, waitG, busyG  sim.Gauge
	gpuG                  sim.Gauge // billed GPUs (provisioned replicas x tensor parallel)
	gpus                  []float64
	steps                 int64
	preemptions           int64
	preemptPer            []int64
	batch, kv, wait, busy []float64 // per-interval time-weighted means
	batchMax              []float64
	outTok                []int64 // output tokens completed per interval
	// itl pools the gaps between tokens: every iteration's time once for
	// each sequence that decodes in it (TryAddN, then AddN).
	itl *sim.Sketch
}

// maxReplicaSeries bounds the clusters whose replicas get series of
// their own, to keep results small.
const maxReplicaSeries = 32

func newClusterStats(n int) *clusterStats {
	return &clusterStats{preemptPer: make([]int64, n), batch: make([]float64, n), kv: make([]float64, n),
		wait: make([]float64, n), busy: make([]float64, n), batchMax: make([]float64, n), gpus: make([]float64, n), outTok: make([]int64, n),
		itl: sim.NewSketch()}
}

func (cs *clusterStats) preempt(iv int) {
	cs.preemptions++
	if iv >= 0 && iv < len(cs.preemptPer) {
		cs.preemptPer[iv]++
	}
}

// tickCluster closes interval iv of a cluster's series at time t. The
// cluster's KV use is the sum of its replicas' (each replica's KV gauge is
// its own, so a replica can bring it up to date on its own, see span.go).
func (s *Sim) tickCluster(c *cluster, iv int, t float64) {
	if iv < 0 || iv >= len(c.cs.batch) {
		return
	}
	kv := 0.0
	for _, r := range c.replicas {
		r.syncSpan(t)
		b, _ := r.batchG.Mark(t)
		k, _ := r.kvG.Mark(t)
		w, _ := r.waitG.Mark(t)
		kv += k
		if r.series != nil {
			r.series.Batch[iv], r.series.KVUse[iv], r.series.Waiting[iv] = b, k/float64(c.blocks), w
		}
	}
	c.cs.tick(iv, t)
	c.cs.kv[iv] = kv
	if c.as != nil {
		c.as.tick(iv, t)
	}
}

func (cs *clusterStats) tick(iv int, t float64) {
	if iv < 0 || iv >= len(cs.batch) {
		return
	}
	cs.batch[iv], cs.batchMax[iv] = cs.batchG.Mark(t)
	cs.wait[iv], _ = cs.waitG.Mark(t)
	cs.busy[iv], _ = cs.busyG.Mark(t)
	cs.gpus[iv], _ = cs.gpuG.Mark(t)
}
