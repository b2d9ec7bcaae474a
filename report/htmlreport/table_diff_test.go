package htmlreport

import (
	"testing"

	"github.com/headroom-sim/headroom/model"
)

// A difference below the three figures the values print with is ±0, not
// "+0.000856 req/s"; one above them prints.
func TestResultsTableTinyDifferenceIsZero(t *testing.T) {
	a, b := &model.Results{Variant: "base"}, &model.Results{Variant: "other"}
	a.Summary.Throughput.RequestsPerS, b.Summary.Throughput.RequestsPerS = 5.43, 5.430856
	a.Summary.Throughput.OutputTokensPerS, b.Summary.Throughput.OutputTokensPerS = 824, 983
	tab := resultsTable([]*model.Results{a, b})
	got := map[string]string{}
	for _, r := range tab.Rows {
		if len(r.Cells) == 2 {
			got[r.Label] = r.Cells[1].Diff
		}
	}
	if got["throughput"] != "Δ ±0" {
		t.Errorf("throughput Δ %q, want ±0", got["throughput"])
	}
	if got["output tokens/s"] != "Δ +159" {
		t.Errorf("output tokens/s Δ %q, want +159", got["output tokens/s"])
	}
}
