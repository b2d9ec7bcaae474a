package plan

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/scenarios"
)

// planExample answers an embedded example's [plan], with sets applied. The
// examples' tests run in parallel with each other: a plan keeps the cores
// busy only as far as its rounds and growth steps have simulations to run.
func planExample(t *testing.T, name string, sets ...scenarios.Override) (*Problem, *report.Decision) {
	t.Helper()
	if testing.Short() {
		t.Skip("a whole plan: long")
	}
	t.Parallel()
	sc, err := scenarios.LoadExample(name)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Compile(sc, sets)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Run(context.Background(), pr, Options{Workers: runtime.GOMAXPROCS(0)})
	if err != nil {
		t.Fatal(err)
	}
	if d.Winner == nil {
		t.Fatalf("%s: nothing holds: %s", name, report.DecisionAnswer(d))
	}
	// The work estimate is an upper bound of what ran.
	if e, ran := pr.Estimate(Options{Workers: 1}), d.Search.Simulations+d.Search.GrowthSimulations; e.Simulations < ran || e.Events <= 0 {
		t.Errorf("%s: estimated at most %d simulations (%.3g events), %d ran", name, e.Simulations, e.Events, ran)
	}
	least := math.Inf(1)
	for _, c := range d.Candidates[*d.Winner].Checks {
		least = math.Min(least, c.Margin)
	}
	t.Logf("%s: %d simulations for %d of %d candidates, %d for the growth; the winner's least margin %.0f%%", name, d.Search.Simulations, len(d.Candidates), d.Search.Candidates, d.Search.GrowthSimulations, 100*least)
	return pr, d
}

// candidate finds the simulated candidate with these knob values.
func candidate(t *testing.T, d *report.Decision, values ...string) report.CandidateResult {
	t.Helper()
	for _, c := range d.Candidates {
		if strings.Join(c.Values, "|") == strings.Join(values, "|") {
			return c
		}
	}
	t.Fatalf("no simulated candidate %v", values)
	return report.CandidateResult{}
}

// checkSkipped verifies the search's claim about every candidate it did
// not simulate that is cheaper than the winner in fixed and GPU cost
// alone: a simulated candidate with the same other values and at least as
// much of every monotone knob failed; or one gives the same configuration;
// or one with less of the monotone knobs holds at the same lower bound
// (more capacity for nothing, which the search does not buy).
func checkSkipped(t *testing.T, pr *Problem, d *report.Decision) {
	t.Helper()
	sp := pr.space()
	ev := newEvaluator(context.Background(), pr, Options{Workers: 1})
	at := func(i int) point {
		p := make(point, len(sp.sizes))
		for j := len(p) - 1; j >= 0; j-- {
			p[j] = i % sp.sizes[j]
			i /= sp.sizes[j]
		}
		return p
	}
	simulated := map[int]report.CandidateResult{}
	for _, c := range d.Candidates {
		simulated[c.Index] = c
	}
	win := d.Candidates[*d.Winner]
	var explained []point
	for i := range simulated {
		explained = append(explained, at(i))
	}
	for i := 0; i < sp.size(); i++ {
		p := at(i)
		if _, ok := simulated[i]; ok || ev.lowerBound(p) >= win.CostUSD.Mean {
			continue
		}
		cp := ev.get(p, 1)
		covered := false
		for _, q := range explained { // the same configuration as one explained
			if reflect.DeepEqual(cp.cfg, ev.get(q, 1).cfg) {
				covered = true
				break
			}
		}
		for j, c := range simulated {
			if covered {
				break
			}
			q := at(j)
			holds := c.Status == "holds" || c.Status == "winner"
			covered = !holds && dominatedBy(sp, p, q) || holds && dominatedBy(sp, q, p) && ev.lowerBound(p) == ev.lowerBound(q)
		}
		// Or the scan up a monotone knob stopped below it, its cost having
		// risen twice in a row.
		for k := range p {
			if covered || !sp.mono[k] {
				continue
			}
			rises, prev := 0, math.NaN()
			for v := 0; v < p[k]; v++ {
				q := append(point(nil), p...)
				q[k] = v
				c, ok := simulated[sp.index(q)]
				if !ok || c.Status != "holds" && c.Status != "winner" {
					continue
				}
				if c.CostUSD.Mean > prev {
					rises++
				} else {
					rises = 0
				}
				prev = c.CostUSD.Mean
				covered = covered || rises >= 2
			}
		}
		if !covered {
			t.Errorf("candidate %s is cheaper than the winner before tokens, was not simulated, and nothing explains why", pr.label(p))
		}
		explained = append(explained, p)
	}
}

// checkWritten runs the scenario --write would write and the winner's
// configuration: the same results, byte for byte.
func checkWritten(t *testing.T, pr *Problem, d *report.Decision) {
	t.Helper()
	w, err := scenarios.LoadBytes(d.WinnerTOML, "winner.toml")
	if err != nil {
		t.Fatalf("the written winner does not load: %v\n%s", err, d.WinnerTOML)
	}
	if w.Plan != nil {
		t.Error("the written winner keeps its [plan]")
	}
	got, err := w.Config(nil)
	if err != nil {
		t.Fatal(err)
	}
	var sets []scenarios.Override
	ev := newEvaluator(context.Background(), pr, Options{Workers: 1})
	idx := d.Candidates[*d.Winner].Index
	sp := pr.space()
	p := make(point, len(sp.sizes))
	for j := len(p) - 1; j >= 0; j-- {
		p[j] = idx % sp.sizes[j]
		idx /= sp.sizes[j]
	}
	sets = ev.build(p, 1).sets
	want, err := pr.sc.Config(sets)
	if err != nil {
		t.Fatal(err)
	}
	run := func(c model.Config) []byte {
		c.Duration = 3 * 3600
		s, err := model.Build(c)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(r)
		return b
	}
	if !bytes.Equal(run(got), run(want)) {
		t.Error("the written winner runs differently from the winner's configuration")
	}
}

// TestFleet70BExample: three GPU types, two tensor-parallel widths,
// 1..64 replicas of Llama-3.1-70B on a working day. The winner's cost is
// its GPU bill (no tokens are paid for), exactly; one replica fewer fails
// in the 11 a.m. hour; nothing cheaper was skipped without a reason; and
// the search simulates under a tenth of what an exhaustive one would.
func TestFleet70BExample(t *testing.T) {
	pr, d := planExample(t, "fleet-70b", scenarios.Override{Path: "plan.recheck", Value: 10})
	w := d.Candidates[*d.Winner]
	if got := strings.Join(w.Values, "|"); got != "H100-SXM|4|3" {
		t.Errorf("winner %s, want H100-SXM, TP4, 3 replicas", w.Label)
	}
	const bill = 3 * 4 * 3.90 * 24
	if math.Abs(w.CostUSD.Mean-bill) > 1e-6*bill {
		t.Errorf("winner costs %v a day, its GPU bill is %v", w.CostUSD.Mean, bill)
	}
	for _, c := range w.Checks {
		if !c.Met || c.Margin < 0 {
			t.Errorf("winner check %+v", c)
		}
	}
	fewer := candidate(t, d, "H100-SXM", "4", "2")
	if fewer.Status != "fails" {
		t.Errorf("2 replicas: %s", fewer.Status)
	}
	if r := report.FailReason(d, fewer); !strings.Contains(r, "(11:00)") {
		t.Errorf("2 replicas fail %q, want in the 11:00 hour", r)
	}
	if s := d.Search; s.Simulations*10 > s.Exhaustive {
		t.Errorf("%d simulations, exhaustive %d", s.Simulations, s.Exhaustive)
	}
	if g := d.Growth; g == nil || !g.Holds || g.Factor < 1.05 || g.Factor > 2 || g.FirstToBreak == nil || g.Evaluations > 12 {
		t.Errorf("growth %+v", g)
	}
	checkSkipped(t, pr, d)
	checkWritten(t, pr, d)
}

// TestSalespeoplePlanExample: evaluation hybrid, hosted or self-hosted,
// drafting hosted or on a 70B cluster, with the replica counts of both.
// The cheapest that holds self-hosts drafting and runs evaluation on five
// L40S replicas; its cost is its GPU bill (the replicas serve everything,
// so no token is bought); all-hosted holds but costs more; four L40S
// replicas fail at the 9 a.m. peak. Nothing here is about growth, so the
// plan runs min_cost alone: the search and its answer are the same (growth
// runs after it, on the winner), without the growth's simulations.
func TestSalespeoplePlanExample(t *testing.T) {
	pr, d := planExample(t, "hybrid-plan", scenarios.Override{Path: "plan.objective", Value: "min_cost"}, scenarios.Override{Path: "plan.recheck", Value: 6})
	w := d.Candidates[*d.Winner]
	if got := strings.Join(w.Values, "|"); got != "5|1|hybrid|self-hosted" {
		t.Errorf("winner %s", w.Label)
	}
	const bill = (5*1.20 + 4*3.90) * 24
	if w.CostUSD.Mean < bill*(1-1e-9) || w.CostUSD.Mean > bill*1.01 {
		t.Errorf("winner costs %v a day, its GPU bill is %v and it buys next to no tokens", w.CostUSD.Mean, bill)
	}
	hosted := candidate(t, d, "1", "1", "hosted", "hosted")
	if hosted.Status != "holds" || hosted.CostUSD.Mean < 1.5*w.CostUSD.Mean {
		t.Errorf("all hosted: %s at %v", hosted.Status, hosted.CostUSD.Mean)
	}
	if self := candidate(t, d, "5", "1", "self-hosted", "self-hosted"); self.Status != "holds" || self.CostUSD.Mean < w.CostUSD.Mean {
		t.Errorf("all self-hosted on 5 L40S: %s at %v", self.Status, self.CostUSD.Mean)
	}
	four := candidate(t, d, "4", "1", "hybrid", "self-hosted")
	if r := report.FailReason(d, four); four.Status != "fails" || !strings.Contains(r, "(09:00)") {
		t.Errorf("4 L40S replicas: %s, %q", four.Status, r)
	}
	if s := d.Search; s.Simulations*5 > s.Exhaustive {
		t.Errorf("%d simulations, exhaustive %d", s.Simulations, s.Exhaustive)
	}
	checkSkipped(t, pr, d)
	checkWritten(t, pr, d)
}

// TestEmailPlanExample: 5,000 users against tiers ×1..×16 of one model or
// of two. Two models at ×8 hold; one model needs ×16; the fixed prices are
// the commitments prorated to the hour, exactly.
func TestEmailPlanExample(t *testing.T) {
	pr, d := planExample(t, "email-plan", scenarios.Override{Path: "plan.recheck", Value: 6})
	w := d.Candidates[*d.Winner]
	if got := strings.Join(w.Values, "|"); got != "×8|two" {
		t.Errorf("winner %s", w.Label)
	}
	if want := (21000.0 + 1000) / 730; math.Abs(w.FixedUSD-want) > 1e-9 {
		t.Errorf("fixed prices %v, want %v (two commitments a month, prorated to 1 h of 730)", w.FixedUSD, want)
	}
	if one := candidate(t, d, "×8", "one"); one.Status != "fails" {
		t.Errorf("one model at ×8: %s", one.Status)
	}
	if one := candidate(t, d, "×16", "one"); one.Status != "holds" {
		t.Errorf("one model at ×16: %s", one.Status)
	}
	if g := d.Growth; g == nil || !g.Holds || g.Factor < 1 || g.Bottleneck == "" {
		t.Errorf("growth %+v", g)
	}
	checkWritten(t, pr, d)
}
