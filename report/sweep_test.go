package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
)

// row builds a synthetic sweep row.
func row(level, tokS, ttft50 float64) SweepRow {
	return SweepRow{Level: level, RequestsPerS: tokS / 100, OutputTokensPerS: tokS, TTFTP50: ttft50, TTFTP95: 2 * ttft50}
}

func TestKneeAtPlateau(t *testing.T) {
	// Throughput doubles, then grows 5% while TTFT p50 doubles: the knee is
	// the level before the flat one.
	rows := []SweepRow{row(1, 100, 0.2), row(2, 200, 0.2), row(4, 390, 0.21), row(8, 700, 0.25), row(16, 735, 0.5), row(32, 740, 1.0)}
	if k := KneeIndex(rows); k != 3 {
		t.Errorf("knee at %d, want 3 (level 8)", k)
	}
	// A gain just under 10% with TTFT up 30% is flat; just over 10% is not.
	if k := KneeIndex([]SweepRow{row(1, 100, 1), row(2, 109, 1.3)}); k != 0 {
		t.Errorf("9%% gain, TTFT +30%%: knee %d, want 0", k)
	}
	if k := KneeIndex([]SweepRow{row(1, 100, 1), row(2, 111, 1.3)}); k != -1 {
		t.Errorf("11%% gain: knee %d, want none", k)
	}
}

func TestNoKnee(t *testing.T) {
	// Monotone growth: no knee, however TTFT climbs.
	grow := []SweepRow{row(1, 100, 0.1), row(2, 190, 0.2), row(4, 350, 0.5), row(8, 600, 1.2), row(16, 900, 3)}
	if k := KneeIndex(grow); k != -1 {
		t.Errorf("monotone growth: knee %d, want none", k)
	}
	// Flat throughput with flat TTFT (an idle-ish system): no knee.
	flat := []SweepRow{row(1, 100, 0.1), row(2, 101, 0.11), row(4, 102, 0.12)}
	if k := KneeIndex(flat); k != -1 {
		t.Errorf("flat TTFT: knee %d, want none", k)
	}
	if k := KneeIndex(nil); k != -1 {
		t.Errorf("no rows: knee %d", k)
	}
	if k := KneeIndex([]SweepRow{row(1, 100, 0.1)}); k != -1 {
		t.Errorf("one row: knee %d", k)
	}
}

func TestKneeRefusalsAndRateShortfall(t *testing.T) {
	// A hosted API at its limit: throughput flat, TTFT barely moves, 429s
	// appear.
	rows := []SweepRow{row(1, 100, 0.5), row(2, 200, 0.5), row(4, 205, 0.52)}
	rows[2].Rejected = 500
	if k := KneeIndex(rows); k != 1 {
		t.Errorf("429s at the plateau: knee %d, want 1", k)
	}
	// A rate sweep stepping over a 117 req/s ceiling: 100 → 140 still gains
	// 17%, but 140 is served at 117, so 100 is the knee (the closed-loop
	// rule alone would say 140).
	rate := []SweepRow{
		{Level: 20, RequestsPerS: 20, TTFTP50: 0.18},
		{Level: 60, RequestsPerS: 60, TTFTP50: 0.26},
		{Level: 100, RequestsPerS: 100, TTFTP50: 0.51},
		{Level: 140, RequestsPerS: 117, TTFTP50: 50},
		{Level: 180, RequestsPerS: 117, TTFTP50: 105},
	}
	if k := KneeIndex(rate); k != 3 {
		t.Errorf("closed-loop rule: knee %d, want 3", k)
	}
	if k := KneeIndexFor("rate", rate); k != 2 {
		t.Errorf("rate rule: knee %d, want 2 (100 req/s)", k)
	}
	if k := MarkKnee("rate", rate); k != 2 || !rate[2].Knee || rate[3].Knee {
		t.Errorf("MarkKnee: %d, %+v", k, rate)
	}
	// requests/s stand in when there are no output tokens.
	if k := KneeIndex(rate[:4]); k != -1 {
		t.Errorf("req/s +17%%: knee %d, want none", k)
	}
}

func sweepResults() ([]float64, []*model.Results) {
	levels := []float64{1, 2, 4, 8}
	tok := []float64{100, 200, 210, 212}
	ttft := []float64{0.2, 0.2, 0.4, 0.9}
	var res []*model.Results
	for i := range levels {
		r := &model.Results{Scenario: "s", Variant: fmt.Sprintf("concurrency %g", levels[i]), DurationS: 600}
		r.Summary.Throughput = model.Throughput{RequestsPerS: tok[i] / 50, OutputTokensPerS: tok[i]}
		r.Summary.Latency.TTFT = model.Quantiles{P50: ttft[i], P95: 3 * ttft[i]}
		r.Summary.Latency.TPOT = model.Quantiles{P50: 0.02}
		r.Summary.Latency.E2E = model.Quantiles{P95: 5 + ttft[i]}
		r.Summary.Attempts.Rejected = map[string]int64{"rpm": int64(i * 1000), "queue_full": 1}
		res = append(res, r)
	}
	return levels, res
}

func TestSweepRows(t *testing.T) {
	levels, res := sweepResults()
	rows := SweepRows(levels, res)
	if len(rows) != 4 {
		t.Fatalf("%d rows", len(rows))
	}
	r := rows[3]
	if r.Level != 8 || r.OutputTokensPerS != 212 || r.RequestsPerS != 212.0/50 || r.TTFTP50 != 0.9 || r.TTFTP95 != 2.7 ||
		r.TPOTP50 != 0.02 || r.E2EP95 != 5.9 || r.Rejected != 3001 {
		t.Errorf("row %+v", r)
	}
	for i, r := range rows {
		if r.Knee != (i == 1) {
			t.Errorf("row %d knee %v; want the knee at level 2", i, r.Knee)
		}
	}
	// A missing result gives zeros; extra levels are dropped.
	rows = SweepRows([]float64{1, 2, 3}, []*model.Results{res[0], nil})
	if len(rows) != 2 || rows[1].Level != 2 || rows[1].OutputTokensPerS != 0 {
		t.Errorf("rows %+v", rows)
	}
}

func TestWriteSweepTerminal(t *testing.T) {
	levels, res := sweepResults()
	rows := SweepRows(levels, res)
	var b bytes.Buffer
	if err := WriteSweepTerminal(&b, "s — a test", &SweepInfo{Kind: "concurrency", Rows: rows}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Headroom sweep · s — a test", "concurrency", "output tok/s", "TTFT p50", "TTFT p95", "TPOT p50", "E2E p95", "429/5xx",
		"◀ knee", "Throughput flattens after 2 concurrent requests; pick 2 for interactive traffic.", "grow +5%", "200ms → 400ms", "3,001"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal output lacks %q:\n%s", want, out)
		}
	}
	lines := strings.Split(out, "\n")
	var table []string
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "concurrency ") || strings.HasPrefix(strings.TrimSpace(l), "1 ") || strings.HasPrefix(strings.TrimSpace(l), "8 ") {
			table = append(table, l)
		}
		if strings.Contains(l, "◀ knee") && !strings.HasPrefix(strings.TrimSpace(l), "2 ") {
			t.Errorf("knee on the wrong row: %q", l)
		}
	}
	// Aligned: the header and rows end their 429 column at the same place.
	if len(table) != 3 || len(strings.TrimRight(table[0], " ")) != len(strings.TrimRight(table[1], " ")) || len(table[1]) != len(table[2]) {
		t.Errorf("table not aligned:\n%s", strings.Join(table, "\n"))
	}

	b.Reset()
	if err := WriteSweepTerminal(&b, "t", &SweepInfo{Kind: "rate", Rows: []SweepRow{row(1, 100, 0.1), row(2, 200, 0.1)}}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "offered req/s") || !strings.Contains(out, "No knee") || strings.Contains(out, "◀") {
		t.Errorf("no-knee output:\n%s", out)
	}
}

func TestWriteSweepCSV(t *testing.T) {
	levels, res := sweepResults()
	var b bytes.Buffer
	if err := WriteSweepCSV(&b, SweepRows(levels, res)); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 5 || strings.Join(recs[0], ",") != "level,requests_per_s,output_tokens_per_s,ttft_p50_s,ttft_p95_s,tpot_p50_s,e2e_p95_s,rejected,knee" {
		t.Fatalf("csv:\n%v", recs)
	}
	if got := strings.Join(recs[2], ","); got != "2,4,200,0.2,0.6,0.02,5.2,1001,true" {
		t.Errorf("row 2: %s", got)
	}
}

func TestSweepJSON(t *testing.T) {
	levels, res := sweepResults()
	rows := SweepRows(levels, res)
	d := NewSweepDocument("headroom test", ScenarioInfo{Name: "s", File: "s.toml"}, "concurrency", "chat", levels, res, rows)
	var b bytes.Buffer
	if err := WriteSweepJSON(&b, d); err != nil {
		t.Fatal(err)
	}
	var back map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "generator", "scenario", "variants", "sweep"} {
		if _, ok := back[k]; !ok {
			t.Errorf("no top-level %q in:\n%s", k, b.String())
		}
	}
	// The usual reader still reads it.
	doc, err := ReadJSON(bytes.NewReader(b.Bytes()))
	if err != nil || doc.Schema != Schema || len(doc.Variants) != 4 {
		t.Fatalf("ReadJSON: %v, %+v", err, doc)
	}
	var sw struct {
		Sweep SweepInfo `json:"sweep"`
	}
	if err := json.Unmarshal(b.Bytes(), &sw); err != nil {
		t.Fatal(err)
	}
	s := sw.Sweep
	if s.Kind != "concurrency" || s.Workload != "chat" || len(s.Levels) != 4 || len(s.Rows) != 4 || s.KneeLevel == nil || *s.KneeLevel != 2 || !s.Rows[1].Knee || s.KneeRule == "" {
		t.Errorf("sweep %+v", s)
	}
	if !strings.Contains(b.String(), `"knee_level": 2`) || !strings.Contains(b.String(), `"ttft_p50_s"`) {
		t.Errorf("json:\n%s", b.String())
	}

	// No knee: null.
	d = NewSweepDocument("g", ScenarioInfo{}, "rate", "chat", levels[:1], res[:1], SweepRows(levels[:1], res[:1]))
	b.Reset()
	if err := WriteSweepJSON(&b, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"knee_level": null`) {
		t.Errorf("no knee is not null:\n%s", b.String())
	}
}
