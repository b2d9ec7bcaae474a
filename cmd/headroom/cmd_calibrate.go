package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/headroom-sim/headroom/model/loadtest"
	"github.com/headroom-sim/headroom/model/perf"
)

const calibrateUsage = `Usage: headroom calibrate FILE... [flags]

Fits a GPU step-time model to measured engine iterations and prints every
point with its prediction and error, the error summary for decode and
prefill steps, and the TOML to paste into a [[cluster]] block.

Input formats (detected from the header line; --format to force one):
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
  roofline   fits compute_efficiency, bandwidth_efficiency and overhead for a
             catalogue GPU and model (see "headroom catalogue"): --gpu and
             --served-model, or for a Splitwise file its hardware and model
             names. Use the same gpu, model and tensor_parallel in the
             cluster, without gpu_spec/model_spec overrides.
  table      a step-time curve over batch size plus costs per prompt token
             and per context token; needs decode-only steps, no GPU or model.
  both       fit both and print both blocks; paste one.
  The default is both when a catalogue GPU and model are known, else table.

Load-test results (JSON, told from their keys; --format to force one): the
result files of vllm bench serve --save-result (with --save-detailed rows
when present), GuideLLM's benchmark report, LLMPerf's summary and
individual responses, and genai-perf's profile export (or AIPerf's
per-request records); give every level's file. Each tool's metrics are
converted to Headroom's (see the README: LLMPerf's inter-token latency, for
one, includes the first token). With --target hosted (the default without
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
}

func cmdCalibrate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("calibrate", calibrateUsage, stdout, stderr)
	var o calibrateOptions
	fs.StringVar(&o.format, "format", "", "input format, `splitwise|steps` (default: from the header)")
	fs.StringVar(&o.model, "model", "", "Splitwise rows of this model `NAME` (e.g. llama2-70b)")
	fs.StringVar(&o.hardware, "hardware", "", "Splitwise rows of this hardware `NAME` (e.g. h100-80gb)")
	fs.IntVar(&o.tp, "tp", 0, "tensor parallelism `N`: selects Splitwise rows; for a step CSV, the GPUs the steps ran on (default 1)")
	fs.StringVar(&o.gpu, "gpu", "", "catalogue GPU for the roofline, `NAME` (default: the Splitwise hardware)")
	fs.StringVar(&o.servedModel, "served-model", "", "catalogue model for the roofline, `NAME` (default: the Splitwise model)")
	fs.StringVar(&o.kind, "kind", "", "step model to fit, `roofline|table|both` (default: both when a catalogue GPU and model are known, else table)")
	fs.StringVar(&o.target, "target", "", "for load-test results, what was measured: `hosted|cluster` (default: cluster with --gpu, --served-model or --kind, else hosted)")
	if err := parseFlags(fs, args); err != nil {
		return err
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
	if o.format != "" && o.format != "splitwise" && o.format != "steps" {
		return badInput("--format %q: must be splitwise or steps, or for load-test results %s", o.format, loadtest.Formats)
	}
	if o.target != "" {
		return badInput("--target applies to load-test results (JSON), not to %s", fs.Arg(0))
	}
	path := fs.Arg(0)
	data, err := os.ReadFile(path)
	if err != nil {
		return usageError{err}
	}
	format := o.format
	if format == "" {
		if format, err = detectFormat(data); err != nil {
			return badInput("%s: %v", path, err)
		}
	}

	in, err := readMeasurements(path, data, format, o)
	if err != nil {
		return err
	}
	hw, err := resolveHardware(in, o)
	if err != nil {
		return err
	}
	fits, notes, err := fitModels(in, hw, o.kind)
	if err != nil {
		return err
	}
	return writeCalibration(stdout, in, hw, fits, notes)
}

// calibInput is what was read: the measurements and where they came from.
type calibInput struct {
	path, format string
	ms           []perf.Measurement
	// For a Splitwise file, the configuration read (original spellings).
	model, hardware string
	tp              int
}

// what names the Splitwise configuration read, e.g.
// "llama2-70b/h100-80gb/tp8", as ReadSplitwise spells it in labels.
func (in *calibInput) what() string {
	return fmt.Sprintf("%s/%s/tp%d", in.model, in.hardware, in.tp)
}

// detectFormat tells the format from the first non-comment line.
func detectFormat(data []byte) (string, error) {
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(line, "\ufeff"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := map[string]bool{}
		var names []string
		for _, c := range strings.Split(line, ",") {
			c = strings.ToLower(strings.Trim(strings.TrimSpace(c), `"`))
			cols[c] = true
			names = append(names, c)
		}
		switch {
		case cols["prompt_time"] || cols["token_time"] || cols["hardware"]:
			return "splitwise", nil
		case cols["step_ms"]:
			return "steps", nil
		}
		return "", fmt.Errorf("cannot tell the format from the header (columns: %s); expected Splitwise's perf_model.csv "+
			"(model, hardware, prompt_size, batch_size, token_size, prompt_time, token_time, tensor_parallel) "+
			"or a step CSV (batch_size, prefill_tokens, context_tokens, step_ms); name it with --format splitwise|steps",
			strings.Join(names, ", "))
	}
	return "", errors.New("empty file: expected a CSV header line")
}

// perfErr strips the package prefix from a model/perf error.
func perfErr(err error) string { return strings.TrimPrefix(err.Error(), "perf: ") }

func readMeasurements(path string, data []byte, format string, o calibrateOptions) (*calibInput, error) {
	in := &calibInput{path: path, format: format}
	if format == "steps" {
		if o.model != "" || o.hardware != "" {
			return nil, badInput("--model and --hardware select rows of a Splitwise file; a step CSV has one configuration (name its catalogue GPU and model with --gpu and --served-model)")
		}
		ms, err := perf.ReadStepCSV(bytes.NewReader(data))
		if err != nil {
			return nil, badInput("%s: %s", path, perfErr(err))
		}
		in.ms, in.tp = ms, max(o.tp, 1)
		return in, nil
	}

	combos := splitwiseCombos(data)
	var match []swCombo
	for _, c := range combos {
		if (o.model == "" || strings.EqualFold(o.model, c.model)) &&
			(o.hardware == "" || strings.EqualFold(o.hardware, c.hardware)) &&
			(o.tp == 0 || o.tp == c.tp) {
			match = append(match, c)
		}
	}
	switch {
	case len(combos) > 0 && len(match) == 0:
		return nil, badInput("%s: no rows match %s; the file has models %s, hardware %s, tp %s (configurations: %s)",
			path, filterText(o), distinct(combos, func(c swCombo) string { return c.model }),
			distinct(combos, func(c swCombo) string { return c.hardware }),
			distinct(combos, func(c swCombo) string { return strconv.Itoa(c.tp) }), comboList(combos))
	case len(match) > 1:
		return nil, badInput("%s: %d configurations match %s; choose one with --model, --hardware and --tp: %s",
			path, len(match), filterText(o), comboList(match))
	case len(match) == 1:
		in.model, in.hardware, in.tp = match[0].model, match[0].hardware, match[0].tp
	default: // the pre-scan found nothing usable: let the reader report why
		in.model, in.hardware, in.tp = o.model, o.hardware, o.tp
	}
	ms, err := perf.ReadSplitwise(bytes.NewReader(data), in.model, in.hardware, in.tp)
	if err != nil {
		return nil, badInput("%s: %s", path, perfErr(err))
	}
	// The configuration is in the heading; keep the rest of each label.
	prefix := " " + in.what() + " "
	for i := range ms {
		ms[i].Label = strings.Replace(ms[i].Label, prefix, " ", 1)
	}
	in.ms = ms
	return in, nil
}

// swCombo is one model/hardware/TP configuration of a Splitwise file.
type swCombo struct {
	model, hardware string
	tp, rows        int
}

// splitwiseCombos lists the configurations of a Splitwise file in file
// order. Malformed rows are skipped: ReadSplitwise reports them.
func splitwiseCombos(data []byte) []swCombo {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comment = '#'
	r.TrimLeadingSpace = true
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return nil
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	mi, ok1 := col["model"]
	hi, ok2 := col["hardware"]
	ti, ok3 := col["tensor_parallel"]
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	var out []swCombo
	index := map[swCombo]int{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return out
		}
		if len(rec) <= max(mi, hi, ti) {
			continue
		}
		tp, err := strconv.Atoi(strings.TrimSpace(rec[ti]))
		if err != nil {
			continue
		}
		k := swCombo{model: strings.TrimSpace(rec[mi]), hardware: strings.TrimSpace(rec[hi]), tp: tp}
		if i, ok := index[k]; ok {
			out[i].rows++
			continue
		}
		index[k] = len(out)
		k.rows = 1
		out = append(out, k)
	}
	return out
}

func filterText(o calibrateOptions) string {
	var f []string
	if o.model != "" {
		f = append(f, "--model "+o.model)
	}
	if o.hardware != "" {
		f = append(f, "--hardware "+o.hardware)
	}
	if o.tp != 0 {
		f = append(f, fmt.Sprintf("--tp %d", o.tp))
	}
	if len(f) == 0 {
		return "(no filters)"
	}
	return strings.Join(f, " ")
}

func distinct(cs []swCombo, key func(swCombo) string) string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cs {
		if k := key(c); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return strings.Join(out, ", ")
}

func comboList(cs []swCombo) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = fmt.Sprintf("%s/%s/tp%d", c.model, c.hardware, c.tp)
	}
	return strings.Join(s, ", ")
}

// calibHardware is the catalogue GPU and model for the roofline, if any.
type calibHardware struct {
	ok    bool
	gpu   perf.GPU
	model perf.Model
	from  string // how they were chosen
	why   string // why there is no roofline (when !ok)
}

// resolveHardware finds the roofline's GPU and model. Names given by flag,
// or needed because --kind asks for a roofline, must be in the catalogue;
// otherwise a name the catalogue lacks only means no roofline.
func resolveHardware(in *calibInput, o calibrateOptions) (calibHardware, error) {
	gpuName, modelName := o.gpu, o.servedModel
	gpuFrom, modelFrom := "--gpu", "--served-model"
	if in.format == "splitwise" {
		if gpuName == "" {
			gpuName, gpuFrom = in.hardware, "the file's hardware name"
		}
		if modelName == "" {
			modelName, modelFrom = in.model, "the file's model name"
		}
	}
	strict := o.kind == "roofline" || o.kind == "both" || o.gpu != "" || o.servedModel != ""
	if gpuName == "" || modelName == "" {
		why := "a roofline needs a catalogue GPU and model: name them with --gpu and --served-model"
		if strict {
			return calibHardware{}, badInput("%s (\"headroom catalogue\" lists them)", why)
		}
		return calibHardware{why: why}, nil
	}
	g, gerr := perf.LookupGPU(gpuName)
	m, merr := perf.LookupModel(modelName)
	var problems []string
	if gerr != nil {
		problems = append(problems, fmt.Sprintf("%s: %s; name a catalogue GPU with --gpu", gpuFrom, perfErr(gerr)))
	}
	if merr != nil {
		problems = append(problems, fmt.Sprintf("%s: %s; name a catalogue model with --served-model", modelFrom, perfErr(merr)))
	}
	if len(problems) > 0 {
		if strict {
			return calibHardware{}, badInput("%s: no roofline for %s", in.path, strings.Join(problems, "; "))
		}
		return calibHardware{why: strings.Join(problems, "; ")}, nil
	}
	from := fmt.Sprintf("GPU from %s, model from %s", gpuFrom, modelFrom)
	switch {
	case o.gpu == "" && o.servedModel == "" && in.format == "splitwise":
		from = "catalogue entries for the file's hardware and model names"
	case o.gpu != "" && o.servedModel != "":
		from = "from --gpu and --served-model"
	}
	return calibHardware{ok: true, gpu: g, model: m, from: from}, nil
}

// calibFit is one fitted step model.
type calibFit struct {
	kind     string // "roofline" or "table"
	sm       perf.StepModel
	roofline perf.Roofline
	table    perf.Table
	pe       []perf.PointError // the points fitted (suspect ones excluded)
}

func fitModels(in *calibInput, hw calibHardware, kind string) ([]calibFit, []string, error) {
	wantRoof := kind == "roofline" || kind == "both" || kind == "" && hw.ok
	wantTable := kind == "table" || kind == "both" || kind == ""
	var fits []calibFit
	var notes []string
	if !hw.ok && kind == "" {
		notes = append(notes, "no roofline: "+hw.why)
	}
	if wantRoof {
		r, pe, err := perf.FitRoofline(perf.Roofline{GPU: hw.gpu, Model: hw.model, TP: in.tp}, in.ms)
		if err != nil {
			msg := perfErr(err)
			if !strings.HasPrefix(msg, "roofline") {
				msg = "roofline fit: " + msg
			}
			return nil, nil, badInput("%s: %s", in.path, msg)
		}
		fits = append(fits, calibFit{kind: "roofline", sm: &r, roofline: r, pe: pe})
	}
	if wantTable {
		t, pe, err := perf.FitTable(in.ms)
		switch {
		case err != nil && kind == "" && len(fits) > 0:
			notes = append(notes, "no table: "+perfErr(err))
		case err != nil:
			msg := perfErr(err)
			if !strings.HasPrefix(msg, "table fit") {
				msg = "table fit: " + msg
			}
			return nil, nil, badInput("%s: %s", in.path, msg)
		default:
			fits = append(fits, calibFit{kind: "table", sm: &t, table: t, pe: pe})
		}
	}
	return fits, notes, nil
}

// isPrefillStep tells prefill (and mixed) steps from decode-only ones.
func isPrefillStep(b perf.Batch) bool { return b.Prefill > 0 || b.PrefillSeqs > 0 }

// errStats is an ErrorSummary of one class of points.
type errStats struct {
	n               int
	mean, p90, maxE float64
}

func summarise(pe []perf.PointError, prefill bool) errStats {
	var sel []perf.PointError
	for _, p := range pe {
		if isPrefillStep(p.Measurement.Batch) == prefill {
			sel = append(sel, p)
		}
	}
	s := errStats{n: len(sel)}
	s.mean, s.p90, s.maxE = perf.ErrorSummary(sel)
	return s
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func writeCalibration(w io.Writer, in *calibInput, hw calibHardware, fits []calibFit, notes []string) error {
	var b strings.Builder
	suspect, mixed := 0, false
	for _, m := range in.ms {
		if m.Suspect != "" {
			suspect++
		}
		if m.Batch.Decode > 0 && isPrefillStep(m.Batch) {
			mixed = true
		}
	}
	fmt.Fprintf(&b, "headroom calibrate: %s (%s format)\n", in.path, in.format)
	if in.format == "splitwise" {
		fmt.Fprintf(&b, "  configuration: model %s, hardware %s, TP %d: %d measured steps", in.model, in.hardware, in.tp, len(in.ms))
	} else {
		fmt.Fprintf(&b, "  %d measured steps", len(in.ms))
	}
	if suspect > 0 {
		fmt.Fprintf(&b, ", %d suspect (shown, excluded from the fit)", suspect)
	}
	b.WriteString("\n")
	if hw.ok {
		fmt.Fprintf(&b, "  roofline: %d × %s (%g TFLOP/s, %g GB/s) serving %s (%s)\n",
			in.tp, hw.gpu.Name, hw.gpu.TFLOPS, hw.gpu.BandwidthGBs, hw.model.Name, hw.from)
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "  %s\n", n)
	}
	b.WriteString("\n")

	// Every point: numbers right-aligned, the label last.
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "MEASURED ms\t")
	for _, f := range fits {
		fmt.Fprintf(tw, "%s ms\tERROR\t", strings.ToUpper(f.kind))
	}
	fmt.Fprint(tw, "  POINT\n")
	for _, m := range in.ms {
		fmt.Fprintf(tw, "%.2f\t", m.Seconds*1e3)
		for _, f := range fits {
			p := f.sm.StepTime(m.Batch)
			e := math.Round(1000*(p-m.Seconds)/m.Seconds) / 10
			if e == 0 {
				e = 0 // no "-0.0%"
			}
			fmt.Fprintf(tw, "%.2f\t%+.1f%%\t", p*1e3, e)
		}
		label := m.Label
		if m.Suspect != "" {
			label += "  [EXCLUDED, suspect: " + m.Suspect + "]"
		}
		fmt.Fprintf(tw, "  %s\n", label)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	prefillName := "prefill"
	if mixed {
		prefillName = "prefill+mixed"
	}
	b.WriteString("\nFit error |predicted − measured| / measured")
	if suspect > 0 {
		b.WriteString(", suspect points excluded")
	}
	b.WriteString(":\n")
	fmt.Fprintf(&b, "  %-24s %6s %7s %7s %7s\n", "", "points", "mean", "p90", "max")
	for _, f := range fits {
		for _, pre := range []bool{false, true} {
			s := summarise(f.pe, pre)
			name := f.kind + " decode"
			if pre {
				name = f.kind + " " + prefillName
			}
			if s.n == 0 {
				fmt.Fprintf(&b, "  %-24s %6d %7s %7s %7s\n", name, 0, "-", "-", "-")
				continue
			}
			fmt.Fprintf(&b, "  %-24s %6d %7s %7s %7s\n", name, s.n, pct(s.mean), pct(s.p90), pct(s.maxE))
		}
	}

	if len(fits) > 1 {
		b.WriteString("\nTwo alternatives follow; paste one into the [[cluster]] block. The roofline\n" +
			"carries over to prompt lengths and batch sizes that were not measured; the\n" +
			"table follows the measured decode curve point by point and beyond its largest\n" +
			"batch size extends its last segment.\n")
	} else {
		b.WriteString("\nPaste into the [[cluster]] block:\n")
	}
	for _, f := range fits {
		b.WriteString("\n")
		b.WriteString(stepTOML(in, hw, f, prefillName))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// stepTOML is the [cluster.step] block of a fit, with comments saying
// where it came from and how well it fits.
func stepTOML(in *calibInput, hw calibHardware, f calibFit, prefillName string) string {
	var b strings.Builder
	d, p := summarise(f.pe, false), summarise(f.pe, true)
	var errs []string
	if d.n > 0 {
		errs = append(errs, fmt.Sprintf("decode mean error %s (max %s)", pct(d.mean), pct(d.maxE)))
	}
	if p.n > 0 {
		errs = append(errs, fmt.Sprintf("%s mean error %s (max %s)", prefillName, pct(p.mean), pct(p.maxE)))
	}
	what := fmt.Sprintf("%d points", len(f.pe))
	if in.format == "splitwise" {
		what = in.what() + ", " + what
	}
	fmt.Fprintf(&b, "# %s step model fitted by headroom calibrate to %s (%s): %s\n",
		f.kind, in.path, what, strings.Join(errs, ", "))
	switch f.kind {
	case "roofline":
		r := f.roofline
		fmt.Fprintf(&b, "# for the cluster's gpu = %q, model = %q, tensor_parallel = %d (no gpu_spec/model_spec overrides)\n",
			hw.gpu.Name, hw.model.Name, in.tp)
		compute, memory := false, false
		for _, pe := range f.pe {
			if r.ComputeTime(pe.Measurement.Batch) > r.MemoryTime(pe.Measurement.Batch) {
				compute = true
			} else {
				memory = true
			}
		}
		if !compute {
			b.WriteString("# every point is memory-bound: compute_efficiency is only a bound; measure long prefills to fit it\n")
		}
		if !memory {
			b.WriteString("# every point is compute-bound: bandwidth_efficiency is only a bound; measure decode steps to fit it\n")
		}
		b.WriteString("[cluster.step]\nkind = \"roofline\"\n")
		fmt.Fprintf(&b, "compute_efficiency = %s\n", sig4(r.ComputeEff))
		fmt.Fprintf(&b, "bandwidth_efficiency = %s\n", sig4(r.BandwidthEff))
		fmt.Fprintf(&b, "overhead = %q\n", tomlDuration(r.Overhead))
	case "table":
		t := f.table
		b.WriteString("[cluster.step]\nkind = \"table\"\nper = \"iteration\"\n")
		bs := make([]string, len(t.Batches))
		ts := make([]string, len(t.Times))
		for i := range t.Batches {
			bs[i] = strconv.FormatFloat(t.Batches[i], 'f', -1, 64)
			ts[i] = strconv.Quote(tomlDuration(t.Times[i]))
		}
		fmt.Fprintf(&b, "batches = [%s]\n", strings.Join(bs, ", "))
		fmt.Fprintf(&b, "times = [%s]\n", strings.Join(ts, ", "))
		fmt.Fprintf(&b, "prefill_per_token = %q\n", tomlDuration(t.PrefillPerToken))
		fmt.Fprintf(&b, "per_context_token = %q\n", tomlDuration(t.PerContextToken))
	}
	return b.String()
}

// sig4 rounds x to four significant digits, without an exponent.
func sig4(x float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// tomlDuration writes seconds as a duration string in the largest unit
// that keeps the number at least 1, to four significant digits: "15.61ms",
// "93.2us", "1.5ns".
func tomlDuration(s float64) string {
	if !(s > 0) || math.IsInf(s, 0) {
		return "0s"
	}
	units := []struct {
		name string
		size float64
	}{{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}}
	for _, u := range units {
		if s >= u.size || u.name == "ns" {
			return sig4(s/u.size) + u.name
		}
	}
	return "0s"
}
