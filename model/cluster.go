package model

import (
	"fmt"
	"strings"

	"github.com/headroom-sim/headroom/model/perf"
	"github.com/headroom-sim/headroom/sim"
)

// cluster is a self-hosted GPU pool at run time.
type cluster struct {
	spec     *ClusterSpec
	idx      int
	step     perf.StepModel
	static   bool // step.per = "request": static batches
	chunked  bool
	priority bool
	bs       int // KV block size
	blocks   int // KV blocks per replica
	replicas []*replica
	maxSeqs  int // current max_num_seqs (the schedule may change it)
	target   int // replicas that should be provisioned now
	// replicaBase is the index of replica 0 in Sim.replicas (event Obj).
	replicaBase int
	stats       *backendStats
	cs          *clusterStats
}

// seqState is a request's progress on a replica, kept apart from request.
type seqState struct {
	computed  int32 // prompt tokens whose KV is computed (cached prefix included)
	target    int32 // prompt tokens to compute: input, plus generated tokens after a recompute
	generated int32
	blocks    int32 // KV blocks held privately
	chunk     int32 // prefill tokens scheduled in the running iteration
	decoding  bool  // scheduled to produce a token in the running iteration
	started   bool  // has been admitted to a batch before
	prefix    int32 // prefix-cache entry referenced, or -1
	cached    int32 // prompt tokens served from the prefix cache at first admission
	shared    int32 // KV blocks held through cached trace blocks (cluster_blocks.go)
	nref      int32 // leading prefix keys whose cached blocks it uses
	order     int64 // admission order on its replica (running is sorted by it)
	// the decoding aggregate (cluster_fast.go)
	lazy    bool
	g0      int32
	it0     int64
	phase   int32
	lazyGen uint32
}

// buildStepModel turns the step spec into a perf.StepModel, and the KV
// capacity in blocks.
func buildCluster(spec *ClusterSpec, idx int, nInt int) (*cluster, error) {
	c := &cluster{spec: spec, idx: idx, chunked: *spec.ChunkedPrefill, priority: spec.Order == "priority",
		bs: spec.KV.BlockSize}
	var g perf.GPU
	var m perf.Model
	haveHW := spec.GPU != "" && spec.Model != ""
	if haveHW {
		var err error
		if g, err = perf.LookupGPU(spec.GPU); err != nil {
			return nil, fieldErr("gpu", err.Error())
		}
		if m, err = perf.LookupModel(spec.Model); err != nil {
			return nil, fieldErr("model", err.Error())
		}
		o := spec.GPUSpec
		g.TFLOPS = pick(o.TFLOPS, g.TFLOPS)
		g.BandwidthGBs = pick(o.BandwidthGBs, g.BandwidthGBs)
		g.MemoryGB = pick(o.MemoryGB, g.MemoryGB)
		mo := spec.ModelSpec
		if mo.Params > 0 {
			m.Params, m.ActiveParams = mo.Params, mo.Params
		}
		m.Layers = pickInt(mo.Layers, m.Layers)
		m.Hidden = pickInt(mo.Hidden, m.Hidden)
		m.Heads = pickInt(mo.Heads, m.Heads)
		m.KVHeads = pickInt(mo.KVHeads, m.KVHeads)
		m.HeadDim = pickInt(mo.HeadDim, m.HeadDim)
		m.DtypeBytes = pick(mo.DtypeBytes, m.DtypeBytes)
	}
	switch spec.Step.Kind {
	case "table":
		t := &perf.Table{Batches: spec.Step.Batches, PrefillPerToken: float64(spec.Step.PrefillPerToken), PerContextToken: float64(spec.Step.PerContextToken)}
		for _, v := range spec.Step.Times {
			t.Times = append(t.Times, float64(v))
		}
		if err := t.Validate(); err != nil {
			return nil, fieldErr("step", err.Error())
		}
		c.step = t
		c.static = spec.Step.Per == "request"
	default:
		c.step = &perf.Roofline{GPU: g, Model: m, TP: spec.TensorParallel, ComputeEff: spec.Step.ComputeEff,
			BandwidthEff: spec.Step.BandwidthEff, Overhead: float64(spec.Step.Overhead)}
	}
	if spec.KV.Blocks > 0 {
		c.blocks = spec.KV.Blocks
	} else {
		tokens, err := perf.KVCapacityTokens(g, m, spec.TensorParallel, spec.KV.GPUMemoryUtilization)
		if err != nil {
			return nil, fieldErr("model", strings.TrimPrefix(err.Error(), "perf: ")+"; raise tensor_parallel, choose a GPU with more memory, or set kv.blocks")
		}
		c.blocks = int(tokens) / c.bs
		if c.blocks < 1 {
			return nil, fieldErr("kv", fmt.Sprintf("no room for a single %d-token KV block", c.bs))
		}
	}
	for i := 0; i < spec.maxReplicas(); i++ {
		c.replicas = append(c.replicas, &replica{cl: c, idx: i, free: c.blocks, prefixes: map[int64]*prefixEntry{}})
	}
	c.maxSeqs = spec.MaxNumSeqs
	if len(c.replicas) <= maxReplicaSeries {
		for _, r := range c.replicas {
			r.series = &ReplicaSeries{Replica: r.idx, Batch: make([]float64, nInt), KVUse: make([]float64, nInt), Waiting: make([]float64, nInt)}
		}
	}
	c.cs = newClusterStats(nInt)
	return c, nil
}

func pick(o, v float64) float64 {
	if o > 0 {
		return o
	}
	return v
}

func pickInt(o, v int) int {
	if o > 0 {
		return o
	}
	return v
}

// pickReplica routes to the up replica with the least outstanding work.
func (c *cluster) pickReplica() *replica {
	var best *replica
	for _, r := range c.replicas {
		if r.state != repUp || r.failed {
			continue
		}
		if best == nil || r.load() < best.load() {
			best = r
		}
	}
	return best
}

// Replica states.
const (
	repDown     uint8 = iota // not provisioned, not billed
	repStarting              // provisioned, not yet accepting
	repUp                    // accepting requests
	repDraining              // finishing its work, accepting none
)

// prefixEntry is a shared prompt prefix resident in a replica's KV cache.
type prefixEntry struct {
	key     int64
	blocks  int32
	refs    int32
	lastUse float64
}

// replica is one engine instance.
type replica struct {
	cl       *cluster
	idx      int
	state    uint8
	failed   bool // down for a failure (still billed)
	failures int  // failures in progress (they may overlap)
	readyAt  float64
	busy     bool
	gen      uint32
	waiting  deque
	waitingB deque // batch-priority requests when order = priority
	running  []int32
	free     int // free KV blocks
	prefixes map[int64]*prefixEntry
	bc       *blockCache // cached trace prefix blocks (cluster_blocks.go), or nil
	// what the cluster gauges last counted for this replica
	lastBatch int
	lastUsed  int

	// per-replica gauges and series (clusters of at most maxReplicaSeries)
	batchG, kvG, waitG sim.Gauge
	series             *ReplicaSeries

	iter       int64 // iterations completed
	admitted   int64 // admissions so far (seqState.order)
	fast       bool  // the running iteration was planned from the aggregate
	prefilling []int32
	dec        int     // decoding sequences in the aggregate
	cdec       float64 // their total context at the next iteration
	cnt        []int32 // decoding sequences by block-crossing phase (paged)
	fin        finHeap
	span       span
	spanCap    int       // iterations the next span may plan (adaptive)
	spanDT     []float64 // the span's iteration times
	spanTries  int       // iterations seen while spans are off (spanProbe)
	finBuf     []int32
	joinBuf    []int32
}

func (r *replica) load() int { return r.waiting.len() + r.waitingB.len() + len(r.running) }

func (r *replica) waitingLen() int { return r.waiting.len() + r.waitingB.len() }

func blocksFor(tokens, bs int) int { return (tokens + bs - 1) / bs }

// maxTokens is the longest sequence (prompt plus output) a replica can
// ever hold: its KV capacity, or max_model_len when that is set.
func (c *cluster) maxTokens() int {
	n := c.blocks * c.bs
	if m := c.spec.KV.MaxModelLen; m > 0 && m < n {
		n = m
	}
	return n
}
