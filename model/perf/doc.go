// Package perf models how long one iteration of a self-hosted LLM serving
// engine (vLLM-style continuous batching) takes, and calibrates those models
// against measurements. It knows nothing about the rest of Headroom: the
// cluster backend asks a StepModel for the duration of each engine step.
//
// # Catalogue
//
// GPUs and Models are vendor datasheets and each model's config.json:
// dense BF16 and FP8 TFLOP/s, memory bandwidth and size, and the
// GPU-to-GPU link of eleven accelerators; the transformer shapes of
// seventeen open models, mixtures of experts (experts, top-k) and a latent
// KV (DeepSeek-V3) included, each with its source. From a shape follow the
// KV-cache bytes per token (2 × layers × KV heads × head dim × KV bytes, or
// layers × latent × KV bytes), the weights, and KVCapacityTokens, the
// tokens of KV cache that fit beside the weights on a tensor-parallel
// group (KV heads replicated when TP exceeds them). Model.CheckTP refuses
// a TP that does not split the heads.
//
// # Step models
//
// A Batch describes one engine iteration: Decode sequences each produce a
// token, PrefillSeqs sequences feed Prefill prompt tokens, and attention
// reads Context cached tokens in total. A StepModel turns a Batch into
// seconds. There are two.
//
// Roofline is the analytical model: fixed costs per step, layer and
// sequence; the linear layers' compute and weight reads joined by a knee
// (max, or the smooth sqrt(C² + M²)); the element-wise kernels' activation
// traffic (norms, rotary embedding, activation, residual add); prefill attention as compute; decode
// attention and KV writes as memory traffic; and the tensor-parallel
// all-reduces (a latency once an all-reduce on NVLink, per ring step over
// PCIe or with AllReduceRing, plus a ring's bytes over the link). Weights
// and KV have their own dtypes, FP8 weights run at the FP8 rate, and a
// mixture of experts reads the share of its experts a batch touches. See
// Roofline for the formula and its assumptions; DefaultRoofline gives the
// defaults, fitted to public data (defaults.go).
//
// Table is the empirical model: a measured step-time curve against batch
// size, linearly interpolated (held below the first point, extrapolated
// along the last segment beyond the last), plus a cost per prompt token and
// per context token.
//
// # Calibration
//
// ReadSplitwise reads the Splitwise profiling table (Patel et al., ISCA
// 2024), ReadStepCSV a simple documented CSV of one's own measurements and
// ReadVidurMLP vidur's operator profiles (Agrawal et al., MLSys 2024), all
// into Measurements; a Measurement may carry its own TP and say it timed
// only the linear layers (PartLinear). FitRooflineWith fits any set of the
// roofline's parameters within bounds by minimising the mean squared
// relative error with gonum's Nelder–Mead, says which parameters the data
// cannot tell apart (DefaultFree) and which ended on a bound, and gives a
// cross-validated error beside the in-sample one; FitRoofline is its short
// form. FitTable builds a Table when no GPU or model is known.
// ErrorSummary reports the mean, 90th-percentile and maximum absolute
// relative error. Any reader that produces Measurements (a load-test
// reader giving per-step times, for instance) feeds the same fits.
package perf
