package scenarios_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/scenarios"
)

// badCase is one fixture in testdata/bad and the problem Load must report
// for it: FILE:LINE: KEY: MSG, where MSG contains every one of allowed.
type badCase struct {
	file    string   // name in ../testdata/bad
	line    int      // 0: the problem has no line (something is missing)
	lineHas string   // text on that line of the fixture, to keep line honest
	key     string   // planner-facing key path; "" for a syntax error
	allowed []string // words saying what is wrong and what is allowed
}

var badCases = []badCase{
	{"syntax.toml", 7, `rate = "10`, "", []string{"invalid TOML", "strings cannot contain newlines"}},
	{"unknown-key.toml", 11, "rpmm", `provider "sonnet".limits.rpmm`, []string{`unknown key "rpmm"`, "allowed: rpm, itpm, otpm, tpm", `did you mean "rpm"?`}},
	{"wrong-type.toml", 7, `rate = "fast"`, `workload "chat".demand.rate`, []string{"expected a number", "got a string"}},
	{"negative-rate.toml", 8, "rate = -5", `workload "chat".demand.rate`, []string{"must be a finite number >= 0", "got -5"}},
	{"zero-demand.toml", 7, "hourly = [0, 0, 0]", `workload "chat".demand.hourly`, []string{"all 3 points are zero", "nothing would arrive"}},
	{"no-demand.toml", 6, "[workload.demand]", `workload "chat".demand`, []string{"no demand given", "set exactly one of rate, hourly, curve, users, count"}},
	{"missing-provider.toml", 4, `route = "sonet"`, `workload "chat".route`, []string{`no provider, cluster or route named "sonet"`, "have: sonnet"}},
	{"no-workloads.toml", 0, "", "workload", []string{"no workloads", "add at least one [[workload]]"}},
	{"absurd-users.toml", 7, "users = 1_000_000_000_000", `workload "chat".demand.users`, []string{"must be <= 10000000", "got 1000000000000"}},
	{"absurd-intervals.toml", 4, `interval = "1ms"`, "interval", []string{"31622400000 intervals", "at most 1000000 allowed", "wider interval"}},
	{"bad-duration.toml", 2, `duration = "3 hours"`, "duration", []string{`invalid duration "3 hours"`, "units: ns, us, ms, s, m, h, d"}},
	{"bad-distribution.toml", 7, "p95 = 500", `workload "chat".tokens.input`, []string{"p95", "must be > median (2000), got 500", "lognormal takes median and p95"}},
	{"unknown-retry-preset.toml", 8, "openai-pyhton", `workload "chat".client.retry.preset`, []string{`unknown retry preset "openai-pyhton"`, "allowed: anthropic-go, anthropic-python", "openai-python"}},
	{"variant-unknown-key.toml", 15, "rpmm", `variant "typo" sets provider.sonnet.limits.rpmm`, []string{`unknown key "rpmm" under provider "sonnet".limits`, "allowed: rpm,", `did you mean "rpm"?`}},
	{"variant-invalid.toml", 15, "= -1", `variant "negative" sets provider.sonnet.limits.rpm`, []string{"must be > 0 (or absent for no limit), got -1"}},
	{"duplicate-workload.toml", 9, `name = "chat"`, `workload "chat".name`, []string{`duplicate workload name "chat"`}},
	{"cluster-model-too-big.toml", 12, `model = "llama-3.1-70b"`, `cluster "gpu".model`, []string{"do not fit", "raise tensor_parallel"}},
	{"cluster-tp-heads.toml", 13, "tensor_parallel = 3", `cluster "gpu".tensor_parallel`, []string{"does not divide llama-3.1-70b's 64 attention heads", "1, 2, 4, 8, 16, 32 or 64 work"}},
	{"cluster-gpu-family.toml", 11, `gpu = "H100"`, `cluster "gpu".gpu`, []string{`unknown GPU "H100"`, "allowed: A10G, L4,", `did you mean "H100-SXM", "H100-PCIe" or "H100-NVL"?`}},
	{"cluster-model-typo.toml", 12, `model = "Llama-3-8B"`, `cluster "gpu".model`, []string{`unknown model "Llama-3-8B"`, `did you mean "llama-3.1-8b"?`}},
	{"cluster-table-not-monotone.toml", 13, `times = ["100ms", "90ms", "500ms"]`, `cluster "gpu".step.times[1]`, []string{"not monotone: batch 8 takes 90ms but batch 1 takes 100ms"}},
	{"cluster-zero-replicas.toml", 4, `route = "gpu"`, `workload "chat".route`, []string{`cluster "gpu" has zero replicas`, "give it replicas or route elsewhere"}},
	{"gateway-weight-zero.toml", 15, "weight = 0", `gateway.tenant "acme".weight`, []string{"must be a number from 0.001 to 1000", "leave it out for 1", "got 0"}},
	{"gateway-unknown-tenant.toml", 5, `tenant = "acmee"`, `workload "chat".tenant`, []string{`no tenant "acmee"`, "have: acme"}},
	{"route-cycle.toml", 13, `targets = ["api", "second"]`, `route "first".targets[1]`, []string{`"second" is a route`, "routes do not nest, so chains cannot loop"}},
	{"route-missing-backend.toml", 13, `targets = ["api", "gpus"]`, `route "spill".targets[1]`, []string{`no provider or cluster named "gpus"`, "have: api"}},
	{"route-weight-negative.toml", 18, "weights = [3, -1]", `route "split".weights[1]`, []string{"must be a finite number > 0", "got -1"}},
	{"missing-key.toml", 6, `key = "prod"`, `workload "chat".key`, []string{`provider "api" has no key named "prod"`, "have: staging"}},
	{"trace-missing-file.toml", 6, `trace = { file = "no-such-trace.csv"`, `workload "chat".demand.trace.file`, []string{"no-such-trace.csv: no such file"}},
	{"trace-block-size.toml", 6, "block_size = 500", `workload "chat".demand.trace.block_size`, []string{"is 500 tokens", `cluster "gpu"'s kv.block_size 16`, "block_size = 512"}},
	{"trace-block-size-route.toml", 6, "made_up_mooncake.jsonl", `workload "chat".demand.trace.block_size`, []string{"prefix blocks are 512 tokens", `cluster "gpu"'s kv.block_size 48`, "divides 512 (e.g. 16)"}},
	{"unit-rps.toml", 6, `unit = "rps"`, `workload "chat".demand.unit`, []string{`unknown unit "rps"`, "allowed: requests/s, requests/min, requests/hour", `did you mean "requests/s"?`}},
	{"trace-with-tokens.toml", 5, "tokens = { input = 1000", `workload "chat".tokens.input`, []string{"does not apply to a trace"}},
}

// loadFile loads a scenario file the way the CLI does.
func loadFile(t *testing.T, path string) (*scenarios.Scenario, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return scenarios.Load(f, path)
}

func TestLoadBadFixtures(t *testing.T) {
	for _, c := range badCases {
		t.Run(strings.TrimSuffix(c.file, ".toml"), func(t *testing.T) {
			path := filepath.Join("..", "testdata", "bad", c.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if c.line > 0 {
				lines := strings.Split(string(src), "\n")
				if c.line > len(lines) || !strings.Contains(lines[c.line-1], c.lineHas) {
					t.Fatalf("fixture out of step with the test: line %d of %s does not contain %q", c.line, c.file, c.lineHas)
				}
			}

			sc, err := loadFile(t, path)
			if err == nil {
				_, err = sc.Configs(nil)
				t.Fatalf("Load accepted %s (Configs: %v)", c.file, err)
			}
			var se *scenarios.Error
			if !errors.As(err, &se) {
				t.Fatalf("error is %T, not a located *scenarios.Error: %v", err, err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("want one message, got several lines:\n%s", msg)
			}
			prefix := path + ":"
			if c.line > 0 {
				prefix += fmt.Sprint(c.line) + ":"
			}
			prefix += " "
			if c.key != "" {
				prefix += c.key + ": "
			}
			if !strings.HasPrefix(msg, prefix) {
				t.Errorf("message\n  %s\ndoes not start with\n  %s", msg, prefix)
			}
			if se.File != path || se.Line != c.line || se.Key != c.key {
				t.Errorf("located at file %q line %d key %q; want %q, %d, %q", se.File, se.Line, se.Key, path, c.line, c.key)
			}
			for _, w := range c.allowed {
				if !strings.Contains(msg, w) {
					t.Errorf("message does not say %q:\n  %s", w, msg)
				}
			}
			for _, leak := range []string{"internal error", ": toml: ", "reflect", "%!", "interface {}", "float64", "int64"} {
				if strings.Contains(msg, leak) {
					t.Errorf("message leaks internals (%q): %s", leak, msg)
				}
			}
		})
	}
}

// TestEveryBadFixtureHasACase keeps testdata/bad and the table in step.
func TestEveryBadFixtureHasACase(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "bad", "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, c := range badCases {
		have[c.file] = true
	}
	for _, f := range files {
		if !have[filepath.Base(f)] {
			t.Errorf("testdata/bad/%s has no case in badCases", filepath.Base(f))
		}
		delete(have, filepath.Base(f))
	}
	for f := range have {
		t.Errorf("badCases names %s, which is not in testdata/bad", f)
	}
}

func TestMinimalRunsWithDefaults(t *testing.T) {
	path := filepath.Join("..", "testdata", "good", "minimal.toml")
	sc, err := loadFile(t, path)
	if err != nil {
		t.Fatal(err)
	}
	cfgs, err := sc.Configs(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfgs) != 1 {
		t.Fatalf("got %d configs, want 1 (no variants)", len(cfgs))
	}
	c := cfgs[0]
	if c.Name != "minimal" || c.Seed != 1 || c.Duration != 86400 || c.Interval != 60 || c.StartClock != 0 {
		t.Errorf("defaults: name %q seed %d duration %v interval %v start %v; want minimal, 1, 86400, 60, 0",
			c.Name, c.Seed, c.Duration, c.Interval, c.StartClock)
	}
	w, p := c.Workloads[0], c.Providers[0]
	if w.Lane != model.LaneSync || w.Priority != model.PriorityInteractive || w.Tenant != "default" {
		t.Errorf("workload defaults: lane %q priority %q tenant %q", w.Lane, w.Priority, w.Tenant)
	}
	if w.Client.Retry.Preset != "anthropic-python" || w.Client.Retry.MaxAttempts != 3 {
		t.Errorf("retry default: %+v", w.Client.Retry)
	}
	if p.MaxOutput != 4096 || p.Limits.Window != model.WindowTokenBucket || p.Limits.Burst != 60 {
		t.Errorf("provider defaults: max_output %d window %q burst %v", p.MaxOutput, p.Limits.Window, p.Limits.Burst)
	}
	res, err := model.RunAll(context.Background(), cfgs, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := res[0].Summary.Requests
	// 10 requests a minute for a day: about 14,400.
	if q.Offered < 13000 || q.Offered > 16000 {
		t.Errorf("offered %d requests in a day at 10/min; want about 14400", q.Offered)
	}
	if q.Offered != q.Completed+q.Failed+q.InFlightAtEnd || q.Failed != 0 {
		t.Errorf("requests: %+v", q)
	}
}

// TestOverrideProblemsPointAtTheOverride: a value that an override makes
// invalid is reported at the override, not at the base value it replaced.
func TestOverrideProblemsPointAtTheOverride(t *testing.T) {
	path := filepath.Join("..", "testdata", "good", "minimal.toml")
	sc, err := loadFile(t, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ov   scenarios.Override
		want string
	}{
		{scenarios.Override{Path: "provider.api.limits.rpm", Value: -3}, path + ": --set provider.api.limits.rpm: must be > 0 (or absent for no limit), got -3"},
		{scenarios.Override{Path: "workload.chat.route", Value: "nope"}, path + `: --set workload.chat.route: no provider, cluster or route named "nope"; have: api`},
		{scenarios.Override{Path: "workload.chat.demand.users", Value: 3}, path + `: --set workload.chat.demand.users: cannot be combined with rate`},
		{scenarios.Override{Path: "provider.api.limits.rpmm", Value: 3}, path + `: --set provider.api.limits.rpmm: unknown key "rpmm"`},
		{scenarios.Override{Path: "provider.nope.limits.rpm", Value: 3}, path + `: --set provider.nope.limits.rpm: no provider named "nope"; have: api`},
		{scenarios.Override{Path: "duration", Value: "400d"}, path + `: --set duration: must be > 0 and at most 366 days`},
		{scenarios.Override{Path: "variant[0].name", Value: "x"}, path + `: --set variant[0].name: variants cannot be overridden`},
	} {
		_, err := sc.Configs([]scenarios.Override{c.ov})
		var se *scenarios.Error
		if !errors.As(err, &se) {
			t.Errorf("%s=%v: got %v (%T), want a *scenarios.Error", c.ov.Path, c.ov.Value, err, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s=%v:\n got %s\nwant %s...", c.ov.Path, c.ov.Value, err, c.want)
		}
	}
}

// TestVariantProblemNoOverrideExplains: a variant can break a key it did not
// set (renaming the provider breaks the workload's route); the problem is
// then reported at the variant, naming the key at fault.
func TestVariantProblemNoOverrideExplains(t *testing.T) {
	src := `[[workload]]
name = "chat"
route = "api"
tokens = { input = 1000, output = 100 }
demand = { rate = 10 }

[[provider]]
name = "api"

[[variant]]
name = "renamed"
set = { "provider.api.name" = "other" }
`
	_, err := scenarios.LoadBytes([]byte(src), "rename.toml")
	want := `rename.toml:12: variant "renamed": workload "chat".route: no provider, cluster or route named "api"; have: other`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

func TestLoadTooLarge(t *testing.T) {
	src := bytes.Repeat([]byte("# padding\n"), scenarios.MaxFileSize/10+1)
	_, err := scenarios.LoadBytes(src, "huge.toml")
	var se *scenarios.Error
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "huge.toml: file larger than 8 MiB") {
		t.Errorf("got %v", err)
	}
}

func TestLoadEmpty(t *testing.T) {
	_, err := scenarios.LoadBytes(nil, "empty.toml")
	if err == nil || !strings.HasPrefix(err.Error(), "empty.toml: workload: no workloads") {
		t.Errorf("got %v", err)
	}
}
