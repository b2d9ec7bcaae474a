package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/headroom-sim/headroom/model"
)

// writeTraces says what each trace workload read and issued (in the first
// variant; variants that change a trace show it in their JSON).
func writeTraces(w io.Writer, d *Document) {
	if len(d.Variants) == 0 || len(d.Variants[0].Traces) == 0 {
		return
	}
	fmt.Fprintln(w, "\nTraces replayed:")
	for _, t := range d.Variants[0].Traces {
		fmt.Fprint(w, TraceLines(t, "  "))
	}
}

// TraceFacts is what one replayed trace read and issued, in words: the
// terminal prints it as lines, the HTML report as a table.
type TraceFacts struct {
	// Source names the file and its format.
	Source string
	// Read is the rows read and kept and the trace time they span.
	Read string
	// Issued is the requests issued, when, and their rate.
	Issued string
	// Input and Output are the token percentiles.
	Input, Output string
	// Transforms are speed, scale, loop and the trace's prefixes.
	Transforms []string
	// Notes are what the planner should check.
	Notes []string
}

// FactsOf describes one replayed trace.
func FactsOf(t model.TraceResult) TraceFacts {
	f := TraceFacts{Source: fmt.Sprintf("%s (%s)", filepath.Base(t.File), t.Format)}
	f.Read = fmt.Sprintf("%s rows read, %s kept, spanning %s of trace time", Count(t.RowsRead), Count(t.RowsKept), Seconds(t.TraceSpanS))
	rate := "—"
	switch {
	case t.RatePerS >= 1:
		rate = fmt.Sprintf("%.3g/s", t.RatePerS)
	case t.RatePerS > 0:
		rate = fmt.Sprintf("%.3g/min", 60*t.RatePerS)
	}
	f.Issued = fmt.Sprintf("%s requests issued from %s to %s (%s)", Count(t.Requests), Seconds(t.FirstS), Seconds(t.LastS), rate)
	pct := func(q model.TraceTokens) string {
		return fmt.Sprintf("p50 %s, p90 %s, p99 %s, max %s", tok(q.P50), tok(q.P90), tok(q.P99), tok(q.Max))
	}
	f.Input, f.Output = pct(t.Input), pct(t.Output)
	if t.Speed != 1 {
		f.Transforms = append(f.Transforms, fmt.Sprintf("speed %g×", t.Speed))
	}
	if t.Scale != 1 {
		how := "thinned"
		if t.ScaleBy == "copies" {
			how = fmt.Sprintf("%d shifted copies", t.Copies)
		}
		f.Transforms = append(f.Transforms, fmt.Sprintf("scale %g× (%s)", t.Scale, how))
	}
	if t.Loop {
		f.Transforms = append(f.Transforms, fmt.Sprintf("looped, %d passes", t.Passes))
	}
	if t.WithPrefixKeys > 0 {
		f.Transforms = append(f.Transforms, fmt.Sprintf("%s requests with prefixes from the trace (%d-token blocks)", Count(t.WithPrefixKeys), t.BlockTokens))
	}
	if t.ZeroOutput > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("%s rows with 0 output tokens replayed with 1", Count(t.ZeroOutput)))
	}
	if t.ZeroInput > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("%s rows with 0 input tokens replayed with 1", Count(t.ZeroInput)))
	}
	if t.OutputCapped > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("%s outputs cut to max_tokens %s (raise tokens.max_tokens to keep them)", Count(t.OutputCapped), Count(int64(t.MaxTokens))))
	}
	if t.SessionsForgotten {
		f.Notes = append(f.Notes, "more sessions were active at once than are remembered (1,048,576): the longest idle lost their context")
	}
	if t.BeyondHorizon > 0 {
		n := Count(t.BeyondHorizon) + " rows"
		switch {
		case t.BeyondAtLeast && t.BeyondHorizon == 1:
			n = "rows"
		case t.BeyondAtLeast:
			n = "at least " + n
		case t.BeyondHorizon == 1:
			n = "1 row"
		}
		f.Notes = append(f.Notes, n+" beyond the horizon not replayed: the run ended before the trace did (a longer duration replays them)")
	}
	if t.Requests == 0 {
		f.Notes = append(f.Notes, "no request arrived before the horizon: check from, to and the scenario's duration")
	}
	return f
}

// TraceLines describes one replayed trace in a few indented lines.
func TraceLines(t model.TraceResult, indent string) string {
	f := FactsOf(t)
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s ← %s: %s\n", indent, t.Workload, f.Source, f.Read)
	fmt.Fprintf(&b, "%s  %s; input tokens %s; output %s\n", indent, f.Issued, f.Input, f.Output)
	if len(f.Transforms) > 0 {
		fmt.Fprintf(&b, "%s  %s\n", indent, strings.Join(f.Transforms, "; "))
	}
	for _, n := range f.Notes {
		fmt.Fprintf(&b, "%s  note: %s\n", indent, n)
	}
	return b.String()
}

func tok(v float64) string { return Count(int64(v + 0.5)) }
