package report

import "testing"

// TestDecisionFailed: a plan fails when min_cost has no winner, or when
// max_load alone finds the scenario as written short of its own demand;
// a winner, or growth of at least 1×, is no failure.
func TestDecisionFailed(t *testing.T) {
	zero := 0
	for _, tc := range []struct {
		name string
		d    Decision
		want string
	}{
		{"min_cost, no winner", Decision{Objectives: []string{"min_cost"}}, "no candidate meets every constraint"},
		{"both, no winner", Decision{Objectives: []string{"min_cost", "max_load"}, Growth: &Growth{Factor: 2, Holds: true}}, "no candidate meets every constraint"},
		{"min_cost, a winner", Decision{Objectives: []string{"min_cost"}, Winner: &zero}, ""},
		{"max_load, short", Decision{Objectives: []string{"max_load"}, Growth: &Growth{Factor: 0.8, Holds: true}}, "the scenario as written does not meet every constraint at its own demand"},
		{"max_load, nothing held", Decision{Objectives: []string{"max_load"}, Growth: &Growth{}}, "the scenario as written does not meet every constraint at its own demand"},
		{"max_load, room left", Decision{Objectives: []string{"max_load"}, Growth: &Growth{Factor: 1.5, Holds: true}}, ""},
	} {
		if got := tc.d.Failed(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
