package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/scenarios"
)

// short keeps runs of the default example fast.
var short = []string{"--set", `duration="1h"`}

// cli runs the command line and returns its exit status and output.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func badFixtures(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "bad", "*.toml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in testdata/bad: %v", err)
	}
	return files
}

// TestBadInputExit2: every bad fixture, run or validated, exits 2 with one
// message on stderr that starts with "headroom: FILE:" and nothing on stdout.
func TestBadInputExit2(t *testing.T) {
	for _, path := range badFixtures(t) {
		for _, cmd := range []string{"run", "validate"} {
			t.Run(cmd+"/"+filepath.Base(path), func(t *testing.T) {
				code, stdout, stderr := cli(t, cmd, path)
				if code != exitBadInput {
					t.Errorf("exit %d, want 2; stderr:\n%s", code, stderr)
				}
				if stdout != "" {
					t.Errorf("stdout not empty:\n%s", stdout)
				}
				if !strings.HasPrefix(stderr, "headroom: "+path+":") {
					t.Errorf("stderr does not start with %q:\n%s", "headroom: "+path+":", stderr)
				}
				if n := strings.Count(stderr, "\n"); n != 1 || !strings.HasSuffix(stderr, "\n") {
					t.Errorf("want exactly one line on stderr, got %d:\n%s", n, stderr)
				}
			})
		}
	}
}

func TestValidateSeveralFiles(t *testing.T) {
	good := filepath.Join("..", "..", "testdata", "good", "minimal.toml")
	bad := badFixtures(t)[:2]
	code, stdout, stderr := cli(t, "validate", bad[0], good, bad[1])
	if code != exitBadInput {
		t.Errorf("exit %d, want 2", code)
	}
	if want := "ok  " + good + ": 1 workloads, 1 providers, 0 variants\n"; stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "headroom: "+bad[0]+":") ||
		!strings.HasPrefix(lines[1], "headroom: "+bad[1]+":") || lines[2] != "headroom: 2 of 3 files have problems" {
		t.Errorf("stderr:\n%s", stderr)
	}

	code, stdout, stderr = cli(t, "validate", good)
	if code != exitOK || stderr != "" || !strings.HasPrefix(stdout, "ok  ") {
		t.Errorf("validate good: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	missing := filepath.Join(t.TempDir(), "missing.toml")
	code, _, stderr = cli(t, "validate", missing)
	if code != exitBadInput || stderr != "headroom: "+missing+": no such file\n" { // a path is never an example's name
		t.Errorf("validate missing file: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr = cli(t, "validate", "salespeople-peak") // an embedded example, as run takes
	if code != exitOK || stderr != "" || stdout != "ok  salespeople-peak: 1 workloads, 1 providers, 1 variants\n" {
		t.Errorf("validate example: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	dir := t.TempDir() // a directory is not a scenario file
	for _, cmd := range []string{"run", "validate"} {
		code, stdout, stderr = cli(t, cmd, dir)
		if code != exitBadInput || stdout != "" || !strings.HasPrefix(stderr, "headroom: "+dir+": ") {
			t.Errorf("%s DIR: exit %d, stdout %q, stderr %q", cmd, code, stdout, stderr)
		}
	}
	if code, _, _ = cli(t, "validate"); code != exitBadInput {
		t.Errorf("validate with no file: exit %d, want 2", code)
	}
}

// TestRunNothingOffered: a horizon in which no request arrives warns on
// stderr (not with -q), and prints and writes the same as without the
// warning.
func TestRunNothingOffered(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "night.toml")
	src := `duration = "1h"
[[workload]]
name = "chat"
route = "api"
tokens = { input = 1000, output = 100 }
demand = { unit = "requests/min", hourly = [0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 10, 10, 10, 10, 10, 10, 10, 0, 0, 0, 0, 0, 0, 0] }
client = { retry = "anthropic-python" }

[[provider]]
name = "api"
latency = { ttft = { base = "1s" } }
price = { input = 3, output = 15 }
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cli(t, "run", path)
	want := "headroom: warning: no requests arrived within the horizon: check duration/start against the demand\n"
	if code != exitOK || stderr != want || !strings.Contains(stdout, "requests offered") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	if code, stdout, stderr = cli(t, "run", path, "-q"); code != exitOK || stdout != "" || stderr != want {
		t.Errorf("-q (a warning still reaches stderr): exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, _, stderr = cli(t, "run", path, "--set", `start="09:00"`); stderr != "" {
		t.Errorf("with arrivals: stderr %q", stderr)
	}
}

func TestRunMinimal(t *testing.T) {
	code, stdout, stderr := cli(t, "run", filepath.Join("..", "..", "testdata", "good", "minimal.toml"))
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "Headroom · minimal") || !strings.Contains(stdout, "requests offered") {
		t.Errorf("summary:\n%s", stdout)
	}
}

func TestRunDefaultExample(t *testing.T) {
	code, stdout, stderr := cli(t, append([]string{"run"}, short...)...)
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"Headroom · morning-peak", "requests offered", "tier 4", "the tightest was sonnet ITPM"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
}

// get walks a decoded JSON value by keys.
func get(v any, keys ...string) (any, bool) {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

func TestRunJSON(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out", "results.json") // out/ does not exist yet
	code, stdout, stderr := cli(t, append([]string{"run", "--json", path}, short...)...)
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "wrote "+path) {
		t.Errorf("stdout does not say it wrote %s", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if doc["schema"] != "headroom/results/v1" {
		t.Errorf("schema = %v", doc["schema"])
	}
	variants, _ := doc["variants"].([]any)
	if len(variants) != 2 {
		t.Fatalf("%d variants, want 2 (base and tier 4)", len(variants))
	}
	var paths [][]string
	add := func(prefix []string, leaves ...string) {
		for _, l := range leaves {
			paths = append(paths, append(append([]string(nil), prefix...), l))
		}
	}
	add([]string{"summary", "requests"}, "offered", "completed", "failed", "in_flight_at_end")
	add([]string{"summary", "attempts"}, "total", "retries", "rejected")
	for _, l := range []string{"ttft", "e2e", "queue_wait", "tpot"} {
		add([]string{"summary", "latency_s", l}, "mean", "p50", "p90", "p95", "p99")
	}
	add([]string{"summary", "throughput"}, "requests_per_s", "input_tokens_per_s", "output_tokens_per_s")
	add([]string{"summary", "cost_usd"}, "total")
	add(nil, "workloads", "backends")
	add([]string{"series"}, "interval_s", "offered", "completed", "rejected", "retries", "in_flight", "queue_length", "ttft_p95_s", "input_tokens", "output_tokens", "cost_usd")
	for i, v := range variants {
		for _, p := range paths {
			x, ok := get(v, p...)
			if !ok || x == nil {
				t.Errorf("variant %d: no %s", i, strings.Join(p, "."))
			}
		}
		if n, _ := get(v, "summary", "requests", "offered"); n.(float64) <= 0 {
			t.Errorf("variant %d: nothing offered", i)
		}
		for _, k := range []string{"workloads", "backends"} {
			if l, _ := get(v, k); len(l.([]any)) == 0 {
				t.Errorf("variant %d: %s is empty", i, k)
			}
		}
		// An hour at 5-minute intervals: 12 points in every series.
		for _, k := range []string{"offered", "completed", "retries", "in_flight", "queue_length", "ttft_p95_s", "input_tokens", "output_tokens", "cost_usd"} {
			if s, _ := get(v, "series", k); len(s.([]any)) != 12 {
				t.Errorf("variant %d: series.%s has %d points, want 12", i, k, len(s.([]any)))
			}
		}
	}
	if d, err := report.ReadJSON(bytes.NewReader(data)); err != nil || len(d.Variants) != 2 {
		t.Errorf("report.ReadJSON: %v", err)
	}
	assertNoTempFiles(t, filepath.Dir(path))
}

// assertNoTempFiles fails when dir holds anything hidden (the atomic
// writer's temporary files start with ".").
func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || strings.Contains(e.Name(), ".tmp") {
			t.Errorf("leftover file %s in %s", e.Name(), dir)
		}
	}
}

func TestRunCSV(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "csv")
	code, stdout, stderr := cli(t, append([]string{"run", "--csv", dir}, short...)...)
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "wrote "+filepath.Join(dir, "summary.csv")) {
		t.Errorf("stdout does not say it wrote summary.csv")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "series-base.csv series-tier-4.csv summary.csv" {
		t.Errorf("files in the CSV dir: %s", got)
	}
	read := func(name string) [][]string {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return rows
	}
	sum := read("summary.csv")
	if len(sum) < 3 || sum[0][0] != "variant" || sum[1][0] != "base" {
		t.Errorf("summary.csv: %v", sum)
	}
	for _, name := range []string{"series-base.csv", "series-tier-4.csv"} {
		rows := read(name)
		if len(rows) != 13 || rows[0][0] != "interval_start_s" {
			t.Errorf("%s: %d rows (want a header and 12), header %v", name, len(rows), rows[0])
		}
	}
}

// TestRunDeterministic: the same seed gives byte-identical JSON, whatever
// the number of workers; another seed gives other results.
func TestRunDeterministic(t *testing.T) {
	dir := t.TempDir()
	runJSON := func(name string, extra ...string) []byte {
		path := filepath.Join(dir, name)
		args := append(append([]string{"run", "-q", "--json", path}, short...), extra...)
		if code, _, stderr := cli(t, args...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	a := runJSON("a.json")
	b := runJSON("b.json")
	if !bytes.Equal(a, b) {
		t.Error("two runs with the same seed differ")
	}
	w1 := runJSON("w1.json", "--workers", "1")
	w2 := runJSON("w2.json", "--workers", "2")
	if !bytes.Equal(w1, w2) || !bytes.Equal(a, w1) {
		t.Error("--workers 1 and --workers 2 differ")
	}
	s7 := runJSON("s7.json", "--seed", "7")
	summary := func(data []byte) string {
		var d report.Document
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		if len(d.Variants) == 0 {
			t.Fatal("no variants")
		}
		s, _ := json.Marshal(d.Variants[0].Summary)
		return string(s)
	}
	if summary(a) == summary(s7) {
		t.Error("--seed 7 gives the same results as the scenario's seed")
	}
	if !bytes.Contains(s7, []byte(`"seed": 7`)) {
		t.Error("--seed 7 is not recorded in the JSON")
	}
}

func TestRunBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--set", "provider.nope.limits.rpm=1"},
		{"run", "--set", "provider.sonnet.limits.rpmm=1"},
		{"run", "--set", "provider.sonnet.limits.rpm=-1"},
		{"run", "--set", "nonsense"},
		{"run", "--set", "variant.0.name=x"},
		{"run", "--bogus"},
		{"run", "--workers", "many"},
		{"run", "--workers", "0"},
		{"run", "--workers", "-2"},
		{"compare", "a.toml", "b.toml", "--workers", "0"},
		{"run", "no-such-example-or-file"},
		{"run", "a.toml", "b.toml"},
		{"examples", "no-such-example"},
	} {
		code, stdout, stderr := cli(t, args...)
		if code != exitBadInput {
			t.Errorf("%v: exit %d, want 2; stderr: %s", args, code, stderr)
		}
		if stdout != "" || !strings.HasPrefix(stderr, "headroom: ") {
			t.Errorf("%v: stdout %q, stderr %q", args, stdout, stderr)
		}
	}
	if _, _, stderr := cli(t, "run", "--workers", "0"); !strings.Contains(stderr, "--workers N: N is how many simulations run in parallel, at least 1 (leave it out for GOMAXPROCS") {
		t.Errorf("--workers 0: %s", stderr)
	}
	_, _, stderr := cli(t, "run", "--set", "provider.sonnet.limits.rpmm=1")
	if !strings.Contains(stderr, `--set provider.sonnet.limits.rpmm: unknown key "rpmm"`) || !strings.Contains(stderr, `did you mean "rpm"?`) {
		t.Errorf("--set with a typo: %s", stderr)
	}
}

func TestExamples(t *testing.T) {
	code, stdout, stderr := cli(t, "examples")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	all := scenarios.Examples()
	if len(all) == 0 {
		t.Fatal("no embedded examples")
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != len(all) {
		t.Errorf("%d lines for %d examples:\n%s", len(lines), len(all), stdout)
	}
	for _, e := range all {
		if !strings.Contains(stdout, e.Name) {
			t.Errorf("examples does not list %s", e.Name)
		}
		code, src, stderr := cli(t, "examples", e.Name)
		if code != exitOK || stderr != "" {
			t.Errorf("examples %s: exit %d: %s", e.Name, code, stderr)
			continue
		}
		sc, err := scenarios.LoadBytes([]byte(src), e.Name+".toml")
		if err == nil {
			_, err = sc.Configs(nil)
		}
		if err != nil {
			t.Errorf("examples %s prints TOML that does not load: %v", e.Name, err)
		}
	}
	if !strings.Contains(stdout, scenarios.DefaultExample+" (default)") {
		t.Errorf("the default example is not marked:\n%s", stdout)
	}
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version"} {
		code, stdout, _ := cli(t, arg)
		if code != exitOK || stdout != "headroom "+buildVersion()+"\n" {
			t.Errorf("%s: exit %d, %q", arg, code, stdout)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"help"},
		{"run", "--help"}, {"run", "-h"},
		{"validate", "--help"},
		{"examples", "--help"},
		{"version", "--help"},
	} {
		code, stdout, stderr := cli(t, args...)
		if code != exitOK {
			t.Errorf("%v: exit %d, stderr %s", args, code, stderr)
		}
		if !strings.Contains(stdout, "Usage") || !strings.Contains(stdout, "\nExamples:\n") {
			t.Errorf("%v: no usage with an Examples section on stdout:\n%s", args, stdout)
		}
		if stderr != "" {
			t.Errorf("%v: stderr %q", args, stderr)
		}
	}
	_, stdout, _ := cli(t, "run", "--help")
	for _, flag := range []string{"--json", "--csv", "--seed", "--set", "--workers", "--base-only", "--quiet"} {
		if !strings.Contains(stdout, flag) {
			t.Errorf("run --help does not mention %s", flag)
		}
	}
}

func TestUnknownCommand(t *testing.T) {
	code, stdout, stderr := cli(t, "frobnicate")
	if code != exitBadInput || stdout != "" || !strings.HasPrefix(stderr, `headroom: unknown command "frobnicate"`) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestJSONUnwritable: when the JSON file's directory cannot be created (its
// parent is a regular file), the run fails with exit 1 and leaves nothing.
func TestJSONUnwritable(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(blocker, "sub", "out.json")
	code, _, stderr := cli(t, append([]string{"run", "-q", "--json", path}, short...)...)
	if code != exitRunError {
		t.Errorf("exit %d, want 1; stderr: %s", code, stderr)
	}
	if !strings.HasPrefix(stderr, "headroom: write "+path+":") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr: %q", stderr)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a JSON file was written")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d entries left in the output dir, want only the blocking file", len(entries))
	}

	// A JSON path that is a directory: the rename fails; the temporary
	// file must not be left behind.
	target := filepath.Join(dir, "isdir.json")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = cli(t, append([]string{"run", "-q", "--json", target}, short...)...)
	if code != exitRunError {
		t.Errorf("JSON path is a directory: exit %d, want 1; stderr: %s", code, stderr)
	}
	assertNoTempFiles(t, dir)

	// CSV into a directory that cannot be created.
	code, _, _ = cli(t, append([]string{"run", "-q", "--csv", filepath.Join(blocker, "csv")}, short...)...)
	if code != exitRunError {
		t.Errorf("CSV dir under a file: exit %d, want 1", code)
	}
}

// TestBadInputWritesNothing: a scenario that fails to load leaves no output
// files, and an earlier results file stays as it was.
func TestBadInputWritesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}
	fixture := badFixtures(t)[0]
	code, _, _ := cli(t, "run", fixture, "--json", path, "--csv", filepath.Join(dir, "csv"))
	if code != exitBadInput {
		t.Errorf("exit %d, want 2", code)
	}
	if data, _ := os.ReadFile(path); string(data) != "previous" {
		t.Errorf("out.json was touched: %q", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "csv")); err == nil {
		t.Error("the CSV dir was created")
	}
}

// TestMissingScenarioMessages: a name that can only be a path (a '/' or a
// .toml suffix) gets "no such file" alone; a bare name that is neither a
// file nor an example gets the examples, with a did-you-mean when one is
// close, in run and in examples.
func TestMissingScenarioMessages(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "/tmp/no-such-dir-headroom/nope.toml"}, "headroom: /tmp/no-such-dir-headroom/nope.toml: no such file\n"},
		{[]string{"run", "nope.toml"}, "headroom: nope.toml: no such file\n"},
		{[]string{"validate", "sub/morning-peak"}, "headroom: sub/morning-peak: no such file\n"},
		{[]string{"run", "morning-peak.toml"}, "headroom: morning-peak.toml: no such file (the embedded example is named \"morning-peak\", without .toml)\n"},
		{[]string{"run", "morning-peek"}, "headroom: morning-peek: no such file, and no example named \"morning-peek\"; did you mean \"morning-peak\"? (have: "},
		{[]string{"sweep", "fleet-07b", "--rate", "1"}, "headroom: fleet-07b: no such file, and no example named \"fleet-07b\"; did you mean \"fleet-70b\"? (have: "},
		{[]string{"examples", "batch-jbo"}, "headroom: no example named \"batch-jbo\"; did you mean \"batch-job\"? (have: "},
		{[]string{"run", "zzzzzz"}, "headroom: zzzzzz: no such file, and no example named \"zzzzzz\"; have: autoscale-day, "},
	} {
		code, stdout, stderr := cli(t, c.args...)
		if code != exitBadInput || stdout != "" || !strings.HasPrefix(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want it to start %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// TestValidateSet: validate --set checks an override as run applies it,
// without running: an unknown key or a bad value is bad input with the
// key named, a bare-seconds duration warns (an error with --strict), a
// plan's knobs see the override, and a good one says ok with the set.
func TestValidateSet(t *testing.T) {
	minimal := filepath.Join("..", "..", "testdata", "good", "minimal.toml")
	code, stdout, stderr := cli(t, "validate", minimal, "--set", "provider.api.limits.rpm=2000")
	if code != exitOK || stderr != "" || stdout != "ok  "+minimal+" with --set provider.api.limits.rpm=2000: 1 workloads, 1 providers, 0 variants\n" {
		t.Errorf("a good override: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = cli(t, "validate", minimal, "--set", "provider.api.limits.rpm=-1000")
	if code != exitBadInput || stdout != "" || !strings.Contains(stderr, "--set provider.api.limits.rpm: must be > 0") {
		t.Errorf("a bad value: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = cli(t, "validate", minimal, "--set", "provider.api.limits.rmp=1000")
	if code != exitBadInput || !strings.Contains(stderr, `unknown key "rmp"`) || !strings.Contains(stderr, `did you mean "rpm"?`) {
		t.Errorf("an unknown key: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = cli(t, "validate", minimal, "--strict", "--set", "provider.api.latency.tpot.mean=15")
	if code != exitBadInput || !strings.Contains(stderr, "headroom: warning: "+minimal+": --set provider.api.latency.tpot.mean: a bare number is read as seconds") {
		t.Errorf("a bare duration with --strict: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = cli(t, "validate", "hybrid-plan", "--set", "plan.objective=cheapest")
	if code != exitBadInput || !strings.Contains(stderr, "--set plan.objective") {
		t.Errorf("a plan key: exit %d, stderr %q", code, stderr)
	}
}
