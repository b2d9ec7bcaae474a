package perf

import (
	"fmt"
	"math"
	"strings"
)

// Batch is what one engine iteration processes.
//
// Under continuous batching one iteration (one forward pass) advances
// Decode sequences by one token each and feeds PrefillSeqs sequences a total
// of Prefill prompt tokens (whole prompts or chunks of them).
type Batch struct {
	// Decode is the number of sequences producing one token this step.
	Decode int
	// PrefillSeqs is the number of sequences with prompt tokens in this step.
	PrefillSeqs int
	// Prefill is the number of prompt tokens processed this step.
	Prefill int
	// Context is the number of KV tokens attention reads this step: the sum
	// of the context lengths of all sequences in the step (for a prefilling
	// sequence, the tokens before the chunk plus the chunk itself).
	Context float64
	// PrefillContext is optional (an addition to the original API): the part
	// of Context that belongs to the prefilling sequences, i.e. their cached
	// prefix (earlier chunks, prefix-cache hits) plus this step's chunk. Zero
	// means "fresh prompts", the same as Prefill. Only Roofline's attention
	// FLOPs use it; see Roofline.FLOPs.
	PrefillContext float64
}

// Seqs is the number of sequences in the step, Decode + PrefillSeqs.
func (b Batch) Seqs() int { return b.Decode + b.PrefillSeqs }

// Tokens is the number of tokens the step computes, Decode + Prefill.
func (b Batch) Tokens() int { return b.Decode + b.Prefill }

// empty reports whether the step does no work.
func (b Batch) empty() bool { return b.Decode <= 0 && b.Prefill <= 0 && b.PrefillSeqs <= 0 }

// SpanStepper is a StepModel that can time a run of pure decode steps
// whose context grows by the decode count each step, faster than one
// StepTime call each and with exactly the same values.
type SpanStepper interface {
	StepModel
	DecodeSpan(d int, ctx0 float64, dts []float64)
}

// StepModel is the duration in seconds of one iteration.
type StepModel interface {
	// StepTime returns the duration in seconds of one iteration that
	// processes b. It is 0 for an empty batch.
	StepTime(b Batch) float64
}

// Roofline: compute-bound prefill, memory-bound decode, plus what a real
// engine adds to each step.
//
// A step of N = Decode + Prefill tokens over S = Decode + PrefillSeqs
// sequences takes
//
//	Overhead + Layers·OverheadPerLayer + S·OverheadPerSeq     fixed costs
//	+ knee(Clin, Mlin)                                        linear layers
//	+ Eew                                                     element-wise kernels
//	+ Cattn                                                   prefill attention
//	+ Mkv                                                     decode attention, KV writes
//	+ Comm                                                    tensor-parallel all-reduces
//
// with, on each of TP GPUs,
//
//	Clin  = 2·(ActiveBlock·N + Head·S) / (peak·ComputeEff·TP)
//	Mlin  = (DenseBlock + Experts·touched(N) + Head)·weight bytes / (bandwidth·BandwidthEff·TP)
//	Eew   = N·Layers·ew(TP)·2 bytes / (bandwidth·ElementwiseEff)                  (per GPU)
//	Cattn = 4·Layers·Heads·HeadDim·prefill pairs / (BF16 peak·ComputeEff·TP)
//	Mkv   = (Context − prefill context + N)·KV bytes per token of the group / (bandwidth·BandwidthEff·TP)
//	Comm  = 2·Layers·(hops·CollectiveLatency + 2(TP−1)·N·Hidden·2 bytes / (TP·link·InterconnectEff))   (0 at TP 1)
//
// hops is the latency steps of one all-reduce (see AllReduce): 1 for the
// one-shot kernels engines run on NVLink and NVSwitch (vLLM's custom
// all-reduce, TensorRT-LLM's one-shot and two-shot kernels, NCCL NVLS), whose
// small-message time hardly grows with TP; 2(TP−1) for a ring, NCCL's
// algorithm over PCIe. The bytes are a ring's (also two-shot's) whatever the
// algorithm: engines switch to it for the large messages of prefill, where
// bandwidth rules.
//
// ActiveBlock and DenseBlock are the transformer blocks' parameters used per
// token (all of them for a dense model), Head the LM head (applied only to
// the S sampled positions, read once), peak the GPU's FP8 rate when the
// model computes in FP8 and its BF16 rate otherwise. For a mixture of E
// experts of which each token uses k, touched(N) = 1 − (1 − k/E)^N is the
// expected share of experts that N tokens routed independently and
// uniformly reach: one token reads its k experts, a large batch reads them
// all, so the memory term grows with the batch.
//
// ew(TP) is the activation elements one GPU's element-wise kernels read and
// write per token and layer: two RMS norms (read and write the hidden
// state, 2·2·Hidden) and a residual add (read two, write one: 3·Hidden) on
// the whole hidden state, which every rank holds, plus the rotary embedding
// of the queries and keys (2·(Heads + KVHeads)·HeadDim) and the gated
// activation (read 2·FFN, write FFN, for each of the top-k experts of a
// mixture) on the rank's share. Activations stay 16-bit whatever the weight
// dtype, so FP8 weights halve the GEMMs' time but not this term; and the
// norms do not shrink with TP. These are the element-wise operators vidur
// times beside the GEMMs (norms, rotary embedding, activation, residual
// add), and ElementwiseEff is what they achieve of the bandwidth there.
//
// knee(C, M) is max(C, M) (the ideal roofline), or with SmoothKnee
// sqrt(C² + M²): near the ridge point GEMMs reach neither peak, and vidur's
// operator profiles (Llama-2-7B and -70B on H100, Llama-3-8B on A100, TP 1
// to 8, 1 to 32k tokens) are followed to a median 4 % by the smooth form
// against 5 % by the hard one, with the worst point 66 % against 85 % off.
// The kernels of a step run one after another, so the attention, KV and
// communication terms add to the linear one.
//
// A zero ComputeEff, BandwidthEff, InterconnectEff or ElementwiseEff means 1 (the datasheet
// peak) and a TP below 1 means 1, so Roofline{GPU: g, Model: m} is the
// ideal roofline. DefaultRoofline gives the fitted defaults.
type Roofline struct {
	// GPU is the accelerator (one of TP identical ones).
	GPU GPU
	// Model is the model served, with its weight and KV dtypes.
	Model Model
	// TP is the tensor-parallel degree (GPUs sharing one replica).
	TP int
	// ComputeEff is the achieved fraction of peak FLOP/s, in (0, 1].
	ComputeEff float64
	// BandwidthEff is the achieved fraction of peak memory bandwidth, in (0, 1].
	BandwidthEff float64
	// SmoothKnee joins the compute and memory terms of the linear layers
	// as sqrt(C² + M²) instead of max(C, M).
	SmoothKnee bool
	// Overhead is a fixed cost per step in seconds (scheduling, launches).
	Overhead float64
	// OverheadPerLayer is a cost per layer and step in seconds (the
	// kernel launches and small element-wise kernels of one block).
	OverheadPerLayer float64
	// OverheadPerSeq is a cost per sequence and step in seconds (sampling,
	// input preparation, detokenisation).
	OverheadPerSeq float64
	// CollectiveLatency is the fixed time of one latency step of an
	// all-reduce in seconds: a one-shot all-reduce takes one, a ring over TP
	// GPUs 2(TP−1) (see AllReduce).
	CollectiveLatency float64
	// AllReduce is the all-reduce algorithm whose latency steps are paid.
	AllReduce AllReduce
	// InterconnectEff is the achieved fraction of the GPU link's
	// bandwidth in an all-reduce, in (0, 1].
	InterconnectEff float64
	// ElementwiseEff is the achieved fraction of memory bandwidth in the
	// element-wise kernels (norms, rotary embedding, activation, residual
	// add), in (0, 1].
	ElementwiseEff float64

	k coeffs // precomputed by Prepare; zero means compute on each call
}

// AllReduce is how a tensor-parallel all-reduce pays CollectiveLatency.
type AllReduce uint8

const (
	// AllReduceAuto is one-shot on NVLink, NVSwitch and Infinity Fabric
	// and a ring on a GPU whose link is PCIe (or an NVLink bridge of pairs,
	// beyond two GPUs): vLLM's and TensorRT-LLM's custom all-reduce kernels
	// need peer links between every pair of ranks and fall back to NCCL's
	// ring without them.
	AllReduceAuto AllReduce = iota
	// AllReduceOneShot pays CollectiveLatency once per all-reduce, whatever
	// the TP: every GPU reads its peers' partial sums in one step.
	AllReduceOneShot
	// AllReduceRing pays it 2(TP−1) times: a ring's reduce-scatter and
	// all-gather steps (NCCL's ring, and the 2023 engine of Splitwise's
	// profiles, whose steps the default latency is fitted to).
	AllReduceRing
)

// AllReduceNames are the algorithms' names in a scenario, by value.
var AllReduceNames = [...]string{"auto", "one-shot", "ring"}

// String is the algorithm's name in a scenario.
func (a AllReduce) String() string {
	if int(a) < len(AllReduceNames) {
		return AllReduceNames[a]
	}
	return fmt.Sprintf("AllReduce(%d)", a)
}

// hops is the latency steps of one all-reduce over tp GPUs of g.
func (a AllReduce) hops(g GPU, tp float64) float64 {
	// Auto: the ring where the GPUs lack peer links to every other rank (a
	// PCIe card, or NVLink bridges between pairs at more than two).
	pcie := strings.HasPrefix(g.Interconnect, "PCIe") || strings.Contains(g.Interconnect, "pairs") && tp > 2
	if a == AllReduceRing || (a == AllReduceAuto && pcie) {
		return 2 * (tp - 1)
	}
	return 1
}

// coeffs are a roofline's per-step constants, so that StepTime is a few
// multiplications.
type coeffs struct {
	ok                 bool
	fixed              float64 // Overhead + Layers·OverheadPerLayer
	perSeq             float64
	cTok, cSeq         float64 // linear compute seconds per token and per sequence
	mDense             float64 // linear memory seconds of the blocks' dense weights
	mHead              float64 // ... of the LM head
	mExpert            float64 // ... of all experts
	logMiss            float64 // ln(1 − k/E), 0 for a dense model
	cPair              float64 // prefill attention seconds per (query, key) pair
	ew                 float64 // element-wise seconds per token (all layers, one GPU)
	mKV                float64 // seconds per KV token read or written
	commFixed, commTok float64
	smooth             bool
	// dec[d] is decodeTerms' t for d sequences, 0 < d < len(dec): Prepare
	// fills it, so that a span or a decode step looks its fixed part up
	// instead of computing a square root and a dozen terms. Being part of
	// the coefficients, it is dropped wherever they are (r.k = coeffs{}).
	dec []float64
}

// decTable is how many decode counts Prepare tabulates: vLLM's default
// max_num_seqs is 256, and a replica batches at most that many sequences
// unless its configuration raises it.
const decTable = 1025

// Prepare computes the roofline's constants once; StepTime is then a few
// multiplications. Changing a field afterwards needs another Prepare.
func (r *Roofline) Prepare() {
	r.k = coeffs{}
	k := r.coeffs()
	dec := make([]float64, decTable)
	for d := 1; d < len(dec); d++ {
		dec[d] = k.decodeT(d)
	}
	k.dec = dec
	r.k = k
}

func (r *Roofline) coeffs() coeffs {
	if r.k.ok {
		return r.k
	}
	m, g := r.Model, r.GPU
	tp := r.tp()
	ce, be := r.computeEff(), r.bandwidthEff()
	peak := g.TFLOPS
	if m.FP8Compute && g.FP8TFLOPS > 0 {
		peak = g.FP8TFLOPS
	}
	flops := peak * 1e12 * ce * tp
	bw := g.BandwidthGBs * 1e9 * be * tp
	dense, experts := m.blockParams()
	active := dense
	var logMiss float64
	if experts > 0 {
		share := float64(m.ExpertsPerToken) / float64(m.Experts)
		active += experts * share
		logMiss = math.Log1p(-share)
	}
	head := m.headParams()
	if head >= m.ActiveParams {
		head = 0
	}
	k := coeffs{ok: true, smooth: r.SmoothKnee,
		fixed:   r.Overhead + float64(m.Layers)*r.OverheadPerLayer,
		perSeq:  r.OverheadPerSeq,
		cTok:    2 * active / flops,
		cSeq:    2 * head / flops,
		mDense:  dense * m.DtypeBytes / bw,
		mHead:   head * m.DtypeBytes / bw,
		mExpert: experts * m.DtypeBytes / bw,
		logMiss: logMiss,
		cPair:   4 * float64(m.Layers) * float64(m.Heads) * float64(m.HeadDim) / (g.TFLOPS * 1e12 * ce * tp),
		mKV:     m.KVGroupBytesPerToken(r.TP) / bw,
		ew:      float64(m.Layers) * m.elementwiseElems(r.TP) * activationBytes / (g.BandwidthGBs * 1e9 * r.elementwiseEff()),
	}
	if r.TP > 1 {
		colls := 2 * float64(m.Layers)
		k.commFixed = colls * r.AllReduce.hops(g, tp) * r.CollectiveLatency
		if g.InterconnectGBs > 0 {
			link := g.InterconnectGBs * 1e9 * r.interconnectEff()
			k.commTok = colls * 2 * (tp - 1) / tp * float64(m.Hidden) * 2 / link
		}
	}
	return k
}

// FLOPs is the arithmetic of one step:
//
//	2 × (ActiveBlock × (Decode + Prefill) + Head × sequences)   (every matmul)
//	+ 4 × Layers × Heads × HeadDim × pairs                      (QKᵀ and PV, 2 FLOPs per multiply-add)
//
// where pairs counts the (query, key) pairs attention evaluates. With
// pc = max(PrefillContext, Prefill) the context of the prefilling sequences
// and n̄ = Prefill / PrefillSeqs their mean chunk, a decode token attends to
// its whole context and a prompt token, causally, to its sequence's cached
// prefix plus on average half its chunk:
//
//	pairs = (Context − pc) + Prefill × (pc / PrefillSeqs − n̄/2)
//
// This is exact for decode-only steps, for steps of equal fresh prompts
// (pairs = Prefill × n̄/2) and, when PrefillContext is given, for any mix in
// which the prefilling sequences have equal chunks and prefixes. When
// PrefillContext is left at zero, prompts are taken to be fresh and any
// cached prefix of a prefilling sequence is counted as read by one query
// rather than by each of its chunk's queries, which under-counts attention
// for chunked prefill and prefix-cache hits. (Working from Context alone
// cannot be both exact for such a sequence and non-decreasing as decode
// sequences join the step; this choice keeps StepTime monotone.) In the
// step time, the prefill pairs are compute (Cattn) and the decode pairs
// are KV reads (Mkv).
func (r *Roofline) FLOPs(b Batch) float64 {
	if b.empty() {
		return 0
	}
	m := r.Model
	dense, experts := m.blockParams()
	active := dense
	if experts > 0 {
		active += experts * float64(m.ExpertsPerToken) / float64(m.Experts)
	}
	head := m.headParams()
	if head >= m.ActiveParams {
		head = 0
	}
	lin := 2 * (active*float64(b.Tokens()) + head*float64(b.Seqs()))
	d, p := splitPairs(b)
	return lin + 4*float64(m.Layers)*float64(m.Heads)*float64(m.HeadDim)*(d+p)
}

// attentionPairs is the number of (query, key) pairs of b; see Roofline.FLOPs.
func attentionPairs(b Batch) float64 {
	d, p := splitPairs(b)
	return d + p
}

// splitPairs is b's attention pairs of decoding tokens and of prompt
// tokens; see Roofline.FLOPs.
func splitPairs(b Batch) (decode, prefill float64) {
	return pairsOf(b.PrefillSeqs, b.Prefill, b.Context, b.PrefillContext)
}

// pairsOf is splitPairs of a batch given by its fields.
func pairsOf(prefillSeqs, prefillTok int, context, prefillContext float64) (decode, prefill float64) {
	// The two float maxima by comparisons, which cost fewer instructions
	// than max's handling of every case of NaN and signed zero for two
	// unknown operands, with its results: pf is never NaN nor −0, so
	// max(pctx, pf) is pctx when it is larger or NaN, else pf; and
	// max(x, 0) is x when it is positive or NaN, else +0.
	pf := float64(max(prefillTok, 0))
	pc := pf
	if prefillContext > pf || prefillContext != prefillContext {
		pc = prefillContext
	}
	decode = context - pc
	if !(decode > 0) && decode == decode {
		decode = 0
	}
	if pf > 0 {
		seqs := float64(max(prefillSeqs, 1))
		nbar := pf / seqs
		prefill = pf * (pc/seqs - nbar/2)
	}
	return decode, prefill
}

// Bytes is the memory traffic of one step on the whole group: the weights
// the step touches (all of a dense model's; a mixture of experts' dense
// part and the share touched(N) of its experts), the LM head, the KV cache
// the decoding tokens read and the KV every new token writes:
//
//	(DenseBlock + Experts·touched(N) + Head) × weight bytes + (Context − pc + N) × KV bytes per token
//	+ N × Layers × TP × ew(TP) × 2 bytes
//
// The last term is the element-wise kernels' activation traffic (see
// Roofline); the GEMMs' and attention's activations are assumed to stay on
// chip.
func (r *Roofline) Bytes(b Batch) float64 {
	if b.empty() {
		return 0
	}
	m := r.Model
	dense, experts := m.blockParams()
	head := m.headParams()
	if head >= m.ActiveParams {
		head = 0
	}
	w := dense + head
	if experts > 0 {
		w += experts * touched(float64(b.Tokens()), math.Log1p(-float64(m.ExpertsPerToken)/float64(m.Experts)))
	}
	d, _ := splitPairs(b)
	n := float64(b.Tokens())
	return w*m.DtypeBytes + (d+n)*m.KVGroupBytesPerToken(r.TP) + n*float64(m.Layers)*r.tp()*m.elementwiseElems(r.TP)*activationBytes
}

// touched is 1 − (1 − k/E)^n, written with logMiss = ln(1 − k/E).
func touched(n, logMiss float64) float64 {
	if n <= 0 {
		return 0
	}
	return -math.Expm1(n * logMiss)
}

// tp, computeEff, bandwidthEff and interconnectEff apply the zero-value defaults.
func (r *Roofline) tp() float64 { return float64(max(r.TP, 1)) }

func (r *Roofline) computeEff() float64 {
	if r.ComputeEff > 0 {
		return r.ComputeEff
	}
	return 1
}

func (r *Roofline) bandwidthEff() float64 {
	if r.BandwidthEff > 0 {
		return r.BandwidthEff
	}
	return 1
}

func (r *Roofline) interconnectEff() float64 {
	if r.InterconnectEff > 0 {
		return r.InterconnectEff
	}
	return 1
}

func (r *Roofline) elementwiseEff() float64 {
	if r.ElementwiseEff > 0 {
		return r.ElementwiseEff
	}
	return 1
}

// Parts is a step's time split into the terms of the roofline, in seconds.
type Parts struct {
	// Fixed is Overhead + Layers·OverheadPerLayer + sequences·OverheadPerSeq.
	Fixed float64
	// LinearCompute and LinearMemory are the linear layers' compute and
	// weight-reading times; Linear is their knee (max or smooth).
	LinearCompute, LinearMemory, Linear float64
	// Elementwise is the element-wise kernels' activation traffic.
	Elementwise float64
	// Attention is the prefill attention's compute time.
	Attention float64
	// KV is the time to read the decoding tokens' KV cache and write the new tokens'.
	KV float64
	// Comm is the tensor-parallel all-reduces' time.
	Comm float64
}

// Total is the step time: Fixed + Linear + Elementwise + Attention + KV + Comm.
func (p Parts) Total() float64 {
	return p.Fixed + p.Linear + p.Elementwise + p.Attention + p.KV + p.Comm
}

// Parts splits the step time of b into its terms (all 0 for an empty batch).
func (r *Roofline) Parts(b Batch) Parts {
	if b.empty() {
		return Parts{}
	}
	k := r.coeffs()
	n := float64(b.Tokens())
	s := float64(b.Seqs())
	d, p := splitPairs(b)
	var out Parts
	out.Fixed = k.fixed + s*k.perSeq
	out.LinearCompute = k.cTok*n + k.cSeq*s
	out.LinearMemory = k.mDense + k.mHead
	if k.mExpert > 0 {
		out.LinearMemory += k.mExpert * touched(n, k.logMiss)
	}
	if k.smooth {
		out.Linear = math.Sqrt(out.LinearCompute*out.LinearCompute + out.LinearMemory*out.LinearMemory)
	} else {
		out.Linear = math.Max(out.LinearCompute, out.LinearMemory)
	}
	out.Elementwise = k.ew * n
	out.Attention = k.cPair * p
	out.KV = k.mKV * (d + n)
	out.Comm = k.commFixed + k.commTok*n
	return out
}

// LinearTime is the time of b's linear layers and element-wise kernels
// with their per-layer kernel costs (Layers × OverheadPerLayer), which is
// what an operator profile such as vidur's times; see PartLinear.
func (r *Roofline) LinearTime(b Batch) float64 {
	if b.empty() {
		return 0
	}
	c, m := r.blockLinear(b)
	return r.knee(c, m) + r.coeffs().ew*float64(b.Tokens()) + float64(r.Model.Layers)*r.OverheadPerLayer
}

// blockLinear is the compute and memory time of the transformer blocks'
// linear layers for b (the LM head left out).
func (r *Roofline) blockLinear(b Batch) (c, m float64) {
	k := r.coeffs()
	n := float64(b.Tokens())
	m = k.mDense
	if k.mExpert > 0 {
		m += k.mExpert * touched(n, k.logMiss)
	}
	return k.cTok * n, m
}

func (r *Roofline) knee(c, m float64) float64 {
	if r.SmoothKnee {
		return math.Sqrt(c*c + m*m)
	}
	return max(c, m)
}

// Predict is r's prediction for a measurement: at the measurement's TP
// when it names one, and of what it timed (a step, or the linear layers).
func (r *Roofline) Predict(m Measurement) float64 {
	if m.TP > 0 && m.TP != r.TP {
		rr := *r
		rr.TP = m.TP
		rr.k = coeffs{}
		r = &rr
	}
	if m.Part == PartLinear {
		return r.LinearTime(m.Batch)
	}
	return r.StepTime(m.Batch)
}

// ComputeTime is the compute-bound part of b in seconds: the linear
// layers' compute and the prefill attention.
func (r *Roofline) ComputeTime(b Batch) float64 {
	p := r.Parts(b)
	return p.LinearCompute + p.Attention
}

// MemoryTime is the memory-bound part of b in seconds: the weights read
// and the KV traffic.
func (r *Roofline) MemoryTime(b Batch) float64 {
	p := r.Parts(b)
	return p.LinearMemory + p.KV
}

// StepTime is the step time of b in seconds (see Roofline), or 0 for an
// empty batch.
func (r *Roofline) StepTime(b Batch) float64 {
	// The batch's fields go to stepTime in registers: a struct of five
	// fields is kept in memory, every use of one a load (and the
	// arguments stored there first).
	return r.stepTime(b.Decode, b.PrefillSeqs, b.Prefill, b.Context, b.PrefillContext)
}

// stepTime is StepTime of the batch of these fields.
func (r *Roofline) stepTime(decode, prefillSeqs, prefill int, context, prefillContext float64) float64 {
	if decode <= 0 && prefill <= 0 && prefillSeqs <= 0 {
		return 0
	}
	k := &r.k
	if !k.ok {
		// Out of line: computing the coefficients here made the step of
		// a prepared roofline keep a copy of them on the stack.
		return r.stepUnprepared(Batch{Decode: decode, PrefillSeqs: prefillSeqs, Prefill: prefill, Context: context, PrefillContext: prefillContext})
	}
	n := float64(decode + prefill)
	s := float64(decode + prefillSeqs)
	c := k.cTok*n + k.cSeq*s
	m := k.mDense + k.mHead
	if k.mExpert > 0 {
		m += k.mExpert * touched(n, k.logMiss)
	}
	var lin float64
	if k.smooth {
		lin = math.Sqrt(c*c + m*m)
	} else {
		lin = max(c, m)
	}
	t := k.fixed + s*k.perSeq + lin + k.commFixed + (k.commTok+k.ew)*n
	if prefill > 0 || prefillContext > 0 {
		d, p := pairsOf(prefillSeqs, prefill, context, prefillContext)
		return t + k.cPair*p + k.mKV*(d+n)
	}
	return t + k.mKV*(max(context, 0)+n)
}

// stepUnprepared is StepTime of a roofline Prepare has not seen (or whose
// coefficients were dropped): StepTime of a copy with them computed.
func (r *Roofline) stepUnprepared(b Batch) float64 {
	rr := *r
	rr.k = r.coeffs()
	return rr.StepTime(b)
}

// decodeTerms is what a pure decode step of d > 0 sequences costs apart
// from their context, t, and the cost per token of context, mKV: the step
// at context ctx ≥ 0 takes t + mKV·(ctx + d), as StepTime computes it.
func (r *Roofline) decodeTerms(d int) (t, mKV float64) {
	k := &r.k
	if uint(d) < uint(len(k.dec)) {
		return k.dec[d], k.mKV
	}
	if !k.ok {
		kk := r.coeffs()
		k = &kk
	}
	return k.decodeT(d), k.mKV
}

// decodeT is decodeTerms' t computed, by StepTime's operations in
// StepTime's order.
func (k *coeffs) decodeT(d int) float64 {
	n := float64(d)
	s := float64(d)
	c := k.cTok*n + k.cSeq*s
	m := k.mDense + k.mHead
	if k.mExpert > 0 {
		m += k.mExpert * touched(n, k.logMiss)
	}
	var lin float64
	if k.smooth {
		lin = math.Sqrt(c*c + m*m)
	} else {
		lin = max(c, m)
	}
	return k.fixed + s*k.perSeq + lin + k.commFixed + (k.commTok+k.ew)*n
}

// DecodeTime is StepTime(Batch{Decode: d, Context: ctx}) for d > 0, bit
// for bit, with the terms that do not depend on the context looked up in
// the table Prepare made. It reports false, for the caller to call
// StepTime, when d is beyond the table (or the roofline unprepared): that
// keeps it small enough to be inlined at its call. A negative context is
// clamped by a comparison, as in DecodeSpan (max costs the inliner more).
func (r *Roofline) DecodeTime(d int, ctx float64) (float64, bool) {
	k := &r.k
	if uint(d) >= uint(len(k.dec)) {
		return 0, false
	}
	if ctx < 0 {
		ctx = 0
	}
	return k.dec[d] + k.mKV*(ctx+float64(d)), true
}

// DecodeSpan fills dts[j] with the time of a pure decode step of d
// sequences whose context is ctx0 + j·d, for every j; each value is
// bit-for-bit StepTime(Batch{Decode: d, Context: ctx0 + float64(j*d)}),
// with the terms that do not depend on the context computed once.
func (r *Roofline) DecodeSpan(d int, ctx0 float64, dts []float64) {
	if d <= 0 {
		clear(dts)
		return
	}
	n := float64(d)
	t, mKV := r.decodeTerms(d)
	// The loop holds mKV in a register (the stores to dts could alias the
	// coefficients) and clamps a negative context by a comparison, which
	// is max(ctx, 0) here: the two differ only at ctx = −0, where max
	// gives +0, and −0 + n = +0 + n for the n ≥ 1 added next.
	for j := range dts {
		ctx := ctx0 + float64(j*d)
		if ctx < 0 {
			ctx = 0
		}
		dts[j] = t + mKV*(ctx+n)
	}
}

// DecodeSpanEnd is DecodeSpan that also returns t0 + dts[0] + dts[1] + ...,
// added one after another in that order: the end of the span of steps
// starting at t0, bit for bit what summing dts after DecodeSpan gives, in
// one pass over them.
func (r *Roofline) DecodeSpanEnd(d int, ctx0 float64, dts []float64, t0 float64) float64 {
	if d <= 0 {
		clear(dts)
		for _, dt := range dts {
			t0 += dt
		}
		return t0
	}
	n := float64(d)
	var t, mKV float64 // see DecodeSpan
	if k := &r.k; uint(d) < uint(len(k.dec)) {
		t, mKV = k.dec[d], k.mKV // decodeTerms' lookup, inlined
	} else {
		t, mKV = r.decodeTerms(d)
	}
	end := t0
	for j := range dts {
		ctx := ctx0 + float64(j*d)
		if ctx < 0 {
			ctx = 0
		}
		dt := t + mKV*(ctx+n)
		dts[j] = dt
		end += dt
	}
	return end
}

// PromptTokenTime is the time one more prompt token adds to a step that
// prefills one fresh n-token prompt: (StepTime(n) − StepTime(1)) / (n − 1).
func (r *Roofline) PromptTokenTime(n int) float64 {
	if n < 2 {
		n = 2
	}
	one := r.StepTime(Batch{PrefillSeqs: 1, Prefill: 1, Context: 1})
	all := r.StepTime(Batch{PrefillSeqs: 1, Prefill: n, Context: float64(n)})
	return (all - one) / float64(n-1)
}

// Validate reports a roofline that cannot produce finite step times: a GPU
// without TFLOPS or bandwidth, a model without parameters, efficiencies
// outside [0, 1] (0 meaning 1), a negative or infinite time, a negative TP.
func (r *Roofline) Validate() error {
	switch {
	case !(r.GPU.TFLOPS > 0) || !(r.GPU.BandwidthGBs > 0) || math.IsInf(r.GPU.TFLOPS, 0) || math.IsInf(r.GPU.BandwidthGBs, 0):
		return fmt.Errorf("perf: roofline GPU %q needs positive TFLOPS and BandwidthGBs", r.GPU.Name)
	case !(r.Model.ActiveParams > 0) || !(r.Model.Params > 0) || !(r.Model.DtypeBytes > 0) || r.Model.ActiveParams > r.Model.Params:
		return fmt.Errorf("perf: roofline model %q needs positive Params, ActiveParams (at most Params) and DtypeBytes", r.Model.Name)
	case r.TP < 0:
		return fmt.Errorf("perf: roofline TP %d is negative", r.TP)
	case int(r.AllReduce) >= len(AllReduceNames):
		return fmt.Errorf("perf: roofline AllReduce %d unknown", r.AllReduce)
	case !(r.ComputeEff >= 0 && r.ComputeEff <= 1):
		return fmt.Errorf("perf: roofline ComputeEff %g outside (0, 1]", r.ComputeEff)
	case !(r.BandwidthEff >= 0 && r.BandwidthEff <= 1):
		return fmt.Errorf("perf: roofline BandwidthEff %g outside (0, 1]", r.BandwidthEff)
	case !(r.InterconnectEff >= 0 && r.InterconnectEff <= 1):
		return fmt.Errorf("perf: roofline InterconnectEff %g outside (0, 1]", r.InterconnectEff)
	case !(r.ElementwiseEff >= 0 && r.ElementwiseEff <= 1):
		return fmt.Errorf("perf: roofline ElementwiseEff %g outside (0, 1]", r.ElementwiseEff)
	}
	for name, v := range map[string]float64{"Overhead": r.Overhead, "OverheadPerLayer": r.OverheadPerLayer,
		"OverheadPerSeq": r.OverheadPerSeq, "CollectiveLatency": r.CollectiveLatency} {
		if !(v >= 0) || math.IsInf(v, 1) {
			return fmt.Errorf("perf: roofline %s %g must be a finite number >= 0", name, v)
		}
	}
	return nil
}
