package perf

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/optimize"
)

// Measurement is one measured step.
type Measurement struct {
	// Batch is the step's work.
	Batch Batch
	// Seconds is the measured step duration.
	Seconds float64
	// Label says where the point came from (file row, configuration).
	Label string
	// Suspect, when non-empty, says why a reader distrusts the point (it
	// breaks the trend of its neighbours). FitRoofline and FitTable leave
	// suspect points out of the fit and out of the errors they return.
	Suspect string
	// TP is the tensor-parallel degree the point was measured at; 0 means
	// the fitted roofline's.
	TP int
	// Part says what was timed: a whole engine step (the zero value) or
	// only the linear layers (PartLinear, as an operator profile does).
	Part Part
}

// Part is what a measurement timed.
type Part uint8

const (
	// PartStep is a whole engine iteration.
	PartStep Part = iota
	// PartLinear is the linear layers (GEMMs) and element-wise kernels
	// (norms, rotary embedding, activation, residual add) of every layer
	// with their per-layer kernel costs, for Batch.Tokens() tokens: no attention,
	// communication, per-step or per-sequence costs. Roofline.LinearTime
	// predicts it; a Table cannot.
	PartLinear
)

// PointError is a fitted model's prediction for one measurement.
type PointError struct {
	// Measurement is the measured point.
	Measurement Measurement
	// Predicted is the model's step time in seconds.
	Predicted float64
	// RelErr is (Predicted − Seconds) / Seconds, signed.
	RelErr float64
}

// csvTable is a CSV file read by column name, remembering line numbers.
type csvTable struct {
	what string // "splitwise" or "step CSV", for errors
	r    *csv.Reader
	col  map[string]int
	head int // line of the header
}

func newCSVTable(r io.Reader, what string) (*csvTable, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("perf: %s: empty input, expected a header line", what)
	}
	if err != nil {
		return nil, fmt.Errorf("perf: %s: %w", what, err)
	}
	t := &csvTable{what: what, r: cr, col: map[string]int{}}
	t.head, _ = cr.FieldPos(0)
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if _, dup := t.col[h]; dup {
			line, _ := cr.FieldPos(i)
			return nil, fmt.Errorf("perf: %s line %d: column %q appears twice", what, line, h)
		}
		t.col[h] = i
	}
	return t, nil
}

// require fails unless every name is a column.
func (t *csvTable) require(names ...string) error {
	var missing []string
	for _, n := range names {
		if _, ok := t.col[n]; !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("perf: %s line %d: header lacks column(s) %s", t.what, t.head, strings.Join(missing, ", "))
	}
	return nil
}

// row is one record with its line number.
type row struct {
	t    *csvTable
	rec  []string
	line int
}

// next returns the next record, io.EOF at the end, or an error naming the line.
func (t *csvTable) next() (row, error) {
	rec, err := t.r.Read()
	if err == io.EOF {
		return row{}, io.EOF
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return row{}, fmt.Errorf("perf: %s line %d: %v", t.what, pe.Line, pe.Err)
		}
		return row{}, fmt.Errorf("perf: %s: %w", t.what, err)
	}
	line, _ := t.r.FieldPos(0)
	return row{t: t, rec: rec, line: line}, nil
}

func (r row) errorf(format string, a ...any) error {
	return fmt.Errorf("perf: %s line %d: %s", r.t.what, r.line, fmt.Sprintf(format, a...))
}

func (r row) has(name string) bool { _, ok := r.t.col[name]; return ok }

func (r row) str(name string) string { return strings.TrimSpace(r.rec[r.t.col[name]]) }

// num parses a finite number.
func (r row) num(name string) (float64, error) {
	s := r.str(name)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, r.errorf("%s %q is not a number", name, s)
	}
	return v, nil
}

// count parses a whole number >= lo.
func (r row) count(name string, lo int) (int, error) {
	v, err := r.num(name)
	if err != nil {
		return 0, err
	}
	if v != math.Trunc(v) || v < float64(lo) || v > 1<<40 {
		return 0, r.errorf("%s %q must be a whole number >= %d", name, r.str(name), lo)
	}
	return int(v), nil
}

// positive parses a number > 0.
func (r row) positive(name string) (float64, error) {
	v, err := r.num(name)
	if err != nil {
		return 0, err
	}
	if !(v > 0) {
		return 0, r.errorf("%s %q must be > 0", name, r.str(name))
	}
	return v, nil
}

// splitwiseRow is one parsed row of perf_model.csv.
type splitwiseRow struct {
	model, hardware           string
	tp, prompt, batch, tokens int
	promptMS, tokenMS         float64
	line                      int
}

// ReadSplitwise reads Splitwise's perf_model.csv (columns model, hardware,
// prompt_size, batch_size, token_size, peak_power, average_power,
// prompt_time, token_time, e2e_time, tensor_parallel; times in ms; read by
// name, other columns ignored) and returns, for rows matching the model,
// hardware and tp filters (case-insensitive; empty or 0 = all), two
// measurements per row:
//
//   - the prefill step: PrefillSeqs = batch, Prefill = Context = batch ×
//     prompt_size, taking prompt_time;
//   - a decode step: Decode = batch, Context = batch × (prompt_size +
//     token_size/2), the mean context over the generation, taking
//     token_time (the mean time per generated token).
//
// Rows whose median prompt_time at some batch size is under half the median
// at a smaller batch size of the same model, hardware, TP, prompt and
// output length are marked Suspect (both measurements): more prompt tokens
// cannot take less than half the time. In the published file this flags
// exactly the TP2 batch-64 rows, whose prompt_time (e.g. 794 ms on A100
// against 6.6 s at batch 32) and token_time both break the trend.
//
// Errors name the line; no matching rows is an error listing the
// model/hardware/TP combinations present.
func ReadSplitwise(r io.Reader, model, hardware string, tp int) ([]Measurement, error) {
	t, err := newCSVTable(r, "splitwise")
	if err != nil {
		return nil, err
	}
	if err := t.require("model", "hardware", "prompt_size", "batch_size", "token_size", "prompt_time", "token_time", "tensor_parallel"); err != nil {
		return nil, err
	}
	var rows []splitwiseRow
	seen := map[string]bool{}
	var combos []string
	for {
		rw, err := t.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		s := splitwiseRow{model: rw.str("model"), hardware: rw.str("hardware"), line: rw.line}
		if s.model == "" || s.hardware == "" {
			return nil, rw.errorf("model and hardware must not be empty")
		}
		if s.tp, err = rw.count("tensor_parallel", 1); err != nil {
			return nil, err
		}
		if s.prompt, err = rw.count("prompt_size", 1); err != nil {
			return nil, err
		}
		if s.batch, err = rw.count("batch_size", 1); err != nil {
			return nil, err
		}
		if s.tokens, err = rw.count("token_size", 0); err != nil {
			return nil, err
		}
		if s.promptMS, err = rw.positive("prompt_time"); err != nil {
			return nil, err
		}
		if s.tokenMS, err = rw.positive("token_time"); err != nil {
			return nil, err
		}
		combo := fmt.Sprintf("%s/%s/tp%d", s.model, s.hardware, s.tp)
		if !seen[combo] {
			seen[combo] = true
			combos = append(combos, combo)
		}
		if (model != "" && !strings.EqualFold(model, s.model)) ||
			(hardware != "" && !strings.EqualFold(hardware, s.hardware)) ||
			(tp != 0 && tp != s.tp) {
			continue
		}
		rows = append(rows, s)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("perf: splitwise: no rows match model=%q hardware=%q tp=%d (file has %s)",
			model, hardware, tp, strings.Join(combos, ", "))
	}
	suspect := splitwiseSuspects(rows)
	out := make([]Measurement, 0, 2*len(rows))
	for i, s := range rows {
		b := float64(s.batch)
		label := fmt.Sprintf("line %d %s/%s/tp%d prompt=%d batch=%d tokens=%d", s.line, s.model, s.hardware, s.tp, s.prompt, s.batch, s.tokens)
		out = append(out,
			Measurement{
				Batch:   Batch{PrefillSeqs: s.batch, Prefill: s.batch * s.prompt, Context: b * float64(s.prompt)},
				Seconds: s.promptMS / 1e3, Label: label + " prefill", Suspect: suspect[i], TP: s.tp,
			},
			Measurement{
				Batch:   Batch{Decode: s.batch, Context: b * (float64(s.prompt) + float64(s.tokens)/2)},
				Seconds: s.tokenMS / 1e3, Label: label + " decode", Suspect: suspect[i], TP: s.tp,
			})
	}
	return out, nil
}

// splitwiseSuspects returns, per row, why it is suspect ("" if not); see
// ReadSplitwise.
func splitwiseSuspects(rows []splitwiseRow) []string {
	type group struct {
		model, hw          string
		tp, prompt, tokens int
	}
	times := map[group]map[int][]float64{}
	for _, s := range rows {
		g := group{s.model, s.hardware, s.tp, s.prompt, s.tokens}
		if times[g] == nil {
			times[g] = map[int][]float64{}
		}
		times[g][s.batch] = append(times[g][s.batch], s.promptMS)
	}
	why := map[group]map[int]string{}
	for g, byBatch := range times {
		batches := slices.Sorted(maps.Keys(byBatch))
		best, bestBatch := 0.0, 0
		for _, b := range batches {
			med := median(byBatch[b])
			if med < 0.5*best {
				if why[g] == nil {
					why[g] = map[int]string{}
				}
				why[g][b] = fmt.Sprintf("median prompt_time %.0f ms at batch %d is under half the %.0f ms at batch %d", med, b, best, bestBatch)
			}
			if med > best {
				best, bestBatch = med, b
			}
		}
	}
	out := make([]string, len(rows))
	for i, s := range rows {
		out[i] = why[group{s.model, s.hardware, s.tp, s.prompt, s.tokens}][s.batch]
	}
	return out
}

// ReadStepCSV reads a simple CSV of measured steps. The header names the
// columns, in any order:
//
//	batch_size      sequences in the step (decoding + prefilling), >= 1
//	prefill_tokens  prompt tokens processed in the step, >= 0
//	context_tokens  KV tokens attention reads (sum of context lengths), >= 0
//	step_ms         measured step duration in milliseconds, > 0
//	prefill_seqs    optional: how many of the batch_size sequences are
//	                prefilling; default batch_size when prefill_tokens > 0
//	                (a prefill-only step), else 0
//	prefill_context optional: the part of context_tokens belonging to the
//	                prefilling sequences (Batch.PrefillContext); default 0
//	label           optional: free text kept in Measurement.Label
//
// Lines starting with '#' are comments. Unknown columns are an error (a
// misspelt optional column would otherwise be silently ignored). Errors name
// the line.
func ReadStepCSV(r io.Reader) ([]Measurement, error) {
	t, err := newCSVTable(r, "step CSV")
	if err != nil {
		return nil, err
	}
	if err := t.require("batch_size", "prefill_tokens", "context_tokens", "step_ms"); err != nil {
		return nil, err
	}
	for name := range t.col {
		switch name {
		case "batch_size", "prefill_tokens", "context_tokens", "step_ms", "prefill_seqs", "prefill_context", "label":
		default:
			return nil, fmt.Errorf("perf: step CSV line %d: unknown column %q (known: batch_size, prefill_tokens, context_tokens, step_ms, prefill_seqs, prefill_context, label)", t.head, name)
		}
	}
	var out []Measurement
	for {
		rw, err := t.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		batch, err := rw.count("batch_size", 1)
		if err != nil {
			return nil, err
		}
		prefill, err := rw.count("prefill_tokens", 0)
		if err != nil {
			return nil, err
		}
		ctx, err := rw.num("context_tokens")
		if err != nil {
			return nil, err
		}
		if ctx < 0 {
			return nil, rw.errorf("context_tokens %q must be >= 0", rw.str("context_tokens"))
		}
		ms, err := rw.positive("step_ms")
		if err != nil {
			return nil, err
		}
		pseqs := 0
		if prefill > 0 {
			pseqs = batch
		}
		if rw.has("prefill_seqs") && rw.str("prefill_seqs") != "" {
			if pseqs, err = rw.count("prefill_seqs", 0); err != nil {
				return nil, err
			}
		}
		switch {
		case pseqs > batch:
			return nil, rw.errorf("prefill_seqs %d exceeds batch_size %d", pseqs, batch)
		case prefill > 0 && pseqs == 0:
			return nil, rw.errorf("prefill_tokens %d but prefill_seqs 0", prefill)
		case prefill < pseqs:
			return nil, rw.errorf("prefill_seqs %d exceeds prefill_tokens %d (each prefilling sequence has at least one token)", pseqs, prefill)
		}
		var pctx float64
		if rw.has("prefill_context") && rw.str("prefill_context") != "" {
			if pctx, err = rw.num("prefill_context"); err != nil {
				return nil, err
			}
			if pctx < 0 || pctx > ctx {
				return nil, rw.errorf("prefill_context %g must be between 0 and context_tokens %g", pctx, ctx)
			}
		}
		label := fmt.Sprintf("line %d", rw.line)
		if rw.has("label") && rw.str("label") != "" {
			label += " " + rw.str("label")
		}
		out = append(out, Measurement{
			Batch:   Batch{Decode: batch - pseqs, PrefillSeqs: pseqs, Prefill: prefill, Context: ctx, PrefillContext: pctx},
			Seconds: ms / 1e3,
			Label:   label,
		})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("perf: step CSV: no measurements after the header")
	}
	return out, nil
}

// usable returns the non-suspect measurements, checking them.
func usable(ms []Measurement) ([]Measurement, error) {
	var out []Measurement
	for i, m := range ms {
		if m.Suspect != "" {
			continue
		}
		if !(m.Seconds > 0) || math.IsInf(m.Seconds, 1) {
			return nil, fmt.Errorf("perf: measurement %d (%s): seconds %g must be a finite number > 0", i, m.Label, m.Seconds)
		}
		if m.Batch.empty() {
			return nil, fmt.Errorf("perf: measurement %d (%s): empty batch", i, m.Label)
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("perf: no usable measurements (%d given, all suspect or none)", len(ms))
	}
	return out, nil
}

// pointErrors evaluates sm on every measurement.
func pointErrors(sm StepModel, ms []Measurement) []PointError {
	pe := make([]PointError, len(ms))
	for i, m := range ms {
		var p float64
		if r, ok := sm.(*Roofline); ok {
			p = r.Predict(m)
		} else {
			p = sm.StepTime(m.Batch)
		}
		pe[i] = PointError{Measurement: m, Predicted: p, RelErr: (p - m.Seconds) / m.Seconds}
	}
	return pe
}

// nelderMead minimises f from x0 with gonum's Nelder–Mead.
func nelderMead(f func([]float64) float64, x0 []float64) ([]float64, float64, error) {
	res, err := optimize.Minimize(optimize.Problem{Func: f}, append([]float64(nil), x0...), &optimize.Settings{
		Converger:       &optimize.FunctionConverge{Absolute: 1e-15, Relative: 1e-12, Iterations: 200},
		FuncEvaluations: 20000,
	}, &optimize.NelderMead{SimplexSize: 0.5})
	if res == nil {
		return nil, 0, err
	}
	if err != nil && res.Status == optimize.Failure {
		return nil, 0, err
	}
	if math.IsNaN(res.F) {
		return nil, 0, fmt.Errorf("objective is NaN")
	}
	return res.X, res.F, nil
}

// FitTable builds a Table fitted to measurements when no GPU or model
// specification is known. Decode-only measurements (Prefill = 0) give the
// curve: PerContextToken is the pooled least-squares slope of seconds on
// Context among decode points of equal batch size (0 when the context never
// varies, or if the slope is negative), Times[b] is the median over batch b
// of seconds − PerContextToken × Context, and the times are then made
// non-decreasing by pool-adjacent-violators (weighted by point count).
// PrefillPerToken is the least-squares (relative-error-weighted, through
// the origin) slope of what the curve leaves unexplained in the prefill
// measurements against their prompt tokens, clamped at 0. Suspect
// measurements are ignored. It returns the table and the per-point relative
// errors of every usable measurement.
func FitTable(ms []Measurement) (Table, []PointError, error) {
	pts, err := usable(ms)
	if err != nil {
		return Table{}, nil, err
	}
	byBatch := map[int][]Measurement{}
	var prefill []Measurement
	for _, m := range pts {
		if m.Batch.Prefill > 0 || m.Batch.PrefillSeqs > 0 {
			prefill = append(prefill, m)
			continue
		}
		byBatch[m.Batch.Decode] = append(byBatch[m.Batch.Decode], m)
	}
	if len(byBatch) == 0 {
		return Table{}, nil, fmt.Errorf("perf: table fit needs decode-only measurements (Prefill = 0); got %d prefill ones", len(prefill))
	}
	batches := slices.Sorted(maps.Keys(byBatch))

	// Pooled within-batch slope of seconds on context.
	var sxy, sxx float64
	for _, b := range batches {
		g := byBatch[b]
		var mx, my float64
		for _, m := range g {
			mx += m.Batch.Context
			my += m.Seconds
		}
		mx /= float64(len(g))
		my /= float64(len(g))
		for _, m := range g {
			dx := m.Batch.Context - mx
			sxy += dx * (m.Seconds - my)
			sxx += dx * dx
		}
	}
	var t Table
	if sxx > 0 && sxy > 0 {
		t.PerContextToken = sxy / sxx
	}
	times := make([]float64, len(batches))
	weights := make([]float64, len(batches))
	for i, b := range batches {
		g := byBatch[b]
		v := make([]float64, len(g))
		for j, m := range g {
			v[j] = m.Seconds - t.PerContextToken*m.Batch.Context
		}
		times[i] = median(v)
		weights[i] = float64(len(g))
	}
	times = isotonic(times, weights)
	t.Batches = make([]float64, len(batches))
	t.Times = make([]float64, len(batches))
	floor := math.Inf(1)
	for _, m := range pts {
		floor = math.Min(floor, m.Seconds)
	}
	floor *= 1e-3 // times must stay > 0 even if context explains everything
	for i, b := range batches {
		t.Batches[i] = float64(b)
		t.Times[i] = math.Max(times[i], floor)
	}
	for i := 1; i < len(t.Times); i++ { // the floor may have broken monotonicity
		t.Times[i] = math.Max(t.Times[i], t.Times[i-1])
	}

	// Prefill slope, minimising Σ ((r − a·P)/y)².
	var num, den float64
	for _, m := range prefill {
		base := t.StepTime(Batch{Decode: m.Batch.Seqs(), Context: m.Batch.Context})
		r := m.Seconds - base
		p := float64(m.Batch.Prefill)
		w := 1 / (m.Seconds * m.Seconds)
		num += w * r * p
		den += w * p * p
	}
	if den > 0 && num > 0 {
		t.PrefillPerToken = num / den
	}
	if err := t.Validate(); err != nil {
		return Table{}, nil, fmt.Errorf("perf: table fit produced an invalid table: %w", err)
	}
	return t, pointErrors(&t, pts), nil
}

// isotonic returns the weighted least-squares non-decreasing fit to y
// (pool adjacent violators).
func isotonic(y, w []float64) []float64 {
	type block struct {
		v, w float64
		n    int
	}
	var bs []block
	for i := range y {
		bs = append(bs, block{y[i], w[i], 1})
		for len(bs) > 1 && bs[len(bs)-2].v > bs[len(bs)-1].v {
			a, b := bs[len(bs)-2], bs[len(bs)-1]
			bs = bs[:len(bs)-2]
			bs = append(bs, block{(a.v*a.w + b.v*b.w) / (a.w + b.w), a.w + b.w, a.n + b.n})
		}
	}
	out := make([]float64, 0, len(y))
	for _, b := range bs {
		for range b.n {
			out = append(out, b.v)
		}
	}
	return out
}

// median of v (NaN for none).
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ErrorSummary summarises relative errors by their absolute values: the
// mean, the 90th percentile (nearest rank: the smallest value with at least
// 90 % of points at or below it) and the maximum. All are 0 for no points.
func ErrorSummary(pe []PointError) (mean, p90, max float64) {
	if len(pe) == 0 {
		return 0, 0, 0
	}
	a := make([]float64, len(pe))
	for i, p := range pe {
		a[i] = math.Abs(p.RelErr)
		mean += a[i]
	}
	sort.Float64s(a)
	mean /= float64(len(a))
	k := int(math.Ceil(0.9*float64(len(a)))) - 1
	if k < 0 {
		k = 0
	}
	return mean, a[k], a[len(a)-1]
}
