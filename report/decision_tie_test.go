package report

import (
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
)

// TestTieNote: a winner whose overflow route sent nothing past its first
// target, tied on cost with another candidate that holds, says the two are
// the same setup here; an overflow that carried traffic, or a cost more
// than a cent apart, says nothing.
func TestTieNote(t *testing.T) {
	decision := func(overflowSent int64, otherCost float64) *Decision {
		win := 0
		r := &model.Results{Routes: []model.RouteResult{{Name: "fast", Strategy: "overflow",
			Targets: []model.RouteTarget{{Name: "fast-gpu", Sent: 1000}, {Name: "fast-api", Sent: overflowSent}}, Overflows: overflowSent}}}
		return &Decision{
			Knobs: []KnobInfo{{Name: "L40S replicas"}, {Name: "evaluation"}},
			Candidates: []CandidateResult{
				{Label: "L40S replicas=5, evaluation=hybrid", Values: []string{"5", "hybrid"}, Status: "winner", CostUSD: Estimate{Mean: 518.4}},
				{Label: "L40S replicas=5, evaluation=self-hosted", Values: []string{"5", "self-hosted"}, Status: "holds", CostUSD: Estimate{Mean: otherCost}},
			},
			Winner:        &win,
			WinnerResults: &Document{Variants: []*model.Results{r}},
		}
	}
	want := " (evaluation=hybrid = evaluation=self-hosted here: no request overflowed, as route fast sent nothing to fast-api, so both cost $518; a cost tie goes to the value listed first)"
	if got := tieNote(decision(0, 518.4-1e-9)); got != want {
		t.Errorf("tie:\n got %q\nwant %q", got, want)
	}
	if got := DecisionAnswer(decision(0, 518.4)); !strings.Contains(got, "$518") || !strings.Contains(got, want) {
		t.Errorf("the answer does not carry the note: %q", got)
	}
	if got := tieNote(decision(3, 518.4)); got != "" {
		t.Errorf("an overflow that carried traffic: %q", got)
	}
	if got := tieNote(decision(0, 518.42)); got != "" {
		t.Errorf("costs 2 cents apart: %q", got)
	}
}
