package htmlreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// TestTraceTable: a run replaying a trace gets a table of what was read
// and issued (rows, span, rate, token percentiles, transforms, notes),
// variants side by side and the file name escaped; a run without one gets
// none.
func TestTraceTable(t *testing.T) {
	d := fixture()
	tr := model.TraceResult{Workload: "chat", File: "logs/conv<b>.csv", Format: "azure", RowsRead: 19366, RowsKept: 19000,
		TraceSpanS: 3600, Requests: 19000, FirstS: 0.2, LastS: 3599.5, RatePerS: 5.28,
		Input: model.TraceTokens{P50: 1020, P90: 4242, P99: 7437, Max: 8000}, Output: model.TraceTokens{P50: 129, P90: 460, P99: 700, Max: 1000},
		Speed: 1, Scale: 1, ScaleBy: "thin", OutputCapped: 12, MaxTokens: 512}
	d.Variants[0].Traces = []model.TraceResult{tr}
	tr2 := tr
	tr2.Scale, tr2.ScaleBy, tr2.Copies, tr2.Requests, tr2.OutputCapped = 2, "copies", 2, 38000, 0
	d.Variants[1].Traces = []model.TraceResult{tr2}
	out := write(t, d, Options{ECharts: stubRuntime})
	for _, want := range []string{`id="traces"`, "Traces replayed",
		"chat: file", "conv&lt;b&gt;.csv (azure)",
		"chat: read", "19,366 rows read, 19,000 kept, spanning 1h of trace time",
		"chat: issued", "19,000 requests issued", "(5.28/s)", "38,000 requests issued",
		"chat: input tokens", "p50 1,020, p90 4,242, p99 7,437, max 8,000",
		"chat: output tokens", "p50 129, p90 460, p99 700, max 1,000",
		"chat: transforms", "scale 2× (2 shifted copies)",
		"chat: notes", "12 outputs cut to max_tokens 512"} {
		if !strings.Contains(out, want) {
			t.Errorf("trace table lacks %q", want)
		}
	}
	if strings.Contains(out, "conv<b>.csv") {
		t.Error("file name not escaped")
	}
	// The terminal says the same.
	var term bytes.Buffer
	report.WriteTerminal(&term, d)
	for _, want := range []string{"chat ← conv<b>.csv (azure): 19,366 rows read", "input tokens p50 1,020, p90 4,242, p99 7,437, max 8,000; output p50 129"} {
		if !strings.Contains(term.String(), want) {
			t.Errorf("terminal lacks %q:\n%s", want, term.String())
		}
	}
	for _, r := range d.Variants {
		r.Traces = nil
	}
	if strings.Contains(write(t, d, Options{ECharts: stubRuntime}), `id="traces"`) {
		t.Error("trace table without a trace")
	}
}
