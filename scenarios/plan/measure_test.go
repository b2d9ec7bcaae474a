package plan

import (
	"context"
	"math"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/scenarios"
)

// The failed and 429 shares, the budget and the SLO attainment a plan
// checks are the run's own figures over the whole run, and in the worst
// window at least the whole run's (the run is a weighted mean of its
// windows, every one of which is checked here).
func TestMeasureShares(t *testing.T) {
	src := `name = "tight"
seed = 3
duration = "2h"
interval = "5m"

[[workload]]
name = "chat"
route = "api"
tokens = { input = 1000, output = 100 }
demand = { unit = "requests/min", hourly = [200, 400] }
client = { retry = "none" }
slo = { ttft = "1s" }

[[provider]]
name = "api"
  [provider.limits]
  rpm = 300
  [provider.latency]
  ttft = { base = "500ms", dist = "exponential" }
  [provider.price]
  input = 3.0
  output = 15.0

[plan]
max_failed = 0.5
max_429 = 0.5
budget = 1000
window = "30m"
window_requests = 1

[[plan.knob]]
key = "provider.api.limits.rpm"
values = [300]
`
	sc, err := scenarios.LoadBytes([]byte(src), "tight.toml")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Compile(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := sc.Config(nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Window = pr.Settings.WindowS
	s, err := model.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m := pr.measure(r, 7)
	sm := r.Summary
	var r429 int64
	for k, v := range sm.Attempts.Rejected {
		if model.Status429(k) {
			r429 += v
		}
	}
	want := map[string]float64{
		"slo/chat/run":    float64(sm.Goodput.Good) / float64(sm.Requests.Completed+sm.Requests.Failed),
		"failed/run":      float64(sm.Requests.Failed) / float64(sm.Requests.Offered),
		"429/run":         float64(r429) / float64(sm.Attempts.Total),
		"budget/run":      sm.Cost.Total + 7,
		"slo/chat/window": math.NaN(), "failed/window": math.NaN(), "429/window": math.NaN(),
	}
	if r429 == 0 || sm.Requests.Failed == 0 {
		t.Fatalf("the scenario refuses nothing: %+v", sm.Requests)
	}
	got := map[string]float64{}
	for i, c := range pr.Cons {
		got[c.ID] = m.vals[i]
	}
	for id, w := range want {
		g, ok := got[id]
		if !ok {
			t.Errorf("no constraint %s", id)
			continue
		}
		if !math.IsNaN(w) && math.Abs(g-w) > 1e-12*math.Max(1, w) {
			t.Errorf("%s = %v, want %v", id, g, w)
		}
	}
	for _, k := range []string{"failed", "429"} {
		if got[k+"/window"] < got[k+"/run"] {
			t.Errorf("%s: worst window %v below the run's %v", k, got[k+"/window"], got[k+"/run"])
		}
	}
	if got["slo/chat/window"] > got["slo/chat/run"] {
		t.Errorf("attainment: worst window %v above the run's %v", got["slo/chat/window"], got["slo/chat/run"])
	}
	// The demand doubles in the second hour: the worst windows are there.
	for i, c := range pr.Cons {
		if c.Window && c.Kind != "budget" && m.at[i] < 3600 {
			t.Errorf("%s worst at %vs, want in the second hour", c.ID, m.at[i])
		}
	}
}

// The confidence bounds: Student's t one-sided, and the nearest-rank
// quantile of the replications.
func TestBound(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5}
	// mean 3, s = √2.5, t(0.95, 4) = 2.131847: 3 ± 2.131847·√(2.5/5).
	half := 2.131847 * math.Sqrt(2.5/5)
	for _, c := range []struct {
		atLeast bool
		kind    string
		want    float64
	}{{false, "mean", 3 + half}, {true, "mean", 3 - half}, {false, "quantile", 5}, {true, "quantile", 1}} {
		if got := bound(xs, c.atLeast, 0.95, c.kind); math.Abs(got-c.want) > 1e-5 {
			t.Errorf("bound(%v, %s) = %v, want %v", c.atLeast, c.kind, got, c.want)
		}
	}
	if got := bound([]float64{7}, false, 0.95, "mean"); got != 7 {
		t.Errorf("one replication: %v", got)
	}
	if got := bound(xs, false, 0.5, "mean"); got != 3 {
		t.Errorf("confidence 0.5 is the mean: %v", got)
	}
	// Margins: the share of the allowance left; attainment allows misses.
	for _, c := range []struct {
		con  Constraint
		v, m float64
	}{
		{Constraint{ConstraintInfo: report.ConstraintInfo{Limit: 2}}, 0.5, 0.75},
		{Constraint{ConstraintInfo: report.ConstraintInfo{Limit: 2}}, 6, -2},
		{Constraint{ConstraintInfo: report.ConstraintInfo{Limit: 0.99, AtLeast: true}}, 0.995, 0.5},
		{Constraint{ConstraintInfo: report.ConstraintInfo{Limit: 0.99, AtLeast: true}}, 0.97, -2},
	} {
		if m, _ := margin(c.con, c.v); math.Abs(m-c.m) > 1e-9 {
			t.Errorf("margin(%+v, %v) = %v, want %v", c.con.ConstraintInfo, c.v, m, c.m)
		}
	}
}

// A candidate that routes away from a provisioned cluster still pays for
// its GPUs: the plan's cost is the run's total, which bills a cluster no
// workload reaches, plus the knobs' fixed prices. Here the hosted option
// leaves two replicas of one L40S idle for the hour: $1.20 × 2, exactly,
// on top of the tokens.
func TestCostBillsIdleCluster(t *testing.T) {
	src := `name = "idle"
seed = 3
duration = "1h"
interval = "5m"

[[workload]]
name = "chat"
route = "gpu"
tokens = { input = 100, output = 20 }
demand = { unit = "requests/s", rate = 0.5 }
client = { retry = "none" }
slo = { ttft = "5s" }

[[provider]]
name = "api"
  [provider.latency]
  ttft = { base = "500ms" }
  [provider.price]
  input = 3.0
  output = 15.0

[[cluster]]
name = "gpu"
replicas = 2
gpu = "L40S"
model = "llama-3.1-8b"
price = { per_gpu_hour = 1.20 }

[plan]
replications = 1

[[plan.knob]]
name = "where"
  [[plan.knob.option]]
  name = "gpu"
  set = { "workload.chat.route" = "gpu" }
  [[plan.knob.option]]
  name = "hosted"
  price = 1
  per = "horizon"
  set = { "workload.chat.route" = "api" }
`
	sc, err := scenarios.LoadBytes([]byte(src), "idle.toml")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Compile(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := sc.Config([]scenarios.Override{{Path: "workload.chat.route", Value: "api"}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := model.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sm := r.Summary
	tokens := (float64(sm.Tokens.Input)*3 + float64(sm.Tokens.Output)*15) / 1e6
	if tokens == 0 {
		t.Fatal("no tokens bought")
	}
	got := pr.measure(r, 1).cost
	if want := tokens + 2*1.20 + 1; math.Abs(got-want) > 1e-9 {
		t.Errorf("cost %v, want tokens %v + the idle cluster's $2.40 + the option's $1 = %v", got, tokens, want)
	}
}
