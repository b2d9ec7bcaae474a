package htmlreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// replicatedLoadSweep is a concurrency sweep of two levels, three
// replications each, whose TPOT and TTFT vary by replication.
func replicatedLoadSweep(t *testing.T) *report.SweepDocument {
	t.Helper()
	g := &report.GridPlan{Kind: "concurrency", Workload: "chat", Params: []report.SweepParam{
		{Key: "concurrency", Values: []string{"1", "2"}, Numbers: []float64{1, 2}}}}
	for _, l := range []string{"1", "2"} {
		g.Points = append(g.Points, report.GridPoint{Label: "concurrency=" + l, Values: []string{l}})
	}
	p := &report.Plan{Command: "sweep", Variants: []string{"base"}, Replications: 3, Summarize: true, Grid: g}
	rs := make([]*model.Results, p.NumItems())
	for k := range rs {
		pt, _, r := p.Item(k)
		rs[k] = &model.Results{Scenario: "s", Replication: r, DurationS: 10}
		s := &rs[k].Summary
		s.Requests.Offered, s.Requests.Completed = 10, 10
		s.Throughput.RequestsPerS = float64(pt+1) + 0.1*float64(r)
		s.Latency.TTFT = model.Quantiles{Count: 10, P50: 0.1 + 0.01*float64(r), P95: 0.2 + 0.02*float64(r)}
		s.Latency.TPOT = model.Quantiles{Count: 10, P50: 0.02 + 0.001*float64(r)}
	}
	out, err := report.Assemble(p, rs)
	if err != nil {
		t.Fatal(err)
	}
	return out.Sweep
}

// A replicated step-load sweep keeps its intervals in the HTML's
// per-level table, as in the terminal's, and both show TPOT.
func TestReplicatedSweepShowsIntervalsAndTPOT(t *testing.T) {
	d := replicatedLoadSweep(t)
	var b bytes.Buffer
	if err := WriteSweep(&b, d, Options{ECharts: stubRuntime}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<th>TPOT p50</th>", "Means over 3 replications, each with its 95% confidence interval.", "21ms<small>[", "110ms<small>["} {
		if !strings.Contains(page, want) {
			t.Errorf("sweep page lacks %q", want)
		}
	}
	b.Reset()
	if err := report.WriteGridTerminal(&b, "t", d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "TPOT p50") || !strings.Contains(b.String(), "21ms ± ") {
		t.Errorf("the replicated terminal table has no TPOT column:\n%s", b.String())
	}
}
