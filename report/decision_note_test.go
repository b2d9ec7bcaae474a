package report

import "testing"

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
