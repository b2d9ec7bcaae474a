package report_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/scenarios"
)

// poisson is an open loop of Poisson arrivals at 2/s for 50 s into a
// provider that answers at once: requests offered are Poisson with mean
// exactly 100, and every request completes.
const poisson = `
name = "poisson"
duration = "50s"
interval = "10s"
[[workload]]
name = "jobs"
route = "api"
tokens = { input = 10, output = 1 }
demand = { rate = 2, unit = "requests/s" }
client = { retry = "none" }
[[provider]]
name = "api"
price = { input = 1000, output = 1000 }
`

// mm2 is an M/M/2 queue: Poisson arrivals at 1/s, two servers (the
// client's semaphore), exponential service with mean 1 s. Erlang C gives
// P(wait) = C(2, 1) = 1/3 and a mean wait in queue Wq = C/(2 − 1) = 1/3 s.
// 2,000 s is about 2,000 customers; with ρ = 0.5 the queue forgets its
// empty start within seconds, so the start-up bias is a small fraction of
// the interval.
const mm2 = `
name = "mm2"
duration = "2000s"
interval = "1000s"
[[workload]]
name = "jobs"
route = "server"
tokens = { input = 1, output = 1 }
demand = { rate = 1, unit = "requests/s" }
client = { max_concurrency = 2, retry = "none" }
[[provider]]
name = "server"
latency = { ttft = { base = "1s", dist = "exponential" } }
`

// TestReplicationIntervalsCoverErlangC: the 95% t interval of the mean
// wait in queue over 8 replications of an M/M/2 queue covers Erlang C's
// Wq = 1/3 s in about 95% of independent experiments.
func TestReplicationIntervalsCoverErlangC(t *testing.T) {
	experiments := 200
	if testing.Short() {
		experiments = 40
	}
	const wq = 1.0 / 3
	covered := 0
	var all float64
	for seed := 1; seed <= experiments; seed++ {
		d := replicateResults(t, mm2, uint64(seed), 8)
		waits := make([]float64, len(d))
		for i, r := range d {
			waits[i] = r.Summary.Latency.QueueWait.Mean
			all += waits[i] / float64(8*experiments)
		}
		if e := report.NewEstimate(waits); e.Lo <= wq && wq <= e.Hi {
			covered++
		}
	}
	p := float64(covered) / float64(experiments)
	sd := math.Sqrt(0.95 * 0.05 / float64(experiments))
	if math.Abs(p-0.95) > 4*sd {
		t.Errorf("coverage %.3f over %d experiments, want 0.95 ± %.3f", p, experiments, 4*sd)
	}
	t.Logf("coverage of Erlang C's Wq %.3f over %d experiments; grand mean wait %.4f s, Wq %.4f s", p, experiments, all, wq)
}

// replicateResults runs the base of src for replications 0..n-1.
func replicateResults(t *testing.T, src string, seed uint64, n int) []*model.Results {
	t.Helper()
	sc, err := scenarios.LoadBytes([]byte(src), "test.toml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := sc.Config([]scenarios.Override{{Path: "seed", Value: int64(seed)}})
	if err != nil {
		t.Fatal(err)
	}
	list := make([]model.Config, n)
	for r := range list {
		list[r] = c
		list[r].Replication = r
	}
	res, err := model.RunAll(context.Background(), list, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// limited is a closed loop against an RPM limit that binds, with a variant
// identical to the base and one with the limit doubled.
const limited = `
name = "limited"
duration = "10m"
interval = "1m"
[[workload]]
name = "chat"
route = "api"
tokens = { input = { dist = "lognormal", median = 800, p95 = 2000 }, output = { dist = "lognormal", median = 100, p95 = 300 } }
demand = { rate = 300, unit = "requests/min" }
client = { retry = "none" }
[[provider]]
name = "api"
limits = { rpm = 120 }
latency = { ttft = { base = "300ms", dist = "exponential" }, tpot = { mean = "10ms" } }
[[variant]]
name = "same"
set = { "provider.api.limits.rpm" = 120 }
[[variant]]
name = "double"
set = { "provider.api.limits.rpm" = 240 }
`

// replicate runs every configuration of src for replications 0..n-1 with
// seed and assembles the run's document with a summary.
func replicate(t *testing.T, src string, seed uint64, n int) *report.Document {
	t.Helper()
	sc, err := scenarios.LoadBytes([]byte(src), "test.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfgs, err := sc.Configs([]scenarios.Override{{Path: "seed", Value: int64(seed)}})
	if err != nil {
		t.Fatal(err)
	}
	plan := &report.Plan{Command: "run", Generator: "test", Replications: n, Summarize: true}
	for _, c := range cfgs {
		name := c.Variant
		if name == "" {
			name = "base"
		}
		plan.Variants = append(plan.Variants, name)
	}
	list := make([]model.Config, plan.NumItems())
	for k := range list {
		_, v, r := plan.Item(k)
		list[k] = cfgs[v]
		list[k].Replication = r
	}
	res, err := model.RunAll(context.Background(), list, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := report.Assemble(plan, res)
	if err != nil {
		t.Fatal(err)
	}
	return out.Document
}

func figure(t *testing.T, d *report.Document, variant int, name string) report.Figure {
	t.Helper()
	f, ok := d.Summary[variant].Figure(name)
	if !ok {
		t.Fatalf("no figure %q", name)
	}
	return f
}

// TestReplicationIntervalsCover: the 95% interval of requests offered over
// 8 replications covers the true mean, 100, in about 95% of independent
// experiments (seeds). Within four binomial standard deviations.
func TestReplicationIntervalsCover(t *testing.T) {
	experiments := 200
	if testing.Short() {
		experiments = 50
	}
	covered := 0
	for seed := 1; seed <= experiments; seed++ {
		d := replicate(t, poisson, uint64(seed), 8)
		f := figure(t, d, 0, "requests_offered")
		if f.N != 8 {
			t.Fatalf("N = %d", f.N)
		}
		if f.Lo <= 100 && 100 <= f.Hi {
			covered++
		}
		if tp := figure(t, d, 0, "requests_per_s"); math.Abs(tp.Mean-f.Mean/50) > 1e-9 {
			t.Fatalf("throughput %v, want offered/50 = %v (all complete)", tp.Mean, f.Mean/50)
		}
	}
	p := float64(covered) / float64(experiments)
	sd := math.Sqrt(0.95 * 0.05 / float64(experiments))
	if math.Abs(p-0.95) > 4*sd {
		t.Errorf("coverage %.3f over %d experiments, want 0.95 ± %.3f", p, experiments, 4*sd)
	}
	t.Logf("coverage %.3f over %d experiments", p, experiments)
}

func TestPairedDifferences(t *testing.T) {
	d := replicate(t, limited, 3, 6)
	if d.Replications != 6 || len(d.Summary) != 3 || len(d.Variants) != 3 {
		t.Fatalf("replications %d, %d summaries, %d variants", d.Replications, len(d.Summary), len(d.Variants))
	}
	if d.Summary[0].Variant != "base" || d.Summary[2].Variant != "double" {
		t.Errorf("variants %q, %q", d.Summary[0].Variant, d.Summary[2].Variant)
	}
	for _, f := range d.Summary[0].Figures {
		if f.DiffVsBase != nil {
			t.Errorf("the base has a difference from itself: %s", f.Name)
		}
	}
	// A variant identical to the base: every difference exactly 0.
	for _, f := range d.Summary[1].Figures {
		if df := f.DiffVsBase; df == nil || df.Mean != 0 || df.Lo != 0 || df.Hi != 0 || df.N != 6 {
			t.Errorf("identical variant, %s: diff %+v, want exactly 0 with zero width", f.Name, df)
		}
	}
	// Doubling the binding RPM limit: more completed, fewer refused,
	// significantly; offered unchanged (common random numbers).
	if df := figure(t, d, 2, "requests_offered").DiffVsBase; df.Mean != 0 || df.HalfWidth() != 0 {
		t.Errorf("offered differs under common random numbers: %+v", df)
	}
	if df := figure(t, d, 2, "requests_completed").DiffVsBase; !(df.Lo > 0) {
		t.Errorf("completed: diff %+v, want an interval above 0", df)
	}
	if df := figure(t, d, 2, "refused_attempts_pct").DiffVsBase; !(df.Hi < 0) {
		t.Errorf("refused share: diff %+v, want an interval below 0", df)
	}
	// The paired interval is narrower than the variant's own.
	c := figure(t, d, 2, "requests_completed")
	if !(c.DiffVsBase.HalfWidth() < c.HalfWidth()) {
		t.Errorf("pairing did not narrow the interval: %v vs %v", c.DiffVsBase.HalfWidth(), c.HalfWidth())
	}
	var b bytes.Buffer
	if err := report.WriteSummaryTerminal(&b, d); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"6 replications", "requests offered", "±", "Difference from base, paired by replication", " *", "base (replication 0):"} {
		if !bytes.Contains(b.Bytes(), []byte(want)) {
			t.Errorf("terminal lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := report.WriteKeyFiguresCSV(&b, d); err != nil {
		t.Fatal(err)
	}
	if lines := bytes.Count(b.Bytes(), []byte("\n")); lines != 1+3*len(report.FigureNames()) {
		t.Errorf("key-figures.csv has %d lines", lines)
	}
}

// TestAssembleWithoutSummaryIsTheDocument: a plain run's plan (one
// replication, no summary) assembles exactly NewDocument's bytes.
func TestAssembleWithoutSummaryIsTheDocument(t *testing.T) {
	rs := []*model.Results{{Scenario: "s", Seed: 1}, {Scenario: "s", Variant: "v", Seed: 1}}
	info := report.ScenarioInfo{Name: "s", File: "s.toml"}
	out, err := report.Assemble(&report.Plan{Generator: "g", Scenario: info, Variants: []string{"base", "v"}, Replications: 1}, rs)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := out.WriteJSON(&a); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteJSON(&b, report.NewDocument("g", info, rs)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("assembled:\n%s\nwant:\n%s", a.String(), b.String())
	}
	if _, err := report.Assemble(&report.Plan{Variants: []string{"base"}, Replications: 2}, rs[:1]); err == nil {
		t.Error("too few results assembled")
	}
}

// TestSweepCurves: a 2 × 2 grid with two variants gives points in grid ×
// variant order and one curve per variant and value of the second
// parameter, along the first.
func TestSweepCurves(t *testing.T) {
	g := &report.GridPlan{Kind: "grid", Params: []report.SweepParam{
		{Key: "a", Values: []string{"1", "2"}, Numbers: []float64{1, 2}},
		{Key: "b", Values: []string{"x", "y"}},
	}}
	for _, l := range [][]string{{"1", "x"}, {"1", "y"}, {"2", "x"}, {"2", "y"}} {
		g.Points = append(g.Points, report.GridPoint{Label: "a=" + l[0] + ", b=" + l[1], Values: l})
	}
	p := &report.Plan{Command: "sweep", Variants: []string{"base", "v"}, Replications: 2, Summarize: true, Grid: g}
	rs := make([]*model.Results, p.NumItems())
	for k := range rs {
		pt, v, r := p.Item(k)
		rs[k] = &model.Results{Scenario: "s", Replication: r, DurationS: 10}
		if v == 1 {
			rs[k].Variant = "v"
		}
		rs[k].Summary.Throughput.RequestsPerS = float64(10*pt + v + r)
	}
	out, err := report.Assemble(p, rs)
	if err != nil {
		t.Fatal(err)
	}
	s := out.Sweep.Sweep
	if len(s.Points) != 8 || len(out.Sweep.Variants) != 8 || len(out.Sweep.Summary) != 8 {
		t.Fatalf("%d points, %d variants, %d summaries; want 8", len(s.Points), len(out.Sweep.Variants), len(out.Sweep.Summary))
	}
	if pt := s.Points[5]; pt.Label != "a=2, b=x" || pt.Variant != "v" {
		t.Errorf("point 5: %+v", pt)
	}
	if len(s.Curves) != 4 {
		t.Fatalf("%d curves, want 4", len(s.Curves))
	}
	c := s.Curves[3] // b = y, variant v: points (1,y) and (2,y)
	if c.Variant != "v" || fmt.Sprint(c.Fixed) != "[b=y]" || fmt.Sprint(c.Points) != "[3 7]" || fmt.Sprint(c.X) != "[1 2]" {
		t.Errorf("curve 3: %+v", c)
	}
	if got := c.Figures["requests_per_s"]; len(got) != 2 || got[0].Mean != 11.5 || got[1].Mean != 31.5 {
		t.Errorf("curve 3 throughput: %+v", got)
	}
	if s.Levels != nil || s.Rows != nil {
		t.Errorf("a 2-D grid has levels or rows: %v %v", s.Levels, s.Rows)
	}
	var b bytes.Buffer
	if err := report.WriteGridCSV(&b, out.Sweep); err != nil {
		t.Fatal(err)
	}
	if lines := bytes.Count(b.Bytes(), []byte("\n")); lines != 9 {
		t.Errorf("grid CSV has %d lines, want a header and 8", lines)
	}
	b.Reset()
	if err := report.WriteGridTerminal(&b, "t", out.Sweep); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte("v:\n")) || !bytes.Contains(b.Bytes(), []byte("2 replications per point")) {
		t.Errorf("grid terminal:\n%s", b.String())
	}
}

// With replications, the summary gives the busiest hour's TTFT p95 and
// goodput as the mean of each replication's own busiest hour (which may be
// another hour in each), with the difference from the base paired by
// replication; and it gives none when a run is too short to have one.
func TestReplicationsSummariseTheBusiestHour(t *testing.T) {
	src := strings.Replace(limited, `duration = "10m"`, `duration = "2h"`, 1)
	src = strings.Replace(src, `interval = "1m"`, `interval = "5m"`, 1)
	src = strings.Replace(src, `client = { retry = "none" }`, `client = { retry = "none" }
slo = { ttft = "1s" }`, 1)
	const n = 3
	d := replicate(t, src, 5, n)
	sc, err := scenarios.LoadBytes([]byte(src), "test.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfgs, err := sc.Configs([]scenarios.Override{{Path: "seed", Value: int64(5)}})
	if err != nil {
		t.Fatal(err)
	}
	peaks := func(v int) (ttft, good []float64) {
		for r := 0; r < n; r++ {
			c := cfgs[v]
			c.Replication = r
			s, err := model.Build(c)
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			p := res.Findings.PeakWindow
			if p == nil {
				t.Fatal("a 2-hour run without a busiest hour")
			}
			ttft, good = append(ttft, p.TTFT.P95), append(good, 100*p.SLOAttainment)
		}
		return
	}
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	_, baseGood := peaks(0)
	for v := range cfgs {
		ttft, good := peaks(v)
		ft, fg := figure(t, d, v, "busiest_hour_ttft_p95_s"), figure(t, d, v, "busiest_hour_slo_attainment_pct")
		if ft.N != n || math.Abs(ft.Mean-mean(ttft)) > 1e-12 || math.Abs(fg.Mean-mean(good)) > 1e-9 {
			t.Errorf("variant %d: busiest hour TTFT p95 %v, goodput %v; want means of %v and %v", v, ft.Estimate, fg.Estimate, ttft, good)
		}
		if v == 0 {
			continue
		}
		if ft.DiffVsBase == nil {
			t.Fatalf("variant %d: no difference from the base", v)
		}
		diff := make([]float64, n)
		for r := range diff {
			diff[r] = good[r] - baseGood[r]
		}
		if math.Abs(fg.DiffVsBase.Mean-mean(diff)) > 1e-9 {
			t.Errorf("variant %d: goodput difference %v, want the mean of %v", v, fg.DiffVsBase.Mean, diff)
		}
	}
	var buf bytes.Buffer
	if err := report.WriteSummaryTerminal(&buf, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "busiest-hour TTFT p95") || !strings.Contains(buf.String(), "busiest-hour goodput (SLO met)") {
		t.Errorf("the summary table lacks the busiest hour:\n%s", buf.String())
	}
	short := replicate(t, limited, 5, n)
	if _, ok := short.Summary[0].Figure("busiest_hour_ttft_p95_s"); ok {
		t.Error("a 10-minute run has no busiest hour, but its summary gives one")
	}
}
