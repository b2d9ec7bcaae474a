package report

import (
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
)

// TestBottleneckLimitStyle: the plan's "first to break" names a limit in
// the verdicts' number style (2,000, 12,500, 800k, 16M), never 2k.
func TestBottleneckLimitStyle(t *testing.T) {
	for _, tc := range []struct {
		limit float64
		want  string
	}{{2000, "2,000"}, {12500, "12,500"}, {800_000, "800k"}, {16e6, "16M"}, {450, "450"}} {
		r := &model.Results{Backends: []model.BackendResult{{Name: "sonnet", Limits: []model.LimitResult{
			{Scope: "org", Dimension: "tpm", Limit: 1e9, Rejected: 1, FirstRejectS: 60},
			{Scope: "org", Dimension: "rpm", Limit: tc.limit, Rejected: 3, FirstRejectS: 30},
		}}}}
		want := "sonnet's RPM limit of " + tc.want + " refuses requests"
		if got := Bottleneck(r); got != want {
			t.Errorf("limit %v: %q, want %q", tc.limit, got, want)
		}
		if v := limitLines(r); !strings.Contains(strings.Join(v, "\n"), "RPM limit "+tc.want+" binds") {
			t.Errorf("limit %v: the verdicts %q do not write it %s", tc.limit, v, tc.want)
		}
	}
}
