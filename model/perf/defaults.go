package perf

// The roofline's default parameters, fitted only to the public
// measurements Headroom ships tests against (TestDefaultsAreTheFit redoes
// both fits and fails if these drift):
//
//   - DefaultComputeEff and DefaultBandwidthEff (with the smooth knee)
//     from vidur's operator profiles of the linear layers: Llama-2-7B and
//     Llama-2-70B on H100, Llama-3-8B on A100, TP 1, 2, 4 and 8, 1 to 32,768
//     tokens (2,900 points; the per-layer kernel latency of those eager-mode
//     profiles, 31 µs, is fitted beside them and not used);
//   - DefaultOverheadPerLayer, DefaultOverheadPerSeq and
//     DefaultCollectiveLatency from Splitwise's end-to-end profiles of
//     Llama-2-70B on DGX-A100 and DGX-H100 at TP 2, 4 and 8 (prefill and
//     decode steps, batch 1 to 64, prompts of 128 to 8,192 tokens), with the
//     efficiencies above held fixed. The per-step cost is put per layer
//     (Splitwise has one depth, so a per-step or a per-layer constant fit
//     it equally; per layer it scales to other models as kernel launches do).
//
// The interconnect efficiency is left at 1: Splitwise's steps do not grow
// with the all-reduced bytes beyond what the per-token terms explain.
const (
	DefaultComputeEff        = 0.7061
	DefaultBandwidthEff      = 0.8937
	DefaultOverheadPerLayer  = 187.0e-6
	DefaultOverheadPerSeq    = 270.0e-6
	DefaultCollectiveLatency = 6.7e-6
)

// DefaultRoofline is the roofline of g serving m on tp GPUs with the
// default parameters and the smooth knee.
func DefaultRoofline(g GPU, m Model, tp int) Roofline {
	return Roofline{GPU: g, Model: m, TP: tp, SmoothKnee: true,
		ComputeEff: DefaultComputeEff, BandwidthEff: DefaultBandwidthEff,
		OverheadPerLayer: DefaultOverheadPerLayer, OverheadPerSeq: DefaultOverheadPerSeq,
		CollectiveLatency: DefaultCollectiveLatency}
}
