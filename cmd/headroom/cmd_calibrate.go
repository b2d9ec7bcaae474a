package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/headroom-sim/headroom/model/loadtest"
	"github.com/headroom-sim/headroom/model/perf"
	"github.com/headroom-sim/headroom/report"
)

const calibrateUsage = `Usage: headroom calibrate FILE... [flags]

Fits a GPU step-time model to measured engine iterations and prints every
point with its prediction and error, the error summary for decode and
prefill steps, and the TOML to paste into a [[cluster]] block.

Input formats (detected from the header line; --format to force one):
  vidur      a vidur operator profile (mlp.csv): the linear layers' kernel
             times by token count and tensor parallelism; fits the
             efficiencies and the per-layer cost of the roofline (name the
             GPU and model with --gpu and --served-model).
  splitwise  Splitwise's perf_model.csv: model, hardware, prompt_size,
             batch_size, token_size, prompt_time, token_time (ms),
             tensor_parallel. Each row gives a prefill step (prompt_time for
             batch_size prompts) and a decode step (token_time, the mean over
             the generation). Pick one configuration with --model, --hardware
             and --tp; rows that break the trend of their neighbours are
             shown but left out of the fit.
  steps      one measured iteration per line, header required:
               batch_size,prefill_tokens,context_tokens,step_ms[,prefill_seqs][,prefill_context][,label]
             batch_size counts every sequence in the step; context_tokens is
             the KV tokens attention reads (the sum of context lengths);
             prefill_seqs defaults to batch_size when prefill_tokens > 0;
             lines starting with # are comments.

Step models (--kind):
  roofline   fits compute_efficiency, bandwidth_efficiency, overhead and,
             where the points can tell them apart, overhead_per_seq,
             overhead_per_layer and collective_latency, for a catalogue GPU
             and model (see "headroom catalogue"): --gpu and --served-model,
             or for a Splitwise file its hardware and model names. The rest
             keep their defaults, and the report says which; it also says
             when a parameter ends on a bound, and gives the error of a
             5-fold cross-validation (each point predicted by a fit that did
             not see it) beside the in-sample error. Use the same gpu, model
             and tensor_parallel in the cluster, without gpu_spec/model_spec
             overrides.
  table      a step-time curve over batch size plus costs per prompt token
             and per context token; needs decode-only steps, no GPU or model.
  both       fit both and print both blocks; paste one.
  The default is both when a catalogue GPU and model are known, else table.

Load-test results (JSON, told from their keys; --format to force one): the
result files of vllm bench serve --save-result (with --save-detailed rows
when present), GuideLLM's benchmark report, LLMPerf's summary and
individual responses, and genai-perf's profile export (or AIPerf's
per-request records); give every level's file. Each tool's metrics are
converted to Headroom's (section 12 of scenarios/REFERENCE.md: LLMPerf's
inter-token latency, for one, includes the first token). With --target hosted (the default without
--gpu, --served-model or --kind) they fit a hosted API's latency model and
print the [provider.latency] block; with --target cluster they become the
measured steps of the step-model fit above (decode steps sized by Little's
law, prefill steps from the lightest level).

Examples:
  headroom calibrate vllm-rate1.json vllm-rate4.json vllm-rate16.json
  headroom calibrate guidellm-report.json --target cluster --gpu H100-SXM --served-model llama-3.1-8b
  headroom calibrate perf_model.csv --model llama2-70b --hardware h100-80gb --tp 8
  headroom calibrate perf_model.csv --hardware h100-80gb-pcap --tp 8 --model llama2-70b --gpu H100-SXM
  headroom calibrate steps.csv --gpu H100-SXM --served-model llama-3.1-8b --tp 2
  headroom calibrate steps.csv --kind table

Flags:
`

type calibrateOptions struct {
	format      string
	model       string
	hardware    string
	tp          int
	gpu         string
	servedModel string
	kind        string
	target      string
	allReduce   string
}

func cmdCalibrate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("calibrate", calibrateUsage, stdout, stderr)
	var o calibrateOptions
	fs.StringVar(&o.format, "format", "", "input `FORMAT`: splitwise, steps or vidur (measured steps), or vllm, guidellm, llmperf or genai-perf (load-test results) (default: from the content)")
	fs.StringVar(&o.model, "model", "", "Splitwise rows of this model `NAME` (e.g. llama2-70b)")
	fs.StringVar(&o.hardware, "hardware", "", "Splitwise rows of this hardware `NAME` (e.g. h100-80gb)")
	fs.IntVar(&o.tp, "tp", 0, "tensor parallelism `N`: selects Splitwise or vidur rows; for a step CSV, the GPUs the steps ran on (default 1)")
	fs.StringVar(&o.gpu, "gpu", "", "catalogue GPU for the roofline, `NAME` (default: the Splitwise hardware)")
	fs.StringVar(&o.servedModel, "served-model", "", "catalogue model for the roofline, `NAME` (default: the Splitwise model)")
	fs.StringVar(&o.kind, "kind", "", "step model to fit, `roofline|table|both` (default: both when a catalogue GPU and model are known, else table)")
	fs.StringVar(&o.allReduce, "all-reduce", "auto", "`auto|one-shot|ring`: how a roofline's all-reduces pay their latency with --tp > 1: one-shot once (vLLM's and TensorRT-LLM's kernels on NVLink), ring 2(TP − 1) times (NCCL over PCIe), auto by the GPU's link, as the scenario key step.all_reduce does")
	fs.StringVar(&o.target, "target", "", "for load-test results, what was measured: `hosted|cluster` (default: cluster with --gpu, --served-model or --kind, else hosted)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if _, ok := parseAllReduce(o.allReduce); !ok {
		return badInput("--all-reduce %q: must be %s", o.allReduce, strings.Join(perf.AllReduceNames[:], ", "))
	}
	if isLoadTestInput(fs.Args(), o.format) {
		return calibrateLoadTest(fs.Args(), o, stdout)
	}
	if fs.NArg() != 1 {
		return badInput("calibrate takes one measurements FILE, got %d (see headroom calibrate --help)", fs.NArg())
	}
	switch o.kind {
	case "", "roofline", "table", "both":
	default:
		return badInput("--kind %q: must be roofline, table or both", o.kind)
	}
	if o.tp < 0 {
		return badInput("--tp %d: must be >= 1", o.tp)
	}
	format := perf.Format(o.format)
	switch format {
	case "", perf.FormatSplitwise, perf.FormatSteps, perf.FormatVidur:
	default:
		return badInput("--format %q: must be splitwise, steps or vidur, or for load-test results %s", o.format, loadtest.Formats)
	}
	if o.target != "" {
		return badInput("--target applies to load-test results (JSON), not to %s", fs.Arg(0))
	}
	path := fs.Arg(0)
	data, err := os.ReadFile(path)
	if err != nil {
		return usageError{err}
	}
	if format == "" {
		if format, err = perf.DetectFormat(data); err != nil {
			return badInput("%s: %s; name it with --format splitwise|steps|vidur", path, perfErr(err))
		}
	}
	cal := &report.Calibration{Path: path, Format: format}
	if err := readMeasurements(cal, data, o); err != nil {
		return err
	}
	if err := fitModels(cal, o); err != nil {
		return err
	}
	return report.Calibrate(stdout, cal)
}

// parseAllReduce is the all-reduce algorithm named, as step.all_reduce
// names it.
func parseAllReduce(name string) (perf.AllReduce, bool) {
	i := slices.Index(perf.AllReduceNames[:], name)
	return perf.AllReduce(max(i, 0)), i >= 0
}

// perfErr strips the package prefix from a model/perf error.
func perfErr(err error) string { return strings.TrimPrefix(err.Error(), "perf: ") }

// readMeasurements reads the file into cal: the measurements, the
// Splitwise configuration and the roofline's hardware.
func readMeasurements(cal *report.Calibration, data []byte, o calibrateOptions) error {
	path := cal.Path
	switch cal.Format {
	case perf.FormatSteps, perf.FormatVidur:
		if o.model != "" || o.hardware != "" {
			return badInput("--model and --hardware select rows of a Splitwise file; name the catalogue GPU and model with --gpu and --served-model")
		}
	}
	if cal.Format != perf.FormatSplitwise {
		if err := resolveHardware(cal, o); err != nil {
			return err
		}
	}
	switch cal.Format {
	case perf.FormatSteps:
		ms, err := perf.ReadStepCSV(bytes.NewReader(data))
		if err != nil {
			return badInput("%s: %s", path, perfErr(err))
		}
		cal.Measurements, cal.TP = ms, max(o.tp, 1)
		return nil
	case perf.FormatVidur:
		if cal.Hardware == nil {
			return badInput("%s: a vidur profile has no GPU or depth; name the catalogue GPU and model with --gpu and --served-model", path)
		}
		ms, shape, err := perf.ReadVidurMLP(bytes.NewReader(data), cal.Hardware.Model.Layers, o.tp)
		if err != nil {
			return badInput("%s: %s", path, perfErr(err))
		}
		if m := cal.Hardware.Model; shape.Hidden != m.Hidden || shape.Heads != m.Heads || shape.KVHeads != m.KVHeads || shape.FFN != m.FFN {
			return badInput("%s: the profile's shape (hidden %d, heads %d, KV heads %d, FFN %d) is not %s's (%d, %d, %d, %d); name the model profiled with --served-model",
				path, shape.Hidden, shape.Heads, shape.KVHeads, shape.FFN, m.Name, m.Hidden, m.Heads, m.KVHeads, m.FFN)
		}
		cal.Measurements, cal.TP = ms, max(o.tp, 1)
		return nil
	}
	sel, ok, err := perf.SelectSplitwise(perf.SplitwiseConfigs(data), o.model, o.hardware, o.tp)
	if err != nil {
		return badInput("%s: %s", path, strings.TrimPrefix(perfErr(err), "splitwise: "))
	}
	ms, err := perf.ReadSplitwise(bytes.NewReader(data), sel.Model, sel.Hardware, sel.TP)
	if err != nil {
		return badInput("%s: %s", path, perfErr(err))
	}
	if ok {
		// The configuration is in the heading; keep the rest of each label.
		prefix := " " + sel.String() + " "
		for i := range ms {
			ms[i].Label = strings.Replace(ms[i].Label, prefix, " ", 1)
		}
		cal.Splitwise = &sel
	}
	cal.Measurements, cal.TP = ms, sel.TP
	return resolveHardware(cal, o)
}

// resolveHardware finds the roofline's GPU and model: the flags, else a
// Splitwise file's names. Names given by flag, or needed because --kind
// asks for a roofline, must be in the catalogue; otherwise a name the
// catalogue lacks only means no roofline.
func resolveHardware(cal *report.Calibration, o calibrateOptions) error {
	gpuName, modelName := o.gpu, o.servedModel
	gpuFile, modelFile := false, false
	if cal.Splitwise != nil {
		if gpuName == "" {
			gpuName, gpuFile = cal.Splitwise.Hardware, true
		}
		if modelName == "" {
			modelName, modelFile = cal.Splitwise.Model, true
		}
	}
	strict := o.kind == "roofline" || o.kind == "both" || o.gpu != "" || o.servedModel != ""
	if gpuName == "" || modelName == "" {
		why := "a roofline needs a catalogue GPU and model: name them with --gpu and --served-model"
		if strict {
			return badInput("%s (\"headroom catalogue\" lists them)", why)
		}
		cal.NoRoofline = why
		return nil
	}
	g, gerr := perf.LookupGPU(gpuName)
	m, merr := perf.LookupModel(modelName)
	var problems []string
	if gerr != nil {
		problems = append(problems, fmt.Sprintf("%s: %s; name a catalogue GPU with --gpu", fromWhat(gpuFile, "--gpu", "hardware"), perfErr(gerr)))
	}
	if merr != nil {
		problems = append(problems, fmt.Sprintf("%s: %s; name a catalogue model with --served-model", fromWhat(modelFile, "--served-model", "model"), perfErr(merr)))
	}
	if len(problems) > 0 {
		if strict {
			return badInput("%s: no roofline for %s", cal.Path, strings.Join(problems, "; "))
		}
		cal.NoRoofline = strings.Join(problems, "; ")
		return nil
	}
	cal.Hardware = &report.CalibrationHardware{GPU: g, Model: m, GPUFromFile: gpuFile, ModelFromFile: modelFile}
	return nil
}

// hasPrefill reports whether a usable prefill (or mixed) step is among ms.
func hasPrefill(ms []perf.Measurement) bool {
	for _, m := range ms {
		if m.Suspect == "" && m.Part != perf.PartLinear && (m.Batch.Prefill > 0 || m.Batch.PrefillSeqs > 0) {
			return true
		}
	}
	return false
}

func fromWhat(file bool, flag, what string) string {
	if file {
		return "the file's " + what + " name"
	}
	return flag
}

// fitModels fits what --kind asks for (by default a roofline when the
// hardware is known, and a table when the points allow one).
func fitModels(cal *report.Calibration, o calibrateOptions) error {
	kind := o.kind
	wantRoof := kind == "roofline" || kind == "both" || kind == "" && cal.Hardware != nil
	wantTable := kind == "table" || kind == "both" || kind == "" && cal.Format != perf.FormatVidur
	if cal.Format == perf.FormatVidur && wantTable && kind != "" {
		return badInput("%s: a table needs whole engine steps; an operator profile times only the linear layers (use --kind roofline)", cal.Path)
	}
	allReduce, _ := parseAllReduce(o.allReduce)
	if allReduce != perf.AllReduceAuto {
		switch {
		case !wantRoof:
			return badInput("--all-reduce %s: a %s fit has no all-reduces; it applies to a roofline (--kind roofline or both)", o.allReduce, kind)
		case cal.TP < 2:
			return badInput("--all-reduce %s applies to the all-reduces of --tp 2 or more; these steps ran on one GPU", o.allReduce)
		}
	}
	if wantRoof {
		if cal.Hardware == nil {
			return badInput("a roofline needs a catalogue GPU and model: name them with --gpu and --served-model (\"headroom catalogue\" lists them)")
		}
		start := perf.DefaultRoofline(cal.Hardware.GPU, cal.Hardware.Model, cal.TP)
		start.AllReduce = allReduce
		f, err := perf.FitRooflineWith(start, cal.Measurements, perf.FitOptions{})
		if err != nil {
			msg := perfErr(err)
			if !strings.HasPrefix(msg, "roofline") {
				msg = "roofline fit: " + msg
			}
			return badInput("%s: %s", cal.Path, msg)
		}
		cal.Roofline = &f
	}
	if wantTable {
		t, pe, err := perf.FitTable(cal.Measurements)
		switch {
		case err != nil && kind == "" && cal.Roofline != nil:
			cal.NoTable = perfErr(err)
		case err != nil:
			msg := perfErr(err)
			if !strings.HasPrefix(msg, "table fit") {
				msg = "table fit: " + msg
			}
			return badInput("%s: %s", cal.Path, msg)
		default:
			cal.Table = &report.CalibrationTable{Table: t, Points: pe}
			if h := cal.Hardware; h != nil && !hasPrefill(cal.Measurements) {
				// No prefill measured: price prompts as the catalogue's
				// roofline does (a 2,048-token prompt), and say so.
				r := perf.DefaultRoofline(h.GPU, h.Model, cal.TP)
				cal.Table.Table.PrefillPerToken = r.PromptTokenTime(2048)
				cal.Table.PrefillFromCatalogue = true
			}
		}
	}
	return nil
}
