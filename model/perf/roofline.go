package perf

import (
	"fmt"
	"math"
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

// StepModel is the duration in seconds of one iteration.
type StepModel interface {
	// StepTime returns the duration in seconds of one iteration that
	// processes b. It is 0 for an empty batch.
	StepTime(b Batch) float64
}

// Roofline: compute-bound prefill, memory-bound decode.
//
// A step takes
//
//	Overhead + max(FLOPs / (TFLOPS·10¹²·ComputeEff·TP), Bytes / (BandwidthGBs·10⁹·BandwidthEff·TP))
//
// with FLOPs and Bytes as documented on [Roofline.FLOPs] and
// [Roofline.Bytes]. Tensor parallelism divides both work terms evenly across
// TP GPUs; there is no communication term (all-reduce latency is folded into
// Overhead by calibration). A zero ComputeEff or BandwidthEff means 1 (the
// datasheet peak) and a TP below 1 means 1, so Roofline{GPU: g, Model: m}
// is the ideal roofline.
type Roofline struct {
	// GPU is the accelerator (one of TP identical ones).
	GPU GPU
	// Model is the model served.
	Model Model
	// TP is the tensor-parallel degree (GPUs sharing one replica).
	TP int
	// ComputeEff is the achieved fraction of peak FLOP/s, in (0, 1].
	ComputeEff float64
	// BandwidthEff is the achieved fraction of peak memory bandwidth, in (0, 1].
	BandwidthEff float64
	// Overhead is a fixed cost per step in seconds (kernel launches,
	// scheduling, sampling, tensor-parallel synchronisation).
	Overhead float64
}

// FLOPs is the arithmetic of one step:
//
//	2 × ActiveParams × (Decode + Prefill)      (every matmul, LM head included)
//	+ 4 × Layers × Heads × HeadDim × pairs     (QKᵀ and PV, 2 FLOPs per multiply-add)
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
// sequences join the step; this choice keeps StepTime monotone.)
func (r *Roofline) FLOPs(b Batch) float64 {
	if b.empty() {
		return 0
	}
	m := r.Model
	lin := 2 * m.ActiveParams * float64(b.Tokens())
	return lin + 4*float64(m.Layers)*float64(m.Heads)*float64(m.HeadDim)*attentionPairs(b)
}

// attentionPairs is the number of (query, key) pairs of b; see Roofline.FLOPs.
func attentionPairs(b Batch) float64 {
	prefill := float64(max(b.Prefill, 0))
	pc := math.Max(b.PrefillContext, prefill)
	pairs := math.Max(b.Context-pc, 0)
	if prefill > 0 {
		seqs := float64(max(b.PrefillSeqs, 1))
		nbar := prefill / seqs
		pairs += prefill * (pc/seqs - nbar/2)
	}
	return pairs
}

// Bytes is the memory traffic of one step: every weight is read once
// (WeightBytes; for a mixture of experts this is the large-batch case where
// every expert is touched, an overestimate at small batch), attention reads
// Context tokens of KV cache, and the step's Decode + Prefill new tokens
// write theirs:
//
//	WeightBytes + (Context + Decode + Prefill) × KVBytesPerToken
//
// Activations are assumed to stay on chip.
func (r *Roofline) Bytes(b Batch) float64 {
	if b.empty() {
		return 0
	}
	m := r.Model
	return m.WeightBytes() + (math.Max(b.Context, 0)+float64(b.Tokens()))*m.KVBytesPerToken()
}

// tp, computeEff and bandwidthEff apply the zero-value defaults.
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

// ComputeTime is the compute-bound time of b in seconds (no overhead).
func (r *Roofline) ComputeTime(b Batch) float64 {
	return r.FLOPs(b) / (r.GPU.TFLOPS * 1e12 * r.computeEff() * r.tp())
}

// MemoryTime is the memory-bound time of b in seconds (no overhead).
func (r *Roofline) MemoryTime(b Batch) float64 {
	return r.Bytes(b) / (r.GPU.BandwidthGBs * 1e9 * r.bandwidthEff() * r.tp())
}

// StepTime is Overhead + max(ComputeTime, MemoryTime) in seconds, or 0 for
// an empty batch.
func (r *Roofline) StepTime(b Batch) float64 {
	if b.empty() {
		return 0
	}
	return r.Overhead + math.Max(r.ComputeTime(b), r.MemoryTime(b))
}

// Validate reports a roofline that cannot produce finite step times: a GPU
// without TFLOPS or bandwidth, a model without parameters, efficiencies
// outside [0, 1] (0 meaning 1), a negative overhead or TP.
func (r *Roofline) Validate() error {
	switch {
	case !(r.GPU.TFLOPS > 0) || !(r.GPU.BandwidthGBs > 0):
		return fmt.Errorf("perf: roofline GPU %q needs positive TFLOPS and BandwidthGBs", r.GPU.Name)
	case !(r.Model.ActiveParams > 0) || !(r.Model.Params > 0) || !(r.Model.DtypeBytes > 0):
		return fmt.Errorf("perf: roofline model %q needs positive Params, ActiveParams and DtypeBytes", r.Model.Name)
	case r.TP < 0:
		return fmt.Errorf("perf: roofline TP %d is negative", r.TP)
	case !(r.ComputeEff >= 0 && r.ComputeEff <= 1):
		return fmt.Errorf("perf: roofline ComputeEff %g outside (0, 1]", r.ComputeEff)
	case !(r.BandwidthEff >= 0 && r.BandwidthEff <= 1):
		return fmt.Errorf("perf: roofline BandwidthEff %g outside (0, 1]", r.BandwidthEff)
	case !(r.Overhead >= 0) || math.IsInf(r.Overhead, 1):
		return fmt.Errorf("perf: roofline Overhead %g must be a finite number >= 0", r.Overhead)
	}
	return nil
}
