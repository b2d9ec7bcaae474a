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

// TraceLines describes one replayed trace in a few indented lines.
func TraceLines(t model.TraceResult, indent string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s ← %s (%s): %s rows read, %s kept, spanning %s of trace time\n", indent, t.Workload,
		filepath.Base(t.File), t.Format, Count(t.RowsRead), Count(t.RowsKept), Seconds(t.TraceSpanS))
	rate := "—"
	switch {
	case t.RatePerS >= 1:
		rate = fmt.Sprintf("%.3g/s", t.RatePerS)
	case t.RatePerS > 0:
		rate = fmt.Sprintf("%.3g/min", 60*t.RatePerS)
	}
	fmt.Fprintf(&b, "%s  %s requests issued from %s to %s (%s); input tokens p50 %s, p90 %s, p99 %s, max %s; output p50 %s, p90 %s, p99 %s, max %s\n",
		indent, Count(t.Requests), Seconds(t.FirstS), Seconds(t.LastS), rate,
		tok(t.Input.P50), tok(t.Input.P90), tok(t.Input.P99), tok(t.Input.Max),
		tok(t.Output.P50), tok(t.Output.P90), tok(t.Output.P99), tok(t.Output.Max))
	var tr []string
	if t.Speed != 1 {
		tr = append(tr, fmt.Sprintf("speed %g×", t.Speed))
	}
	if t.Scale != 1 {
		how := "thinned"
		if t.ScaleBy == "copies" {
			how = fmt.Sprintf("%d shifted copies", t.Copies)
		}
		tr = append(tr, fmt.Sprintf("scale %g× (%s)", t.Scale, how))
	}
	if t.Loop {
		tr = append(tr, fmt.Sprintf("looped, %d passes", t.Passes))
	}
	if t.WithPrefixKeys > 0 {
		tr = append(tr, fmt.Sprintf("%s requests with prefixes from the trace (%d-token blocks)", Count(t.WithPrefixKeys), t.BlockTokens))
	}
	if len(tr) > 0 {
		fmt.Fprintf(&b, "%s  %s\n", indent, strings.Join(tr, "; "))
	}
	var notes []string
	if t.ZeroOutput > 0 {
		notes = append(notes, fmt.Sprintf("%s rows with 0 output tokens replayed with 1", Count(t.ZeroOutput)))
	}
	if t.ZeroInput > 0 {
		notes = append(notes, fmt.Sprintf("%s rows with 0 input tokens replayed with 1", Count(t.ZeroInput)))
	}
	if t.OutputCapped > 0 {
		notes = append(notes, fmt.Sprintf("%s outputs cut to max_tokens %s (raise tokens.max_tokens to keep them)", Count(t.OutputCapped), Count(int64(t.MaxTokens))))
	}
	if t.SessionsForgotten {
		notes = append(notes, "more sessions were active at once than are remembered (1,048,576): the longest idle lost their context")
	}
	if t.Requests == 0 {
		notes = append(notes, "no request arrived before the horizon: check from, to and the scenario's duration")
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "%s  note: %s\n", indent, n)
	}
	return b.String()
}

func tok(v float64) string { return Count(int64(v + 0.5)) }
