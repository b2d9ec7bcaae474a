package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
)

// TestVerdictSaysTheRouteSplit: a hybrid's verdict says how its route
// split the attempts and why it moved past the first target; a route
// that sent nothing is not mentioned.
func TestVerdictSaysTheRouteSplit(t *testing.T) {
	r := &model.Results{Scenario: "hybrid", DurationS: 3600}
	r.Summary.Requests = model.RequestCounts{Offered: 1000, Completed: 1000}
	r.Routes = []model.RouteResult{
		{Name: "fast", Strategy: "overflow", Targets: []model.RouteTarget{{Name: "fast-gpu", Sent: 8300}, {Name: "fast-api", Sent: 1700}}, Overflows: 1700},
		{Name: "two", Strategy: "weighted", Targets: []model.RouteTarget{{Name: "a", Sent: 999, Refused: 12}, {Name: "b", Sent: 1}, {Name: "c"}}, Fallbacks: 12, CooldownSkips: 3},
		{Name: "off", Strategy: "fallback", Targets: []model.RouteTarget{{Name: "x"}, {Name: "y"}}},
	}
	v := Verdict(r)
	for _, want := range []string{
		"Route fast (overflow): of 10,000 attempts, 83% went to fast-gpu and 17% to fast-api; 1,700 overflowed past fast-gpu when it was full.",
		"Route two (weighted): of 1,000 attempts, >99% went to a (12 refused), <1% to b and 0% to c; 12 refused attempts moved on to the next target; 3 times a target cooling down after a refusal was passed over.",
	} {
		if !slices.Contains(v, want) {
			t.Errorf("verdict lacks %q:\n%s", want, strings.Join(v, "\n"))
		}
	}
	for _, l := range v {
		if strings.Contains(l, "Route off") {
			t.Errorf("a route that sent nothing: %q", l)
		}
	}
}
