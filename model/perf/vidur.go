package perf

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// vidurLinearOps are the GEMMs and element-wise kernels of one layer in
// vidur's mlp.csv (all but attention and the embedding, which runs once a
// step, not once a layer).
var vidurLinearOps = []string{"attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj",
	"input_layernorm", "post_attention_layernorm", "attn_rope", "mlp_act", "add"}

// VidurShape is the model shape a vidur profile states.
type VidurShape struct {
	Heads, KVHeads, Hidden, FFN, Vocab int
}

// ReadVidurMLP reads a vidur operator profile, mlp.csv (Agrawal et al.,
// "Vidur", MLSys 2024: columns time_stats.<op>.median in ms for each op of
// one layer, num_tokens, num_tensor_parallel_workers and the shape
// n_head, n_kv_head, n_embd, n_expanded_embd, vocab_size; read by name,
// other columns ignored). Each row becomes one PartLinear measurement of
// layers × the sum of the layer's four GEMMs (attn_pre_proj,
// attn_post_proj, mlp_up_proj, mlp_down_proj) and five element-wise
// kernels (input_layernorm, post_attention_layernorm, attn_rope, mlp_act,
// add) for num_tokens prompt tokens at TP num_tensor_parallel_workers; the
// embedding lookup (emb) runs once a step, not once a layer, and is left
// out. The profile names no depth, so layers is the
// caller's (the served model's Layers). It also returns the shape, which a
// caller should check against its model. Rows of tp 0 are all; others are
// kept when their TP matches.
func ReadVidurMLP(r io.Reader, layers, tp int) ([]Measurement, VidurShape, error) {
	var shape VidurShape
	if layers < 1 {
		return nil, shape, fmt.Errorf("perf: vidur: layers %d must be at least 1", layers)
	}
	t, err := newCSVTable(r, "vidur mlp.csv")
	if err != nil {
		return nil, shape, err
	}
	need := []string{"num_tokens", "num_tensor_parallel_workers", "n_head", "n_kv_head", "n_embd", "n_expanded_embd", "vocab_size"}
	for _, op := range vidurLinearOps {
		need = append(need, "time_stats."+op+".median")
	}
	if err := t.require(need...); err != nil {
		return nil, shape, err
	}
	var out []Measurement
	tps := map[int]bool{}
	for {
		rw, err := t.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, shape, err
		}
		n, err := rw.count("num_tokens", 1)
		if err != nil {
			return nil, shape, err
		}
		w, err := rw.count("num_tensor_parallel_workers", 1)
		if err != nil {
			return nil, shape, err
		}
		var s VidurShape
		for name, p := range map[string]*int{"n_head": &s.Heads, "n_kv_head": &s.KVHeads, "n_embd": &s.Hidden, "n_expanded_embd": &s.FFN, "vocab_size": &s.Vocab} {
			if *p, err = rw.count(name, 1); err != nil {
				return nil, shape, err
			}
		}
		if shape == (VidurShape{}) {
			shape = s
		} else if s != shape {
			return nil, shape, rw.errorf("model shape %+v differs from the first row's %+v", s, shape)
		}
		tps[w] = true
		if tp != 0 && w != tp {
			continue
		}
		var ms float64
		for _, op := range vidurLinearOps {
			v, err := rw.positive("time_stats." + op + ".median")
			if err != nil {
				return nil, shape, err
			}
			ms += v
		}
		out = append(out, Measurement{
			Batch:   Batch{PrefillSeqs: 1, Prefill: n, Context: float64(n)},
			Seconds: float64(layers) * ms / 1e3,
			Label:   fmt.Sprintf("line %d tp%d tokens=%d linear layers", rw.line, w, n),
			TP:      w,
			Part:    PartLinear,
		})
	}
	if len(out) == 0 {
		var have []string
		for w := range tps {
			have = append(have, fmt.Sprint(w))
		}
		sort.Strings(have)
		return nil, shape, fmt.Errorf("perf: vidur mlp.csv: no rows at tp %d (file has tp %s)", tp, strings.Join(have, ", "))
	}
	return out, shape, nil
}
