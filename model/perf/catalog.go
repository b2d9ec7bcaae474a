package perf

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/headroom-sim/headroom/scenarios/schema"
)

// GPU is one accelerator's datasheet figures (dense, no sparsity).
//
// TFLOPS is the dense BF16 tensor throughput in 10¹² FLOP/s, FP8TFLOPS the
// dense FP8 one (0 when the GPU has no FP8 tensor cores), BandwidthGBs the
// memory bandwidth in 10⁹ bytes/s and MemoryGB the usable device memory in
// 10⁹ bytes (decimal units throughout, as on datasheets). InterconnectGBs
// is the bandwidth one GPU can send to its peers in one direction, which
// bounds a ring all-reduce (NVLink 4: 900 GB/s both ways, 450 one way).
type GPU struct {
	// Name is the catalogue name, e.g. "H100-SXM".
	Name string
	// TFLOPS is dense BF16 throughput, 10¹² FLOP/s (no 2:4 sparsity).
	TFLOPS float64
	// FP8TFLOPS is dense FP8 throughput, 10¹² FLOP/s; 0 means no FP8 tensor
	// cores (FP8 weights are then widened and run at TFLOPS).
	FP8TFLOPS float64
	// BandwidthGBs is memory bandwidth, 10⁹ bytes/s.
	BandwidthGBs float64
	// MemoryGB is device memory, 10⁹ bytes.
	MemoryGB float64
	// Interconnect names the GPU-to-GPU link, e.g. "NVLink 4" or "PCIe 4.0 x16".
	Interconnect string
	// InterconnectGBs is the link bandwidth per GPU in one direction, 10⁹ bytes/s.
	InterconnectGBs float64
	// Source names where the figures come from.
	Source string
}

// Model is a transformer's shape.
//
// Params counts every parameter (embeddings and LM head included);
// ActiveParams is the number used per token, equal to Params for a dense
// model and smaller for a mixture of experts, which also sets Experts (the
// routed experts per layer) and ExpertsPerToken (top-k). HeadDim is the
// per-head dimension, KVHeads the number of key/value heads (fewer than
// Heads under grouped-query attention) and DtypeBytes the bytes per weight
// and per KV element of the published checkpoint (2 for bf16). KVDim, when
// set, is the size of a compressed per-layer KV entry that every
// tensor-parallel rank holds whole (DeepSeek's multi-head latent attention:
// 512 + 64); otherwise a layer keeps 2 × KVHeads × HeadDim per token.
type Model struct {
	// Name is the catalogue name, lower case, e.g. "llama-3.1-8b".
	Name string
	// Params is the total parameter count.
	Params float64
	// ActiveParams is the parameter count used per token (= Params if dense).
	ActiveParams float64
	// Layers is the number of transformer blocks.
	Layers int
	// Hidden is the model (residual stream) width.
	Hidden int
	// Heads is the number of query heads.
	Heads int
	// KVHeads is the number of key/value heads.
	KVHeads int
	// HeadDim is the dimension of one attention head.
	HeadDim int
	// FFN is the MLP intermediate width (per expert for a mixture of experts).
	FFN int
	// Vocab is the vocabulary size.
	Vocab int
	// DtypeBytes is bytes per weight (2 for bf16, 1 for FP8, 0.5 for INT4),
	// and per KV-cache element unless KVDtypeBytes is set.
	DtypeBytes float64
	// KVDtypeBytes is bytes per KV-cache element (0: DtypeBytes).
	KVDtypeBytes float64
	// FP8Compute runs the linear layers on FP8 tensor cores (FP8 weights and
	// activations, W8A8) at the GPU's FP8TFLOPS, when it has them.
	FP8Compute bool
	// Experts is the number of routed experts per MoE layer (0: dense).
	Experts int
	// ExpertsPerToken is how many routed experts each token uses (top-k).
	ExpertsPerToken int
	// KVDim is a latent KV entry's elements per layer and token, replicated
	// on every tensor-parallel rank (0: 2 × KVHeads × HeadDim, split by heads).
	KVDim int
	// TiedEmbeddings is true when the LM head shares the embedding matrix.
	TiedEmbeddings bool
	// Source names where the shape comes from.
	Source string
}

// Datasheet sources of the GPU catalogue.
const (
	srcNVIDIAA100 = "NVIDIA A100 datasheet"
	srcNVIDIAH100 = "NVIDIA H100 datasheet (SXM, PCIe, NVL columns; dense = half the sparse figure)"
	srcNVIDIAH200 = "NVIDIA H200 datasheet"
	srcNVIDIAB200 = "NVIDIA HGX B200 datasheet (1000 W part, 180 GB usable)"
	srcNVIDIAL40S = "NVIDIA L40S datasheet"
	srcNVIDIAL4   = "NVIDIA L4 datasheet"
	srcAWSA10G    = "AWS G5 (A10G) documentation; NVIDIA's A10 datasheet gives 125 TFLOP/s"
	srcAMDMI300X  = "AMD Instinct MI300X datasheet (7 Infinity Fabric links of 64 GB/s each way)"
)

// gpus is the catalogue: vendor datasheets, dense figures (no 2:4
// sparsity). A10G's 70 TFLOPS is the figure commonly quoted for AWS's A10G,
// whereas NVIDIA's A10 datasheet gives 125. B200 is the 1000 W HGX part with
// 180 GB usable. PCIe cards list the PCIe link of their slot; H100 NVL
// pairs are bridged by NVLink at 600 GB/s both ways.
var gpus = []GPU{
	{Name: "A10G", TFLOPS: 70, BandwidthGBs: 600, MemoryGB: 24, Interconnect: "PCIe 4.0 x16", InterconnectGBs: 32, Source: srcAWSA10G},
	{Name: "L4", TFLOPS: 121, FP8TFLOPS: 242, BandwidthGBs: 300, MemoryGB: 24, Interconnect: "PCIe 4.0 x16", InterconnectGBs: 32, Source: srcNVIDIAL4},
	{Name: "L40S", TFLOPS: 362, FP8TFLOPS: 733, BandwidthGBs: 864, MemoryGB: 48, Interconnect: "PCIe 4.0 x16", InterconnectGBs: 32, Source: srcNVIDIAL40S},
	{Name: "A100-40GB", TFLOPS: 312, BandwidthGBs: 1555, MemoryGB: 40, Interconnect: "NVLink 3", InterconnectGBs: 300, Source: srcNVIDIAA100},
	{Name: "A100-80GB", TFLOPS: 312, BandwidthGBs: 2039, MemoryGB: 80, Interconnect: "NVLink 3", InterconnectGBs: 300, Source: srcNVIDIAA100},
	{Name: "H100-SXM", TFLOPS: 989, FP8TFLOPS: 1979, BandwidthGBs: 3350, MemoryGB: 80, Interconnect: "NVLink 4", InterconnectGBs: 450, Source: srcNVIDIAH100},
	{Name: "H100-PCIe", TFLOPS: 756, FP8TFLOPS: 1513, BandwidthGBs: 2000, MemoryGB: 80, Interconnect: "PCIe 5.0 x16", InterconnectGBs: 64, Source: srcNVIDIAH100},
	{Name: "H100-NVL", TFLOPS: 835, FP8TFLOPS: 1671, BandwidthGBs: 3900, MemoryGB: 94, Interconnect: "NVLink bridge (pairs)", InterconnectGBs: 300, Source: srcNVIDIAH100},
	{Name: "H200", TFLOPS: 989, FP8TFLOPS: 1979, BandwidthGBs: 4800, MemoryGB: 141, Interconnect: "NVLink 4", InterconnectGBs: 450, Source: srcNVIDIAH200},
	{Name: "B200", TFLOPS: 2250, FP8TFLOPS: 4500, BandwidthGBs: 8000, MemoryGB: 180, Interconnect: "NVLink 5", InterconnectGBs: 900, Source: srcNVIDIAB200},
	{Name: "MI300X", TFLOPS: 1307, FP8TFLOPS: 2615, BandwidthGBs: 5300, MemoryGB: 192, Interconnect: "Infinity Fabric", InterconnectGBs: 448, Source: srcAMDMI300X},
}

// gpuAliases maps other spellings (lower case) to catalogue names: the
// Splitwise profiles call the DGX parts "a100-80gb" (which already
// matches) and "h100-80gb". A bare family name ("h100", "a100") is not an
// alias: its forms differ in bandwidth and compute, so the error lists
// them (unknownName).
var gpuAliases = map[string]string{
	"h100-80gb": "H100-SXM",
	"h100-sxm5": "H100-SXM",
	"h200-sxm":  "H200",
	"h100-94gb": "H100-NVL",
}

// Sources of the model catalogue: each model's published config.json.
const (
	srcHF = "the model's config.json on Hugging Face"
)

// models is the catalogue (from each model's config.json and paper).
// Mixture-of-experts counts: Mixtral 8x7B 46.7B total / 12.9B active
// (Mixtral paper), 8x22B 141B / 39B (Mistral's announcement), Qwen3-30B-A3B
// 30.5B / 3.3B and Qwen3-235B-A22B 235B / 22B (Qwen3 model cards),
// DeepSeek-V3 671B / 37B (DeepSeek-V3 report, without the 14B
// multi-token-prediction module), its KV a 512 + 64 latent per layer.
var models = []Model{
	{Name: "llama-3.1-8b", Params: 8.03e9, ActiveParams: 8.03e9, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, FFN: 14336, Vocab: 128256, DtypeBytes: 2, Source: srcHF},
	{Name: "llama-3.1-70b", Params: 70.6e9, ActiveParams: 70.6e9, Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, FFN: 28672, Vocab: 128256, DtypeBytes: 2, Source: srcHF},
	{Name: "llama-3.3-70b", Params: 70.6e9, ActiveParams: 70.6e9, Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, FFN: 28672, Vocab: 128256, DtypeBytes: 2, Source: srcHF},
	{Name: "llama-3.1-405b", Params: 405e9, ActiveParams: 405e9, Layers: 126, Hidden: 16384, Heads: 128, KVHeads: 8, HeadDim: 128, FFN: 53248, Vocab: 128256, DtypeBytes: 2, Source: srcHF},
	{Name: "mistral-7b", Params: 7.24e9, ActiveParams: 7.24e9, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, FFN: 14336, Vocab: 32000, DtypeBytes: 2, Source: srcHF},
	{Name: "mixtral-8x7b", Params: 46.7e9, ActiveParams: 12.9e9, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, FFN: 14336, Vocab: 32000, DtypeBytes: 2, Experts: 8, ExpertsPerToken: 2, Source: srcHF},
	{Name: "mixtral-8x22b", Params: 141e9, ActiveParams: 39e9, Layers: 56, Hidden: 6144, Heads: 48, KVHeads: 8, HeadDim: 128, FFN: 16384, Vocab: 32768, DtypeBytes: 2, Experts: 8, ExpertsPerToken: 2, Source: srcHF},
	{Name: "qwen2.5-7b", Params: 7.61e9, ActiveParams: 7.61e9, Layers: 28, Hidden: 3584, Heads: 28, KVHeads: 4, HeadDim: 128, FFN: 18944, Vocab: 152064, DtypeBytes: 2, Source: srcHF},
	{Name: "qwen2.5-72b", Params: 72.7e9, ActiveParams: 72.7e9, Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, FFN: 29568, Vocab: 152064, DtypeBytes: 2, Source: srcHF},
	{Name: "qwen3-8b", Params: 8.19e9, ActiveParams: 8.19e9, Layers: 36, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, FFN: 12288, Vocab: 151936, DtypeBytes: 2, Source: srcHF},
	{Name: "qwen3-32b", Params: 32.8e9, ActiveParams: 32.8e9, Layers: 64, Hidden: 5120, Heads: 64, KVHeads: 8, HeadDim: 128, FFN: 25600, Vocab: 151936, DtypeBytes: 2, Source: srcHF},
	{Name: "qwen3-30b-a3b", Params: 30.5e9, ActiveParams: 3.3e9, Layers: 48, Hidden: 2048, Heads: 32, KVHeads: 4, HeadDim: 128, FFN: 768, Vocab: 151936, DtypeBytes: 2, Experts: 128, ExpertsPerToken: 8, Source: srcHF},
	{Name: "qwen3-235b-a22b", Params: 235e9, ActiveParams: 22e9, Layers: 94, Hidden: 4096, Heads: 64, KVHeads: 4, HeadDim: 128, FFN: 1536, Vocab: 151936, DtypeBytes: 2, Experts: 128, ExpertsPerToken: 8, Source: srcHF},
	{Name: "deepseek-v3", Params: 671e9, ActiveParams: 37e9, Layers: 61, Hidden: 7168, Heads: 128, KVHeads: 128, HeadDim: 128, FFN: 2048, Vocab: 129280, DtypeBytes: 1, KVDtypeBytes: 2, Experts: 256, ExpertsPerToken: 8, KVDim: 576, Source: srcHF + " (FP8 weights as published, BF16 KV of a 512 + 64 latent)"},
	{Name: "llama-2-7b", Params: 6.7e9, ActiveParams: 6.7e9, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, HeadDim: 128, FFN: 11008, Vocab: 32000, DtypeBytes: 2, Source: srcHF},
	{Name: "llama-2-13b", Params: 13.0e9, ActiveParams: 13.0e9, Layers: 40, Hidden: 5120, Heads: 40, KVHeads: 40, HeadDim: 128, FFN: 13824, Vocab: 32000, DtypeBytes: 2, Source: srcHF},
	{Name: "llama-2-70b", Params: 69e9, ActiveParams: 69e9, Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, FFN: 28672, Vocab: 32000, DtypeBytes: 2, Source: srcHF},
}

// GPUs returns the built-in GPU catalogue (a fresh copy): A10G, L4, L40S,
// A100-40GB, A100-80GB, H100-SXM, H100-PCIe, H100-NVL, H200, B200 and
// MI300X.
func GPUs() []GPU { return append([]GPU(nil), gpus...) }

// Models returns the built-in model catalogue (a fresh copy), in
// catalogue order; all are bf16 checkpoints except deepseek-v3 (FP8).
func Models() []Model { return append([]Model(nil), models...) }

// LookupGPU finds a catalogue GPU by name, ignoring case. A few aliases are
// accepted too (Splitwise's "h100-80gb" means H100-SXM). The error lists
// the catalogue names and suggests the closest: every form of a family
// ("H100": H100-SXM, H100-PCIe or H100-NVL), or a near spelling.
func LookupGPU(name string) (GPU, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	if alias, ok := gpuAliases[key]; ok {
		key = strings.ToLower(alias)
	}
	for _, g := range gpus {
		if strings.ToLower(g.Name) == key {
			return g, nil
		}
	}
	names := make([]string, len(gpus))
	for i, g := range gpus {
		names[i] = g.Name
	}
	return GPU{}, fmt.Errorf("perf: %s", unknownName("GPU", name, names))
}

// LookupModel finds a catalogue model by name, ignoring case and the
// punctuation '-', '_' and ' ' (so Splitwise's "llama2-70b" and
// "Llama-2-70B" both find llama-2-70b). The error lists the catalogue names
// and suggests the closest, as LookupGPU's does ("llama-70b": the 70B
// Llamas).
func LookupModel(name string) (Model, error) {
	key := modelKey(name)
	for _, m := range models {
		if modelKey(m.Name) == key {
			return m, nil
		}
	}
	names := make([]string, len(models))
	for i, m := range models {
		names[i] = m.Name
	}
	sort.Strings(names)
	return Model{}, fmt.Errorf("perf: %s", unknownName("model", name, names))
}

// unknownName is the message for a name not in the catalogue: the names
// allowed, then the ones meant. A name whose parts (split at '-', '_', ' ')
// each begin a catalogue name's parts, in order, means each such name (a
// family: "H100", "qwen3", "llama-70b", "Llama-3-8B" for llama-3.1-8b);
// otherwise the nearest spelling, if one is close enough to be a typo.
func unknownName(noun, name string, names []string) string {
	msg := fmt.Sprintf("unknown %s %q; allowed: %s", noun, name, schema.List(names))
	want := nameParts(name)
	var family []string
	for _, n := range names {
		if len(want) > 0 && subsequence(want, nameParts(n)) {
			family = append(family, n)
		}
	}
	switch {
	case len(family) > 0:
		q := make([]string, len(family))
		for i, f := range family {
			q[i] = strconv.Quote(f)
		}
		if len(q) == 1 {
			return msg + "; did you mean " + q[0] + "?"
		}
		return msg + "; did you mean " + strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1] + "?"
	default:
		return msg + schema.DidYouMean(name, names)
	}
}

// nameParts splits a name, lower case, at '-', '_' and ' '.
func nameParts(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == '-' || r == '_' || r == ' ' })
}

// subsequence reports whether every part of a begins a part of b, in
// order.
func subsequence(a, b []string) bool {
	j := 0
	for _, p := range b {
		if j < len(a) && strings.HasPrefix(p, a[j]) {
			j++
		}
	}
	return j == len(a)
}

// modelKey folds case and drops '-', '_' and ' ' ('.' is kept so that
// "qwen2.5-7b" cannot collide with a hypothetical "qwen25-7b").
func modelKey(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', ' ':
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(s)))
}

// kvBytes is bytes per KV element.
func (m Model) kvBytes() float64 {
	if m.KVDtypeBytes > 0 {
		return m.KVDtypeBytes
	}
	return m.DtypeBytes
}

// KVBytesPerToken is the KV-cache size of one token across all layers on
// one GPU: 2 (K and V) × Layers × KVHeads × HeadDim × KV bytes, or
// Layers × KVDim × KV bytes for a latent KV.
func (m Model) KVBytesPerToken() float64 {
	if m.KVDim > 0 {
		return float64(m.Layers) * float64(m.KVDim) * m.kvBytes()
	}
	return 2 * float64(m.Layers) * float64(m.KVHeads) * float64(m.HeadDim) * m.kvBytes()
}

// KVGroupBytesPerToken is the KV-cache memory one token takes on a whole
// tensor-parallel group of tp GPUs. Heads are split across the ranks; when
// tp exceeds KVHeads each KV head is replicated on tp/KVHeads ranks (as
// vLLM does), and a latent KV (KVDim) is held whole by every rank.
func (m Model) KVGroupBytesPerToken(tp int) float64 {
	tp = max(tp, 1)
	if m.KVDim > 0 {
		return m.KVBytesPerToken() * float64(tp)
	}
	return 2 * float64(m.Layers) * float64(max(m.KVHeads, tp)) * float64(m.HeadDim) * m.kvBytes()
}

// activationBytes is the size of an activation element: engines keep the
// hidden state in 16 bits whatever the weights' dtype.
const activationBytes = 2

// elementwiseElems is the activation elements the element-wise kernels of
// one layer read and write per token on one of tp GPUs: two RMS norms
// (2 × 2 × Hidden) and a residual add (3 × Hidden) over the whole hidden
// state, which every rank holds; the rotary embedding of the rank's query
// and key heads (2 × (Heads + KVHeads) × HeadDim / tp); and the gated
// activation of its share of the FFN (read 2 × FFN, write FFN, for each of
// the top-k experts of a mixture: 3 × FFN × k / tp).
func (m Model) elementwiseElems(tp int) float64 {
	t := float64(max(tp, 1))
	k := float64(max(m.ExpertsPerToken, 1))
	if m.Experts == 0 {
		k = 1
	}
	split := 2*float64(m.Heads+m.KVHeads)*float64(m.HeadDim) + 3*float64(m.FFN)*k
	return 7*float64(m.Hidden) + split/t
}

// WeightBytes is the size of all weights: Params × DtypeBytes.
func (m Model) WeightBytes() float64 { return m.Params * m.DtypeBytes }

// headParams is the LM head's parameter count (Vocab × Hidden), which every
// step applies only to the sequences that sample a token.
func (m Model) headParams() float64 { return float64(m.Vocab) * float64(m.Hidden) }

// embedParams is the parameter count outside the transformer blocks:
// the embedding and, unless tied, the LM head.
func (m Model) embedParams() float64 {
	if m.TiedEmbeddings {
		return m.headParams()
	}
	return 2 * m.headParams()
}

// blockParams splits the transformer blocks' parameters (all layers) into
// the dense part every token uses and the routed experts (all of them).
// For a dense model, or a shape without a vocabulary, experts is 0 and
// dense is what the model's counts leave after the embeddings.
func (m Model) blockParams() (dense, experts float64) {
	outside := m.embedParams()
	if outside >= m.ActiveParams {
		outside = 0 // a hand-written shape without a sensible vocabulary
	}
	if m.Experts > 0 && m.ExpertsPerToken > 0 && m.ExpertsPerToken < m.Experts && m.Params > m.ActiveParams {
		share := float64(m.ExpertsPerToken) / float64(m.Experts)
		experts = (m.Params - m.ActiveParams) / (1 - share)
		dense = m.Params - experts - outside
		if dense < 0 {
			dense = 0
		}
		return dense, experts
	}
	return m.ActiveParams - outside, 0
}

// CheckTP reports a tensor-parallel degree the model cannot be split by: as
// vLLM requires, tp must divide the attention heads, and must divide the KV
// heads or be a multiple of them (a KV head is then replicated).
func (m Model) CheckTP(tp int) error {
	if tp < 1 {
		return fmt.Errorf("perf: tensor parallelism %d must be at least 1", tp)
	}
	if m.Heads > 0 && m.Heads%tp != 0 {
		return fmt.Errorf("perf: tensor parallelism %d does not divide %s's %d attention heads (%s)", tp, m.Name, m.Heads, divisorsText(m.Heads))
	}
	if m.KVDim == 0 && m.KVHeads > 0 && m.KVHeads%tp != 0 && tp%m.KVHeads != 0 {
		return fmt.Errorf("perf: tensor parallelism %d neither divides nor is a multiple of %s's %d KV heads", tp, m.Name, m.KVHeads)
	}
	return nil
}

// divisorsText lists n's divisors up to 64: "1, 2, 4 or 8 work".
func divisorsText(n int) string {
	var d []string
	for i := 1; i <= min(n, 64); i++ {
		if n%i == 0 {
			d = append(d, fmt.Sprint(i))
		}
	}
	if len(d) == 1 {
		return d[0] + " works"
	}
	return strings.Join(d[:len(d)-1], ", ") + " or " + d[len(d)-1] + " work"
}

// KVCapacityTokens is how many tokens of KV cache fit on tp GPUs:
// (memory × util × tp − weights) / KVGroupBytesPerToken(tp), with memory in bytes
// (MemoryGB × 10⁹). util is the fraction of device memory the engine may use
// (vLLM's gpu_memory_utilization, typically 0.9); activations and CUDA
// graphs are assumed to live in the remainder. An error (saying by how much)
// when the weights do not fit, leaving no room for any KV cache.
func KVCapacityTokens(g GPU, m Model, tp int, util float64) (float64, error) {
	if tp < 1 {
		return 0, fmt.Errorf("perf: tensor parallelism %d must be at least 1", tp)
	}
	if !(util > 0 && util <= 1) {
		return 0, fmt.Errorf("perf: memory utilisation %g must be in (0, 1]", util)
	}
	if !(g.MemoryGB > 0) {
		return 0, fmt.Errorf("perf: GPU %q has no memory size", g.Name)
	}
	kv := m.KVGroupBytesPerToken(tp)
	if !(kv > 0) {
		return 0, fmt.Errorf("perf: model %q has no KV-cache shape (layers, kv_heads, head_dim, dtype)", m.Name)
	}
	usable := g.MemoryGB * 1e9 * util * float64(tp)
	w := m.WeightBytes()
	if usable <= w {
		return 0, fmt.Errorf("perf: %s weights (%.1f GB) do not fit in %.1f GB usable on %d×%s at utilisation %.2f: short by %.1f GB",
			m.Name, w/1e9, usable/1e9, tp, g.Name, util, (w-usable)/1e9)
	}
	return (usable - w) / kv, nil
}
