package htmlreport

import (
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/report"
)

// An overloaded candidate's row shows what it costs at least, no check
// values and its reason; the frontier chart, which needs a latency, leaves
// it out.
func TestOverloadedCandidateRow(t *testing.T) {
	d := &report.Decision{
		Settings:    report.DecisionSettings{HorizonS: 3600},
		Constraints: []report.ConstraintInfo{{ID: "p95/run", Kind: "percentile", Workload: "chat", Metric: "ttft", Percentile: 95, Limit: 2, Unit: "s"}},
		Candidates: []report.CandidateResult{{Label: "replicas=1", Status: "fails", Replications: 1, CostUSD: report.Estimate{Mean: 0.1, Lo: 0.1, Hi: 0.1}, CostPerDay: 2.4,
			Overloaded: &report.Overload{LimitRequests: 10_000_000, AtS: 5000, Clock: "01:23:20"}},
			{Label: "replicas=9", Status: "holds", Replications: 5, CostUSD: report.Estimate{Mean: 0.9}, Latency: report.HeadlineFigure{Value: 0.2},
				Checks: []report.CheckResult{{Value: 0.2, Measured: true, Margin: 0.9, Met: true}}}},
	}
	ct := candidateTable(d)
	if !ct.Wide || ct.Head[0] != "status" {
		t.Errorf("the candidate table scrolls in its box with its status beside the label: wide %v, head %q", ct.Wide, ct.Head)
	}
	row := ct.Rows[0]
	var cells []string
	for _, c := range row.Cells {
		cells = append(cells, c.Value)
	}
	want := []string{"fails: its backlog passed 10,000,000 requests in flight at 01:23:20: far short of the demand", "≥ $0.10", "≥ $2.40", "—"} // the status first, in view beside the label
	if strings.Join(cells, " | ") != strings.Join(want, " | ") {
		t.Errorf("row %q, want %q", cells, want)
	}
	cv, err := frontierChart(d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cv.Option), "replicas=9") || strings.Contains(string(cv.Option), "replicas=1\"") {
		t.Error("the frontier chart plots the overloaded candidate")
	}
}
