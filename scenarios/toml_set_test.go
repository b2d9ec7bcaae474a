package scenarios

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sample decodes sampleTOML.
func sample(t *testing.T) *tScenario {
	t.Helper()
	var s tScenario
	if _, err := DecodeStrict("email.toml", []byte(sampleTOML), &s); err != nil {
		t.Fatalf("DecodeStrict: %v", err)
	}
	return &s
}

func mustSet(t *testing.T, v any, path string, value any) {
	t.Helper()
	if err := Set(v, path, value); err != nil {
		t.Fatalf("Set(%q, %#v): %v", path, value, err)
	}
}

func mustGet(t *testing.T, v any, path string) any {
	t.Helper()
	got, err := Get(v, path)
	if err != nil {
		t.Fatalf("Get(%q): %v", path, err)
	}
	return got
}

func TestSetByNameIndexAndQuotes(t *testing.T) {
	s := sample(t)
	mustSet(t, s, "provider.sonnet.limits.rpm", int64(8000))
	mustSet(t, s, "provider[1].limits.rpm", int64(900))
	mustSet(t, s, `provider."gpt-4.1".limits.itpm`, int64(1234))
	mustSet(t, s, "provider.0.limits.tpm", int64(5))
	mustSet(t, s, "workload.summarize.stage.review.share", 0.25)
	mustSet(t, s, "workload[1].stage[0].timeout", "2m")
	mustSet(t, s, "pool.gpu.size", int64(16))
	mustSet(t, s, "description", "changed")
	if s.Providers[0].Limits.RPM != 8000 || s.Providers[1].Limits.RPM != 900 || s.Providers[1].Limits.ITPM != 1234 ||
		s.Providers[0].Limits.TPM != 5 || s.Workloads[0].Stages[1].Share != 0.25 ||
		s.Workloads[1].Stages[0].Timeout != 2*time.Minute || s.Pools["gpu"].Size != 16 || s.Description != "changed" {
		t.Errorf("after Set: %+v", s)
	}
	if got := mustGet(t, s, "provider.sonnet.limits.rpm"); got != 8000 {
		t.Errorf("Get = %#v", got)
	}
	if got := mustGet(t, s, "workload.classify.stage.only.timeout"); got != 2*time.Minute {
		t.Errorf("Get = %#v", got)
	}
}

func TestSetConversions(t *testing.T) {
	s := sample(t)
	cases := []struct {
		path  string
		value any
		want  any
	}{
		{"provider.sonnet.limits.tpm", int64(7), 7.0},                    // int64 -> float
		{"provider.sonnet.limits.rpm", 3000.0, 3000},                     // integral float -> int
		{"provider.sonnet.limits.rpd", int64(10), uint32(10)},            // int64 -> uint32
		{"provider.sonnet.limits.burst", 1.5, float32(1.5)},              // float32
		{"provider.sonnet.limits.otpm", int64(42), 42},                   // pointer allocated
		{"provider.sonnet.limits.window", "90s", tDur(90 * time.Second)}, // TextUnmarshaler
		{"horizon", "1h", tDur(time.Hour)},
		{"provider.sonnet.limits.ttft", "150ms", tDist{Dist: "fixed", Base: 150 * time.Millisecond}},
		{"provider.sonnet.limits.ttft", map[string]any{"base": "1s", "dist": "exponential"}, tDist{Dist: "exponential", Base: time.Second}},
		{"workload.summarize.stage.draft.timeout", int64(5), time.Duration(5)},
		{"provider.sonnet.weights", []any{int64(1), 2.5, int64(3)}, []float64{1, 2.5, 3}},
		{"provider.sonnet.tags.team", "ops", "ops"},
		{"provider.sonnet.tags.new", "x", "x"}, // new map key as the last segment
		{"workload.classify.mix", []any{int64(7), int64(8)}, [2]int{7, 8}},
		{"workload.summarize.opt.cache", true, true}, // nil *tOpt allocated
		{"workload.summarize.demand.peak", int64(9), 9.0},
		{"start", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)},
		{"anything", []any{"free"}, []any{"free"}},
		{"extra.k", int64(1), int64(1)},
	}
	for _, c := range cases {
		if err := Set(s, c.path, c.value); err != nil {
			t.Errorf("Set(%q, %#v): %v", c.path, c.value, err)
			continue
		}
		if got := mustGet(t, s, c.path); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Get(%q) = %#v, want %#v", c.path, got, c.want)
		}
	}
}

func TestSetTables(t *testing.T) {
	s := sample(t)
	// A table updates the struct key by key.
	mustSet(t, s, "provider.sonnet.limits", map[string]any{"rpm": int64(1), "itpm": int64(2)})
	l := s.Providers[0].Limits
	if l.RPM != 1 || l.ITPM != 2 || time.Duration(l.Window) != time.Minute {
		t.Errorf("limits after table Set: %+v", l)
	}
	// A whole map entry, and a new one.
	mustSet(t, s, "pool", map[string]any{"gpu": map[string]any{"warmup": "1s"}, "cpu": map[string]any{"size": int64(2)}})
	if s.Pools["gpu"].Size != 8 || time.Duration(s.Pools["gpu"].Warmup) != time.Second || s.Pools["cpu"].Size != 2 {
		t.Errorf("pools: %+v", s.Pools)
	}
	// An array of tables replaces the slice.
	mustSet(t, s, "workload.summarize.stage", []any{map[string]any{"name": "one", "share": 1.0}})
	if st := s.Workloads[0].Stages; len(st) != 1 || st[0].Name != "one" || st[0].Share != 1 {
		t.Errorf("stages: %+v", st)
	}
	// The root, as a table.
	mustSet(t, s, "", map[string]any{"seed": int64(99)})
	if s.Seed != 99 {
		t.Errorf("seed %d", s.Seed)
	}
}

func TestSetErrors(t *testing.T) {
	cases := []struct {
		path  string
		value any
		msg   string
	}{
		{"workload.sumarize.demand.rate", 1.0, `no workload named "sumarize"; have: summarize, classify; did you mean "summarize"?`},
		{"provider.sonnet.limits.rpmm", int64(1), `unknown key "rpmm" under provider "sonnet".limits; allowed: rpm, itpm, otpm, tpm, rpd, tpd, window, burst, ttft; did you mean "rpm"?`},
		{"nmae", "x", `unknown key "nmae"; allowed: description, name, seed, horizon, start, provider, workload, pool, extra, anything; did you mean "name"?`},
		{"provider.sonnet.limits.rpm", "abc", `expected an integer, got "abc"`},
		{"provider.sonnet.limits.rpm", 2.5, `expected an integer, got 2.5`},
		{"provider.sonnet.limits.tpd", int64(1000), `1000 is out of range for int8`},
		{"provider.sonnet.limits.rpd", int64(-1), `-1 is out of range for uint32`},
		{"provider.sonnet.model", int64(5), `expected a string, got 5 (quote it to make it a string)`},
		{"provider.sonnet.enabled", "yes", `expected a boolean, got "yes"`},
		{"provider.sonnet.limits.window", "soon", `invalid duration "soon"`},
		{"provider.sonnet.limits.ttft", map[string]any{"dist": "weibull"}, `unknown distribution "weibull"`},
		{"provider.sonnet.limits", map[string]any{"rpm": int64(1), "rpmm": int64(2)}, `unknown key "rpmm" under provider "sonnet".limits; allowed:`},
		{"provider.sonnet.limits", map[string]any{"rpm": "x"}, `provider "sonnet".limits.rpm: expected an integer, got "x"`},
		{"provider.sonnet.weights", []any{int64(1), "x"}, `provider "sonnet".weights[1]: expected a number, got "x"`},
		{"provider.sonnet.limits", int64(3), `expected a table, got 3`},
		{"provider[5].limits.rpm", int64(1), `index [5] out of range: provider has 2 element(s)`},
		{"provider.7.limits.rpm", int64(1), `index 7 out of range: provider has 2 element(s)`},
		{"provider.sonnet.limits.rpm.x", int64(1), `provider "sonnet".limits.rpm is an integer, not a table; cannot select "x"`},
		{"provider.sonnet[0]", int64(1), `provider "sonnet" is a table, not an array; cannot select [0]`},
		{"pool.tpu.size", int64(1), `no pool named "tpu"; have: gpu`},
		{"pool[0]", int64(1), `pool is a table, not an array; cannot select [0]`},
		{"workload.classify.mix", []any{int64(1)}, `expected an array of 2 elements, got 1`},
		{"workload.classify.demand.rate", nil, `missing value`},
		{"provider..x", int64(1), `invalid key path`},
		{`provider."unterminated`, int64(1), `invalid key path`},
		{"start", "yesterday", `cannot parse`},
	}
	for _, c := range cases {
		s := sample(t)
		before := mustGet(t, s, "")
		err := Set(s, c.path, c.value)
		if err == nil {
			t.Errorf("Set(%q, %#v) succeeded", c.path, c.value)
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Key != c.path {
			t.Errorf("Set(%q): error %T %v should be an *Error with the path as key", c.path, err, err)
		}
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Set(%q, %#v):\n got %v\nwant %s", c.path, c.value, err, c.msg)
		}
		// Set is atomic.
		if after := mustGet(t, s, ""); !reflect.DeepEqual(before, after) {
			t.Errorf("Set(%q) failed but changed the value", c.path)
		}
	}
}

func TestSetAtomicAcrossPointers(t *testing.T) {
	s := sample(t)
	if s.Workloads[0].Opt != nil {
		t.Fatal("want a nil pointer to start with")
	}
	if err := Set(s, "workload.summarize.opt.retries", "x"); err == nil {
		t.Fatal("want an error")
	}
	if s.Workloads[0].Opt != nil {
		t.Error("failed Set allocated a pointer")
	}
	if err := Set(s, "workload.summarize.opt", map[string]any{"retries": int64(1), "nope": true}); err == nil {
		t.Fatal("want an error")
	}
	if s.Workloads[0].Opt != nil {
		t.Error("failed Set allocated a pointer")
	}
}

func TestSetBadTargets(t *testing.T) {
	var s tScenario
	for _, v := range []any{nil, s, (*tScenario)(nil)} {
		if err := Set(v, "name", "x"); err == nil {
			t.Errorf("Set into %T should fail", v)
		}
	}
	var p struct {
		P panicky `toml:"p"`
	}
	if err := Set(&p, "p", int64(1)); err == nil || !strings.Contains(err.Error(), "panic") {
		t.Errorf("panicking UnmarshalTOML: %v", err)
	}
}

func TestSetGenericTree(t *testing.T) {
	// Set and Get also work on generic decoded TOML.
	m := map[string]any{"workload": []map[string]any{{"name": "a", "rate": int64(1)}}}
	mustSet(t, &m, "workload.a.rate", int64(5))
	if got := mustGet(t, m, "workload.a.rate"); got != int64(5) {
		t.Errorf("got %#v", got)
	}
}

func TestGet(t *testing.T) {
	s := sample(t)
	if got := mustGet(t, s, "workload.summarize.opt.retries"); got != nil {
		t.Errorf("value behind a nil pointer: %#v", got)
	}
	if got := mustGet(t, s, "provider.sonnet.limits.otpm"); got != nil {
		t.Errorf("nil pointer: %#v", got)
	}
	if got := mustGet(t, s, "provider[1].name"); got != "gpt-4.1" {
		t.Errorf("got %#v", got)
	}
	if got := mustGet(t, s, "provider.sonnet.tags"); !reflect.DeepEqual(got, map[string]string{"team": "mail", "tier": "gold"}) {
		t.Errorf("got %#v", got)
	}
	if got := mustGet(t, s, "provider.sonnet.weights[1]"); got != 2.5 {
		t.Errorf("got %#v", got)
	}
	if _, err := Get(s, "workload.nope"); err == nil || !strings.Contains(err.Error(), `no workload named "nope"; have: summarize, classify`) {
		t.Errorf("Get error: %v", err)
	}
	if _, err := Get(s, "workload.summarize.opt.retires"); err == nil || !strings.Contains(err.Error(), `did you mean "retries"`) {
		t.Errorf("Get through nil pointer still checks keys: %v", err)
	}
}

func TestCanonicalPath(t *testing.T) {
	s := sample(t)
	cases := map[string]string{
		"provider.sonnet.limits.rpm":        "provider[0].limits.rpm",
		`provider."gpt-4.1".limits`:         "provider[1].limits",
		"workload.classify.stage.only.name": "workload[1].stage[0].name",
		"pool.gpu":                          "pool.gpu",
		"PROVIDER.sonnet.Limits.RPM":        "provider[0].limits.rpm",
		"provider.sonnet.limits.ttft":       "provider[0].limits.ttft",
	}
	ix := IndexLines([]byte(sampleTOML))
	for in, want := range cases {
		got, err := CanonicalPath(s, in)
		if err != nil || got != want {
			t.Errorf("CanonicalPath(%q) = %q, %v; want %q", in, got, err, want)
		}
		if ix.Line(got) == 0 {
			t.Errorf("%q is not in the index", got)
		}
	}
	if _, err := CanonicalPath(s, "provider.nope"); err == nil {
		t.Error("want an error")
	}
}

func TestParseSet(t *testing.T) {
	cases := []struct {
		in    string
		path  string
		value any
	}{
		{"provider.sonnet.limits.rpm=8000", "provider.sonnet.limits.rpm", int64(8000)},
		{"rate = 2.5", "rate", 2.5},
		{`window="5m"`, "window", "5m"},
		{"window=5m", "window", "5m"},
		{"dist=poisson", "dist", "poisson"},
		{"on=true", "on", true},
		{"xs=[1,2,3]", "xs", []any{int64(1), int64(2), int64(3)}},
		{`d={ dist = "fixed", value = 3 }`, "d", map[string]any{"dist": "fixed", "value": int64(3)}},
		{`provider."gpt-4.1".limits.rpm=1`, `provider."gpt-4.1".limits.rpm`, int64(1)},
		{`"a=b".c=1`, `"a=b".c`, int64(1)},
		{"x=1_000", "x", int64(1000)},
		{"x=a=b", "x", "a=b"},
		{"x=hello world", "x", "hello world"},
		{"x=inf", "x", math.Inf(1)},
		{`x=""`, "x", ""},
	}
	for _, c := range cases {
		path, value, err := ParseSet(c.in)
		if err != nil || path != c.path || !reflect.DeepEqual(value, c.value) {
			t.Errorf("ParseSet(%q) = %q, %#v, %v; want %q, %#v", c.in, path, value, err, c.path, c.value)
		}
	}
	for _, bad := range []string{"novalue", "=3", "x=", "x=[1,2", `x="open`, "x={a=}", "a..b=1", "x=1\ny=2"} {
		if p, v, err := ParseSet(bad); err == nil {
			t.Errorf("ParseSet(%q) = %q, %#v; want an error", bad, p, v)
		}
	}
	// Round trip through Set.
	s := sample(t)
	p, v, err := ParseSet("provider.sonnet.limits.window=2m")
	if err != nil {
		t.Fatal(err)
	}
	mustSet(t, s, p, v)
	if time.Duration(s.Providers[0].Limits.Window) != 2*time.Minute {
		t.Errorf("window %v", s.Providers[0].Limits.Window)
	}
}

func TestPaths(t *testing.T) {
	s := sample(t)
	paths := Paths(s)
	want := []string{
		"provider.sonnet.limits.rpm",
		"provider.sonnet.limits.ttft",
		"provider.sonnet.limits.otpm",
		`provider."gpt-4.1".limits.window`,
		"provider.sonnet.tags.team",
		"provider.sonnet.weights",
		"workload.summarize.stage.review.timeout",
		"workload.summarize.opt.retries",
		"workload.classify.mix",
		"pool.gpu.size",
		"extra.whatever.nested.deep",
		"description",
		"start",
	}
	have := map[string]bool{}
	for _, p := range paths {
		have[p] = true
		if _, err := Get(s, p); err != nil {
			t.Errorf("Get(%q) from Paths: %v", p, err)
		}
	}
	for _, w := range want {
		if !have[w] {
			t.Errorf("Paths misses %q", w)
		}
	}
	s.internal = 1 // unexported: not a TOML key
	if have["internal"] || have["Ignored"] {
		t.Error("Paths lists fields the toml library ignores")
	}
	// Duplicate names fall back to indices.
	s.Providers[1].Name = "sonnet"
	for _, p := range Paths(s) {
		if strings.HasPrefix(p, "provider.") {
			t.Errorf("duplicate names should use indices: %q", p)
		}
	}
}

func TestRecursiveTypes(t *testing.T) {
	type node struct {
		Name  string  `toml:"name"`
		Next  *node   `toml:"next"`
		Kids  []node  `toml:"kid"`
		Value float64 `toml:"value"`
	}
	var n node
	paths := Paths(&n)
	if len(paths) == 0 || len(paths) > 20 {
		t.Errorf("Paths on a recursive type: %v", paths)
	}
	mustSet(t, &n, "next.next.value", 2.0)
	if n.Next == nil || n.Next.Next == nil || n.Next.Next.Value != 2 {
		t.Errorf("got %+v", n)
	}
	var r node
	if _, err := DecodeStrict("n.toml", []byte("name = \"a\"\n[next.next]\nvalue = 1\nvalu = 2\n"), &r); err == nil ||
		!strings.Contains(err.Error(), "n.toml:4: next.next.valu: unknown key") {
		t.Errorf("got %v", err)
	}
}

func TestSetGoValues(t *testing.T) {
	s := sample(t)
	mustSet(t, s, "provider.sonnet.limits.rpm", 8000)                      // a Go int
	mustSet(t, s, "provider.sonnet.limits.tpm", float32(1.5))              // a Go float32
	mustSet(t, s, "provider.sonnet.limits.rpd", uint8(7))                  // a Go uint8
	mustSet(t, s, "provider.sonnet.limits.window", tDur(time.Second))      // the field's own type
	mustSet(t, s, "workload.summarize.stage.draft.timeout", 3*time.Second) // time.Duration
	mustSet(t, s, "workload.summarize.opt", &tOpt{Retries: 4})             // a pointer of the field's type
	mustSet(t, s, "provider.sonnet.weights", []float64{4, 5})              // a slice of the field's type
	l := s.Providers[0].Limits
	if l.RPM != 8000 || l.TPM != 1.5 || l.RPD != 7 || time.Duration(l.Window) != time.Second ||
		s.Workloads[0].Stages[0].Timeout != 3*time.Second || s.Workloads[0].Opt.Retries != 4 ||
		!reflect.DeepEqual(s.Providers[0].Weights, []float64{4, 5}) {
		t.Errorf("after Set: %+v %+v", l, s.Workloads[0])
	}
	// Get then Set of every listed path is a no-op.
	before := mustGet(t, s, "")
	for _, p := range Paths(s) {
		v := mustGet(t, s, p)
		if v == nil {
			continue
		}
		mustSet(t, s, p, v)
	}
	if after := mustGet(t, s, ""); !reflect.DeepEqual(before, after) {
		t.Error("Set(Get(p)) changed the scenario")
	}
	if err := Set(s, "provider.sonnet.limits.tpd", 1000); err == nil {
		t.Error("out of range Go int accepted")
	}
}
