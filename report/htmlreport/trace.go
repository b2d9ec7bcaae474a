package htmlreport

import (
	"strings"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// traceTable is what each trace workload read from its file and issued,
// variants side by side (a variant may change a trace's window, speed or
// scale), or nil when no variant replays a trace.
func traceTable(vs []*model.Results) *table {
	var names []string
	seen := map[string]bool{}
	for _, r := range vs {
		for _, t := range r.Traces {
			if !seen[t.Workload] {
				seen[t.Workload] = true
				names = append(names, t.Workload)
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	t := &table{Note: "Rows read count every data row up to the window's end; kept, those the filter and window selected. " +
		"Requests are those issued before the horizon, after speed, scale and loop. Token percentiles are of the requests issued (1% accuracy)."}
	for _, r := range vs {
		t.Head = append(t.Head, report.VariantName(r))
	}
	for _, name := range names {
		facts := make([]*report.TraceFacts, len(vs))
		for i, r := range vs {
			for _, tr := range r.Traces {
				if tr.Workload == name {
					f := report.FactsOf(tr)
					facts[i] = &f
				}
			}
		}
		row := func(label string, get func(*report.TraceFacts) (string, []string)) {
			tr := tableRow{Label: name + ": " + label}
			any := false
			for _, f := range facts {
				c := tableCell{Value: "—"}
				if f != nil {
					v, lines := get(f)
					if v != "" || len(lines) > 0 {
						any = true
						c.Value, c.Lines = v, lines
					}
				}
				tr.Cells = append(tr.Cells, c)
			}
			if any {
				t.Rows = append(t.Rows, tr)
			}
		}
		row("file", func(f *report.TraceFacts) (string, []string) { return f.Source, nil })
		row("read", func(f *report.TraceFacts) (string, []string) { return f.Read, nil })
		row("issued", func(f *report.TraceFacts) (string, []string) { return f.Issued, nil })
		row("input tokens", func(f *report.TraceFacts) (string, []string) { return f.Input, nil })
		row("output tokens", func(f *report.TraceFacts) (string, []string) { return f.Output, nil })
		row("transforms", func(f *report.TraceFacts) (string, []string) { return strings.Join(f.Transforms, "; "), nil })
		row("notes", func(f *report.TraceFacts) (string, []string) {
			if len(f.Notes) == 0 {
				return "", nil
			}
			return "", f.Notes
		})
	}
	return t
}
