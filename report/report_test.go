package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
)

func sample() *Document {
	r := &model.Results{Scenario: "s", Seed: 1, DurationS: 120, IntervalS: 60, StartClock: "09:00"}
	r.Summary.Requests = model.RequestCounts{Offered: 10, Completed: 7, Failed: 2, InFlightAtEnd: 1, FailedBy: map[string]int64{"itpm": 2}}
	r.Summary.Attempts = model.AttemptCounts{Total: 15, Retries: 5, Rejected: map[string]int64{"itpm": 6, "rpm": 2}}
	r.Summary.Latency.TTFT = model.Quantiles{Count: 7, Mean: 1.5, P50: 1.2, P95: 3.4}
	r.Summary.Cost.Total = 1234.5
	r.Verdict = []string{"api ITPM limit 800k binds."}
	r.Series = model.Series{IntervalS: 60, StartS: []float64{0, 60}, Clock: []string{"09:00", "09:01"},
		Offered: []int64{6, 4}, Completed: []int64{3, 4}, Failed: []int64{0, 2}, Retries: []int64{2, 3},
		InFlight: []float64{2.5, 1}, QueueLength: []float64{1, 0}, TTFTP95: []float64{1, 3.4}, TTFTP50: []float64{1, 1.2},
		QueueWaitP95: []float64{0, 2}, InputTokens: []int64{10, 20}, OutputTokens: []int64{1, 2}, CostUSD: []float64{0.5, 1},
		Rejected: map[string][]int64{"rpm": {2, 0}, "itpm": {1, 5}}}
	v := *r
	v.Variant = "tier <b>4</b>"
	return NewDocument("headroom test", ScenarioInfo{Name: "s", Description: "d", File: "s.toml"}, []*model.Results{r, &v})
}

func TestTerminalShowsVariantsSideBySide(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTerminal(&b, sample()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Headroom · s — d", "base", "tier <b>4</b>", "requests offered", "70.0%", "by itpm", "1.2s / 3.4s", "$1,235", "api ITPM limit 800k binds."} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal output lacks %q:\n%s", want, out)
		}
	}
}

func TestJSONRoundTripAndSchema(t *testing.T) {
	var b bytes.Buffer
	d := sample()
	if err := WriteJSON(&b, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"schema": "headroom/results/v1"`) {
		t.Fatal("no schema field")
	}
	back, err := ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if back.Variants[1].Variant != "tier <b>4</b>" || back.Variants[0].Summary.Attempts.Rejected["itpm"] != 6 {
		t.Fatalf("round trip lost data: %+v", back.Variants[0].Summary.Attempts)
	}
}

func TestSeriesCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSeriesCSV(&b, sample().Variants[0]); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want header + 2", len(rows))
	}
	head := strings.Join(rows[0], ",")
	if !strings.HasSuffix(head, "rejected_itpm,rejected_rpm") || !strings.HasPrefix(head, "interval_start_s,clock,offered") {
		t.Fatalf("header %q", head)
	}
	if got := strings.Join(rows[2], ","); got != "60,09:01,4,4,2,3,1,0,1.2,3.4,2,20,2,1,5,0" {
		t.Fatalf("row 2 = %q", got)
	}
}

func TestSummaryCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSummaryCSV(&b, sample()); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[1][0] != "base" || rows[2][0] != "tier <b>4</b>" || rows[1][8] != "8" {
		t.Fatalf("summary rows %q", rows)
	}
}
