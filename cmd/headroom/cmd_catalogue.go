package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/headroom-sim/headroom/model/perf"
)

const catalogueUsage = `Usage: headroom catalogue

Lists the built-in GPUs and models that a [[cluster]] block names with gpu
and model: datasheet figures (dense BF16, no sparsity; decimal GB) and
transformer shapes (mixtures of experts with their experts and top-k). The
roofline step model and the KV-cache capacity are computed from them. A
scenario's gpu_spec and model_spec override any figure, e.g.
gpu_spec = { tflops = 800, memory_gb = 94 }.

Examples:
  headroom catalogue
  headroom calibrate steps.csv --gpu H100-SXM --served-model llama-3.1-8b

`

func cmdCatalogue(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("catalogue", catalogueUsage, stdout, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return badInput("catalogue takes no arguments, got %q", fs.Args())
	}
	var b strings.Builder
	b.WriteString("GPUs (gpu = NAME; override with gpu_spec = { tflops, fp8_tflops, bandwidth_gbs, memory_gb, interconnect_gbs }):\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	gpus := perf.GPUs()
	w := len("NAME")
	for _, g := range gpus {
		w = max(w, len(g.Name))
	}
	fmt.Fprintf(tw, "  %-*s\tBF16 TFLOP/s\tFP8 TFLOP/s\tBANDWIDTH GB/s\tMEMORY GB\tLINK GB/s\t\n", w, "NAME")
	for _, g := range gpus {
		fp8 := "-"
		if g.FP8TFLOPS > 0 {
			fp8 = fmt.Sprintf("%g", g.FP8TFLOPS)
		}
		fmt.Fprintf(tw, "  %-*s\t%g\t%s\t%g\t%g\t%g\t\n", w, g.Name, g.TFLOPS, fp8, g.BandwidthGBs, g.MemoryGB, g.InterconnectGBs)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("\nModels (model = NAME; override with model_spec = { params, active_params, experts, experts_per_token, layers, hidden, heads, kv_heads, head_dim, kv_dim, ffn, vocab, dtype_bytes }):\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	models := perf.Models()
	w = len("NAME")
	for _, m := range models {
		w = max(w, len(m.Name))
	}
	fmt.Fprintf(tw, "  %-*s\tPARAMS\tACTIVE\tEXPERTS\tLAYERS\tHEADS\tKV HEADS\tHEAD DIM\tWEIGHTS\tKV BYTES/TOKEN\t\n", w, "NAME")
	for _, m := range models {
		experts := "-"
		if m.Experts > 0 {
			experts = fmt.Sprintf("%d top-%d", m.Experts, m.ExpertsPerToken)
		}
		weights := "bf16"
		if m.DtypeBytes == 1 {
			weights = "fp8"
		}
		fmt.Fprintf(tw, "  %-*s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t\n", w, m.Name, billions(m.Params), billions(m.ActiveParams),
			experts, m.Layers, m.Heads, m.KVHeads, m.HeadDim, weights, kvBytes(m.KVBytesPerToken()))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("\nNames match ignoring case (h100 and h100-80gb also mean H100-SXM). LINK GB/s is\n" +
		"one GPU's bandwidth to its peers in one direction (NVLink on SXM parts, an NVLink\n" +
		"bridge on H100-NVL, Infinity Fabric on MI300X, the PCIe slot otherwise), which\n" +
		"bounds tensor-parallel all-reduces. A cluster's weight_dtype and kv_cache_dtype change the weights' and\n" +
		"KV cache's bytes; gpu_spec and model_spec override any figure here. Figures are\n" +
		"from the vendors' datasheets and each model's config.json.\n")
	_, err := io.WriteString(stdout, b.String())
	return err
}

// billions prints a parameter count as "8.03B".
func billions(n float64) string { return strconv.FormatFloat(n/1e9, 'f', -1, 64) + "B" }

// kvBytes prints bytes with their KiB value: "131072 (128 KiB)", or to
// one decimal when not whole: "70272 (68.6 KiB)".
func kvBytes(n float64) string {
	if k := n / 1024; k == float64(int64(k)) {
		return fmt.Sprintf("%g (%g KiB)", n, k)
	}
	return fmt.Sprintf("%g (%.1f KiB)", n, n/1024)
}
