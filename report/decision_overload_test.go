package report

import (
	"bytes"
	"strings"
	"testing"
)

// An overloaded candidate ranks after every candidate that failed on its
// measured checks and before those that could not be built; the terminal
// shows what it costs at least, its status and its reason.
func TestOverloadedCandidateRankAndText(t *testing.T) {
	d := &Decision{
		Objectives:  []string{"min_cost"},
		Knobs:       []KnobInfo{{Name: "replicas"}},
		Constraints: []ConstraintInfo{{ID: "p95/run", Kind: "percentile", Workload: "chat", Metric: "ttft", Percentile: 95, Limit: 2, Unit: "s"}},
		Candidates: []CandidateResult{
			{Index: 0, Label: "replicas=1", Values: []string{"1"}, Status: "fails", Replications: 1, CostUSD: Estimate{Mean: 0.1},
				Overloaded: &Overload{LimitRequests: 10_000_000, AtS: 5000, Clock: "01:23:20"}},
			{Index: 9, Label: "replicas=bad", Values: []string{"bad"}, Status: "invalid", Invalid: "no such GPU"},
			{Index: 3, Label: "replicas=4", Values: []string{"4"}, Status: "fails", Replications: 5, CostUSD: Estimate{Mean: 0.4},
				Checks: []CheckResult{{Value: 200, Measured: true, Margin: -99, WorstAtS: -1}}},
		},
	}
	RankCandidates(d)
	var got []string
	for _, c := range d.Candidates {
		got = append(got, c.Label)
	}
	if strings.Join(got, " ") != "replicas=4 replicas=1 replicas=bad" {
		t.Errorf("ranked %v, want the measured failure, the overloaded one, the invalid one", got)
	}
	if d.Nearest == nil || d.Candidates[d.Nearest.Candidate].Label != "replicas=4" {
		t.Errorf("nearest %+v, want replicas=4's check", d.Nearest)
	}
	var b bytes.Buffer
	if err := WriteDecisionTerminal(&b, d); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"≥ $0.10", "fails (overloaded)", "replicas=1: its backlog passed 10,000,000 requests in flight at 01:23:20: far short of the demand"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("terminal output lacks %q:\n%s", want, b.String())
		}
	}
}
