package scenarios_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/scenarios"
	"github.com/headroom-sim/headroom/workloads"
)

func TestParseLevels(t *testing.T) {
	for _, c := range []struct {
		spec string
		want []float64
	}{
		{"1,2,4,8", []float64{1, 2, 4, 8}},
		{" 1 , 2 ,4 ", []float64{1, 2, 4}},
		{"5", []float64{5}},
		{"1..512x2", []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}},
		{"1..100x2", []float64{1, 2, 4, 8, 16, 32, 64}}, // end not on a step: stop before it
		{"1..1000x10", []float64{1, 10, 100, 1000}},
		{"0.1..1000x10", []float64{0.1, 1, 10, 100, 1000}},
		{"1..4×2", []float64{1, 2, 4}},
		{"10..100+10", []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}},
		{"0.1..0.5+0.1", []float64{0.1, 0.2, 0.3, 0.4, 0.5}}, // no 0.30000000000000004
		{"1e1..3e1+1e+1", []float64{10, 20, 30}},
		{"1,2,5..20+5,40", []float64{1, 2, 5, 10, 15, 20, 40}},
		{"3..3x2", []float64{3}},
		{"1.5,2.5", []float64{1.5, 2.5}},
		{"1k..8kx2", []float64{1000, 2000, 4000, 8000}},
		{"0.5k..1.5k+0.5k,2M", []float64{500, 1000, 1500, 2e6}},
	} {
		got, err := scenarios.ParseLevels(c.spec)
		if err != nil {
			t.Errorf("ParseLevels(%q): %v", c.spec, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseLevels(%q) = %v, want %v", c.spec, got, c.want)
		}
	}
}

func TestParseLevelsErrors(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"", "no levels given"},
		{"  ", "no levels given"},
		{"1,,2", "empty level"},
		{"1,two", `"two" is not a number`},
		{"0,1", `"0" must be a finite number > 0`},
		{"-1", "must be a finite number > 0"},
		{"NaN", "must be a finite number > 0"},
		{"Inf", "must be a finite number > 0"},
		{"4,2", "levels must increase: 2 comes after 4"},
		{"1,1", "levels must increase"},
		{"1..8x2,4", "levels must increase: 4 comes after 8"},
		{"1..512", "give a factor"},
		{"1..512x1", "the factor must be > 1"},
		{"1..512x0.5", "the factor must be > 1"},
		{"10..100+0", "the step must be > 0"},
		{"10..100+-5", "the step must be > 0"},
		{"100..10+10", "end 10 is below start 100"},
		{"0..10+1", `start "0" must be a finite number > 0`},
		{"1..x2", `end "" is not a number`},
		{"1..8xq", `"q" is not a number`},
		{"1..1e9+1", "more than 1000 levels"},
		{"1..2000+1", "more than 1000 levels"},
	} {
		_, err := scenarios.ParseLevels(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseLevels(%q) error %v, want one containing %q", c.spec, err, c.want)
		}
	}
}

// twoWorkloads has an open-loop workload and a job sharing one provider.
const twoWorkloads = `
name = "two"
duration = "1h"
[[workload]]
name = "chat"
route = "api"
tokens = { input = 1000, output = 100 }
  [workload.demand]
  hourly = [10, 20]
  arrivals = { kind = "gamma", cv = 2 }
[[workload]]
name = "nightly"
route = "api"
tokens = { input = 500, output = 50 }
demand = { count = 100, at = "10m" }

[[provider]]
name = "api"
  [provider.latency]
  ttft = { base = "300ms" }

[[variant]]
name = "ignored"
set = { "workload.chat.demand.hourly" = [1, 1] }
`

func loadTwo(t *testing.T) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.LoadBytes([]byte(twoWorkloads), "two.toml")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestSweepConfigsConcurrency(t *testing.T) {
	sc := loadTwo(t)
	levels := []float64{1, 8, 64}
	cfgs, err := sc.SweepConfigs("", scenarios.SweepConcurrency, levels, nil) // default: the first workload
	if err != nil {
		t.Fatal(err)
	}
	if len(cfgs) != len(levels) {
		t.Fatalf("%d configs for %d levels", len(cfgs), len(levels))
	}
	base, err := sc.Config(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cfgs {
		d := c.Workloads[0].Demand
		if d.Users != int(levels[i]) || !reflect.DeepEqual(d.Think, workloads.Fixed(0)) || len(d.Hourly) != 0 || d.Unit != "" || d.Arrivals != (workloads.ArrivalSpec{}) {
			t.Errorf("level %v: chat demand %+v, want users = %v, think = 0 and nothing else", levels[i], d, levels[i])
		}
		if err := d.Validate(); err != nil {
			t.Errorf("level %v: %v", levels[i], err)
		}
		if !reflect.DeepEqual(c.Workloads[1], base.Workloads[1]) {
			t.Errorf("level %v: the other workload changed: %+v", levels[i], c.Workloads[1].Demand)
		}
		if want := "concurrency " + scenarios.FormatLevel(levels[i]); c.Variant != want {
			t.Errorf("variant %q, want %q", c.Variant, want)
		}
		if c.Name != "two" || c.Duration != 3600 {
			t.Errorf("name %q duration %v", c.Name, c.Duration)
		}
	}
	// The original scenario is untouched.
	if sc.Workloads[0].Demand.Users != 0 || len(sc.Workloads[0].Demand.Hourly) != 2 {
		t.Errorf("SweepConfigs changed the scenario: %+v", sc.Workloads[0].Demand)
	}
}

func TestSweepConfigsRate(t *testing.T) {
	sc := loadTwo(t)
	cfgs, err := sc.SweepConfigs("chat", scenarios.SweepRate, []float64{0.5, 12}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{0.5, 12} {
		d := cfgs[i].Workloads[0].Demand
		if d.Rate != want || d.Unit != workloads.UnitPerSecond || len(d.Hourly) != 0 || d.Users != 0 {
			t.Errorf("demand %+v, want rate %v requests/s", d, want)
		}
		if d.Arrivals.Kind != "gamma" || d.Arrivals.CV != 2 {
			t.Errorf("arrivals not kept: %+v", d.Arrivals)
		}
		curve, err := d.BuildCurve(0)
		if err != nil || curve.Rate(1234) != want {
			t.Errorf("rate curve at 1234 s: %v, %v; want %v/s", curve, err, want)
		}
		if cfgs[i].Workloads[1].Demand.Count != 100 {
			t.Errorf("the job changed: %+v", cfgs[i].Workloads[1].Demand)
		}
	}
	if cfgs[0].Variant != "rate 0.5 req/s" || cfgs[1].Variant != "rate 12 req/s" {
		t.Errorf("variants %q, %q", cfgs[0].Variant, cfgs[1].Variant)
	}

	// The second workload, a job, becomes a constant rate; the first stays.
	cfgs, err = sc.SweepConfigs("nightly", scenarios.SweepRate, []float64{3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cfgs[0].Workloads[1].Demand; d.Rate != 3 || d.Count != 0 || d.At != 0 {
		t.Errorf("nightly demand %+v", d)
	}
	if d := cfgs[0].Workloads[0].Demand; !reflect.DeepEqual(d.Hourly, []float64{10, 20}) {
		t.Errorf("chat demand changed: %+v", d)
	}
}

func TestSweepConfigsOverrides(t *testing.T) {
	sc := loadTwo(t)
	ov := []scenarios.Override{
		{Path: "duration", Value: 300.0},
		{Path: "seed", Value: int64(9)},
		{Path: "workload.chat.demand.think", Value: "2s"}, // after the level: think time for the sweep
		{Path: "workload.chat.client.max_concurrency", Value: int64(4)},
	}
	cfgs, err := sc.SweepConfigs("chat", scenarios.SweepConcurrency, []float64{2, 16}, ov)
	if err != nil {
		t.Fatal(err)
	}
	c := cfgs[1]
	if c.Duration != 300 || c.Seed != 9 || !reflect.DeepEqual(c.Workloads[0].Demand.Think, workloads.Fixed(2)) || c.Workloads[0].Client.MaxConcurrency != 4 || c.Workloads[0].Demand.Users != 16 {
		t.Errorf("overrides not applied: duration %v seed %v workload %+v", c.Duration, c.Seed, c.Workloads[0])
	}
}

func TestSweepConfigsErrors(t *testing.T) {
	sc := loadTwo(t)
	_, err := sc.SweepConfigs("chta", scenarios.SweepRate, []float64{1}, nil)
	var e *scenarios.Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), `no workload named "chta"; have: chat, nightly`) {
		t.Errorf("unknown workload: %v", err)
	}
	if _, err := sc.SweepWorkload("chta"); err == nil {
		t.Error("SweepWorkload accepted an unknown workload")
	}
	if name, err := sc.SweepWorkload(""); err != nil || name != "chat" {
		t.Errorf("SweepWorkload(\"\") = %q, %v; want the first, chat", name, err)
	}
	for _, c := range []struct {
		kind   string
		levels []float64
		want   string
	}{
		{"users", []float64{1}, `unknown sweep kind "users"`},
		{scenarios.SweepConcurrency, nil, "at least one level"},
		{scenarios.SweepConcurrency, []float64{2.5}, "whole numbers"},
		{scenarios.SweepConcurrency, []float64{0}, "--concurrency: levels must be finite numbers > 0"},
		{scenarios.SweepRate, []float64{-3}, "--rate: levels must be finite numbers > 0"},
	} {
		_, err := sc.SweepConfigs("chat", c.kind, c.levels, nil)
		if !errors.As(err, &e) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SweepConfigs(%q, %v): %v, want a *scenarios.Error containing %q", c.kind, c.levels, err, c.want)
		}
	}
	// A bad --set is reported at the --set.
	_, err = sc.SweepConfigs("chat", scenarios.SweepRate, []float64{1}, []scenarios.Override{{Path: "workload.chat.demand.ratee", Value: int64(1)}})
	if err == nil || !strings.Contains(err.Error(), "--set workload.chat.demand.ratee") {
		t.Errorf("bad --set: %v", err)
	}
	// Zero think time against a provider that answers instantly: reported
	// at the sweep level, not at the file's demand line.
	inst := strings.Replace(twoWorkloads, `ttft = { base = "300ms" }`, `ttft = { base = "0s" }`, 1)
	sc2, err := scenarios.LoadBytes([]byte(inst), "inst.toml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc2.SweepConfigs("chat", scenarios.SweepConcurrency, []float64{4}, nil)
	if !errors.As(err, &e) || e.Key != "sweep concurrency 4" || !strings.Contains(e.Msg, "zero think time") {
		t.Errorf("instant provider: %v", err)
	}
}

// TestSweepConfigsRun: the levels simulate, and a closed loop of users
// with zero think time against an unlimited provider scales linearly.
func TestSweepConfigsRun(t *testing.T) {
	sc := loadTwo(t)
	cfgs, err := sc.SweepConfigs("chat", scenarios.SweepConcurrency, []float64{1, 4}, []scenarios.Override{{Path: "duration", Value: "5m"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.RunAll(context.Background(), cfgs, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	one, four := res[0].Workloads[0].Summary, res[1].Workloads[0].Summary
	if one.Requests.Offered == 0 || res[0].Variant != "concurrency 1" {
		t.Fatalf("level 1: %+v", res[0].Summary.Requests)
	}
	within(t, "req/s at 4 users ÷ at 1", four.Throughput.RequestsPerS/one.Throughput.RequestsPerS, 4, 0.1)
	if four.Requests.InFlightAtEnd > 4 {
		t.Errorf("4 users, %d in flight at the end", four.Requests.InFlightAtEnd)
	}
}
