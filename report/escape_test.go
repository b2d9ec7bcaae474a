package report_test

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// hostile names: screen clear, window title, carriage return, a tab and a
// newline that would fake a row, a right-to-left override, C1 CSI, and
// spreadsheet formulas.
var hostile = []string{"\x1b[2J", "\x1b]0;pwned\x07", "ok\rEVIL", "a\tb\nfake row", "\u202egnp.exe", "\u009b31m", "=HYPERLINK(\"http://x\")", "@SUM(A1)", "+1+1", "-2+3"}

func hostileDoc() *report.Document {
	var rs []*model.Results
	for i, n := range hostile {
		r := &model.Results{Scenario: n, Variant: n, DurationS: 60, IntervalS: 60, StartClock: "00:00", Verdict: []string{"workload " + n + " binds"}}
		if i == 0 {
			r.Variant = ""
		}
		r.Workloads = []model.GroupResult{{Name: n}}
		r.Series = model.Series{StartS: []float64{0}, Clock: []string{n}, Offered: []int64{1}, Completed: []int64{1}, Failed: []int64{0}, Retries: []int64{0},
			InFlight: []float64{0}, QueueLength: []float64{0}, TTFTP50: []float64{0}, TTFTP95: []float64{0}, QueueWaitP95: []float64{0},
			InputTokens: []int64{0}, OutputTokens: []int64{0}, CostUSD: []float64{0}}
		rs = append(rs, r)
	}
	return report.NewDocument("g", report.ScenarioInfo{Name: hostile[0], Description: hostile[1], Overrides: hostile[2:4]}, rs)
}

// checkTerminal fails if out holds a character a terminal acts on, other
// than the newlines of the layout.
func checkTerminal(t *testing.T, what, out string) {
	t.Helper()
	for i, r := range out {
		if r == '\n' {
			continue
		}
		if r < 0x20 || r == 0x7f || unicode.IsControl(r) || (r >= 0x202a && r <= 0x202e) || r == utf8.RuneError && out[i] != 0xef {
			t.Fatalf("%s: %U at byte %d reaches the terminal: %q", what, r, i, out)
		}
	}
	if strings.Contains(out, "fake row") && !strings.Contains(out, "b\u240afake row") {
		t.Errorf("%s: a newline in a name starts a line", what)
	}
}

// Names reach the terminal with their control characters made visible,
// and CSV text cells that a spreadsheet would run are prefixed; the
// document itself keeps them as they are, for the JSON.
func TestHostileNamesNeutralised(t *testing.T) {
	d := hostileDoc()
	var b bytes.Buffer
	if err := report.WriteTerminal(&b, d); err != nil {
		t.Fatal(err)
	}
	checkTerminal(t, "table", b.String())
	if !strings.Contains(b.String(), "␛[2J") || !strings.Contains(b.String(), "ok␍EVIL") {
		t.Errorf("escapes are not shown as pictures:\n%s", b.String())
	}
	if d.Variants[1].Variant != hostile[1] {
		t.Error("writing the terminal changed the document")
	}
	d.Replications = 2
	d.Summary = []report.VariantSummary{report.SummarizeVariant(hostile[1], d.Variants[:1], nil), report.SummarizeVariant(hostile[2], d.Variants[1:2], d.Variants[:1])}
	b.Reset()
	if err := report.WriteSummaryTerminal(&b, d); err != nil {
		t.Fatal(err)
	}
	checkTerminal(t, "summary", b.String())
	b.Reset()
	// A title's lines stay lines (the command makes each name in it safe).
	if err := report.WriteSweepTerminal(&b, strings.Join(hostile[:3], "\n"), &report.SweepInfo{Kind: "rate"}); err != nil {
		t.Fatal(err)
	}
	checkTerminal(t, "sweep", b.String())

	for _, write := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return report.WriteSummaryCSV(b, d) },
		func(b *bytes.Buffer) error { return report.WriteSeriesCSV(b, d.Variants[6]) },
		func(b *bytes.Buffer) error { return report.WriteKeyFiguresCSV(b, d) },
	} {
		b.Reset()
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&b).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			for _, cell := range rec {
				if cell != "" && strings.ContainsRune("=+@\t\r", rune(cell[0])) && cell != "+1+1" {
					t.Errorf("CSV cell %q would run as a formula", cell)
				}
				if cell == "+1+1" || cell == "-2+3" {
					t.Errorf("CSV cell %q is a formula left as it is", cell)
				}
			}
		}
	}
	if got := report.TerminalSafe("plain name — ünïcode 日本"); got != "plain name — ünïcode 日本" {
		t.Errorf("a plain name changed: %q", got)
	}
}
