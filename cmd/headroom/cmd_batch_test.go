package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/report"
)

// tier is a small scenario against an RPM limit; rpm and name vary.
func tier(t *testing.T, dir, file, name string, rpm int) string {
	t.Helper()
	src := `name = "` + name + `"
duration = "10m"
interval = "1m"
[[workload]]
name = "chat"
route = "api"
tokens = { input = 500, output = 50 }
demand = { rate = 4, unit = "requests/s" }
client = { retry = "none", max_concurrency = 8 }
[[provider]]
name = "api"
limits = { rpm = ` + itoa(rpm) + ` }
latency = { ttft = { base = "200ms", dist = "exponential" }, tpot = { mean = "5ms" } }
price = { input = 3, output = 15 }
[[variant]]
name = "double"
set = { "provider.api.limits.rpm" = ` + itoa(2*rpm) + ` }
`
	path := filepath.Join(dir, file)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func itoa(n int) string { return strconv.Itoa(n) }

func readDoc(t *testing.T, path string) *report.Document {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d report.Document
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestCompareOneReplication: without --replications, compare claims no
// intervals.
func TestCompareOneReplication(t *testing.T) {
	dir := t.TempDir()
	a := tier(t, dir, "a.toml", "tier-a", 120)
	b := tier(t, dir, "b.toml", "tier-b", 240)
	code, stdout, stderr := cli(t, "compare", a, b)
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "Difference from tier-a (one replication: no intervals):") || strings.Contains(stdout, "95% interval") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

func TestCompare(t *testing.T) {
	dir := t.TempDir()
	a := tier(t, dir, "a.toml", "tier-a", 120)
	b := tier(t, dir, "b.toml", "tier-b", 240)
	out := filepath.Join(dir, "cmp.json")
	csvDir := filepath.Join(dir, "csv")
	code, stdout, stderr := cli(t, "compare", a, b, "--replications", "4", "--json", out, "--csv", csvDir)
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"Headroom · tier-a vs tier-b", "4 replications", "tier-a", "tier-b", "±",
		"Difference from tier-a, paired by replication", "tier-b (replication 0):"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	d := readDoc(t, out)
	if d.Replications != 4 || len(d.Summary) != 2 || len(d.Variants) != 2 || d.Variants[0].Variant != "tier-a" {
		t.Fatalf("replications %d, %d summaries, %d variants", d.Replications, len(d.Summary), len(d.Variants))
	}
	// Same seed: common random numbers, so the same arrivals; the higher
	// limit completes significantly more.
	off, _ := d.Summary[1].Figure("requests_offered")
	done, _ := d.Summary[1].Figure("requests_completed")
	if off.DiffVsBase.Mean != 0 || !(done.DiffVsBase.Lo > 0) {
		t.Errorf("offered diff %+v (want 0), completed diff %+v (want > 0)", off.DiffVsBase, done.DiffVsBase)
	}
	for _, f := range []string{"summary.csv", "key-figures.csv", "series-tier-a.csv", "series-tier-b.csv"} {
		if _, err := os.Stat(filepath.Join(csvDir, f)); err != nil {
			t.Errorf("no %s: %v", f, err)
		}
	}

	// Two files with one name are told apart by file; one file is not a
	// comparison.
	c := tier(t, dir, "c.toml", "tier-a", 60)
	if code, stdout, _ := cli(t, "compare", a, c, "-q", "--json", out); code != exitOK || stdout != "" {
		t.Fatalf("compare a c: exit %d", code)
	}
	if d := readDoc(t, out); d.Summary[0].Variant != "a" || d.Summary[1].Variant != "c" {
		t.Errorf("names %q, %q; want the file names", d.Summary[0].Variant, d.Summary[1].Variant)
	}
	if code, _, stderr := cli(t, "compare", a); code != exitBadInput || !strings.Contains(stderr, "two or more scenarios") {
		t.Errorf("compare with one file: exit %d, %s", code, stderr)
	}
}

func TestRunReplications(t *testing.T) {
	dir := t.TempDir()
	a := tier(t, dir, "a.toml", "tier", 120)
	out := filepath.Join(dir, "r.json")
	if code, _, stderr := cli(t, "run", a, "-q", "--replications", "3", "--json", out); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	d := readDoc(t, out)
	if d.Replications != 3 || len(d.Variants) != 2 || len(d.Summary) != 2 || d.Variants[1].Replication != 0 {
		t.Fatalf("replications %d, %d variants, %d summaries", d.Replications, len(d.Variants), len(d.Summary))
	}
	if f, _ := d.Summary[1].Figure("ttft_p95_s"); f.N != 3 || f.DiffVsBase == nil || !(f.Lo <= f.Mean && f.Mean <= f.Hi) {
		t.Errorf("ttft p95: %+v", f)
	}
	// The first replication is the plain run's.
	plain := filepath.Join(dir, "plain.json")
	if code, _, _ := cli(t, "run", a, "-q", "--json", plain); code != exitOK {
		t.Fatal("plain run failed")
	}
	p := readDoc(t, plain)
	x, _ := json.Marshal(p.Variants)
	y, _ := json.Marshal(d.Variants)
	if !bytes.Equal(x, y) {
		t.Error("the replicated run's variants are not the plain run's")
	}
	if p.Replications != 0 || p.Summary != nil || bytes.Contains(mustRead(t, plain), []byte(`"replications"`)) {
		t.Error("a plain run's JSON gained replications or a summary")
	}
}

// shardsAndMerge runs args as n shards, merges the parts, and returns the
// merged JSON and CSV next to a single process's.
func shardsAndMerge(t *testing.T, n int, csvIsDir bool, args ...string) {
	t.Helper()
	dir := t.TempDir()
	single := filepath.Join(dir, "single.json")
	singleCSV := filepath.Join(dir, "single-csv")
	if !csvIsDir {
		singleCSV += ".csv"
	}
	code, singleOut, stderr := cli(t, append(append([]string{}, args...), "--json", single, "--csv", singleCSV)...)
	if code != exitOK {
		t.Fatalf("single: exit %d: %s", code, stderr)
	}
	var parts []string
	for i := 0; i < n; i++ {
		part := filepath.Join(dir, "part-"+itoa(i)+".json")
		code, stdout, stderr := cli(t, append(append([]string{}, args...), "--shard", itoa(i)+"/"+itoa(n), "--part", filepath.Join(dir, "part-{shard}.json"))...)
		if code != exitOK || !strings.Contains(stdout, "wrote "+part) {
			t.Fatalf("shard %d: exit %d: %s%s", i, code, stdout, stderr)
		}
		parts = append(parts, part)
	}
	merged := filepath.Join(dir, "merged.json")
	mergedCSV := filepath.Join(dir, "merged-csv")
	if !csvIsDir {
		mergedCSV += ".csv"
	}
	code, mergeOut, stderr := cli(t, append([]string{"merge", "--json", merged, "--csv", mergedCSV}, parts...)...)
	if code != exitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if !bytes.Equal(mustRead(t, single), mustRead(t, merged)) {
		t.Error("merged JSON differs from the single process's")
	}
	// The HTML report goes beside the JSON, and merges byte for byte too.
	if !bytes.Equal(mustRead(t, filepath.Join(dir, "single.html")), mustRead(t, filepath.Join(dir, "merged.html"))) {
		t.Error("merged HTML differs from the single process's")
	}
	if parts, _ := filepath.Glob(filepath.Join(dir, "part-*.html")); len(parts) > 0 {
		t.Errorf("shards wrote HTML: %v", parts)
	}
	clean := func(s string) string {
		return strings.NewReplacer(single, "JSON", merged, "JSON", singleCSV, "CSV", mergedCSV, "CSV",
			filepath.Join(dir, "single.html"), "HTML", filepath.Join(dir, "merged.html"), "HTML").Replace(s)
	}
	if clean(singleOut) != clean(mergeOut) {
		t.Errorf("merge prints otherwise:\n%s\n---\n%s", singleOut, mergeOut)
	}
	if csvIsDir {
		for _, f := range []string{"summary.csv", "key-figures.csv", "series-base.csv"} {
			if !bytes.Equal(mustRead(t, filepath.Join(singleCSV, f)), mustRead(t, filepath.Join(mergedCSV, f))) {
				t.Errorf("merged %s differs", f)
			}
		}
	} else if !bytes.Equal(mustRead(t, singleCSV), mustRead(t, mergedCSV)) {
		t.Error("merged sweep CSV differs")
	}
}

func TestShardMergeRunIsByteIdentical(t *testing.T) {
	dir := t.TempDir()
	a := tier(t, dir, "a.toml", "tier", 120)
	shardsAndMerge(t, 3, true, "run", a, "--replications", "4")
}

func TestShardMergeSweepIsByteIdentical(t *testing.T) {
	dir := t.TempDir()
	a := tier(t, dir, "a.toml", "tier", 120)
	shardsAndMerge(t, 4, false, "sweep", a, "--rate", "1,4,8", "--param", "workload.chat.client.max_concurrency=2,8",
		"--variants", "--replications", "2", "--duration", "2m")
	// The legacy step-load sweep too (one replication, no new flags).
	shardsAndMerge(t, 2, false, "sweep", a, "--concurrency", "1,2,4", "--duration", "2m")
}

func TestShardFromEnv(t *testing.T) {
	dir := t.TempDir()
	a := tier(t, dir, "a.toml", "tier", 120)
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	code, stdout, stderr := cli(t, "run", a, "--replications", "3", "--shard-from-env", "--shards", "2", "--part", filepath.Join(dir, "p-{shard}.json"))
	if code != exitOK || !strings.Contains(stdout, "shard 1/2: ran 3 of 6 work items; wrote "+filepath.Join(dir, "p-1.json")) {
		t.Errorf("exit %d: %s%s", code, stdout, stderr)
	}
	code, _, stderr = cli(t, "run", a, "--shard-from-env", "--part", filepath.Join(dir, "p.json"))
	if code != exitBadInput || !strings.Contains(stderr, "give --shards N") {
		t.Errorf("no --shards: exit %d: %s", code, stderr)
	}
}

func TestMergeErrorsExit2(t *testing.T) {
	dir := t.TempDir()
	a := tier(t, dir, "a.toml", "tier", 120)
	b := tier(t, dir, "b.toml", "tier", 240)
	part := func(file, shard string) string {
		p := filepath.Join(dir, filepath.Base(file)+"-"+strings.ReplaceAll(shard, "/", "of")+".json")
		if code, _, stderr := cli(t, "run", file, "-q", "--replications", "2", "--shard", shard, "--part", p); code != exitOK {
			t.Fatalf("shard %s: exit %d: %s", shard, code, stderr)
		}
		return p
	}
	a0, a1, a2 := part(a, "0/3"), part(a, "1/3"), part(a, "2/3")
	b1 := part(b, "1/3")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{a0, a2}, "missing shard 1 of 3"},
		{[]string{a0, a1, a1, a2}, "shard 1/3 given twice"},
		{[]string{a0, b1, a2}, "parts from different scenarios"},
		{[]string{a0, filepath.Join(dir, "nope.json")}, "nope.json"},
		{[]string{a}, "not a part file"},
		{nil, "merge needs the part files"},
	} {
		code, stdout, stderr := cli(t, append([]string{"merge", "-q"}, c.args...)...)
		if code != exitBadInput || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("merge %v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if code, _, stderr := cli(t, "merge", a0, a1, a2, "--html", filepath.Join(dir, "r.html"), "--no-html"); code != exitBadInput || !strings.Contains(stderr, "--html and --no-html") {
		t.Errorf("merge --html --no-html: exit %d: %s", code, stderr)
	}
	r := filepath.Join(dir, "r.html")
	if code, stdout, stderr := cli(t, "merge", a0, a1, a2, "--html", r); code != exitOK || !strings.Contains(stdout, "wrote "+r) ||
		!strings.Contains(string(mustRead(t, r)), "Means over 2 replications") {
		t.Errorf("merge --html: exit %d: %s%s", code, stdout, stderr)
	}
}

func TestBatchFlagErrors(t *testing.T) {
	dir := t.TempDir()
	a := tier(t, dir, "a.toml", "tier", 120)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", a, "--replications", "0"}, "--replications must be from 1"},
		{[]string{"run", a, "--shard", "0/2"}, "--part FILE"},
		{[]string{"run", a, "--part", "p.json"}, "add --shard I/N"},
		{[]string{"run", a, "--shard", "2/2", "--part", "p.json"}, "invalid shard index 2 of 2"},
		{[]string{"run", a, "--shard", "0/2", "--part", "p.json", "--json", "x.json"}, "--json is written by headroom merge"},
		{[]string{"sweep", a, "--rate", "1,2", "--shard", "0/2", "--part", "p.json", "--html", "x.html"}, "--html is written by headroom merge"},
		{[]string{"run", a, "--shard", "0/2", "--shard-from-env", "--part", "p.json"}, "not both"},
		{[]string{"run", a, "--shards", "2"}, "--shards goes with --shard-from-env"},
		{[]string{"sweep", a, "--param", "provider.api.limits.rpmm=1,2"}, `--param provider.api.limits.rpmm=1: unknown key "rpmm" under provider "api".limits; allowed: rpm,`},
		{[]string{"sweep", a, "--param", "provider.api.limits.rpm=60,-5"}, `--param provider.api.limits.rpm=-5: must be > 0`},
		{[]string{"sweep", a, "--param", "provider.api.limits.rpm"}, "expected KEY=V1,V2"},
		{[]string{"sweep", a, "--param", "a.b=1", "--param", "a.b=2"}, "swept twice"},
		{[]string{"sweep", a}, "--param KEY=V1,V2"},
		{[]string{"sweep", a, "--param", "provider.api.limits.rpm=60", "--workload", "chat"}, "add --concurrency or --rate"},
	} {
		code, stdout, stderr := cli(t, c.args...)
		if code != exitBadInput || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestSweepGrid(t *testing.T) {
	dir := t.TempDir()
	a := tier(t, dir, "a.toml", "tier", 120)
	out := filepath.Join(dir, "grid.json")
	code, stdout, stderr := cli(t, "sweep", a, "--param", "provider.api.limits.rpm=60,120,240", "--param", "workload.chat.client.max_concurrency=1,4",
		"--duration", "2m", "--json", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"sweep of provider.api.limits.rpm × workload.chat.client.max_concurrency (6 points)", "rpm  max_concurrency", "throughput req/s"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	var d report.SweepDocument
	if err := json.Unmarshal(mustRead(t, out), &d); err != nil {
		t.Fatal(err)
	}
	s := d.Sweep
	if s.Kind != "grid" || len(s.Params) != 2 || len(s.Points) != 6 || len(d.Variants) != 6 || len(d.Summary) != 6 || len(s.Curves) != 2 {
		t.Fatalf("kind %q, %d params, %d points, %d variants, %d summaries, %d curves", s.Kind, len(s.Params), len(s.Points), len(d.Variants), len(d.Summary), len(s.Curves))
	}
	if s.Points[3].Label != "rpm=120, max_concurrency=4" || d.Variants[3].Variant != s.Points[3].Label {
		t.Errorf("point 3: %+v, variant %q", s.Points[3], d.Variants[3].Variant)
	}
	// Along rpm with 4 connections, throughput grows with the limit.
	c := s.Curves[1]
	tp := c.Figures["requests_per_s"]
	if len(tp) != 3 || !(tp[0].Mean < tp[1].Mean && tp[1].Mean < tp[2].Mean) || c.Fixed[0] != "workload.chat.client.max_concurrency=4" {
		t.Errorf("curve %+v", c)
	}
	// The HTML report beside the JSON charts the curves against rpm.
	page := string(mustRead(t, filepath.Join(dir, "grid.html")))
	for _, want := range []string{"Sweep of provider.api.limits.rpm × workload.chat.client.max_concurrency over 6 points", "Per point",
		`id="chart-sweep-throughput"`, `id="chart-sweep-latency"`, "Throughput against provider.api.limits.rpm",
		"workload.chat.client.max_concurrency=4", "rpm=120, max_concurrency=4"} {
		if !strings.Contains(page, want) {
			t.Errorf("grid HTML lacks %q", want)
		}
	}
}

func TestCompareAndMergeHelp(t *testing.T) {
	for _, cmd := range []string{"compare", "merge"} {
		code, stdout, stderr := cli(t, cmd, "--help")
		if code != exitOK || stderr != "" || !strings.Contains(stdout, "Usage: headroom "+cmd) || !strings.Contains(stdout, "\nExamples:\n") {
			t.Errorf("%s --help: exit %d:\n%s%s", cmd, code, stdout, stderr)
		}
	}
	_, stdout, _ := cli(t, "--help")
	for _, cmd := range []string{"headroom compare", "headroom merge"} {
		if !strings.Contains(stdout, cmd) {
			t.Errorf("headroom --help does not list %s", cmd)
		}
	}
	_, stdout, _ = cli(t, "sweep", "--help")
	for _, flag := range []string{"--param", "--variants", "--replications", "--shard", "--shard-from-env", "--shards", "--part"} {
		if !strings.Contains(stdout, flag) {
			t.Errorf("sweep --help does not mention %s", flag)
		}
	}
}
