package perf

import (
	"fmt"
	"sort"
	"strings"
)

// GPU is one accelerator's datasheet figures (dense, no sparsity).
//
// TFLOPS is the dense BF16 tensor throughput in 10¹² FLOP/s, BandwidthGBs the
// memory bandwidth in 10⁹ bytes/s and MemoryGB the usable device memory in 10⁹
// bytes (decimal units throughout, as on datasheets).
type GPU struct {
	// Name is the catalogue name, e.g. "H100-SXM".
	Name string
	// TFLOPS is dense BF16 throughput, 10¹² FLOP/s (no 2:4 sparsity).
	TFLOPS float64
	// BandwidthGBs is memory bandwidth, 10⁹ bytes/s.
	BandwidthGBs float64
	// MemoryGB is device memory, 10⁹ bytes.
	MemoryGB float64
}

// Model is a transformer's shape.
//
// Params counts every parameter (embeddings and LM head included);
// ActiveParams is the number used per token, equal to Params for a dense
// model and smaller for a mixture of experts. HeadDim is the per-head
// dimension, KVHeads the number of key/value heads (fewer than Heads under
// grouped-query attention) and DtypeBytes the bytes per weight and per KV
// element (2 for bf16).
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
	// DtypeBytes is bytes per weight and per KV-cache element (2 for bf16).
	DtypeBytes float64
}

// gpus is the catalogue of shared/research/data-notes.md §3 (vendor
// datasheets, dense BF16). A10G's 70 TFLOPS is marked "(verify)" there: it is
// the commonly quoted figure for AWS's A10G, whereas NVIDIA's A10 datasheet
// gives 125. B200 is the 1000 W HGX part with 180 GB usable.
var gpus = []GPU{
	{Name: "A10G", TFLOPS: 70, BandwidthGBs: 600, MemoryGB: 24},
	{Name: "L4", TFLOPS: 121, BandwidthGBs: 300, MemoryGB: 24},
	{Name: "L40S", TFLOPS: 362, BandwidthGBs: 864, MemoryGB: 48},
	{Name: "A100-40GB", TFLOPS: 312, BandwidthGBs: 1555, MemoryGB: 40},
	{Name: "A100-80GB", TFLOPS: 312, BandwidthGBs: 2039, MemoryGB: 80},
	{Name: "H100-SXM", TFLOPS: 989, BandwidthGBs: 3350, MemoryGB: 80},
	{Name: "H100-PCIe", TFLOPS: 756, BandwidthGBs: 2000, MemoryGB: 80},
	{Name: "H200", TFLOPS: 989, BandwidthGBs: 4800, MemoryGB: 141},
	{Name: "B200", TFLOPS: 2250, BandwidthGBs: 8000, MemoryGB: 180},
	{Name: "MI300X", TFLOPS: 1307, BandwidthGBs: 5300, MemoryGB: 192},
}

// gpuAliases maps other spellings (lower case) to catalogue names. The
// Splitwise profiles call the DGX parts "a100-80gb" (which already matches)
// and "h100-80gb".
var gpuAliases = map[string]string{
	"h100":      "H100-SXM",
	"h100-80gb": "H100-SXM",
	"h100-sxm5": "H100-SXM",
	"a100":      "A100-80GB",
	"h200-sxm":  "H200",
	"a10":       "A10G",
}

// models is the catalogue of shared/research/data-notes.md §3 (from each
// model's HF config.json and paper).
var models = []Model{
	{Name: "llama-3.1-8b", Params: 8.03e9, ActiveParams: 8.03e9, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, FFN: 14336, Vocab: 128256, DtypeBytes: 2},
	{Name: "llama-3.1-70b", Params: 70.6e9, ActiveParams: 70.6e9, Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, FFN: 28672, Vocab: 128256, DtypeBytes: 2},
	{Name: "llama-3.1-405b", Params: 405e9, ActiveParams: 405e9, Layers: 126, Hidden: 16384, Heads: 128, KVHeads: 8, HeadDim: 128, FFN: 53248, Vocab: 128256, DtypeBytes: 2},
	{Name: "mistral-7b", Params: 7.24e9, ActiveParams: 7.24e9, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, FFN: 14336, Vocab: 32000, DtypeBytes: 2},
	{Name: "mixtral-8x7b", Params: 46.7e9, ActiveParams: 12.9e9, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, FFN: 14336, Vocab: 32000, DtypeBytes: 2},
	{Name: "qwen2.5-7b", Params: 7.61e9, ActiveParams: 7.61e9, Layers: 28, Hidden: 3584, Heads: 28, KVHeads: 4, HeadDim: 128, FFN: 18944, Vocab: 152064, DtypeBytes: 2},
	{Name: "qwen2.5-72b", Params: 72.7e9, ActiveParams: 72.7e9, Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, FFN: 29568, Vocab: 152064, DtypeBytes: 2},
	{Name: "llama-2-7b", Params: 6.7e9, ActiveParams: 6.7e9, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, HeadDim: 128, FFN: 11008, Vocab: 32000, DtypeBytes: 2},
	{Name: "llama-2-70b", Params: 69e9, ActiveParams: 69e9, Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, FFN: 28672, Vocab: 32000, DtypeBytes: 2},
}

// GPUs returns the built-in GPU catalogue (a fresh copy): A10G, L4, L40S,
// A100-40GB, A100-80GB, H100-SXM, H100-PCIe, H200, B200 and MI300X.
func GPUs() []GPU { return append([]GPU(nil), gpus...) }

// Models returns the built-in model catalogue (a fresh copy): llama-3.1-8b,
// llama-3.1-70b, llama-3.1-405b, mistral-7b, mixtral-8x7b, qwen2.5-7b,
// qwen2.5-72b, llama-2-7b and llama-2-70b, all bf16.
func Models() []Model { return append([]Model(nil), models...) }

// LookupGPU finds a catalogue GPU by name, ignoring case. A few aliases are
// accepted too ("h100" and Splitwise's "h100-80gb" mean H100-SXM, "a100"
// means A100-80GB). The error lists the catalogue names.
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
	return GPU{}, fmt.Errorf("perf: unknown GPU %q (known: %s)", name, strings.Join(names, ", "))
}

// LookupModel finds a catalogue model by name, ignoring case and the
// punctuation '-', '_' and ' ' (so Splitwise's "llama2-70b" and
// "Llama-2-70B" both find llama-2-70b). The error lists the catalogue names.
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
	return Model{}, fmt.Errorf("perf: unknown model %q (known: %s)", name, strings.Join(names, ", "))
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

// KVBytesPerToken is the KV-cache size of one token across all layers:
// 2 (K and V) × Layers × KVHeads × HeadDim × DtypeBytes.
func (m Model) KVBytesPerToken() float64 {
	return 2 * float64(m.Layers) * float64(m.KVHeads) * float64(m.HeadDim) * m.DtypeBytes
}

// WeightBytes is the size of all weights: Params × DtypeBytes.
func (m Model) WeightBytes() float64 { return m.Params * m.DtypeBytes }

// KVCapacityTokens is how many tokens of KV cache fit on tp GPUs:
// (memory × util × tp − weights) / KV bytes per token, with memory in bytes
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
	kv := m.KVBytesPerToken()
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
