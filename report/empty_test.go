package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
)

// nothingCompleted is a run in which every request is still in flight at
// the end: its latency distributions are empty.
func nothingCompleted() *model.Results {
	r := &model.Results{Scenario: "s", Seed: 1, DurationS: 7200, IntervalS: 300, StartClock: "00:00"}
	r.Summary.Requests = model.RequestCounts{Offered: 500, InFlightAtEnd: 500}
	r.Summary.Attempts = model.AttemptCounts{Total: 500, Rejected: map[string]int64{}}
	r.Summary.Throughput.OutputTokensPerS = 1427
	r.Findings.PeakWindow = &model.PeakWindow{StartS: 0, EndS: 3600, Offered: 300}
	return r
}

// An empty distribution prints "—", never a latency of 0.
func TestEmptyDistributionsPrintADash(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTerminal(&b, NewDocument("t", ScenarioInfo{Name: "s"}, []*model.Results{nothingCompleted()})); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, row := range []string{"TTFT p50 / p95", "queue wait p95 / max", "E2E p95", "busiest-hour TTFT p95"} {
		m := regexp.MustCompile(regexp.QuoteMeta(row) + `\s+(.*\S)\s*\n`).FindStringSubmatch(out)
		if m == nil {
			t.Errorf("no %q row:\n%s", row, out)
			continue
		}
		if strings.Contains(m[1], "0") || !strings.Contains(m[1], "—") {
			t.Errorf("%s = %q, want —:\n%s", row, m[1], out)
		}
	}
	if !strings.Contains(out, "— / —") {
		t.Errorf("TTFT p50 / p95 is not — / —:\n%s", out)
	}
}

// The replicated table says the same when no replication completed a
// request.
func TestEmptyDistributionsInTheReplicatedTable(t *testing.T) {
	reps := []*model.Results{nothingCompleted(), nothingCompleted()}
	reps[1].Replication = 1
	d := NewDocument("t", ScenarioInfo{Name: "s"}, reps[:1])
	d.Replications = 2
	d.Summary = []VariantSummary{SummarizeVariant("base", reps, nil)}
	var b bytes.Buffer
	if err := WriteSummaryTerminal(&b, d); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	m := regexp.MustCompile(`TTFT p95\s+(\S+)`).FindStringSubmatch(out)
	if m == nil || m[1] != "—" {
		t.Errorf("TTFT p95 cell = %v, want —:\n%s", m, out)
	}
}
