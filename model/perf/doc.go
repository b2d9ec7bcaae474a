// Package perf models how long one iteration of a self-hosted LLM serving
// engine (vLLM-style continuous batching) takes, and calibrates those models
// against measurements. It knows nothing about the rest of Headroom: the
// cluster backend asks a StepModel for the duration of each engine step.
//
// # Catalogue
//
// GPUs and Models are the datasheet and config.json figures of
// shared/research/data-notes.md §3: dense BF16 TFLOP/s, memory bandwidth and
// size for ten accelerators, and the transformer shapes of nine open models.
// From a shape follow the KV-cache bytes per token,
// 2 × layers × kv_heads × head_dim × dtype bytes, the weight bytes,
// params × dtype bytes, and KVCapacityTokens, the number of tokens of KV
// cache that fit beside the weights on a tensor-parallel group.
//
// # Step models
//
// A Batch describes one engine iteration: Decode sequences each produce a
// token, PrefillSeqs sequences feed Prefill prompt tokens, and attention
// reads Context cached tokens in total. A StepModel turns a Batch into
// seconds. There are two:
//
// Roofline is the analytical model. A step costs a fixed Overhead plus the
// larger of its compute time and its memory time,
//
//	FLOPs = 2·ActiveParams·(Decode + Prefill) + 4·Layers·Heads·HeadDim·pairs
//	Bytes = WeightBytes + (Context + Decode + Prefill)·KVBytesPerToken
//	time  = Overhead + max(FLOPs / (TFLOPS·10¹²·ComputeEff·TP),
//	                       Bytes / (BandwidthGBs·10⁹·BandwidthEff·TP))
//
// where pairs counts the (query, key) pairs attention evaluates (see
// Roofline.FLOPs; it is exact for chunked prefill and prefix-cache hits only
// when the caller fills the optional Batch.PrefillContext). Decode steps read every weight to produce a few tokens
// and are memory-bound; prefill of a long prompt reuses each weight for
// thousands of tokens and is compute-bound; the knee lies near
// TFLOPS/bandwidth tokens per step (≈300 on an H100 at datasheet peaks,
// which matches the 128–256-token knee vidur measures for Llama-2-7B).
// Assumptions: tensor parallelism splits both work terms evenly over TP GPUs
// and costs nothing extra (no all-reduce term: calibration folds it into
// Overhead); compute and memory traffic overlap perfectly (max, not sum);
// activations stay on chip; a mixture of experts reads all its weights every
// step (true at large batch, pessimistic at batch 1); no speculative
// decoding, quantisation or prefix-cache hits beyond what the caller puts in
// Context.
//
// Table is the empirical model: a measured step-time curve against batch
// size, linearly interpolated (held below the first point, extrapolated
// along the last segment beyond the last), plus a cost per prompt token and
// per context token.
//
// # Calibration
//
// ReadSplitwise reads the Splitwise profiling table (Patel et al., ISCA
// 2024; DGX-A100 and DGX-H100 measurements of Llama-2-70B and BLOOM-176B)
// and ReadStepCSV a simple documented CSV of one's own measurements, both
// into Measurements. FitRoofline fits a Roofline's two efficiencies and
// overhead to them by minimising the mean squared relative error with
// gonum's Nelder–Mead; FitTable builds a Table when no GPU or model
// specification is known. ErrorSummary reports the mean, 90th-percentile
// and maximum absolute relative error of a fit.
//
// On the Splitwise Llama-2-70B TP8 profiles the fitted roofline reproduces
// decode steps to about 5–6 % mean error and prefill to about 12–15 %. Its
// known misfits are structural: the measured decode step grows by about
// 0.3 ms per sequence (30 → 50 ms from batch 1 to 64 on H100), which a
// max(compute, memory) form with one ComputeEff shared with prefill cannot
// follow, so decode at batch 64 is predicted about 30 % short; and the
// measured prefill cost per token rises 1.5–2× between 2k and 4k tokens in a
// step, which no single compute efficiency follows. A fitted Table follows
// the decode curve to about 2 %.
package perf
