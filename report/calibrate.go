package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/headroom-sim/headroom/model/perf"
)

// Calibration is what `headroom calibrate` read and fitted; Calibrate
// writes it for people: every point with its predictions, the error
// summaries (in-sample and cross-validated), what the fit could not tell,
// and the [cluster.step] blocks to paste.
type Calibration struct {
	// Path and Format say what was read.
	Path   string
	Format perf.Format
	// Splitwise is the configuration read from a Splitwise file.
	Splitwise *perf.SplitwiseConfig
	// TP is the tensor-parallel degree of the steps (or of the roofline).
	TP int
	// Measurements are every point read, suspect ones included.
	Measurements []perf.Measurement
	// Hardware is the roofline's GPU and model, nil when there is none.
	Hardware *CalibrationHardware
	// NoRoofline and NoTable say why a fit the user did not insist on is
	// missing ("" when it is there or was not wanted).
	NoRoofline, NoTable string
	// Roofline and Table are the fits, nil when not made.
	Roofline *perf.RooflineFit
	Table    *CalibrationTable
}

// CalibrationHardware is the roofline's catalogue GPU and model and where
// their names came from.
type CalibrationHardware struct {
	GPU   perf.GPU
	Model perf.Model
	// GPUFromFile and ModelFromFile are true when the name was the
	// Splitwise file's, false when a flag gave it.
	GPUFromFile, ModelFromFile bool
}

// CalibrationTable is a fitted table and its per-point errors.
type CalibrationTable struct {
	Table  perf.Table
	Points []perf.PointError
	// PrefillFromCatalogue is true when no prefill step was measured and
	// Table.PrefillPerToken is the catalogue roofline's (Calibrate says
	// so); with no prefill step and no catalogue hardware, the block
	// leaves it out and says what to measure.
	PrefillFromCatalogue bool
}

// isPrefillStep tells prefill (and mixed) steps from decode-only ones.
func isPrefillStep(b perf.Batch) bool { return b.Prefill > 0 || b.PrefillSeqs > 0 }

type errStats struct {
	n               int
	mean, p90, maxE float64
}

func summarise(pe []perf.PointError, class func(perf.Measurement) bool) errStats {
	var sel []perf.PointError
	for _, p := range pe {
		if class(p.Measurement) {
			sel = append(sel, p)
		}
	}
	s := errStats{n: len(sel)}
	s.mean, s.p90, s.maxE = perf.ErrorSummary(sel)
	return s
}

func calPct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// fitRow is one fit's name, in-sample and cross-validated errors.
type fitRow struct {
	kind   string
	points []perf.PointError
	cv     []perf.PointError
	model  perf.StepModel
}

func (c *Calibration) rows() []fitRow {
	var rs []fitRow
	if c.Roofline != nil {
		r := c.Roofline.Roofline
		rs = append(rs, fitRow{"roofline", c.Roofline.Points, c.Roofline.CV, &r})
	}
	if c.Table != nil {
		t := c.Table.Table
		rs = append(rs, fitRow{"table", c.Table.Points, nil, &t})
	}
	return rs
}

// classes are the kinds of point the summaries split.
type class struct {
	name string
	in   func(perf.Measurement) bool
}

func (c *Calibration) classes() []class {
	mixed, linear := false, false
	for _, m := range c.Measurements {
		if m.Batch.Decode > 0 && isPrefillStep(m.Batch) {
			mixed = true
		}
		if m.Part == perf.PartLinear {
			linear = true
		}
	}
	if linear {
		return []class{{"linear layers", func(m perf.Measurement) bool { return m.Part == perf.PartLinear }}}
	}
	pre := "prefill"
	if mixed {
		pre = "prefill+mixed"
	}
	return []class{
		{"decode", func(m perf.Measurement) bool { return !isPrefillStep(m.Batch) }},
		{pre, func(m perf.Measurement) bool { return isPrefillStep(m.Batch) }},
	}
}

// Calibrate writes the calibration report.
func Calibrate(w io.Writer, c *Calibration) error {
	var b strings.Builder
	suspect := 0
	for _, m := range c.Measurements {
		if m.Suspect != "" {
			suspect++
		}
	}
	if f := string(c.Format); strings.HasSuffix(f, "load test") {
		fmt.Fprintf(&b, "headroom calibrate: %s (%s results)\n", c.Path, strings.TrimSuffix(f, " test")+"-test")
	} else {
		fmt.Fprintf(&b, "headroom calibrate: %s (%s format)\n", c.Path, c.Format)
	}
	if c.Splitwise != nil {
		fmt.Fprintf(&b, "  configuration: model %s, hardware %s, TP %d: %d measured steps", c.Splitwise.Model, c.Splitwise.Hardware, c.Splitwise.TP, len(c.Measurements))
	} else if c.Format == perf.FormatVidur {
		fmt.Fprintf(&b, "  %d operator-profile points (the linear layers and element-wise kernels only)", len(c.Measurements))
	} else {
		fmt.Fprintf(&b, "  %d measured steps", len(c.Measurements))
	}
	if suspect > 0 {
		fmt.Fprintf(&b, ", %d suspect (shown, excluded from the fit)", suspect)
	}
	b.WriteString("\n")
	if h := c.Hardware; h != nil {
		from := "from --gpu and --served-model"
		switch {
		case h.GPUFromFile && h.ModelFromFile:
			from = "catalogue entries for the file's hardware and model names"
		case h.GPUFromFile || h.ModelFromFile:
			from = fmt.Sprintf("GPU from %s, model from %s", fromText(h.GPUFromFile, "--gpu", "hardware"), fromText(h.ModelFromFile, "--served-model", "model"))
		}
		fmt.Fprintf(&b, "  roofline: %d × %s (%g TFLOP/s, %g GB/s) serving %s (%s)\n",
			c.TP, h.GPU.Name, h.GPU.TFLOPS, h.GPU.BandwidthGBs, h.Model.Name, from)
	}
	if c.NoRoofline != "" {
		fmt.Fprintf(&b, "  no roofline: %s\n", c.NoRoofline)
	}
	if c.NoTable != "" {
		fmt.Fprintf(&b, "  no table: %s\n", c.NoTable)
	}
	b.WriteString("\n")

	rows := c.rows()
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "MEASURED ms\t")
	for _, f := range rows {
		fmt.Fprintf(tw, "%s ms\tERROR\t", strings.ToUpper(f.kind))
	}
	fmt.Fprint(tw, "  POINT\n")
	for i := range c.Measurements {
		m := &c.Measurements[i]
		fmt.Fprintf(tw, "%.2f\t", m.Seconds*1e3)
		for _, f := range rows {
			p := predict(f.model, m)
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

	classes := c.classes()
	b.WriteString("\nFit error |predicted − measured| / measured")
	if suspect > 0 {
		b.WriteString(", suspect points excluded")
	}
	b.WriteString(":\n")
	fmt.Fprintf(&b, "  %-30s %6s %7s %7s %7s %12s %8s\n", "", "points", "mean", "p90", "max", "cross-valid.", "cv max")
	for _, f := range rows {
		for _, cl := range classes {
			s := summarise(f.points, cl.in)
			name := f.kind + " " + cl.name
			if s.n == 0 {
				fmt.Fprintf(&b, "  %-30s %6d %7s %7s %7s %12s %8s\n", name, 0, "-", "-", "-", "-", "-")
				continue
			}
			cvm, cvx := "-", "-"
			if f.cv != nil {
				cs := summarise(f.cv, cl.in)
				cvm, cvx = calPct(cs.mean), calPct(cs.maxE)
			}
			fmt.Fprintf(&b, "  %-30s %6d %7s %7s %7s %12s %8s\n", name, s.n, calPct(s.mean), calPct(s.p90), calPct(s.maxE), cvm, cvx)
		}
	}
	if c.Roofline != nil && c.Roofline.Folds > 0 {
		fmt.Fprintf(&b, "  (cross-validated: each point predicted by a fit to the other %d of %d folds)\n", c.Roofline.Folds-1, c.Roofline.Folds)
	}
	if c.Roofline != nil {
		c.writeBoundNotes(&b)
	}
	if lo, hi, ok := c.decodeRange(); ok {
		if lo == hi {
			fmt.Fprintf(&b, "  decode was measured at batch %d only: at every other batch size both fits extrapolate\n", lo)
		} else {
			fmt.Fprintf(&b, "  decode was measured at batches %d to %d: outside that range both fits extrapolate\n", lo, hi)
		}
	}

	if len(rows) > 1 {
		b.WriteString("\nTwo alternatives follow; paste one into the [[cluster]] block. The roofline\n" +
			"carries over to prompt lengths and batch sizes that were not measured; the\n" +
			"table follows the measured decode curve point by point and beyond its largest\n" +
			"batch size extends its last segment.\n")
	} else {
		b.WriteString("\nPaste into the [[cluster]] block:\n")
	}
	for _, f := range rows {
		b.WriteString("\n")
		b.WriteString(c.stepTOML(f, classes))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fromText(file bool, flag, what string) string {
	if file {
		return "the file's " + what + " name"
	}
	return flag
}

// predict is a fit's prediction for m, at m's TP and for what m timed.
func predict(sm perf.StepModel, m *perf.Measurement) float64 {
	if r, ok := sm.(*perf.Roofline); ok {
		return r.Predict(*m)
	}
	return sm.StepTime(m.Batch)
}

// decodeRange is the smallest and largest batch of the decode-only steps.
func (c *Calibration) decodeRange() (lo, hi int, ok bool) {
	for _, m := range c.Measurements {
		if m.Suspect != "" || m.Part == perf.PartLinear || isPrefillStep(m.Batch) {
			continue
		}
		if !ok || m.Batch.Decode < lo {
			lo = m.Batch.Decode
		}
		if !ok || m.Batch.Decode > hi {
			hi = m.Batch.Decode
		}
		ok = true
	}
	return lo, hi, ok
}

// hasPrefill reports whether a prefill (or mixed) step was measured.
func (c *Calibration) hasPrefill() bool {
	for _, m := range c.Measurements {
		if m.Suspect == "" && m.Part != perf.PartLinear && isPrefillStep(m.Batch) {
			return true
		}
	}
	return false
}

// writeBoundNotes says which parameters the fit held and why, and which
// ended on a bound, and what that means.
func (c *Calibration) writeBoundNotes(b *strings.Builder) {
	f := c.Roofline
	var held, zeroed []string
	for _, p := range f.Fixed {
		switch {
		case slices.Contains(f.Zeroed, p):
			zeroed = append(zeroed, p.String())
		case !slices.ContainsFunc(f.Held, func(h perf.Held) bool { return h.Param == p }):
			held = append(held, p.String())
		}
	}
	if len(zeroed) > 0 {
		fmt.Fprintf(b, "  set to 0 and left to overhead, which these measurements cannot tell them from: %s\n", strings.Join(zeroed, ", "))
	}
	if len(held) > 0 {
		fmt.Fprintf(b, "  held at their defaults (these measurements cannot tell them apart from the others): %s\n", strings.Join(held, ", "))
	}
	def := perf.Roofline{}
	if h := c.Hardware; h != nil {
		def = perf.DefaultRoofline(h.GPU, h.Model, c.TP)
	}
	for _, h := range f.Held {
		v := paramValue(h.Param, h.Param.Get(&def))
		switch h.Reason {
		case perf.HoldNotComputeBound:
			fmt.Fprintf(b, "  %s held at its default %s: no measured step is compute-bound, so the measurements cannot tell it; measure prefills of long prompts (at concurrency 1) to fit it\n", h.Param, v)
		case perf.HoldNotMemoryBound:
			fmt.Fprintf(b, "  %s held at its default %s: every measured step is compute-bound, so the measurements cannot tell it; measure decode steps to fit it\n", h.Param, v)
		case perf.HoldTooFewPoints:
			fmt.Fprintf(b, "  %s held at its default %s: %d points cannot determine more parameters; measure more steps or load levels to fit it\n", h.Param, v, len(f.Points))
		case perf.HoldOnBound:
			fmt.Fprintf(b, "  %s held at its default %s, the rest refitted without it: fitted, it went to its %s, so %s\n",
				h.Param, v, boundText(h.At), c.boundMeaning(h.At))
		}
	}
	for _, a := range f.AtBounds {
		fmt.Fprintf(b, "  %s = %s sits on its %s: %s, so other terms absorb the rest and the fit carries over to other setups less well\n",
			a.Param, paramValue(a.Param, a.Value), boundText(a), c.boundMeaning(a))
	}
}

func boundText(a perf.AtBound) string {
	side := "lower"
	if a.Upper {
		side = "upper"
	}
	return fmt.Sprintf("%s bound %s", side, paramValue(a.Param, a.Bound))
}

// boundMeaning says what a parameter on a bound tells about the
// measurements.
func (c *Calibration) boundMeaning(a perf.AtBound) string {
	hw := "the stated hardware"
	if h := c.Hardware; h != nil {
		hw = fmt.Sprintf("%d × %s serving %s", c.TP, h.GPU.Name, h.Model.Name)
	}
	switch {
	case a.Upper && (a.Param == perf.ParamComputeEff || a.Param == perf.ParamBandwidthEff):
		return "the measurements are faster than " + hw + " can be: were they taken on more GPUs (--tp), a faster GPU or a smaller or quantised model?"
	case !a.Upper && (a.Param == perf.ParamComputeEff || a.Param == perf.ParamBandwidthEff):
		return "the measurements are far slower than " + hw + " explains: the engine's own costs, or steps that are not what they were taken for"
	case a.Upper && a.Param == perf.ParamOverheadPerSeq:
		return "the steps grow with the batch faster than sampling and scheduling explain (prefill counted as decode?)"
	}
	return "the data push it further than the model allows"
}

func paramValue(p perf.Param, v float64) string {
	if p.IsTime() {
		return strconv.Quote(TOMLDuration(v))
	}
	return Sig4(v)
}

// stepTOML is the [cluster.step] block of a fit, with comments saying
// where it came from and how well it fits.
func (c *Calibration) stepTOML(f fitRow, classes []class) string {
	var b strings.Builder
	var errs []string
	for _, cl := range classes {
		s := summarise(f.points, cl.in)
		if s.n > 0 {
			errs = append(errs, fmt.Sprintf("%s mean error %s (max %s)", cl.name, calPct(s.mean), calPct(s.maxE)))
		}
	}
	what := fmt.Sprintf("%d points", len(f.points))
	if c.Splitwise != nil {
		what = c.Splitwise.String() + ", " + what
	}
	fmt.Fprintf(&b, "# %s step model fitted by headroom calibrate to %s (%s): %s\n", f.kind, c.Path, what, strings.Join(errs, ", "))
	switch f.kind {
	case "roofline":
		r := c.Roofline.Roofline
		h := c.Hardware
		fmt.Fprintf(&b, "# for the cluster's gpu = %q, model = %q, tensor_parallel = %d (no gpu_spec/model_spec overrides)\n",
			h.GPU.Name, h.Model.Name, c.TP)
		if lo, hi, ok := c.decodeRange(); ok && lo != hi {
			fmt.Fprintf(&b, "# decode measured at batches %d to %d only\n", lo, hi)
		}
		if c.Format == perf.FormatVidur {
			b.WriteString("# an operator profile times the linear layers and element-wise kernels only: overhead, per-sequence and all-reduce costs keep their defaults\n")
		}
		b.WriteString("[cluster.step]\nkind = \"roofline\"\n")
		// A parameter held at its default is left to the default, commented
		// out with why, not written as if fitted.
		line := func(p perf.Param, val string) {
			for _, h := range c.Roofline.Held {
				if h.Param == p {
					fmt.Fprintf(&b, "# %s = %s  (the default: %s)\n", p, val, heldWhy(h))
					return
				}
			}
			fmt.Fprintf(&b, "%s = %s\n", p, val)
		}
		line(perf.ParamComputeEff, Sig4(r.ComputeEff))
		line(perf.ParamBandwidthEff, Sig4(r.BandwidthEff))
		if c.Format != perf.FormatVidur {
			line(perf.ParamOverhead, strconv.Quote(TOMLDuration(r.Overhead)))
		}
		line(perf.ParamOverheadPerLayer, strconv.Quote(TOMLDuration(r.OverheadPerLayer)))
		if c.Format == perf.FormatVidur {
			line(perf.ParamElementwiseEff, Sig4(r.ElementwiseEff))
		}
		if c.Format != perf.FormatVidur {
			line(perf.ParamOverheadPerSeq, strconv.Quote(TOMLDuration(r.OverheadPerSeq)))
			if c.TP > 1 {
				if r.AllReduce != perf.AllReduceAuto {
					fmt.Fprintf(&b, "all_reduce = %q\n", r.AllReduce)
				}
				line(perf.ParamCollectiveLatency, strconv.Quote(TOMLDuration(r.CollectiveLatency)))
				if r.InterconnectEff > 0 && r.InterconnectEff != 1 {
					line(perf.ParamInterconnectEff, Sig4(r.InterconnectEff))
				}
			}
		}
	case "table":
		t := c.Table.Table
		b.WriteString("[cluster.step]\nkind = \"table\"\nper = \"iteration\"\n")
		bs := make([]string, len(t.Batches))
		ts := make([]string, len(t.Times))
		for i := range t.Batches {
			bs[i] = strconv.FormatFloat(t.Batches[i], 'f', -1, 64)
			ts[i] = strconv.Quote(TOMLDuration(t.Times[i]))
		}
		fmt.Fprintf(&b, "batches = [%s]\n", strings.Join(bs, ", "))
		fmt.Fprintf(&b, "times = [%s]\n", strings.Join(ts, ", "))
		if lo, hi, ok := c.decodeRange(); ok && lo != hi {
			fmt.Fprintf(&b, "# measured at batches %d to %d; below %d it holds the first time, above %d it extends the last segment\n", lo, hi, lo, hi)
		}
		switch {
		case c.hasPrefill():
			fmt.Fprintf(&b, "prefill_per_token = %q\n", TOMLDuration(t.PrefillPerToken))
		case c.Table.PrefillFromCatalogue:
			fmt.Fprintf(&b, "prefill_per_token = %q  # not measured (no prefill steps): the catalogue roofline's time per prompt token; measure prefills at concurrency 1 to replace it\n", TOMLDuration(t.PrefillPerToken))
		default:
			b.WriteString("# prefill_per_token: not measured (no prefill steps), and left out it prices prompts at nothing; set it from prefills measured at concurrency 1, or give --gpu and --served-model\n")
		}
		if t.PerContextToken > 0 || c.contextVaries() {
			fmt.Fprintf(&b, "per_context_token = %q\n", TOMLDuration(t.PerContextToken))
		} else {
			b.WriteString("# per_context_token: no batch size was measured at two context lengths, so the times above hold the measured contexts; measure one batch at two lengths to fit it\n")
		}
	}
	return b.String()
}

// heldWhy is a held parameter's reason, for a TOML comment.
func heldWhy(h perf.Held) string {
	switch h.Reason {
	case perf.HoldNotComputeBound:
		return "no compute-bound step measured; measure long prefills"
	case perf.HoldNotMemoryBound:
		return "no memory-bound step measured; measure decode steps"
	case perf.HoldTooFewPoints:
		return "too few points to fit it"
	case perf.HoldOnBound:
		return "fitted, it went to its " + boundText(h.At)
	}
	return "held"
}

// contextVaries reports whether some batch size of decode steps was
// measured at more than one context.
func (c *Calibration) contextVaries() bool {
	ctx := map[int]float64{}
	for _, m := range c.Measurements {
		if m.Suspect != "" || m.Part == perf.PartLinear || isPrefillStep(m.Batch) {
			continue
		}
		if v, ok := ctx[m.Batch.Decode]; ok && v != m.Batch.Context {
			return true
		}
		ctx[m.Batch.Decode] = m.Batch.Context
	}
	return false
}

// Sig4 rounds x to four significant digits, without an exponent.
func Sig4(x float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// TOMLDuration writes seconds as a duration string in the largest unit
// that keeps the number at least 1, to four significant digits: "15.61ms",
// "93.2us", "1.5ns"; "0s" for zero.
func TOMLDuration(s float64) string {
	if !(s >= 1e-12) || math.IsInf(s, 0) {
		return "0s"
	}
	units := []struct {
		name string
		size float64
	}{{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}}
	for _, u := range units {
		if s >= u.size || u.name == "ns" {
			return Sig4(s/u.size) + u.name
		}
	}
	return "0s"
}
