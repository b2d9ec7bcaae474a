package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/report"
)

// sweepCSV runs a sweep writing its table as CSV and returns the rows.
func sweepCSV(t *testing.T, args ...string) (rows []report.SweepRow, stdout string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sweep.csv")
	code, stdout, stderr := cli(t, append(append([]string{"sweep"}, args...), "--csv", path)...)
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("stderr not empty (no terminal, so no progress):\n%s", stderr)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("csv: %v", err)
		}
		return v
	}
	for _, r := range recs[1:] {
		rows = append(rows, report.SweepRow{Level: num(r[0]), RequestsPerS: num(r[1]), OutputTokensPerS: num(r[2]),
			TTFTP50: num(r[3]), TTFTP95: num(r[4]), TPOTP50: num(r[5]), E2EP95: num(r[6]), Rejected: int64(num(r[7])), Knee: r[8] == "true"})
	}
	return rows, stdout
}

// TestSweepRateBatchCurve: one replica whose static batch table plateaus at
// 64 / 0.548 s ≈ 116.8 req/s. Served requests/s follow min(rate, 116.8),
// TTFT climbs past the plateau, and the knee is the last level below it.
func TestSweepRateBatchCurve(t *testing.T) {
	rows, out := sweepCSV(t, "batch-curve", "--rate", "20,60,100,140,180", "--duration", "10m")
	if len(rows) != 5 {
		t.Fatalf("%d rows", len(rows))
	}
	const plateau = 64 / 0.548
	for _, r := range rows {
		want := math.Min(r.Level, plateau)
		if math.Abs(r.RequestsPerS-want) > 0.05*want {
			t.Errorf("rate %v: %.2f req/s, want about %.1f", r.Level, r.RequestsPerS, want)
		}
	}
	if last := rows[4].RequestsPerS; math.Abs(last-plateau) > 0.03*plateau {
		t.Errorf("at 180 req/s offered: %.2f req/s served, want within 3%% of %.1f", last, plateau)
	}
	if !(rows[3].TTFTP50 > 10*rows[2].TTFTP50 && rows[4].TTFTP50 > rows[3].TTFTP50) {
		t.Errorf("TTFT p50 does not climb past the plateau: %v, %v, %v", rows[2].TTFTP50, rows[3].TTFTP50, rows[4].TTFTP50)
	}
	for i, r := range rows {
		if r.Knee != (r.Level == 100) {
			t.Errorf("row %d (rate %v) knee %v; want the knee at 100", i, r.Level, r.Knee)
		}
	}
	for _, want := range []string{"Headroom sweep · batch-curve", `rate sweep of workload "evaluate"`, "10m per level",
		"offered req/s", "◀ knee", "Throughput flattens after 100 req/s; pick 100 req/s for interactive traffic."} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

// TestSweepConcurrencyLlama: closed-loop users against two H100 replicas.
// Throughput grows with concurrency (continuous batching) and TTFT with it.
func TestSweepConcurrencyLlama(t *testing.T) {
	rows, out := sweepCSV(t, "llama-h100", "--concurrency", "1..64x2", "--duration", "5m")
	if len(rows) != 7 || rows[0].Level != 1 || rows[6].Level != 64 {
		t.Fatalf("levels: %+v", rows)
	}
	first, last := rows[0], rows[6]
	if last.OutputTokensPerS < 5*first.OutputTokensPerS {
		t.Errorf("output tokens/s at 64 users %.0f, less than 5x the %.0f at 1", last.OutputTokensPerS, first.OutputTokensPerS)
	}
	if !(last.TTFTP50 > first.TTFTP50) {
		t.Errorf("TTFT p50 at 64 users %v, not above %v at 1", last.TTFTP50, first.TTFTP50)
	}
	for i := 1; i < len(rows); i++ {
		if rows[i].OutputTokensPerS < 0.9*rows[i-1].OutputTokensPerS {
			t.Errorf("output tokens/s fall from %.0f to %.0f at %v users", rows[i-1].OutputTokensPerS, rows[i].OutputTokensPerS, rows[i].Level)
		}
		if rows[i].Rejected != 0 {
			t.Errorf("%v users: %d refused attempts from an unlimited cluster", rows[i].Level, rows[i].Rejected)
		}
	}
	if !strings.Contains(out, `concurrency sweep of workload "chat" (closed loop, zero think time) · 5m per level · seed 7`) {
		t.Errorf("stdout:\n%s", out)
	}
}

func TestSweepJSONAndFlags(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "s.json")
	code, stdout, stderr := cli(t, "sweep", "email-launch", "--concurrency", "1,4", "--duration", "2m", "--seed", "3",
		"--set", "provider.frontier.limits.rpm=100", "--json", js, "--workers", "1")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "--set provider.frontier.limits.rpm=100") || !strings.Contains(stdout, "wrote "+js) || !strings.Contains(stdout, "seed 3") {
		t.Errorf("stdout:\n%s", stdout)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc report.SweepDocument
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != report.Schema || len(doc.Variants) != 2 || doc.Variants[1].Variant != "concurrency 4" || doc.Variants[1].Seed != 3 ||
		doc.Variants[1].DurationS != 120 || doc.Sweep.Kind != "concurrency" || doc.Sweep.Workload != "summarize" || len(doc.Sweep.Rows) != 2 ||
		doc.Scenario.Overrides[0] != "provider.frontier.limits.rpm=100" {
		t.Errorf("document: schema %q, sweep %+v", doc.Schema, doc.Sweep)
	}
	if doc.Variants[1].Workloads[0].Summary.Requests.InFlightAtEnd > 4 {
		t.Errorf("4 users, %d in flight at the end", doc.Variants[1].Workloads[0].Summary.Requests.InFlightAtEnd)
	}

	// --quiet prints nothing; the file is still written.
	csvPath := filepath.Join(dir, "q.csv")
	code, stdout, stderr = cli(t, "sweep", "batch-curve", "--rate", "10", "--duration", "1m", "--quiet", "--csv", csvPath)
	if code != exitOK || stdout != "" || stderr != "" {
		t.Errorf("quiet: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(csvPath); err != nil {
		t.Error(err)
	}
}

func TestSweepHelp(t *testing.T) {
	code, stdout, stderr := cli(t, "sweep", "--help")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"Usage: headroom sweep", "--concurrency", "--rate", "1..512x2", "10..100+10", "--duration", "10m",
		"The knee is the last level before", "less than 10%", "more than 25%", "Examples:", "headroom sweep llama-h100", "--workers"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, stdout)
		}
	}
}

func TestSweepBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"batch-curve"}, "sweep needs --concurrency LEVELS"},
		{[]string{"batch-curve", "--rate", "1", "--concurrency", "1"}, "not both"},
		{[]string{"batch-curve", "--rate", "4,2"}, "--rate: levels must increase"},
		{[]string{"batch-curve", "--concurrency", "1..8"}, "--concurrency: invalid range"},
		{[]string{"batch-curve", "--concurrency", "1.5"}, "whole numbers"},
		{[]string{"batch-curve", "--rate", "1", "--duration", "soon"}, "--duration soon"},
		{[]string{"batch-curve", "--rate", "1", "--duration", "0s"}, "must be > 0"},
		{[]string{"batch-curve", "--rate", "1", "--workload", "evaluat"}, `no workload named "evaluat"; have: evaluate`},
		{[]string{"batch-curve", "--rate", "1", "--set", "cluster.replica.replicass=2"}, "--set cluster.replica.replicass"},
		{[]string{"batch-curve", "--rate", "1", "--workers", "0"}, "--workers"},
		{[]string{"batch-curve", "llama-h100", "--rate", "1"}, "one scenario"},
		{[]string{"no-such-example", "--rate", "1"}, "no such file"},
		{[]string{"batch-curve", "--rate", "1", "--bogus"}, "unknown flag"},
	} {
		code, stdout, stderr := cli(t, append([]string{"sweep"}, c.args...)...)
		if code != exitBadInput || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("sweep %v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// A linked --param is one axis: three tiers, each setting RPM and TPM
// together, give three points (not nine), labelled and charted by both
// keys, with numbers printed as the summary prints them.
func TestSweepLinkedParam(t *testing.T) {
	js := filepath.Join(t.TempDir(), "tiers.json")
	code, stdout, stderr := cli(t, "sweep", "email-launch", "--duration", "2m", "--workers", "1", "--no-html",
		"--param", "provider.frontier.limits.rpm=1k,2k,4k; provider.frontier.limits.tpm=1M,2M,4000000", "--json", js)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"rpm  tpm", "1k  1M", "2k  2M", "4k  4M"} {
		if !strings.Contains(strings.Join(strings.Fields(stdout), "  "), want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "e+06") {
		t.Errorf("a number in exponent notation:\n%s", stdout)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc report.SweepDocument
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Sweep
	if len(s.Points) != 3 || len(s.Params) != 2 || !s.Params[1].Linked || s.Params[0].Linked || len(s.Curves) != 1 || len(s.Curves[0].Fixed) != 0 {
		t.Fatalf("sweep: %d points, params %+v, %d curves", len(s.Points), s.Params, len(s.Curves))
	}
	if s.Points[2].Label != "rpm=4k, tpm=4M" {
		t.Errorf("label %q", s.Points[2].Label)
	}
	for i, want := range []float64{1e6, 2e6, 4e6} {
		if lim := doc.Variants[i].Backends[0].Limits; len(lim) < 2 || lim[1].Limit != want || lim[0].Limit != want/1000 {
			t.Errorf("point %d: limits %+v, want rpm %v and tpm %v", i, lim, want/1000, want)
		}
	}
}

// TestSweepCapacityPicksTheCheapest: a sweep of a tier's rpm without a load
// level picks the smallest tier that holds the 9 a.m. peak (1,500
// requests/minute), not the largest; the terminal, the JSON and the HTML
// agree, and none of them speaks of a knee.
func TestSweepCapacityPicksTheCheapest(t *testing.T) {
	js := filepath.Join(t.TempDir(), "rpm.json")
	code, stdout, stderr := cli(t, "sweep", "salespeople-peak", "--duration", "3h", "--set", `start="08:00"`,
		"--set", "workload.evaluate-clients.client.pace.requests_per_min=0",
		"--param", "provider.fast-model.limits.rpm=1000..2000+500", "--json", js)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "Cheapest that holds: provider.fast-model.limits.rpm = 1.5k"; !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
	if strings.Contains(stdout, "knee") || strings.Contains(stdout, "highest") {
		t.Errorf("load-test wording in a capacity sweep:\n%s", stdout)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc report.SweepDocument
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Sweep
	if s.PickLevel == nil || *s.PickLevel != 1500 || s.KneeLevel != nil || s.PickRule != report.CheapestRule || !s.Points[1].Pick || s.Points[2].Pick {
		t.Fatalf("pick %v, knee %v, rule %q, points %+v", s.PickLevel, s.KneeLevel, s.PickRule, s.Points)
	}
	page, err := os.ReadFile(strings.TrimSuffix(js, ".json") + ".html")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "Cheapest that holds: provider.fast-model.limits.rpm = 1.5k") {
		t.Errorf("HTML headline lacks the pick")
	}
}
