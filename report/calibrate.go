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
	fmt.Fprintf(&b, "headroom calibrate: %s (%s format)\n", c.Path, c.Format)
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
		writeBoundNotes(&b, c.Roofline)
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

// writeBoundNotes says which parameters the fit held and which ended on a
// bound, and what that means.
func writeBoundNotes(b *strings.Builder, f *perf.RooflineFit) {
	var held, zeroed []string
	for _, p := range f.Fixed {
		if slices.Contains(f.Zeroed, p) {
			zeroed = append(zeroed, p.String())
		} else {
			held = append(held, p.String())
		}
	}
	if len(zeroed) > 0 {
		fmt.Fprintf(b, "  set to 0 and left to overhead, which these measurements cannot tell them from: %s\n", strings.Join(zeroed, ", "))
	}
	if len(held) > 0 {
		fmt.Fprintf(b, "  held at their defaults (these measurements cannot tell them apart from the others): %s\n", strings.Join(held, ", "))
	}
	for _, a := range f.AtBounds {
		side := "lower"
		if a.Upper {
			side = "upper"
		}
		fmt.Fprintf(b, "  %s = %s sits on its %s bound %s: the data push it further than the model allows, "+
			"so other terms absorb the rest and the fit carries over to other setups less well\n",
			a.Param, paramValue(a.Param, a.Value), side, paramValue(a.Param, a.Bound))
	}
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
		compute, memory := false, false
		for _, pe := range f.points {
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
		if c.Format == perf.FormatVidur {
			b.WriteString("# an operator profile times the linear layers and element-wise kernels only: overhead, per-sequence and all-reduce costs keep their defaults\n")
		}
		b.WriteString("[cluster.step]\nkind = \"roofline\"\n")
		fmt.Fprintf(&b, "compute_efficiency = %s\n", Sig4(r.ComputeEff))
		fmt.Fprintf(&b, "bandwidth_efficiency = %s\n", Sig4(r.BandwidthEff))
		if c.Format != perf.FormatVidur {
			fmt.Fprintf(&b, "overhead = %q\n", TOMLDuration(r.Overhead))
		}
		fmt.Fprintf(&b, "overhead_per_layer = %q\n", TOMLDuration(r.OverheadPerLayer))
		if c.Format == perf.FormatVidur {
			fmt.Fprintf(&b, "elementwise_efficiency = %s\n", Sig4(r.ElementwiseEff))
		}
		if c.Format != perf.FormatVidur {
			fmt.Fprintf(&b, "overhead_per_seq = %q\n", TOMLDuration(r.OverheadPerSeq))
			if c.TP > 1 {
				fmt.Fprintf(&b, "collective_latency = %q\n", TOMLDuration(r.CollectiveLatency))
				if r.InterconnectEff > 0 && r.InterconnectEff != 1 {
					fmt.Fprintf(&b, "interconnect_efficiency = %s\n", Sig4(r.InterconnectEff))
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
		fmt.Fprintf(&b, "prefill_per_token = %q\n", TOMLDuration(t.PrefillPerToken))
		fmt.Fprintf(&b, "per_context_token = %q\n", TOMLDuration(t.PerContextToken))
	}
	return b.String()
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
