package report

import (
	"strings"
	"testing"
)

// The winner's note adds the knobs' fixed prices to its runs' cost, and
// says nothing without fixed prices or a winner.
func TestWinnerCostNote(t *testing.T) {
	w := 0
	d := &Decision{Winner: &w, Candidates: []CandidateResult{{Replications: 4, CostUSD: Estimate{Mean: 6.19}, FixedUSD: 4.16}}}
	want := "The plan's cost for it, $6.19, is its runs' cost (mean over 4 replications) plus $4.16 of the knobs' fixed prices, prorated to the horizon."
	if got := WinnerCostNote(d); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	d.Candidates[0].FixedUSD = 0
	if got := WinnerCostNote(d); got != "" {
		t.Errorf("without fixed prices: %q", got)
	}
	d.Winner = nil
	if got := WinnerCostNote(d); got != "" {
		t.Errorf("without a winner: %q", got)
	}
}

// The answer's figure is the constraint's confidence bound over the
// winner's replications, and says so: the winner's own verdict (one
// replication, every workload) gives a different number.
func TestAnswerLabelsTheBound(t *testing.T) {
	w := 0
	d := &Decision{Winner: &w,
		Settings:    DecisionSettings{Confidence: 0.95, Bound: "mean", WindowS: 3600, HorizonS: 86400},
		Constraints: []ConstraintInfo{{ID: "p95-ttft/chat/window", Kind: "percentile", Workload: "chat", Metric: "ttft", Percentile: 95, Window: true, Limit: 2, Unit: "s"}},
		Candidates: []CandidateResult{{Label: "replicas=5", Replications: 12, CostUSD: Estimate{Mean: 518},
			Checks: []CheckResult{{Value: 0.409, Mean: 0.39, Measured: true, Margin: 0.8}}}}}
	got := DecisionAnswer(d)
	if want := "chat p95 TTFT 409ms in its worst hour (the 95% bound over 12 replications)"; !strings.Contains(got, want) {
		t.Errorf("answer %q lacks %q", got, want)
	}
	d.Candidates[0].Replications = 1
	if got := DecisionAnswer(d); strings.Contains(got, "bound") {
		t.Errorf("one replication has no bound to name: %q", got)
	}
}
