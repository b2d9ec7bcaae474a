package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/scenarios/plan"
)

// mmcScenario is an M/M/c queue (Poisson arrivals, exponential service of
// mean 1 s, a client semaphore) with the [plan] given; a knob on a
// server option makes a second choice when options is set.
func mmcScenario(lambda float64, hours float64, plan string) string {
	return fmt.Sprintf(`name = "staffing"
seed = 5
duration = "%gh"
interval = "10m"

[[workload]]
name = "jobs"
route = "server"
demand = { unit = "requests/s", rate = %g }
tokens = { input = 100, output = 1 }
client = { max_concurrency = 1, retry = "none" }

[[provider]]
name = "server"
  [provider.latency]
  ttft = { base = "1s", dist = "exponential" }
  [provider.price]
  input = 1.0

%s`, hours, lambda, plan)
}

const staffingPlan = `[plan]
objective = ["min_cost", "max_load"]
replications = 2
recheck = 4

[[plan.target]]
metric = "queue_wait"
percentile = 95
max = "1s"

[[plan.knob]]
name = "servers"
key = "workload.jobs.client.max_concurrency"
range = "1..12"
prices = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]
per = "day"
monotone = true
`

// serverKnob adds a non-monotone knob of two server options (a faster
// one at a price) to staffingPlan.
const serverKnob = `
[[plan.knob]]
name = "server"
  [[plan.knob.option]]
  name = "standard"
  set = { "provider.server.latency.ttft.base" = "1s" }
  [[plan.knob.option]]
  name = "fast"
  price = 600
  set = { "provider.server.latency.ttft.base" = "0.5s" }
`

func writeScenario(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "staffing.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readDecision reads a plan's JSON.
func readDecision(t *testing.T, path string) report.Decision {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d report.Decision
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// elapsed is the one field that differs between identical runs.
var elapsed = regexp.MustCompile(`"elapsed_s": [0-9.e+-]+`)

func TestPlanCommand(t *testing.T) {
	file := writeScenario(t, mmcScenario(2.8, 2, staffingPlan))
	dir := t.TempDir()
	js, win := filepath.Join(dir, "p.json"), filepath.Join(dir, "win.toml")
	code, stdout, stderr := cli(t, "plan", file, "--json", js, "--write", win, "--workers", "2")
	if code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"Headroom plan · staffing", "\nCheapest that holds: servers=", "growth left", "Candidates simulated",
		"Why the others failed", "Search: ", "wrote " + js, "wrote " + filepath.Join(dir, "p.html"), "wrote " + win} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	// The answer comes first, after the two lines describing the search.
	if lines := strings.Split(stdout, "\n"); len(lines) < 5 || !strings.HasPrefix(lines[4], "Cheapest that holds") {
		t.Errorf("the answer is not first:\n%s", stdout)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var d report.Decision
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if d.Schema != report.DecisionSchema || d.Winner == nil || d.WinnerResults == nil || d.Growth == nil || len(d.Candidates) == 0 {
		t.Fatalf("decision: schema %q, winner %v, %d candidates", d.Schema, d.Winner, len(d.Candidates))
	}
	html, err := os.ReadFile(filepath.Join(dir, "p.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"chart-plan-frontier", "chart-plan-margins", "chart-plan-growth", "The winner&#39;s key figures", "Candidates simulated"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	// The written winner runs as it is.
	if code, _, stderr := cli(t, "run", win, "-q"); code != exitOK {
		t.Errorf("the written winner: exit %d: %s", code, stderr)
	}
	// The same plan on one worker gives the same decision.
	js1 := filepath.Join(dir, "p1.json")
	if code, _, stderr := cli(t, "plan", file, "--json", js1, "--no-html", "--workers", "1", "-q"); code != exitOK {
		t.Fatalf("one worker: exit %d: %s", code, stderr)
	}
	b1, _ := os.ReadFile(js1)
	if elapsed.ReplaceAllString(string(b), "") != elapsed.ReplaceAllString(string(b1), "") {
		t.Error("the decision depends on the number of workers")
	}
}

// A plan in which nothing holds says so, names the constraint nearest to
// holding and by how much, and exits 1.
func TestPlanNothingHolds(t *testing.T) {
	plan := strings.Replace(staffingPlan, `range = "1..12"`, `range = "1..3"`, 1)
	plan = strings.Replace(plan, "prices = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]", "prices = [10, 20, 30]", 1)
	file := writeScenario(t, mmcScenario(3.5, 1, plan))
	code, stdout, stderr := cli(t, "plan", file, "--write", filepath.Join(t.TempDir(), "w.toml"))
	if code != exitRunError {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	if !regexp.MustCompile(`Nothing holds: of 3 candidates simulated, the nearest is servers=3, where jobs p95 queue wait (over the run|in the worst hour) is [^ ]+ against 1.0s \([0-9]+% short\)`).MatchString(stdout) {
		t.Errorf("stdout:\n%s", stdout)
	}
	if !strings.Contains(stderr, "no candidate meets every constraint") {
		t.Errorf("stderr: %s", stderr)
	}
}

// Bad [plan] input is exit 2, naming the file, the line and the key.
func TestPlanBadInput(t *testing.T) {
	cluster := `
[[cluster]]
name = "gpu"
replicas = 0
gpu = "H100-SXM"
model = "llama-3.1-8b"
`
	for _, c := range []struct {
		name, plan, extra, want string
	}{
		{"a key that does not exist", strings.Replace(staffingPlan, "client.max_concurrency", "client.max_concurency", 1), "",
			`staffing.toml:33: plan.knob "servers".range: workload.jobs.client.max_concurency = 1: unknown key "max_concurency"`},
		{"an empty range", strings.Replace(staffingPlan, `"1..12"`, `"12..1"`, 1), "",
			`staffing.toml:33: plan.knob "servers".range: range "12..1" is empty`},
		{"a knob on a switched-off cluster", staffingPlan + "\n[[plan.knob]]\nkey = \"cluster.gpu.max_num_seqs\"\nvalues = [64, 128]\n", cluster,
			`plan.knob[1]: cluster.gpu.max_num_seqs: cluster "gpu" is switched off (replicas = 0) and no knob switches it on`},
		{"an objective without a constraint", strings.Replace(staffingPlan, "[[plan.target]]\nmetric = \"queue_wait\"\npercentile = 95\nmax = \"1s\"\n", "", 1), "",
			`staffing.toml:20: plan: nothing to hold`},
		{"a percentile results do not carry", strings.Replace(staffingPlan, "percentile = 95", "percentile = 97", 1), "",
			`staffing.toml:27: plan.target[0].percentile: must be 50, 90, 95 or 99`},
		{"an unknown plan key", strings.Replace(staffingPlan, "replications = 2", "replication = 2", 1), "",
			`staffing.toml:22: plan.replication: unknown key "replication"`},
		{"max_load with knobs", strings.Replace(staffingPlan, `objective = ["min_cost", "max_load"]`, `objective = "max_load"`, 1), "",
			`plan.knob: max_load measures the scenario as written and takes no knobs`},
	} {
		file := writeScenario(t, mmcScenario(2.8, 1, c.plan)+c.extra)
		code, _, stderr := cli(t, "plan", file)
		if code != exitBadInput || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q\nwant it to contain %q", c.name, code, stderr, c.want)
		}
	}
}

// max_load alone measures the scenario as written.
func TestPlanMaxLoadAlone(t *testing.T) {
	plan := strings.SplitN(staffingPlan, "[[plan.knob]]", 2)[0]
	plan = strings.Replace(plan, `objective = ["min_cost", "max_load"]`, `objective = "max_load"`, 1)
	plan = strings.Replace(plan, "recheck = 4\n", "", 1) // min_cost's: refused under max_load alone
	src := strings.Replace(mmcScenario(2.8, 2, plan), "max_concurrency = 1,", "max_concurrency = 5,", 1)
	code, stdout, stderr := cli(t, "plan", writeScenario(t, src))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`The scenario as written holds up to 1\.[0-9]+× its demand; first to break beyond it: jobs p95 queue wait`).MatchString(stdout) {
		t.Errorf("stdout:\n%s", stdout)
	}
}

// A sharded plan: each shard searches its share of the choices of the
// non-monotone knobs; merged, the winner is the one a single process finds.
func TestPlanShardsMerge(t *testing.T) {
	plan := staffingPlan + serverKnob + `  [[plan.knob.option]]
  name = "faster"
  price = 4000
  set = { "provider.server.latency.ttft.base" = "0.25s" }
`
	file := writeScenario(t, mmcScenario(2.8, 2, plan))
	dir := t.TempDir()
	one := filepath.Join(dir, "one.json")
	if code, _, stderr := cli(t, "plan", file, "--json", one, "--no-html", "-q"); code != exitOK {
		t.Fatalf("one process: exit %d: %s", code, stderr)
	}
	for i := 0; i < 2; i++ {
		code, stdout, stderr := cli(t, "plan", file, "--shard", fmt.Sprintf("%d/2", i), "--part", filepath.Join(dir, "part-{shard}.json"))
		if code != exitOK || !strings.HasPrefix(stdout, fmt.Sprintf("shard %d/2: searched", i)) {
			t.Fatalf("shard %d: exit %d: %s %s", i, code, stdout, stderr)
		}
	}
	merged := filepath.Join(dir, "merged.json")
	code, stdout, stderr := cli(t, "merge", filepath.Join(dir, "part-1.json"), filepath.Join(dir, "part-0.json"), "--json", merged, "--write", filepath.Join(dir, "w.toml"))
	if code != exitOK || !strings.Contains(stdout, "Cheapest that holds") {
		t.Fatalf("merge: exit %d: %s\n%s", code, stderr, stdout)
	}
	read := func(path string) report.Decision { return readDecision(t, path) }
	a, m := read(one), read(merged)
	if a.Winner == nil || m.Winner == nil || a.Candidates[*a.Winner].Label != m.Candidates[*m.Winner].Label {
		t.Fatalf("one process and the merged shards disagree: %v / %v", a.Winner, m.Winner)
	}
	if a.Growth == nil || m.Growth == nil || a.Growth.Factor != m.Growth.Factor {
		t.Errorf("growth: %+v / %+v", a.Growth, m.Growth)
	}
	if code, _, stderr := cli(t, "merge", filepath.Join(dir, "part-0.json")); code != exitBadInput || !strings.Contains(stderr, "missing shard 1 of 2") {
		t.Errorf("one part of two: exit %d: %s", code, stderr)
	}
}

// TestPlanRefusesBeyondWorkBound: a plan whose estimated work is past the
// bound (10,000 requests/s for a day, each candidate some 1.7e9 events) is
// refused before any simulation, exit 2, with what to reduce and --force.
func TestPlanRefusesBeyondWorkBound(t *testing.T) {
	file := writeScenario(t, mmcScenario(10000, 24, staffingPlan))
	js := filepath.Join(t.TempDir(), "p.json")
	code, stdout, stderr := cli(t, "plan", file, "--json", js)
	if code != exitBadInput {
		t.Fatalf("exit %d, want %d: %s", code, exitBadInput, stderr)
	}
	for _, want := range []string{"this plan would handle about", "simulations (", "for the search and the re-check, where an exhaustive search runs 24", "for the growth", "the bound is 1e+10 events", "plan.replications", "knobs' ranges", "--force"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if stdout != "" {
		t.Errorf("stdout: %s", stdout)
	}
	if _, err := os.Stat(js); err == nil {
		t.Error("the refused plan wrote its JSON")
	}
}

// TestPlanForce: with the bounds lowered below a small plan's estimate,
// the plan is refused; --force runs it to its answer. A bound above the
// estimate lets it run.
func TestPlanForce(t *testing.T) {
	file := writeScenario(t, mmcScenario(2.8, 2, staffingPlan))
	var out, errb strings.Builder
	err := planCommand([]string{file, "--workers", "2"}, &out, &errb, workBounds{events: 1000, bytes: maxBytes})
	if err == nil || !strings.Contains(err.Error(), "--force") || !strings.Contains(err.Error(), "the bound is 1,000 events") {
		t.Fatalf("under a bound of 1,000 events: %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("refused, yet printed %s", out.String())
	}
	for _, args := range [][]string{{file, "--workers", "2", "--force"}} {
		out.Reset()
		if err := planCommand(args, &out, &errb, workBounds{events: 1000, bytes: 1}); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if !strings.Contains(out.String(), "Cheapest that holds: servers=") {
			t.Errorf("%v printed:\n%s", args, out.String())
		}
	}
	err = planCommand([]string{file, "--workers", "2"}, &out, &errb, workBounds{events: maxEvents, bytes: 1})
	if err == nil || !strings.Contains(err.Error(), "of memory") {
		t.Errorf("under a bound of 1 byte: %v", err)
	}
}

// TestPlanRunErrorWords: a plan stopped at its bound during the search
// says how far it got and what to reduce.
func TestPlanRunErrorWords(t *testing.T) {
	err := planRunError(&plan.WorkBound{Bound: 1e10, Events: 9.9e9, Simulations: 1234})
	for _, want := range []string{"stopped after 1,234 simulations", "1e+10 events", "no result files were written", "plan.replications", "--force"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}

// TestPlanReplicationsFlag: --replications N is --set plan.replications=N,
// and the winner's report summarises the busiest hour over the re-check.
func TestPlanReplicationsFlag(t *testing.T) {
	file := writeScenario(t, mmcScenario(2.8, 2, staffingPlan))
	dir := t.TempDir()
	took := regexp.MustCompile(`; [0-9.]+(ms|s)\.\n`)
	var outs []string
	for i, args := range [][]string{{"--replications", "3"}, {"--set", "plan.replications=3"}} {
		js := filepath.Join(dir, fmt.Sprintf("p%d.json", i))
		code, stdout, stderr := cli(t, append([]string{"plan", file, "--workers", "2", "--json", js, "--no-html"}, args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		b, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		var d report.Decision
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		if d.Settings.Replications != 3 || d.WinnerResults == nil || len(d.WinnerResults.Summary) != 1 {
			t.Fatalf("%v: settings %+v", args, d.Settings)
		}
		if f, ok := d.WinnerResults.Summary[0].Figure("busiest_hour_ttft_p95_s"); !ok || f.N != d.Settings.Recheck {
			t.Errorf("%v: busiest-hour TTFT p95 %+v, want over the %d re-check replications", args, f, d.Settings.Recheck)
		}
		// The same, but for the --set line under the title.
		stdout = strings.Replace(stdout, "  --set plan.replications=3\n", "", 1)
		outs = append(outs, took.ReplaceAllString(strings.ReplaceAll(stdout, js, "P.json"), "\n"))
	}
	if outs[0] != outs[1] {
		t.Errorf("--replications 3:\n%s\n--set plan.replications=3:\n%s", outs[0], outs[1])
	}
	if code, _, stderr := cli(t, "plan", file, "--replications", "0"); code != exitBadInput || !strings.Contains(stderr, "--replications N") {
		t.Errorf("--replications 0: exit %d, %s", code, stderr)
	}
}

// TestPlanCarriesWarnings: a scenario that leaves a default that changes
// the answer (a provider without prices) gets the warning on stderr, at
// the foot of the plan's terminal report, in its JSON and HTML, and in
// the plan merged from shards.
func TestPlanCarriesWarnings(t *testing.T) {
	src := strings.Replace(mmcScenario(2.8, 1, staffingPlan), "  [provider.price]\n  input = 1.0\n", "", 1)
	file := writeScenario(t, src)
	dir := t.TempDir()
	js, page := filepath.Join(dir, "plan.json"), filepath.Join(dir, "plan.html")
	code, stdout, stderr := cli(t, "plan", file, "--json", js, "--html", page)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	const words = "no prices: its tokens cost nothing"
	if !strings.Contains(stderr, "headroom: warning: ") || !strings.Contains(stderr, words) {
		t.Errorf("stderr has no warning:\n%s", stderr)
	}
	if i := strings.Index(stdout, "Warnings (defaults that change the answer):"); i < 0 || !strings.Contains(stdout[i:], words) {
		t.Errorf("the terminal report ends without the warning:\n%s", stdout)
	}
	read := func(path string) report.Decision { return readDecision(t, path) }
	d := read(js)
	if len(d.Warnings) != 1 || d.Warnings[0].Key != `provider "server".price` || !strings.Contains(d.Warnings[0].Message, words) {
		t.Errorf("JSON warnings: %+v", d.Warnings)
	}
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), words) {
		t.Errorf("the HTML page has no warning (%v)", err)
	}
	for i := 0; i < 2; i++ {
		if code, _, stderr := cli(t, "plan", file, "--shard", fmt.Sprintf("%d/2", i), "--part", filepath.Join(dir, "part-{shard}.json")); code != exitOK {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
	}
	merged := filepath.Join(dir, "merged.json")
	if code, _, stderr := cli(t, "merge", filepath.Join(dir, "part-0.json"), filepath.Join(dir, "part-1.json"), "--json", merged, "-q"); code != exitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if m := read(merged); len(m.Warnings) != 1 || m.Warnings[0] != d.Warnings[0] {
		t.Errorf("merged warnings %+v, want %+v", m.Warnings, d.Warnings)
	}
}
