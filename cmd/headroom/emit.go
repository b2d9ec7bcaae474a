package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/report/htmlreport"
	"github.com/headroom-sim/headroom/workloads"
)

// outputOptions say where an assembled document goes.
type outputOptions struct {
	jsonPath string
	// csvPath is a directory for run and compare, a file for sweep.
	csvPath string
	// htmlPath is the HTML report's file ("" for none).
	htmlPath string
	quiet    bool
}

// toStdout reports whether an output goes to standard output ("-"),
// which then carries nothing else: no table, no "wrote" lines.
func (o outputOptions) toStdout() bool {
	return o.jsonPath == stdoutName || o.csvPath == stdoutName || o.htmlPath == stdoutName
}

// emit writes an assembled document as its command does: the terminal
// summary, then JSON, CSV and HTML when asked, as one set (all or none
// replaced). run, compare, sweep and merge all end here, so merged parts
// print and write what one process would.
func emit(out *report.Output, plan *report.Plan, o outputOptions, stdout io.Writer) error {
	if out.Sweep != nil {
		return emitSweep(out.Sweep, plan, o, stdout)
	}
	doc := out.Document
	quiet := o.quiet || o.toStdout()
	if !quiet {
		write := report.WriteTerminal
		if doc.Summary != nil {
			write = report.WriteSummaryTerminal
		}
		if err := write(stdout, doc); err != nil {
			return err
		}
	}
	var wrote []string
	err := writeOutputs(stdout, func(s *outputSet) error {
		if o.jsonPath != "" {
			if err := s.add(o.jsonPath, func(w *bufio.Writer) error { return out.WriteJSON(w) }); err != nil {
				return err
			}
		}
		if o.csvPath != "" {
			var err error
			if wrote, err = writeCSVs(s, o.csvPath, doc); err != nil {
				return err
			}
		}
		if o.htmlPath != "" {
			return s.add(o.htmlPath, func(w *bufio.Writer) error { return htmlreport.Write(w, doc, htmlOptions(plan)) })
		}
		return nil
	})
	if err != nil || quiet {
		return err
	}
	if o.jsonPath != "" {
		fmt.Fprintf(stdout, "\nwrote %s\n", o.jsonPath)
	}
	if o.csvPath != "" {
		if o.jsonPath == "" {
			fmt.Fprintln(stdout)
		}
		for _, path := range wrote { // every file, not only summary.csv
			fmt.Fprintf(stdout, "wrote %s\n", path)
		}
	}
	announceHTML(o, stdout)
	return nil
}

// emitSweep writes a sweep: the legacy per-level table, or the grid's
// tables when the plan summarizes.
func emitSweep(d *report.SweepDocument, plan *report.Plan, o outputOptions, stdout io.Writer) error {
	quiet := o.quiet || o.toStdout()
	if !quiet {
		title := sweepTitle(d, plan)
		var err error
		if plan.Summarize {
			err = report.WriteGridTerminal(stdout, title, d)
		} else {
			err = report.WriteSweepTerminal(stdout, title, &d.Sweep)
		}
		if err != nil {
			return err
		}
	}
	err := writeOutputs(stdout, func(s *outputSet) error {
		if o.jsonPath != "" {
			if err := s.add(o.jsonPath, func(w *bufio.Writer) error { return report.WriteSweepJSON(w, d) }); err != nil {
				return err
			}
		}
		if o.csvPath != "" {
			write := func(w *bufio.Writer) error { return report.WriteSweepCSV(w, d.Sweep.Rows) }
			if plan.Summarize {
				write = func(w *bufio.Writer) error { return report.WriteGridCSV(w, d) }
			}
			if err := s.add(o.csvPath, write); err != nil {
				return err
			}
		}
		if o.htmlPath != "" {
			return s.add(o.htmlPath, func(w *bufio.Writer) error { return htmlreport.WriteSweep(w, d, htmlOptions(plan)) })
		}
		return nil
	})
	if err != nil || quiet {
		return err
	}
	if o.jsonPath != "" {
		fmt.Fprintf(stdout, "\nwrote %s\n", o.jsonPath)
	}
	if o.csvPath != "" {
		if o.jsonPath == "" {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "wrote %s\n", o.csvPath)
	}
	announceHTML(o, stdout)
	return nil
}

// announceHTML says the HTML report was written, if one was (after a
// blank line when it is the only file announced).
func announceHTML(o outputOptions, stdout io.Writer) {
	if o.htmlPath == "" {
		return
	}
	if o.jsonPath == "" && o.csvPath == "" {
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "wrote %s\n", o.htmlPath)
}

// sweepTitle says what was swept: scenario, what varies, time per point.
func sweepTitle(d *report.SweepDocument, plan *report.Plan) string {
	var b strings.Builder
	safe := report.TerminalSafe
	b.WriteString(safe(plan.Scenario.Name))
	if plan.Scenario.Description != "" {
		b.WriteString(" — " + safe(plan.Scenario.Description))
	}
	var durationS float64
	var seed uint64
	if len(d.Variants) > 0 {
		durationS, seed = d.Variants[0].DurationS, d.Variants[0].Seed
	}
	g := plan.Grid
	switch g.Kind {
	case "concurrency", "rate":
		loop := "closed loop, zero think time"
		if g.Kind == "rate" {
			loop = "open loop, requests/s"
		}
		fmt.Fprintf(&b, "\n%s sweep of workload %q (%s) · %s per level · seed %d",
			g.Kind, safe(g.Workload), loop, workloads.Duration(durationS), seed)
	default:
		keys := make([]string, len(g.Params))
		for i, p := range g.Params {
			keys[i] = safe(p.Key)
		}
		fmt.Fprintf(&b, "\nsweep of %s (%d points) · %s per point · seed %d", strings.Join(keys, " × "), len(g.Points), workloads.Duration(durationS), seed)
		if g.Workload != "" {
			fmt.Fprintf(&b, " · load on workload %q", safe(g.Workload))
		}
	}
	for _, s := range plan.Scenario.Overrides {
		b.WriteString("\n  --set " + safe(s))
	}
	return b.String()
}
