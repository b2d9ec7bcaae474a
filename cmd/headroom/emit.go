package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/headroom-sim/headroom/report"
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

// emit writes an assembled document as its command does: the terminal
// summary, then JSON, CSV and HTML when asked. run, compare, sweep and merge all
// end here, so merged parts print and write what one process would.
func emit(out *report.Output, plan *report.Plan, o outputOptions, stdout io.Writer) error {
	if out.Sweep != nil {
		return emitSweep(out.Sweep, plan, o, stdout)
	}
	doc := out.Document
	if !o.quiet {
		write := report.WriteTerminal
		if doc.Summary != nil {
			write = report.WriteSummaryTerminal
		}
		if err := write(stdout, doc); err != nil {
			return err
		}
	}
	if o.jsonPath != "" {
		if err := writeFileAtomic(o.jsonPath, func(w *bufio.Writer) error { return out.WriteJSON(w) }); err != nil {
			return err
		}
		if !o.quiet {
			fmt.Fprintf(stdout, "\nwrote %s\n", o.jsonPath)
		}
	}
	if o.csvPath != "" {
		wrote, err := writeCSVs(o.csvPath, doc)
		if err != nil {
			return err
		}
		if !o.quiet {
			if o.jsonPath == "" {
				fmt.Fprintln(stdout)
			}
			for _, path := range wrote { // every file, not only summary.csv
				fmt.Fprintf(stdout, "wrote %s\n", path)
			}
		}
	}
	return emitHTML(o, stdout, func(path string) error { return writeHTML(path, doc, htmlOptions(plan)) })
}

// emitSweep writes a sweep: the legacy per-level table, or the grid's
// tables when the plan summarizes.
func emitSweep(d *report.SweepDocument, plan *report.Plan, o outputOptions, stdout io.Writer) error {
	if !o.quiet {
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
	if o.jsonPath != "" {
		if err := writeFileAtomic(o.jsonPath, func(w *bufio.Writer) error { return report.WriteSweepJSON(w, d) }); err != nil {
			return err
		}
		if !o.quiet {
			fmt.Fprintf(stdout, "\nwrote %s\n", o.jsonPath)
		}
	}
	if o.csvPath != "" {
		write := func(w *bufio.Writer) error { return report.WriteSweepCSV(w, d.Sweep.Rows) }
		if plan.Summarize {
			write = func(w *bufio.Writer) error { return report.WriteGridCSV(w, d) }
		}
		if err := writeFileAtomic(o.csvPath, write); err != nil {
			return err
		}
		if !o.quiet {
			if o.jsonPath == "" {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintf(stdout, "wrote %s\n", o.csvPath)
		}
	}
	return emitHTML(o, stdout, func(path string) error { return writeSweepHTML(path, d, htmlOptions(plan)) })
}

// emitHTML writes the HTML report, if one is wanted, with write and says
// so (after a blank line when it is the only file announced).
func emitHTML(o outputOptions, stdout io.Writer, write func(path string) error) error {
	if o.htmlPath == "" {
		return nil
	}
	if err := write(o.htmlPath); err != nil {
		return err
	}
	if !o.quiet {
		if o.jsonPath == "" && o.csvPath == "" {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "wrote %s\n", o.htmlPath)
	}
	return nil
}

// sweepTitle says what was swept: scenario, what varies, time per point.
func sweepTitle(d *report.SweepDocument, plan *report.Plan) string {
	var b strings.Builder
	b.WriteString(plan.Scenario.Name)
	if plan.Scenario.Description != "" {
		b.WriteString(" — " + plan.Scenario.Description)
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
			g.Kind, g.Workload, loop, workloads.Duration(durationS), seed)
	default:
		keys := make([]string, len(g.Params))
		for i, p := range g.Params {
			keys[i] = p.Key
		}
		fmt.Fprintf(&b, "\nsweep of %s (%d points) · %s per point · seed %d", strings.Join(keys, " × "), len(g.Points), workloads.Duration(durationS), seed)
		if g.Workload != "" {
			fmt.Fprintf(&b, " · load on workload %q", g.Workload)
		}
	}
	for _, s := range plan.Scenario.Overrides {
		b.WriteString("\n  --set " + s)
	}
	return b.String()
}
