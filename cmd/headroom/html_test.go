package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunHTMLBesideJSON: --json out/x.json also writes out/x.html, the same
// bytes on a second run; --no-html writes none; --html FILE goes there.
func TestRunHTMLBesideJSON(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "mp.json")
	args := append([]string{"run", "--json", js, "-q"}, short...)
	if code, _, stderr := cli(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "mp.html"))
	if err != nil {
		t.Fatalf("no HTML beside the JSON: %v", err)
	}
	for _, want := range []string{"<title>morning-peak · Headroom</title>", `id="chart-demand"`, "already holds", "SLO ttft ≤ 5.0s: assistant"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if code, _, stderr := cli(t, args...); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	again, _ := os.ReadFile(filepath.Join(dir, "mp.html"))
	if string(again) != string(page) {
		t.Error("the same run wrote different HTML")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}

	noHTML := filepath.Join(dir, "quiet.json")
	if code, _, stderr := cli(t, append([]string{"run", "--json", noHTML, "--no-html", "-q"}, short...)...); code != 0 {
		t.Fatalf("--no-html: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "quiet.html")); !os.IsNotExist(err) {
		t.Errorf("--no-html wrote quiet.html (%v)", err)
	}

	other := filepath.Join(dir, "sub", "report.html")
	code, stdout, stderr := cli(t, append([]string{"run", "--base-only", "--html", other}, short...)...)
	if code != 0 {
		t.Fatalf("--html: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(other); err != nil || !strings.Contains(stdout, "wrote "+other) {
		t.Errorf("--html did not write %s (%v); stdout:\n%s", other, err, stdout)
	}
}

func TestRunHTMLConflictingFlags(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := cli(t, "run", "--html", filepath.Join(dir, "a.html"), "--no-html")
	if code != exitBadInput || !strings.Contains(stderr, "--html and --no-html") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if files, _ := os.ReadDir(dir); len(files) > 0 {
		t.Errorf("bad input wrote files: %v", files)
	}
}

func TestSweepHTML(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "sweep.json")
	code, _, stderr := cli(t, "sweep", "batch-curve", "--rate", "20,60,100,140", "--duration", "2m", "--json", js, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "sweep.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rate sweep", `id="chart-sweep-throughput"`, `id="chart-sweep-latency"`, "offered requests/s"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("sweep HTML lacks %q", want)
		}
	}
}

// TestCompareHTMLIntervals: compare --replications writes the HTML beside
// the JSON with intervals and paired differences from the summary.
func TestCompareHTMLIntervals(t *testing.T) {
	dir := t.TempDir()
	a := tier(t, dir, "a.toml", "tier", 120)
	b := tier(t, dir, "b.toml", "tier", 240)
	js := filepath.Join(dir, "cmp.json")
	code, stdout, stderr := cli(t, "compare", a, b, "--replications", "3", "--json", js)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	html := filepath.Join(dir, "cmp.html")
	if !strings.Contains(stdout, "wrote "+html) {
		t.Errorf("stdout does not say it wrote %s:\n%s", html, stdout)
	}
	page := string(mustRead(t, html))
	for _, want := range []string{"Key figures, variants side by side", "Means over 3 replications", "<small>[", "Δ ", "3 replications"} {
		if !strings.Contains(page, want) {
			t.Errorf("compare HTML lacks %q", want)
		}
	}
}
