package perf

import (
	"math"
	"strings"
	"testing"
)

// KV bytes per token (bf16) as tabulated in shared/research/data-notes.md §3,
// copied here by hand so that the catalogue is checked against the notes,
// not against itself.
var notesKVBytes = map[string]float64{
	"llama-3.1-8b":   131072,
	"llama-3.1-70b":  327680,
	"llama-3.1-405b": 516096,
	"mistral-7b":     131072,
	"mixtral-8x7b":   131072,
	"qwen2.5-7b":     57344,
	"qwen2.5-72b":    327680,
	"llama-2-7b":     524288,
	"llama-2-70b":    327680,
	// Added with the newer models, by hand from their config.json:
	// 2 × layers × KV heads × head dim × 2 bytes, or layers × latent × 2.
	"llama-3.3-70b":   327680, // as 3.1-70B
	"mixtral-8x22b":   2 * 56 * 8 * 128 * 2,
	"qwen3-8b":        2 * 36 * 8 * 128 * 2,
	"qwen3-32b":       2 * 64 * 8 * 128 * 2,
	"qwen3-30b-a3b":   2 * 48 * 4 * 128 * 2,
	"qwen3-235b-a22b": 2 * 94 * 4 * 128 * 2,
	"deepseek-v3":     61 * (512 + 64) * 2, // multi-head latent attention
	"llama-2-13b":     2 * 40 * 40 * 128 * 2,
}

func TestKVBytesPerTokenMatchesNotes(t *testing.T) {
	ms := Models()
	if len(ms) != len(notesKVBytes) {
		t.Fatalf("catalogue has %d models, notes table %d", len(ms), len(notesKVBytes))
	}
	for _, m := range ms {
		want, ok := notesKVBytes[m.Name]
		if !ok {
			t.Errorf("model %q is not in the notes table", m.Name)
			continue
		}
		if got := m.KVBytesPerToken(); got != want {
			t.Errorf("%s: KV bytes/token = %v, notes say %v", m.Name, got, want)
		}
		if m.ActiveParams > m.Params || m.ActiveParams <= 0 {
			t.Errorf("%s: active params %g vs total %g", m.Name, m.ActiveParams, m.Params)
		}
		if m.Heads*m.HeadDim != m.Hidden && !strings.HasPrefix(m.Name, "qwen3") && m.Name != "deepseek-v3" { // Qwen3 and DeepSeek-V3 decouple them
			t.Errorf("%s: heads × head_dim = %d, hidden %d", m.Name, m.Heads*m.HeadDim, m.Hidden)
		}
	}
}

func TestCatalogueNamesAndLookup(t *testing.T) {
	wantGPUs := []string{"A10G", "L4", "L40S", "A100-40GB", "A100-80GB", "H100-SXM", "H100-PCIe", "H100-NVL", "H200", "B200", "MI300X"}
	gs := GPUs()
	if len(gs) != len(wantGPUs) {
		t.Fatalf("%d GPUs, want %d", len(gs), len(wantGPUs))
	}
	for i, g := range gs {
		if g.Name != wantGPUs[i] {
			t.Errorf("GPU %d = %q, want %q", i, g.Name, wantGPUs[i])
		}
		if !(g.TFLOPS > 0 && g.BandwidthGBs > 0 && g.MemoryGB > 0) {
			t.Errorf("%s has a non-positive figure: %+v", g.Name, g)
		}
		got, err := LookupGPU(strings.ToLower(g.Name))
		if err != nil || got != g {
			t.Errorf("LookupGPU(%q) = %+v, %v", strings.ToLower(g.Name), got, err)
		}
	}
	for _, m := range Models() {
		if m.Name != strings.ToLower(m.Name) {
			t.Errorf("model name %q is not lower case", m.Name)
		}
		got, err := LookupModel(strings.ToUpper(m.Name))
		if err != nil || got != m {
			t.Errorf("LookupModel(%q) = %+v, %v", strings.ToUpper(m.Name), got, err)
		}
	}
	// Splitwise's spellings.
	if m, err := LookupModel("llama2-70b"); err != nil || m.Name != "llama-2-70b" {
		t.Errorf("LookupModel(llama2-70b) = %q, %v", m.Name, err)
	}
	if g, err := LookupGPU("h100-80gb"); err != nil || g.Name != "H100-SXM" {
		t.Errorf("LookupGPU(h100-80gb) = %q, %v", g.Name, err)
	}
	// Datasheet spot checks (data-notes §3).
	h, _ := LookupGPU("H100-SXM")
	if h.TFLOPS != 989 || h.BandwidthGBs != 3350 || h.MemoryGB != 80 {
		t.Errorf("H100-SXM = %+v", h)
	}
	mi, _ := LookupGPU("mi300x")
	if mi.TFLOPS != 1307 { // not the 2615 sparse figure
		t.Errorf("MI300X TFLOPS = %v, want dense 1307", mi.TFLOPS)
	}
}

func TestLookupErrorsListNames(t *testing.T) {
	_, err := LookupGPU("tpu-v5")
	if err == nil || !strings.Contains(err.Error(), "tpu-v5") || !strings.Contains(err.Error(), "H100-SXM") || !strings.Contains(err.Error(), "MI300X") {
		t.Errorf("LookupGPU error = %v", err)
	}
	_, err = LookupModel("gpt-5")
	if err == nil || !strings.Contains(err.Error(), "gpt-5") || !strings.Contains(err.Error(), "llama-3.1-8b") || !strings.Contains(err.Error(), "qwen2.5-72b") {
		t.Errorf("LookupModel error = %v", err)
	}
	// Folding punctuation must not make two catalogue names collide.
	seen := map[string]string{}
	for _, m := range Models() {
		k := modelKey(m.Name)
		if other, dup := seen[k]; dup {
			t.Errorf("%s and %s fold to the same key %q", m.Name, other, k)
		}
		seen[k] = m.Name
	}
}

func TestWeightBytes(t *testing.T) {
	m, _ := LookupModel("llama-2-7b")
	if got := m.WeightBytes(); got != 13.4e9 {
		t.Errorf("llama-2-7b weights = %v, want 13.4e9", got)
	}
}

func TestKVCapacityTokens(t *testing.T) {
	h100, _ := LookupGPU("H100-SXM")
	m8, _ := LookupModel("llama-3.1-8b")
	got, err := KVCapacityTokens(h100, m8, 1, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	want := (80e9*0.9 - 8.03e9*2) / 131072 // by hand: (72e9 − 16.06e9) / 131072 = 426,788.3 tokens
	if got != want {
		t.Errorf("llama-3.1-8b on 1×H100 at 0.9: %v tokens, want %v", got, want)
	}
	if math.Abs(got-426788.33) > 0.01 {
		t.Errorf("got %v, hand figure 426788.33", got)
	}

	m70, _ := LookupModel("llama-3.1-70b")
	_, err = KVCapacityTokens(h100, m70, 1, 0.9)
	if err == nil {
		t.Fatal("70B on one H100 fitted")
	}
	// 141.2 GB of weights against 72.0 GB usable: short by 69.2 GB.
	for _, s := range []string{"141.2 GB", "72.0 GB", "short by 69.2 GB"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
	got, err = KVCapacityTokens(h100, m70, 4, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	if want := (4*72e9 - 141.2e9) / 327680; math.Abs(got-want) > 1e-9*want {
		t.Errorf("70B on 4×H100: %v, want %v", got, want)
	}
	for _, bad := range []struct {
		tp   int
		util float64
	}{{0, 0.9}, {1, 0}, {1, 1.1}, {1, math.NaN()}} {
		if _, err := KVCapacityTokens(h100, m8, bad.tp, bad.util); err == nil {
			t.Errorf("tp %d util %v accepted", bad.tp, bad.util)
		}
	}
}

// An unknown name suggests what was meant: every form of a family, or the
// nearest spelling; nothing when nothing is near.
func TestLookupSuggests(t *testing.T) {
	for name, want := range map[string]string{
		"H100":     `did you mean "H100-SXM", "H100-PCIe" or "H100-NVL"?`,
		"a100":     `did you mean "A100-40GB" or "A100-80GB"?`,
		"MI300":    `did you mean "MI300X"?`,
		"H100 SXM": `did you mean "H100-SXM"?`,
		"h100sxm":  `did you mean "H100-SXM"?`,
		"tpu-v5":   "allowed: A10G, L4, L40S, A100-40GB, A100-80GB, H100-SXM, H100-PCIe, H100-NVL, H200, B200, MI300X",
	} {
		_, err := LookupGPU(name)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), `perf: unknown GPU "`+name+`"; allowed: `) {
			t.Errorf("LookupGPU(%q) = %v, want %q", name, err, want)
		}
	}
	if _, err := LookupGPU("tpu-v5"); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("tpu-v5: %v, want no suggestion", err)
	}
	for name, want := range map[string]string{
		"llama-70b":   `did you mean "llama-2-70b", "llama-3.1-70b" or "llama-3.3-70b"?`,
		"Llama-3-8B":  `did you mean "llama-3.1-8b"?`,
		"lama-3.1-8b": `did you mean "llama-3.1-8b"?`,
		"mixtral":     `did you mean "mixtral-8x22b" or "mixtral-8x7b"?`,
	} {
		_, err := LookupModel(name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LookupModel(%q) = %v, want %q", name, err, want)
		}
	}
}
