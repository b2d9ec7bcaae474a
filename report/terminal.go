package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"

	"github.com/headroom-sim/headroom/model"
)

// WriteTerminal writes the summary a planner reads first: the key figures
// of every variant side by side, then each variant's verdict in words.
func WriteTerminal(w io.Writer, d *Document) error {
	if len(d.Variants) == 0 {
		_, err := fmt.Fprintln(w, "no results")
		return err
	}
	d = terminalDoc(d)
	writeHeader(w, d, "")

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(label string, cell func(r *model.Results) string) {
		fmt.Fprintf(tw, "%s\t", label)
		for _, r := range d.Variants {
			fmt.Fprintf(tw, "%s\t", cell(r))
		}
		fmt.Fprintln(tw)
	}
	row("", func(r *model.Results) string { return VariantName(r) })
	row("requests offered", func(r *model.Results) string { return Count(r.Summary.Requests.Offered) })
	row("completed", func(r *model.Results) string { return pct(r.Summary.Requests.Completed, r.Summary.Requests.Offered) })
	row("failed", func(r *model.Results) string { return pct(r.Summary.Requests.Failed, r.Summary.Requests.Offered) })
	row("in flight at end", func(r *model.Results) string { return Count(r.Summary.Requests.InFlightAtEnd) })
	row("refused attempts (429/5xx)", func(r *model.Results) string {
		return Refused(sum(r.Summary.Attempts.Rejected), r.Summary.Attempts.Total)
	})
	for _, reason := range allReasons(d) {
		reason := reason
		row("  by "+reason, func(r *model.Results) string { return Count(r.Summary.Attempts.Rejected[reason]) })
	}
	row("retries per request", func(r *model.Results) string { return fmt.Sprintf("%.2f", r.Summary.Attempts.RetriesPerRequest) })
	row("TTFT p50 / p95", func(r *model.Results) string {
		t := r.Summary.Latency.TTFT
		return Quantile(t, t.P50) + " / " + Quantile(t, t.P95)
	})
	row("queue wait p95 / max", func(r *model.Results) string {
		q := r.Summary.Latency.QueueWait
		return Quantile(q, q.P95) + " / " + Quantile(q, q.Max)
	})
	row("E2E p95", func(r *model.Results) string { return Quantile(r.Summary.Latency.E2E, r.Summary.Latency.E2E.P95) })
	row("throughput req/s", func(r *model.Results) string { return fmt.Sprintf("%.2f", r.Summary.Throughput.RequestsPerS) })
	row("output tokens/s", func(r *model.Results) string { return fmt.Sprintf("%.0f", r.Summary.Throughput.OutputTokensPerS) })
	row("goodput (SLO met)", func(r *model.Results) string { return goodputText(r.Summary.Goodput, r.Summary.Goodput.SLOAttainment) })
	if anyPeakWindow(d.Variants) {
		peak := func(f func(r *model.Results, p *model.PeakWindow) string) func(r *model.Results) string {
			return func(r *model.Results) string {
				if p := r.Findings.PeakWindow; p != nil {
					return f(r, p)
				}
				return "—"
			}
		}
		row("busiest hour", peak(func(r *model.Results, p *model.PeakWindow) string {
			return Clock(r, p.StartS) + "–" + Clock(r, p.EndS)
		}))
		row("busiest-hour TTFT p95", peak(func(_ *model.Results, p *model.PeakWindow) string { return Quantile(p.TTFT, p.TTFT.P95) }))
		row("busiest-hour goodput", peak(func(r *model.Results, p *model.PeakWindow) string {
			return goodputText(r.Summary.Goodput, p.SLOAttainment)
		}))
	}
	row("cache hit rate", func(r *model.Results) string { return fmt.Sprintf("%.0f%%", 100*r.Summary.Tokens.CacheHitRate) })
	costs := make([]float64, len(d.Variants))
	for i, r := range d.Variants {
		costs[i] = r.Summary.Cost.Total
	}
	costText := map[*model.Results]string{}
	for i, c := range USDColumn(costs) { // one style across the row
		costText[d.Variants[i]] = c
	}
	row("cost", func(r *model.Results) string { return costText[r] })
	gatewayRows(d, row)
	if err := tw.Flush(); err != nil {
		return err
	}
	writeTraces(w, d)
	return writeVerdicts(w, d, false)
}

// writeHeader writes the title lines: scenario, horizon, seed, variants
// (and extra), and the --set overrides.
func writeHeader(w io.Writer, d *Document, extra string) {
	first := d.Variants[0]
	title := d.Scenario.Name
	if d.Scenario.Description != "" {
		title += " — " + d.Scenario.Description
	}
	fmt.Fprintf(w, "Headroom · %s\n", title)
	fmt.Fprintf(w, "Simulated %s from %s · %s intervals · seed %d", SimulatedSpan(first), first.StartClock, Seconds(first.IntervalS), first.Seed)
	if len(d.Variants) > 1 {
		fmt.Fprintf(w, " · %d variants", len(d.Variants))
	}
	fmt.Fprintln(w, extra)
	for _, o := range d.Scenario.Overrides {
		fmt.Fprintf(w, "  --set %s\n", o)
	}
	fmt.Fprintln(w)
}

// NoSLO is what a goodput cell shows when no workload sets an SLO: every
// completed request would count, so a share would say nothing.
const NoSLO = "— (no SLO)"

// goodputText is a share of requests meeting their SLOs, "97.5%", or
// NoSLO when the run's workloads set none.
func goodputText(g model.Goodput, share float64) string {
	if g.NoSLO {
		return NoSLO
	}
	return fmt.Sprintf("%.1f%%", 100*share)
}

// noSLO reports whether no variant of the document sets an SLO.
func noSLO(vs []*model.Results) bool {
	for _, r := range vs {
		if r != nil && !r.Summary.Goodput.NoSLO {
			return false
		}
	}
	return len(vs) > 0
}

// anyPeakWindow reports whether any variant found a busiest hour.
func anyPeakWindow(vs []*model.Results) bool {
	for _, r := range vs {
		if r.Findings.PeakWindow != nil {
			return true
		}
	}
	return false
}

// writeVerdicts writes each variant's verdict in words (firstRep says they
// are the first replication's), then with several variants the cheapest
// that holds, then the document's warnings.
func writeVerdicts(w io.Writer, d *Document, firstRep bool) error {
	if err := writeVariantVerdicts(w, d, firstRep); err != nil {
		return err
	}
	if len(d.Variants) > 1 {
		if _, err := fmt.Fprintf(w, "\n%s\n", CheapestThatHolds(d.Variants)); err != nil {
			return err
		}
	}
	return writeWarnings(w, d.Warnings)
}

// writeWarnings lists the warnings: defaults that change the answer.
func writeWarnings(w io.Writer, ws []Warning) error {
	if len(ws) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nWarnings (defaults that change the answer):\n")
	for _, x := range ws {
		if _, err := fmt.Fprintf(w, "  ! %s\n", x.Text()); err != nil {
			return err
		}
	}
	return nil
}

// writeVariantVerdicts writes each variant's verdict lines.
func writeVariantVerdicts(w io.Writer, d *Document, firstRep bool) error {
	for _, r := range d.Variants {
		if firstRep {
			fmt.Fprintf(w, "\n%s (replication 0):\n", VariantName(r))
		} else {
			fmt.Fprintf(w, "\n%s:\n", VariantName(r))
		}
		if r.Interrupted {
			fmt.Fprintf(w, "  ! %s\n", InterruptedLine(r))
		}
		for _, v := range r.Verdict {
			if _, err := fmt.Fprintf(w, "  • %s\n", v); err != nil {
				return err
			}
		}
	}
	return nil
}

func allReasons(d *Document) []string {
	set := map[string]bool{}
	for _, r := range d.Variants {
		for k, v := range r.Summary.Attempts.Rejected {
			if v > 0 {
				set[k] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

func sum(m map[string]int64) int64 {
	var t int64
	for _, v := range m {
		t += v
	}
	return t
}

func pct(a, b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}
