package perf

// The roofline's default parameters, fitted only to the public
// measurements Headroom's tests read (TestDefaultsAreTheFit redoes both
// fits and fails if these drift):
//
//   - DefaultComputeEff, DefaultBandwidthEff and DefaultOverheadPerLayer
//     (with the smooth knee) from vidur's operator profiles of the linear
//     layers: Llama-2-7B and Llama-2-70B on H100, Llama-3-8B on A100, TP 1,
//     2, 4 and 8, 1 to 32,768 tokens (2,900 points). The per-layer cost is
//     what those profiles show beside the GEMMs' own time: about 31 µs of
//     kernel launches and small-GEMM latency per layer.
//   - DefaultCollectiveLatency from Splitwise's end-to-end profiles of
//     Llama-2-70B on DGX-A100 and DGX-H100 at TP 2, 4 and 8: how the step
//     grows with the tensor-parallel degree, 7.11 µs per ring step (that
//     2023 engine's all-reduce is a ring), fitted with its own per-layer
//     and per-sequence costs (164 µs and 276 µs) as free parameters. The
//     default roofline pays it once an all-reduce on NVLink (AllReduceAuto:
//     the one-shot kernels of current engines, whose small-message time
//     hardly grows with TP) and per ring step over PCIe.
//
// Those two engine costs of Splitwise's 2023 engine are not defaults: they
// are its software, not the hardware, and no engine-neutral data tells a
// per-sequence cost, so DefaultOverheadPerSeq is 0 (calibrate fits it to
// the planner's own measurements). The interconnect efficiency is left at
// 1: Splitwise's steps do not grow with the all-reduced bytes beyond what
// the per-token terms explain.
const (
	DefaultComputeEff        = 0.7019
	DefaultBandwidthEff      = 0.8495
	DefaultElementwiseEff    = 0.5283
	DefaultOverheadPerLayer  = 38.78e-6
	DefaultOverheadPerSeq    = 0.0
	DefaultCollectiveLatency = 7.11e-6
)

// DefaultRoofline is the roofline of g serving m on tp GPUs with the
// default parameters and the smooth knee.
func DefaultRoofline(g GPU, m Model, tp int) Roofline {
	return Roofline{GPU: g, Model: m, TP: tp, SmoothKnee: true,
		ComputeEff: DefaultComputeEff, BandwidthEff: DefaultBandwidthEff, ElementwiseEff: DefaultElementwiseEff,
		OverheadPerLayer: DefaultOverheadPerLayer, OverheadPerSeq: DefaultOverheadPerSeq,
		CollectiveLatency: DefaultCollectiveLatency}
}
