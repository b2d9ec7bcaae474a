package scenarios_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/scenarios"
)

func mustParam(t *testing.T, spec string) scenarios.Param {
	t.Helper()
	p, err := scenarios.ParseParam(spec)
	if err != nil {
		t.Fatalf("ParseParam(%q): %v", spec, err)
	}
	return p
}

func TestParseParam(t *testing.T) {
	for _, c := range []struct {
		spec   string
		key    string
		raw    []string
		values []any
	}{
		{"provider.api.limits.rpm=4000,8000", "provider.api.limits.rpm", []string{"4k", "8k"}, []any{int64(4000), int64(8000)}},
		{"provider.api.limits.rpm=1000..8000x2", "provider.api.limits.rpm", []string{"1k", "2k", "4k", "8k"}, []any{int64(1000), int64(2000), int64(4000), int64(8000)}},
		// Numbers with magnitude suffixes, and ranges of them, print as the
		// summary prints limits, never as 2e+06.
		{"provider.api.limits.tpm=1M..8Mx2", "provider.api.limits.tpm", []string{"1M", "2M", "4M", "8M"}, []any{int64(1e6), int64(2e6), int64(4e6), int64(8e6)}},
		{"provider.api.limits.itpm=2000000,1.5k,2.5M", "provider.api.limits.itpm", []string{"2M", "1.5k", "2.5M"}, []any{int64(2e6), int64(1500), int64(2.5e6)}},
		{"provider.api.limits.rpm=1250,0.5k..1k+250", "provider.api.limits.rpm", []string{"1250", "500", "750", "1k"}, []any{int64(1250), int64(500), int64(750), int64(1000)}},
		{"rate=1k..4kx2", "rate", []string{"1k", "2k", "4k"}, []any{1000.0, 2000.0, 4000.0}},
		{"provider.api.limits.window=fixed, sliding", "provider.api.limits.window", []string{"fixed", "sliding"}, []any{"fixed", "sliding"}},
		{`workload.chat.tokens.input={ median = 1000, p95 = 3000 },500`, "workload.chat.tokens.input",
			[]string{"{ median = 1000, p95 = 3000 }", "500"}, []any{map[string]any{"median": int64(1000), "p95": int64(3000)}, int64(500)}},
		{"duration=0.5,1.5", "duration", []string{"0.5", "1.5"}, []any{0.5, 1.5}},
		{"concurrency=1..8x2", "concurrency", []string{"1", "2", "4", "8"}, []any{1.0, 2.0, 4.0, 8.0}},
	} {
		p := mustParam(t, c.spec)
		if p.Key != c.key || !reflect.DeepEqual(p.Raw, c.raw) || !reflect.DeepEqual(p.Values, c.values) {
			t.Errorf("ParseParam(%q) = %q %q %#v, want %q %q %#v", c.spec, p.Key, p.Raw, p.Values, c.key, c.raw, c.values)
		}
	}
	if n, ok := mustParam(t, "a.b=1,2.5").Numbers(); !ok || !reflect.DeepEqual(n, []float64{1, 2.5}) {
		t.Errorf("Numbers: %v %v", n, ok)
	}
	if _, ok := mustParam(t, "a.b=1,x").Numbers(); ok {
		t.Error("a string value counted as a number")
	}
}

func TestParseParamErrors(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"provider.api.limits.rpm", "expected KEY=V1,V2,..."},
		{"=1,2", "expected KEY=V1,V2,..."},
		{"a.b=1,,2", "empty value"},
		{"a.b=[1,2", "unbalanced"},
		{"a.b=1,1", "value 1 given twice"},
		{"a.b=8..1x2", "end 1 is below start 8"},
		{"concurrency=4,2", "levels must increase"},
		{"a..b=1", "invalid --param"},
		{"a.b=1,2; c.d=1", "each needs as many values: a.b has 2, c.d has 1"},
		{"a.b=1; a.b=2", "key linked twice"},
		{"a.b=1; rate=2", "a load level cannot be linked"},
		{"a.b=1;", "expected KEY=V1,V2"},
	} {
		_, err := scenarios.ParseParam(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseParam(%q): %v, want an error containing %q", c.spec, err, c.want)
		}
	}
}

func TestGridOrderAndLabels(t *testing.T) {
	g, err := scenarios.NewGrid([]scenarios.Param{
		mustParam(t, "provider.api.limits.rpm=100,200"),
		mustParam(t, "workload.chat.client.max_concurrency=1,2,3"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if g.Size() != 6 {
		t.Fatalf("size %d, want 6", g.Size())
	}
	want := []string{"rpm=100, max_concurrency=1", "rpm=100, max_concurrency=2", "rpm=100, max_concurrency=3",
		"rpm=200, max_concurrency=1", "rpm=200, max_concurrency=2", "rpm=200, max_concurrency=3"}
	for i, w := range want {
		if got := g.Label(i); got != w {
			t.Errorf("point %d: label %q, want %q", i, got, w)
		}
	}
	if got := g.Values(4); !reflect.DeepEqual(got, []string{"200", "2"}) {
		t.Errorf("values of point 4: %v", got)
	}
	// Keys sharing their last segment are shown whole.
	g2, _ := scenarios.NewGrid([]scenarios.Param{mustParam(t, "provider.a.limits.rpm=1"), mustParam(t, "provider.b.limits.rpm=2")})
	if got := g2.Label(0); got != "provider.a.limits.rpm=1, provider.b.limits.rpm=2" {
		t.Errorf("label %q", got)
	}
	g3, _ := scenarios.NewGrid([]scenarios.Param{scenarios.LoadParam(scenarios.SweepRate, []float64{0.5})})
	if got := g3.Label(0); got != "rate 0.5 req/s" {
		t.Errorf("label %q", got)
	}
	for _, c := range []struct {
		params []scenarios.Param
		want   string
	}{
		{nil, "needs --param"},
		{[]scenarios.Param{mustParam(t, "a.b=1"), mustParam(t, "a.b=2")}, "swept twice"},
		{[]scenarios.Param{mustParam(t, "concurrency=1"), mustParam(t, "rate=2")}, "one load level"},
		{[]scenarios.Param{mustParam(t, "a.b=1..200+1"), mustParam(t, "c.d=1..200+1")}, "more than 10000 points"},
	} {
		if _, err := scenarios.NewGrid(c.params); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewGrid: %v, want %q", err, c.want)
		}
	}
}

func TestGridConfigs(t *testing.T) {
	sc := loadTwo(t)
	g, err := scenarios.NewGrid([]scenarios.Param{
		mustParam(t, "workload.nightly.demand.count=10,20"),
		mustParam(t, "provider.api.latency.ttft.base=0.1,0.2"),
	})
	if err != nil {
		t.Fatal(err)
	}
	cfgs, err := sc.GridConfigs(g, "", true, []scenarios.Override{{Path: "duration", Value: int64(600)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfgs) != 4 || len(cfgs[0]) != 2 {
		t.Fatalf("%d points × %d variants, want 4 × 2", len(cfgs), len(cfgs[0]))
	}
	for i, want := range []struct {
		count int64
		base  float64
	}{{10, 0.1}, {10, 0.2}, {20, 0.1}, {20, 0.2}} {
		for v, c := range cfgs[i] {
			if int64(c.Workloads[1].Demand.Count) != want.count || float64(c.Providers[0].Latency.TTFT.Base) != want.base || c.Duration != 600 {
				t.Errorf("point %d variant %d: count %d ttft base %v duration %v", i, v, c.Workloads[1].Demand.Count, c.Providers[0].Latency.TTFT.Base, c.Duration)
			}
		}
		if h := cfgs[i][1].Workloads[0].Demand.Hourly; len(h) != 2 || h[0] != 1 {
			t.Errorf("point %d: the variant's set was not applied: %v", i, h)
		}
		label := g.Label(i)
		if cfgs[i][0].Variant != label || cfgs[i][1].Variant != "ignored · "+label {
			t.Errorf("point %d: variants %q, %q", i, cfgs[i][0].Variant, cfgs[i][1].Variant)
		}
	}

	// A load level combines with a key: users from the level, the key set.
	gl, _ := scenarios.NewGrid([]scenarios.Param{
		scenarios.LoadParam(scenarios.SweepConcurrency, []float64{2, 4}),
		mustParam(t, "provider.api.latency.ttft.base=0.1,0.2"),
	})
	lc, err := sc.GridConfigs(gl, "chat", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if u, b := lc[2][0].Workloads[0].Demand.Users, float64(lc[2][0].Providers[0].Latency.TTFT.Base); u != 4 || b != 0.1 || lc[2][0].Variant != "concurrency 4, base=0.1" {
		t.Errorf("point 2: users %d, ttft base %v, label %q", u, b, lc[2][0].Variant)
	}
	if got := sc.VariantNames(true); !reflect.DeepEqual(got, []string{"base", "ignored"}) {
		t.Errorf("VariantNames: %v", got)
	}

	// One load parameter alone gives exactly SweepConfigs' configurations.
	levels := []float64{1, 8}
	g1, _ := scenarios.NewGrid([]scenarios.Param{scenarios.LoadParam(scenarios.SweepRate, levels)})
	grid, err := sc.GridConfigs(g1, "", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	old, err := sc.SweepConfigs("", scenarios.SweepRate, levels, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range old {
		if len(grid[i]) != 1 || !reflect.DeepEqual(grid[i][0], old[i]) {
			t.Errorf("level %v: GridConfigs differs from SweepConfigs", levels[i])
		}
	}
}

// A linked parameter steps its keys together: one axis of the grid, one
// value of each key per point, never their cross-product.
func TestLinkedParam(t *testing.T) {
	p := mustParam(t, `provider.api.limits.rpm=1k,2k,4k; provider.api.latency.ttft.base = 0.4, 0.2, 0.1`)
	if got := p.Keys(); !reflect.DeepEqual(got, []string{"provider.api.limits.rpm", "provider.api.latency.ttft.base"}) {
		t.Fatalf("keys %v", got)
	}
	g, err := scenarios.NewGrid([]scenarios.Param{p, mustParam(t, "workload.nightly.demand.count=10,20")})
	if err != nil {
		t.Fatal(err)
	}
	if g.Size() != 6 {
		t.Fatalf("size %d, want 3 × 2", g.Size())
	}
	if got := g.Label(2); got != "rpm=2k, base=0.2, count=10" {
		t.Errorf("label %q", got)
	}
	if got := g.Values(5); !reflect.DeepEqual(got, []string{"4k", "0.1", "20"}) {
		t.Errorf("values %v", got)
	}
	if _, err := scenarios.NewGrid([]scenarios.Param{p, mustParam(t, "provider.api.latency.ttft.base=1")}); err == nil || !strings.Contains(err.Error(), "swept twice") {
		t.Errorf("a key both linked and swept: %v", err)
	}
	cfgs, err := loadTwo(t).GridConfigs(g, "", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		rpm, base float64
		count     int
	}{{1000, 0.4, 10}, {1000, 0.4, 20}, {2000, 0.2, 10}, {2000, 0.2, 20}, {4000, 0.1, 10}, {4000, 0.1, 20}} {
		c := cfgs[i][0]
		if c.Providers[0].Limits.RPM != want.rpm || float64(c.Providers[0].Latency.TTFT.Base) != want.base || c.Workloads[1].Demand.Count != want.count {
			t.Errorf("point %d: rpm %v base %v count %d, want %+v", i, c.Providers[0].Limits.RPM, c.Providers[0].Latency.TTFT.Base, c.Workloads[1].Demand.Count, want)
		}
	}
}

func TestGridConfigsErrors(t *testing.T) {
	sc := loadTwo(t)
	for _, c := range []struct{ spec, want string }{
		{"provider.api.limits.rpmm=5", `two.toml: --param provider.api.limits.rpmm=5: unknown key "rpmm" under provider "api".limits; allowed: rpm,`},
		{"provider.nope.limits.rpm=5", `--param provider.nope.limits.rpm=5: no provider named "nope"; have: api`},
		{"provider.api.limits.rpm=-5", `two.toml: --param provider.api.limits.rpm=-5: must be > 0`},
		{"provider.api.limits.rpm=lots", `--param provider.api.limits.rpm=lots:`},
		{"provider.api.limits.window=fixed,daily", `--param provider.api.limits.window=daily:`},
		{"variant.0.name=x", "variants cannot be swept"},
	} {
		g, err := scenarios.NewGrid([]scenarios.Param{mustParam(t, c.spec)})
		if err != nil {
			t.Fatal(err)
		}
		_, err = sc.GridConfigs(g, "", false, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant an error containing %q", c.spec, err, c.want)
		}
	}
}
