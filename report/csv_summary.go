package report

import (
	"encoding/csv"
	"io"
	"strconv"
)

// WriteKeyFiguresCSV writes a document's Summary, one row per variant and
// key figure: the mean and 95% interval over the replications and, for
// variants other than the base, the paired difference from the base
// (empty for the base).
func WriteKeyFiguresCSV(w io.Writer, d *Document) error {
	cw := csv.NewWriter(w)
	head := []string{"variant", "figure", "label", "unit", "replications", "mean", "lo", "hi", "diff_mean", "diff_lo", "diff_hi"}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, v := range d.Summary {
		for _, f := range v.Figures {
			rec := []string{csvText(v.Variant), f.Name, f.Label, f.Unit, strconv.Itoa(f.N), num(f.Mean), num(f.Lo), num(f.Hi), "", "", ""}
			if df := f.DiffVsBase; df != nil {
				rec[8], rec[9], rec[10] = num(df.Mean), num(df.Lo), num(df.Hi)
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteGridCSV writes a sweep with points (SweepInfo.Points): one row per
// point and variant, with each parameter's value, then every key figure's
// mean, lo and hi, and whether the point is its curve's knee.
func WriteGridCSV(w io.Writer, d *SweepDocument) error {
	cw := csv.NewWriter(w)
	head := []string{"point", "variant"}
	for _, p := range d.Sweep.Params {
		head = append(head, csvText(p.Key))
	}
	for _, name := range FigureNames() {
		head = append(head, name, name+"_lo", name+"_hi")
	}
	head = append(head, "knee")
	if err := cw.Write(head); err != nil {
		return err
	}
	for i, pt := range d.Sweep.Points {
		rec := []string{csvText(pt.Label), csvText(pt.Variant)}
		for _, v := range pt.Values {
			rec = append(rec, csvText(v))
		}
		for _, name := range FigureNames() {
			f, _ := d.Summary[i].Figure(name)
			rec = append(rec, num(f.Mean), num(f.Lo), num(f.Hi))
		}
		rec = append(rec, strconv.FormatBool(pt.Knee))
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// num formats a CSV number with ten significant digits.
func num(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
