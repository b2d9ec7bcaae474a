package model

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/headroom-sim/headroom/model/perf"
	"github.com/headroom-sim/headroom/sim"
)

// cluster is a self-hosted GPU pool at run time.
type cluster struct {
	spec *ClusterSpec
	// gpuName and modelName are what results call the hardware: the
	// catalogue names, a gpu_spec/model_spec name, or the catalogue name
	// marked as changed.
	gpuName, modelName string
	noEvict            bool
	watermark          int // KV blocks a new admission must leave free
	// plainAdmit: paged KV without a CPU tier or no-evict reservations;
	// admitWaiting hands such a cluster's admissions to admitPlain unless
	// it is a decode pool or the run has trace block keys (both checked
	// there)
	plainAdmit bool
	idx        int
	step       perf.StepModel
	roof       *perf.Roofline   // step, when it is a roofline
	spanStep   perf.SpanStepper // step, when it times spans itself (and is no roofline)
	static     bool             // step.per = "request": static batches
	chunked    bool
	priority   bool
	bs         int // KV block size
	bsShift    int // log2(bs) when bs is a power of two, else -1 (blocksOf, phase)
	pagedKV    bool
	blocks     int // KV blocks per replica
	replicas   []*replica
	rkey       []int // per replica: its routing key (noteLoad)
	scanRoute  bool  // least-work routing scans the replicas instead of reading rkey (tests; more replicas than a key can name)
	maxSeqs    int   // current max_num_seqs (the schedule may change it)
	target     int   // replicas that should be provisioned now
	// replicaBase is the index of replica 0 in Sim.replicas (event Obj).
	replicaBase int
	stats       *backendStats
	cs          *clusterStats
	// the fleet: routing (cluster_routing.go), autoscaling
	// (cluster_autoscale.go), disaggregated pools (cluster_disagg.go)
	rt *router
	as *autoscaler
	pd *pdState
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
	fromCPU   bool  // its cached prefix came from the CPU tier (at first admission)
	prefix    int32 // prefix-cache entry referenced, or -1
	shared    int32 // KV blocks held through the prefix cache: its entry's (an entry's size never changes), or its cached trace blocks' (cluster_blocks.go)
	cached    int32 // prompt tokens served from the prefix cache at first admission
	nref      int32 // leading prefix keys whose cached blocks it uses
	order     int64 // admission order on its replica (running is sorted by it)
	reserve   int32 // KV blocks reserved to its end (no-evict scheduling)
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
	if spec.Prefill != nil {
		return buildDisagg(spec, idx, nInt)
	}
	c := &cluster{spec: spec, idx: idx, chunked: *spec.ChunkedPrefill, priority: spec.Order == "priority",
		bs: spec.KV.BlockSize, bsShift: -1, pagedKV: spec.KV.Allocation != "contiguous"}
	if c.bs > 0 && c.bs&(c.bs-1) == 0 {
		c.bsShift = bits.TrailingZeros(uint(c.bs))
	}
	g, m, err := spec.hardware()
	if err != nil {
		return nil, err
	}
	c.gpuName, c.modelName = spec.hardwareNames()
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
		if ss, ok := c.step.(perf.SpanStepper); ok {
			c.spanStep = ss
		}
		c.static = spec.Step.Per == "request"
	default:
		st := spec.Step
		r := &perf.Roofline{GPU: g, Model: m, TP: spec.TensorParallel, ComputeEff: st.ComputeEff,
			BandwidthEff: st.BandwidthEff, Overhead: float64(st.Overhead), SmoothKnee: st.Knee != "max",
			InterconnectEff: st.InterconnectEff, ElementwiseEff: st.ElementwiseEff}
		if st.OverheadPerLayer != nil {
			r.OverheadPerLayer = float64(*st.OverheadPerLayer)
		}
		if st.OverheadPerSeq != nil {
			r.OverheadPerSeq = float64(*st.OverheadPerSeq)
		}
		if st.CollectiveLatency != nil {
			r.CollectiveLatency = float64(*st.CollectiveLatency)
		}
		for i, n := range perf.AllReduceNames {
			if st.AllReduce == n {
				r.AllReduce = perf.AllReduce(i)
			}
		}
		if err := r.Validate(); err != nil {
			return nil, fieldErr("model_spec", strings.TrimPrefix(err.Error(), "perf: "))
		}
		r.Prepare()
		c.step, c.roof = r, r
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
		c.replicas = append(c.replicas, &replica{cl: c, idx: i, free: c.blocks})
		c.rkey = append(c.rkey, routeNone) // down until provisioned
	}
	c.scanRoute = len(c.replicas) >= 1<<routeIdxBits
	c.maxSeqs = spec.MaxNumSeqs
	c.noEvict = spec.Scheduler == "no-evict"
	c.plainAdmit = c.pagedKV && !c.noEvict && spec.KV.CPU == nil
	if spec.KV.Watermark != nil {
		c.watermark = int(*spec.KV.Watermark * float64(c.blocks))
	}
	if len(c.replicas) <= maxReplicaSeries {
		for _, r := range c.replicas {
			r.series = &ReplicaSeries{Replica: r.idx, Batch: make([]float64, nInt), KVUse: make([]float64, nInt), Waiting: make([]float64, nInt)}
		}
	}
	c.cs = newClusterStats(nInt)
	return c, nil
}

// hardware looks up the catalogue GPU and model and applies gpu_spec,
// model_spec and the dtypes; it checks that tensor_parallel splits the
// model. Without gpu and model both are zero.
func (spec *ClusterSpec) hardware() (perf.GPU, perf.Model, error) {
	var g perf.GPU
	var m perf.Model
	if spec.GPU == "" || spec.Model == "" {
		return g, m, nil
	}
	var err error
	if g, err = perf.LookupGPU(spec.GPU); err != nil {
		return g, m, fieldErr("gpu", strings.TrimPrefix(err.Error(), "perf: "))
	}
	if m, err = perf.LookupModel(spec.Model); err != nil {
		return g, m, fieldErr("model", strings.TrimPrefix(err.Error(), "perf: "))
	}
	o := spec.GPUSpec
	g.TFLOPS = pick(o.TFLOPS, g.TFLOPS)
	g.FP8TFLOPS = pick(o.FP8TFLOPS, g.FP8TFLOPS)
	g.BandwidthGBs = pick(o.BandwidthGBs, g.BandwidthGBs)
	g.MemoryGB = pick(o.MemoryGB, g.MemoryGB)
	g.InterconnectGBs = pick(o.InterconnectGBs, g.InterconnectGBs)
	mo := spec.ModelSpec
	if mo.Params > 0 {
		// A new total: dense unless active_params or experts say otherwise.
		m.Params = mo.Params
		if m.Experts == 0 || mo.ActiveParams == 0 && mo.Experts == 0 {
			m.ActiveParams = mo.Params
			m.Experts, m.ExpertsPerToken = 0, 0
		}
	}
	m.ActiveParams = pick(mo.ActiveParams, m.ActiveParams)
	m.Experts = pickInt(mo.Experts, m.Experts)
	m.ExpertsPerToken = pickInt(mo.ExpertsPerToken, m.ExpertsPerToken)
	m.Layers = pickInt(mo.Layers, m.Layers)
	m.Hidden = pickInt(mo.Hidden, m.Hidden)
	m.Heads = pickInt(mo.Heads, m.Heads)
	m.KVHeads = pickInt(mo.KVHeads, m.KVHeads)
	m.HeadDim = pickInt(mo.HeadDim, m.HeadDim)
	m.KVDim = pickInt(mo.KVDim, m.KVDim)
	m.FFN = pickInt(mo.FFN, m.FFN)
	m.Vocab = pickInt(mo.Vocab, m.Vocab)
	if mo.DtypeBytes > 0 {
		m.DtypeBytes, m.KVDtypeBytes = mo.DtypeBytes, 0
	}
	if m.ActiveParams > m.Params {
		return g, m, fieldErr("model_spec.active_params", fmt.Sprintf("%g active parameters exceed the %g in all", m.ActiveParams, m.Params))
	}
	if m.Experts > 0 && (m.ExpertsPerToken < 1 || m.ExpertsPerToken > m.Experts) {
		return g, m, fieldErr("model_spec.experts_per_token", fmt.Sprintf("must be between 1 and experts (%d), got %d", m.Experts, m.ExpertsPerToken))
	}
	kvb := m.KVDtypeBytes
	if kvb == 0 {
		kvb = m.DtypeBytes
	}
	switch spec.WeightDtype {
	case "bf16", "fp16":
		m.DtypeBytes = 2
	case "fp8":
		m.DtypeBytes, m.FP8Compute = 1, true
	case "int8":
		m.DtypeBytes = 1
	case "int4":
		m.DtypeBytes = 0.5
	}
	switch spec.KVCacheDtype {
	case "bf16", "fp16":
		kvb = 2
	case "fp8":
		kvb = 1
	}
	m.KVDtypeBytes = kvb
	if err := m.CheckTP(spec.TensorParallel); err != nil {
		return g, m, fieldErr("tensor_parallel", strings.TrimPrefix(err.Error(), "perf: "))
	}
	return g, m, nil
}

// hardwareNames is what results call the GPU and model.
func (spec *ClusterSpec) hardwareNames() (gpu, model string) {
	gpu, model = spec.GPU, spec.Model
	if spec.GPUSpec.Name != "" {
		gpu = spec.GPUSpec.Name
	} else if gpu != "" && spec.GPUSpec != (GPUOverride{}) {
		gpu += " (modified by gpu_spec)"
	}
	if spec.ModelSpec.Name != "" {
		model = spec.ModelSpec.Name
	} else if model != "" && spec.ModelSpec != (ModelOverride{}) {
		model += " (modified by model_spec)"
	}
	return gpu, model
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
		if !r.accepting() {
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
	// What routing reads of every replica at every arrival (accepting,
	// load) comes first, within two cache lines.
	cl       *cluster
	idx      int
	state    uint8
	failed   bool // down for a failure (still billed)
	busy     bool
	gen      uint32
	running  []int32
	waiting  deque
	waitingB deque // batch-priority requests when order = priority
	failures int   // failures in progress (they may overlap)
	readyAt  float64
	free     int         // free KV blocks
	prefixes prefixSet   // resident prefix-cache entries (prefix_set.go)
	bc       *blockCache // cached trace prefix blocks (cluster_blocks.go), or nil
	// what the cluster gauges last counted for this replica
	lastBatch int
	lastUsed  int

	// per-replica gauges and series (clusters of at most maxReplicaSeries)
	batchG, kvG, waitG sim.Gauge
	series             *ReplicaSeries

	kick       bool    // a start at the end of this instant is scheduled
	preempted  bool    // the iteration being planned preempted a sequence
	committed  int     // KV blocks reserved by running requests (no-evict)
	iter       int64   // iterations completed
	admitted   int64   // admissions so far (seqState.order)
	fast       bool    // the running iteration was planned from the aggregate
	runBuf     []int32 // the running list's buffer (pushRunning)
	runOff     int     // where the running list starts in it
	prefilling []int32
	dec        int     // decoding sequences in the aggregate
	cdec       float64 // their total context at the next iteration
	cnt        []int32 // decoding sequences by block-crossing phase (paged)
	fin        finQueue
	span       span
	spanCap    int       // iterations the next span may plan (adaptive)
	spanDT     []float64 // the span's iteration times
	finBuf     []int32
	joinBuf    []int32
	tier       *kvTier // CPU tier of the KV cache (kv_tier.go), or nil
	extraDT    float64 // CPU-tier reads charged to the iteration being planned
	incoming   int     // KV blocks reserved for transfers in and transferred requests waiting (decode pool)
	outgoing   int     // KV blocks held for transfers out (prefill pool)
}

func (r *replica) load() int { return r.waiting.len() + r.waitingB.len() + len(r.running) }

func (r *replica) waitingLen() int { return r.waiting.len() + r.waitingB.len() }

// blocksFor is how many blocks of bs tokens hold tokens.
func blocksFor(tokens, bs int) int {
	n := tokens + bs - 1
	if n >= 0 && bs&(bs-1) == 0 {
		return n >> bits.TrailingZeros(uint(bs)) // a power of two: no division
	}
	return n / bs
}

// blocksOf is blocksFor(tokens, c.bs), by the shift found when the cluster
// was built.
func (c *cluster) blocksOf(tokens int) int {
	n := tokens + c.bs - 1
	if n >= 0 && c.bsShift >= 0 {
		return n >> c.bsShift
	}
	return n / c.bs
}

// phase is mod(a, c.bs), by a mask when bs is a power of two.
func (c *cluster) phase(a int64) int64 {
	if c.bsShift >= 0 {
		return a & int64(c.bs-1)
	}
	return mod(a, int64(c.bs))
}

// maxTokens is the longest sequence (prompt plus output) a replica can
// ever hold: its KV capacity, or max_model_len when that is set.
func (c *cluster) maxTokens() int {
	n := c.blocks * c.bs
	if m := c.spec.KV.MaxModelLen; m > 0 && m < n {
		n = m
	}
	if c.pd != nil && c.pd.prefill {
		n = min(n, c.pd.other.maxTokens()) // it must fit a decode replica too
	}
	return n
}
