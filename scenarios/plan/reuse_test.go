package plan

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// countSims runs the plan and counts its simulations by configuration
// (its canonical JSON, the replication cleared) and replication.
func countSims(t *testing.T, src string, noReuse bool) (*report.Decision, map[string]int) {
	t.Helper()
	var mu sync.Mutex
	runs := map[string]int{}
	onSim := func(c *cand, rep int) {
		cfg := c.cfg
		cfg.Replication = 0
		b, err := json.Marshal(cfg)
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		defer mu.Unlock()
		runs[fmt.Sprintf("%x/%d", sha256.Sum256(b), rep)]++
	}
	d, err := Run(context.Background(), runPlan(t, src), Options{Workers: 2, onSim: onSim, noReuse: noReuse})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, k := range runs {
		n += k
	}
	if got := d.Search.Simulations + d.Search.GrowthSimulations; got != n {
		t.Errorf("the decision counts %d simulations, %d ran", got, n)
	}
	return d, runs
}

// outputs are the decision's JSON and terminal text without what reuse
// changes: the simulation counts and the time taken.
func outputs(t *testing.T, d *report.Decision) (string, string) {
	t.Helper()
	c := *d
	c.Search.Simulations, c.Search.GrowthSimulations, c.Search.ElapsedS = 0, 0, 0
	var js, text bytes.Buffer
	w := bufio.NewWriter(&js)
	if err := report.WriteDecisionJSON(w, &c); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if err := report.WriteDecisionTerminal(&text, &c); err != nil {
		t.Fatal(err)
	}
	return js.String(), text.String()
}

// TestRecheckReusesSimulations: the winner's re-check, its report, the
// growth's bottleneck and the scenario-as-written's report reuse the
// replications the search already ran (same configuration, same seed):
// with reuse no configuration runs a replication twice, where without it
// some do; and the outputs are byte for byte the same either way.
func TestRecheckReusesSimulations(t *testing.T) {
	minCost := `[plan]
objective = ["min_cost", "max_load"]
window = "none"
replications = 3
recheck = 6
max_factor = 4

[[plan.target]]
metric = "queue_wait"
percentile = 95
max = "0.5s"

[[plan.knob]]
key = "workload.jobs.client.max_concurrency"
range = "1..12"
monotone = true
`
	maxLoad := `[plan]
objective = "max_load"
window = "none"
replications = 3
max_factor = 4

[[plan.target]]
metric = "queue_wait"
percentile = 95
max = "0.5s"
`
	for _, tc := range []struct {
		name, src string
	}{
		{"min_cost", mmcPlan(4, 1, 0.5, minCost)},
		{"max_load", mmcPlan(4, 7, 0.5, maxLoad)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			with, runs := countSims(t, tc.src, false)
			without, again := countSims(t, tc.src, true)
			for k, n := range runs {
				if n > 1 {
					t.Errorf("with reuse, configuration/replication %s ran %d times", k, n)
				}
			}
			twice := 0
			for _, n := range again {
				twice += n - 1
			}
			if twice == 0 {
				t.Error("without reuse nothing ran twice: the test shows nothing")
			}
			sw, sn := with.Search.Simulations+with.Search.GrowthSimulations, without.Search.Simulations+without.Search.GrowthSimulations
			if sw+twice != sn {
				t.Errorf("%d simulations with reuse, %d without, %d of them repeats", sw, sn, twice)
			}
			t.Logf("%d simulations with reuse, %d without", sw, sn)
			jw, tw := outputs(t, with)
			jn, tn := outputs(t, without)
			if jw != jn {
				t.Errorf("the JSON differs with reuse:\n%s\nwithout:\n%s", jw, jn)
			}
			if tw != tn {
				t.Errorf("the terminal text differs with reuse:\n%s\nwithout:\n%s", tw, tn)
			}
			if with.Winner == nil && tc.name == "min_cost" {
				t.Errorf("nothing holds:\n%s", tw)
			}
			if !strings.Contains(tw, "Growth") {
				t.Errorf("no growth:\n%s", tw)
			}
		})
	}
}

// TestWorkBoundStopsThePlan: a plan whose simulations would pass
// Options.MaxEvents stops with a *WorkBound before starting them, having
// run only what fit; with room for everything it runs to its answer.
func TestWorkBoundStopsThePlan(t *testing.T) {
	src := mmcPlan(4, 1, 0.5, `[plan]
objective = "min_cost"
window = "none"
replications = 3

[[plan.target]]
metric = "queue_wait"
percentile = 95
max = "0.5s"

[[plan.knob]]
key = "workload.jobs.client.max_concurrency"
range = "1..12"
monotone = true
`)
	pr := runPlan(t, src)
	e := pr.Estimate(Options{Workers: 1})
	if e.PerRun.Events <= 0 || e.Simulations <= 0 || e.Simulations > e.Exhaustive+pr.Settings.Recheck {
		t.Fatalf("estimate %+v", e)
	}
	bound := 5.5 * e.PerRun.Events // room for five simulations, not six
	ran := 0
	_, err := Run(context.Background(), pr, Options{Workers: 2, MaxEvents: bound, onSim: func(*cand, int) { ran++ }})
	var wb *WorkBound
	if !errors.As(err, &wb) {
		t.Fatalf("err %v, want a *WorkBound", err)
	}
	if wb.Bound != bound || wb.Events > bound || wb.Simulations != ran || ran > 5 {
		t.Errorf("%+v after %d simulations", wb, ran)
	}
	d, err := Run(context.Background(), pr, Options{Workers: 2, MaxEvents: e.Events})
	if err != nil || d.Winner == nil {
		t.Fatalf("within the estimate: %v", err)
	}
}

// TestWinnerBusiestHourOverReplications: the winner's report summarises
// the busiest hour over the same replications as its key figures: each
// replication's own busiest hour, the mean of what running each alone
// gives.
func TestWinnerBusiestHourOverReplications(t *testing.T) {
	pr := runPlan(t, mmcPlan(4, 1, 3, `[plan]
objective = "min_cost"
replications = 2
recheck = 4

[[plan.target]]
metric = "queue_wait"
percentile = 95
max = "0.5s"

[[plan.knob]]
key = "workload.jobs.client.max_concurrency"
range = "1..12"
monotone = true
`))
	d, err := Run(context.Background(), pr, Options{Workers: 2})
	if err != nil || d.Winner == nil {
		t.Fatalf("%v", err)
	}
	doc := d.WinnerResults
	if doc == nil || doc.Replications != 4 || len(doc.Summary) != 1 {
		t.Fatalf("winner results %+v", doc)
	}
	var p95, good float64
	cfg := newEvaluator(context.Background(), pr, Options{}).get(pointOf(pr, d.Candidates[*d.Winner].Index), 1).cfg
	for r := 0; r < 4; r++ {
		c := cfg
		c.Replication = r
		s, err := model.Build(c)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		pk := res.Findings.PeakWindow
		if pk == nil {
			t.Fatal("no busiest hour in a 3-hour run")
		}
		p95 += pk.TTFT.P95 / 4
		good += 100 * pk.SLOAttainment / 4
	}
	for name, want := range map[string]float64{"busiest_hour_ttft_p95_s": p95, "busiest_hour_slo_attainment_pct": good} {
		f, ok := doc.Summary[0].Figure(name)
		if !ok || f.N != 4 || math.Abs(f.Mean-want) > 1e-9*math.Max(1, want) {
			t.Errorf("%s: %+v, want the mean %v of 4", name, f, want)
		}
	}
}

// pointOf is the candidate at index i of the canonical order.
func pointOf(pr *Problem, i int) point {
	sp := pr.space()
	p := make(point, len(sp.sizes))
	for j := len(p) - 1; j >= 0; j-- {
		p[j] = i % sp.sizes[j]
		i /= sp.sizes[j]
	}
	return p
}
