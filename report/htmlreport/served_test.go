package htmlreport

import (
	"regexp"
	"strings"
	"testing"
)

// TestInterruptedChartsEndWhereServed: a session interrupted 90 s into
// its 4 minutes draws its time series over the two intervals it began,
// not the four planned, and the last, 30 s long, is rated per minute
// over those 30 s (30 requests: 60 a minute).
func TestInterruptedChartsEndWhereServed(t *testing.T) {
	d := fixture()
	for _, r := range d.Variants {
		r.Interrupted, r.SimulatedS = true, 90
	}
	out := write(t, d, Options{ECharts: stubRuntime})
	m := regexp.MustCompile(`hr.draw\("chart-demand", \{.*?"xAxis":\[\{[^\]]*"data":\[([^\]]*)\]`).FindStringSubmatch(out)
	if m == nil || m[1] != `"09:00","09:01"` {
		t.Fatalf("the demand chart's axis is %v, want 09:00 and 09:01", m)
	}
	demand := regexp.MustCompile(`hr.draw\("chart-demand", .*?\n`).FindString(out)
	if !strings.Contains(demand, `{"value":20},{"value":60}`) {
		t.Errorf("the offered rate is not 20 and 60 a minute:\n%.600s", demand)
	}
	if r := served(d.Variants[0]); len(r.Backends[1].Cluster.Series.Batch) != 2 || len(r.Series.Rejected["itpm"]) != 2 || len(d.Variants[0].Series.Offered) != 4 {
		t.Errorf("served: cluster batch %v, itpm %v; the original's offered %v", r.Backends[1].Cluster.Series.Batch, r.Series.Rejected["itpm"], d.Variants[0].Series.Offered)
	}
	// A run that reached its end keeps every interval.
	full := fixture()
	if r := served(full.Variants[0]); r != full.Variants[0] {
		t.Error("served copied a run that covered its whole duration")
	}
}
