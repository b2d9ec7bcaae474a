package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/report/shard"
)

// TestResultsValidateAgainstSchema: the files run, compare, sweep and merge
// write with --json validate against the results schema that
// headroom schema --results prints (report/results.schema.json), checked by
// a validator that did not write it: a hosted tier with variants, a GPU
// cluster, an autoscaled and prefix-routed fleet, disaggregated pools, a
// hybrid behind a gateway, replications, a comparison, a trace replay, a
// step-load sweep, a grid sweep and a merge of shards. Every run is cut to
// a few simulated minutes: the fields, not the figures, are under test.
func TestResultsValidateAgainstSchema(t *testing.T) {
	schema := printedSchema(t, "--results", report.ResultsSchema())

	dir := t.TempDir()
	trace, err := os.ReadFile("../../workloads/testdata/made_up_mooncake.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "m.jsonl"), trace, 0o644)
	replay := filepath.Join(dir, "replay.toml")
	os.WriteFile(replay, []byte(`name = "replay"
duration = "1m"
[[workload]]
name = "chat"
route = "api"
[workload.demand]
trace = { file = "m.jsonl", loop = true }
[[provider]]
name = "api"
latency = { ttft = { base = "100ms" }, tpot = { base = "10ms" } }
price = { input = 3, output = 15 }
`), 0o644)

	short := func(d string) []string { return []string{"--set", `duration="` + d + `"`, "--no-html", "-q"} }
	cases := []struct {
		name string
		args []string
	}{
		{"hosted with variants", append([]string{"run", "morning-peak", "--set", `start="09:00"`}, short("10m")...)},
		{"gpu cluster", append([]string{"run", "llama-h100", "--set", `start="09:00"`}, short("5m")...)},
		{"autoscaled fleet", append([]string{"run", "autoscale-day", "--base-only", "--set", `start="08:00"`}, short("10m")...)},
		{"prefix-routed fleet", append([]string{"run", "prefix-routing", "--base-only"}, short("2m")...)},
		{"disaggregated pools", append([]string{"run", "disaggregated"}, short("2m")...)},
		{"hybrid with gateway", append([]string{"run", "hybrid", "--set", `start="09:00"`}, short("5m")...)},
		{"gateway tenants", append([]string{"run", "gateway-tenants", "--base-only"}, short("5m")...)},
		{"replications", append([]string{"run", "salespeople-peak", "--replications", "3", "--set", `start="09:00"`}, short("10m")...)},
		{"compare", append([]string{"compare", "email-launch", "two-models"}, short("5m")...)},
		{"trace replay", []string{"run", replay, "--no-html", "-q"}},
		{"step-load sweep", append([]string{"sweep", "llama-h100", "--concurrency", "1,8", "--set", "cluster.h100.replicas=1"}, short("1m")...)},
		{"grid sweep", append([]string{"sweep", "salespeople-peak", "--param", "provider.fast-model.limits.rpm=1000,1500", "--param", "workload.evaluate-clients.client.pace.requests_per_min=0,1000", "--set", `start="09:00"`}, short("5m")...)},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
			args := append(append([]string{}, tc.args...), "--json", out)
			if code, _, stderr := cli(t, args...); code != exitOK {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			validateResults(t, schema, out)
			if i == 0 {
				// Not vacuous deep down: an unknown key in a variant's
				// summary, or a count that is not a number, is refused.
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				for _, bad := range []string{
					strings.Replace(string(b), `"requests": {`, `"requests": {"bogus": 1, `, 1),
					strings.Replace(string(b), `"offered": `, `"offered": "many", "x": `, 1),
				} {
					v, err := validator.UnmarshalJSON(strings.NewReader(bad))
					if err != nil {
						t.Fatal(err)
					}
					if bad == string(b) || schema.Validate(v) == nil {
						t.Errorf("a results file with a bogus field validates")
					}
				}
				// The same run in two shards, merged: the merge writes the
				// same format.
				parts := filepath.Join(dir, "part-{shard}.json")
				for _, s := range []string{"0/2", "1/2"} {
					shard := append(append([]string{}, tc.args...), "--shard", s, "--part", parts)
					if code, _, stderr := cli(t, shard...); code != exitOK {
						t.Fatalf("%v: exit %d: %s", shard, code, stderr)
					}
				}
				merged := filepath.Join(dir, "merged.json")
				if code, _, stderr := cli(t, "merge", filepath.Join(dir, "part-0.json"), filepath.Join(dir, "part-1.json"), "--json", merged, "--no-html", "-q"); code != exitOK {
					t.Fatalf("merge: exit %d: %s", code, stderr)
				}
				validateResults(t, schema, merged)
			}
		})
	}
}

// printedSchema compiles the schema headroom schema FLAG prints, after
// checking that it is the checked-in one.
func printedSchema(t *testing.T, flag string, want []byte) *validator.Schema {
	t.Helper()
	var printed bytes.Buffer
	if code := run([]string{"schema", flag}, &printed, os.Stderr); code != exitOK {
		t.Fatalf("schema %s: exit %d", flag, code)
	}
	if !bytes.Equal(printed.Bytes(), want) {
		t.Fatalf("schema %s does not print the checked-in schema", flag)
	}
	doc, err := validator.UnmarshalJSON(bytes.NewReader(printed.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	c := validator.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return schema
}

// TestPlanValidatesAgainstSchema: the decisions headroom plan writes with
// --json validate against the plan schema (report/plan.schema.json): one
// with a winner, its growth and the winner's full results; one where
// nothing holds (no winner, the nearest constraint); max_load alone.
func TestPlanValidatesAgainstSchema(t *testing.T) {
	schema := printedSchema(t, "--plan", report.PlanSchema())
	nothing := strings.Replace(staffingPlan, `range = "1..12"`, `range = "1..3"`, 1)
	nothing = strings.Replace(nothing, "prices = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]", "prices = [10, 20, 30]", 1)
	alone := strings.SplitN(staffingPlan, "[[plan.knob]]", 2)[0]
	alone = strings.Replace(alone, `objective = ["min_cost", "max_load"]`, `objective = "max_load"`, 1)
	alone = strings.Replace(alone, "recheck = 4\n", "", 1)
	for _, c := range []struct {
		name, src string
		code      int
	}{
		{"winner", mmcScenario(2.8, 1, staffingPlan), exitOK},
		{"nothing holds", mmcScenario(3.5, 1, nothing), exitRunError},
		{"max_load alone", strings.Replace(mmcScenario(2.8, 1, alone), "max_concurrency = 1,", "max_concurrency = 5,", 1), exitOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "plan.json")
			if code, _, stderr := cli(t, "plan", writeScenario(t, c.src), "--json", out, "--no-html", "-q"); code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, stderr)
			}
			validateResults(t, schema, out)
		})
	}
}

// validateResults validates one results file against the schema.
func validateResults(t *testing.T, schema *validator.Schema, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := validator.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(v); err != nil {
		t.Errorf("%s does not validate against the results schema:\n%v", filepath.Base(path), err)
	}
}

// TestPartsValidateAgainstSchema: the part files of a sharded run and a
// sharded sweep validate against the schema headroom schema --part prints
// (report/shard/part.schema.json); a part with an unknown key in its
// header, or a results field of the wrong type, does not; and two schema
// flags at once are refused.
func TestPartsValidateAgainstSchema(t *testing.T) {
	schema := printedSchema(t, "--part", shard.PartSchemaJSON())
	dir := t.TempDir()
	short := []string{"--set", `duration="5m"`, "--no-html", "-q"}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"run", append([]string{"run", "morning-peak", "--set", `start="09:00"`, "--shard", "1/2"}, short...)},
		{"sweep", append([]string{"sweep", "llama-h100", "--concurrency", "1,8", "--set", "cluster.h100.replicas=1", "--shard", "0/2"}, short...)},
	} {
		part := filepath.Join(dir, tc.name+".part.json")
		if code, _, stderr := cli(t, append(tc.args, "--part", part)...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		validateResults(t, schema, part)
		b, err := os.ReadFile(part)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{
			strings.Replace(string(b), `"header": {`, `"header": {"bogus": 1, `, 1),
			strings.Replace(string(b), `"offered": `, `"offered": "many", "x": `, 1),
			strings.Replace(string(b), shard.PartSchema, "headroom/part/v0", 1),
		} {
			v, err := validator.UnmarshalJSON(strings.NewReader(bad))
			if err != nil {
				t.Fatal(err)
			}
			if bad == string(b) || schema.Validate(v) == nil {
				t.Errorf("%s: a part file with a bogus field validates", tc.name)
			}
		}
	}
	if code, _, stderr := cli(t, "schema", "--plan", "--part"); code != exitBadInput || !strings.Contains(stderr, "--plan and --part are different schemas") {
		t.Errorf("schema --plan --part: exit %d: %s", code, stderr)
	}
}

// TestPlanPartValidatesAgainstSchema: the part a shard of headroom plan
// writes validates against the schema headroom schema --plan-part prints
// (report/shard/plan-part.schema.json); one with an unknown key in its
// decision does not.
func TestPlanPartValidatesAgainstSchema(t *testing.T) {
	schema := printedSchema(t, "--plan-part", shard.DecisionPartSchemaJSON())
	plan := staffingPlan + serverKnob
	part := filepath.Join(t.TempDir(), "part.json")
	if code, _, stderr := cli(t, "plan", writeScenario(t, mmcScenario(2.8, 1, plan)), "--shard", "0/2", "--part", part, "-q"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	validateResults(t, schema, part)
	b, err := os.ReadFile(part)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(b), `"decision": {`, `"decision": {"bogus": 1, `, 1)
	v, err := validator.UnmarshalJSON(strings.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if bad == string(b) || schema.Validate(v) == nil {
		t.Error("a plan part with a bogus key validates")
	}
}
