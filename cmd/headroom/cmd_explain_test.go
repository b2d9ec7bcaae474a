package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestWarningsOnStderrAndInTheResults: a provider without a latency model
// or prices is a warning on stderr (always, -q too), under the terminal
// summary and in the JSON's warnings; --strict makes it bad input.
func TestWarningsOnStderrAndInTheResults(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bare.toml")
	src := "duration = \"10m\"\n[[workload]]\nname = \"chat\"\nroute = \"api\"\ntokens = { input = 1000, output = 100 }\ndemand = { rate = 10, unit = \"requests/min\" }\nclient = { retry = \"openai-python\" }\n[[provider]]\nname = \"api\"\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "bare.json")
	// Once on stderr, whatever happens to stdout, and again under the table.
	want := "headroom: warning: " + path + `:8: provider "api".latency: no latency model`
	code, stdout, stderr := cli(t, "run", path, "--json", out, "--no-html")
	if code != exitOK || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "headroom: warning: ") != 2 || !strings.Contains(stdout, "Warnings (defaults that change the answer):\n  ! provider \"api\".latency: no latency model") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	code, _, stderr = cli(t, "run", path, "--json", "-", "--no-html")
	want = "headroom: warning: " + path + `:8: provider "api".latency: no latency model`
	if code != exitOK || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "headroom: warning: ") != 2 {
		t.Errorf("--json -: exit %d, stderr:\n%s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Warnings []struct{ Key, Message string }
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Warnings) != 2 || doc.Warnings[0].Key != `provider "api".latency` || doc.Warnings[1].Key != `provider "api".price` ||
		!strings.HasPrefix(doc.Warnings[1].Message, "no prices") {
		t.Errorf("JSON warnings: %+v", doc.Warnings)
	}
	if code, _, stderr := cli(t, "run", path, "-q"); code != exitOK || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "headroom: warning: ") != 2 {
		t.Errorf("-q: exit %d, stderr %q", code, stderr)
	}
	for _, cmd := range []string{"run", "validate"} {
		code, stdout, stderr := cli(t, cmd, path, "--strict")
		if code != exitBadInput || strings.Count(stderr, "headroom: warning: ") != 2 ||
			!strings.HasSuffix(stderr, "headroom: "+path+": --strict: the 2 warning(s) above are errors: give the keys they name\n") {
			t.Errorf("%s --strict: exit %d, stdout %q, stderr:\n%s", cmd, code, stdout, stderr)
		}
	}
}

func TestExplainAndSchema(t *testing.T) {
	code, stdout, stderr := cli(t, "explain", "provider.sonnet.limits.rpm")
	if code != exitOK || stderr != "" || !strings.HasPrefix(stdout, "provider.limits.rpm\n  requests per minute\n") {
		t.Errorf("explain: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = cli(t, "explain", "provider.limits.rmp")
	if code != exitBadInput || stdout != "" || !strings.Contains(stderr, `did you mean "rpm"?`) {
		t.Errorf("explain a typo: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// The rate's unit, how a bare number in a duration reads, and each
	// key's default in a table's listing.
	for _, c := range [][2]string{
		{"workload.demand.rate", "requests/min unless unit says otherwise"},
		{"workload.slo.ttft", "a bare number is read as seconds"},
		{"route", "overflow_waiting  integer: overflow: a target is full when this many requests wait at it (default 1)\n"},
		{"workload.client", "(default \"anthropic-python\", whatever the provider"},
	} {
		if code, stdout, _ := cli(t, "explain", c[0]); code != exitOK || !strings.Contains(stdout, c[1]) {
			t.Errorf("explain %s: exit %d, want %q in\n%s", c[0], code, c[1], stdout)
		}
	}
	code, stdout, stderr = cli(t, "schema")
	var s map[string]any
	if code != exitOK || stderr != "" || json.Unmarshal([]byte(stdout), &s) != nil || s["$schema"] != "http://json-schema.org/draft-07/schema#" {
		t.Errorf("schema: exit %d, stderr %q, %.200s", code, stderr, stdout)
	}
}

// TestNoSLOGoodput: without an SLO every completed request would count as
// good, so run, replications and sweep tables show "—" rather than
// 100%; the JSON says no_slo. With an SLO they show the share.
func TestNoSLOGoodput(t *testing.T) {
	const minimal = "../../testdata/good/minimal.toml"
	for _, args := range [][]string{
		{"run", minimal, "--set", `duration="10m"`},
		{"run", minimal, "--set", `duration="10m"`, "--replications", "2"},
	} {
		code, stdout, stderr := cli(t, args...)
		if code != exitOK || !regexp.MustCompile(`goodput \(SLO met\) +— \(no SLO\)\n`).MatchString(stdout) {
			t.Errorf("%v: exit %d, stderr %q, stdout:\n%s", args, code, stderr, stdout)
		}
		code, stdout, _ = cli(t, append(args, "--set", `workload.chat.slo.ttft="5s"`)...)
		if code != exitOK || strings.Contains(stdout, "no SLO") || !regexp.MustCompile(`goodput \(SLO met\) +100\.0%`).MatchString(stdout) {
			t.Errorf("%v with an SLO: exit %d, stdout:\n%s", args, code, stdout)
		}
	}
	code, stdout, stderr := cli(t, "sweep", minimal, "--rate", "1,2", "--duration", "10m")
	if code != exitOK || !strings.Contains(stdout, "SLO met") || strings.Contains(stdout, "100.0%") {
		t.Errorf("sweep: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	if code, _, stderr := cli(t, "run", minimal, "--set", `duration="10m"`, "--json", out, "--no-html"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(out)
	if !strings.Contains(string(b), `"no_slo": true`) {
		t.Errorf("JSON lacks no_slo")
	}
}

// TestOneErrorOneWording: a negative think mean is one error, in the
// words of think's range, every line marked headroom's; a retry preset
// named by its vendor suggests the vendor's SDKs; a mistyped command gets
// the suggestion and a one-line hint, not the whole help; a mistyped flag
// gets the nearest flag.
func TestOneErrorOneWording(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.toml")
	src := "[[workload]]\nname = \"chat\"\nroute = \"api\"\ntokens = { input = 1000, output = 100 }\n" +
		"demand = { users = 10, think = { dist = \"exponential\", mean = -5 } }\nclient = { retry = \"openai\" }\n\n[[provider]]\nname = \"api\"\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cli(t, "validate", path)
	want := "headroom: " + path + `:5: workload "chat".demand.think: mean: must be between 0 and 366d, got -5` + "\n" +
		"headroom: " + path + `:6: workload "chat".client.retry.preset: unknown retry preset "openai"; allowed: anthropic-go, anthropic-python, anthropic-typescript, google-genai, google-genai-retry, none, openai-go, openai-node, openai-python; did you mean "openai-go", "openai-node" or "openai-python"?` + "\n"
	if code != exitBadInput || stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"rn"}, "headroom: unknown command \"rn\" (did you mean \"run\"?); headroom help lists the commands\n"},
		{[]string{"run", "--jsn", "x.json"}, "headroom: unknown flag: --jsn (did you mean --json?)\n"},
		{[]string{"sweep", "--rat", "1,2"}, "headroom: unknown flag: --rat (did you mean --rate?)\n"},
		{[]string{"run", "--zzzzzz"}, "headroom: unknown flag: --zzzzzz (see headroom run --help for the flags)\n"},
	} {
		if code, stdout, stderr := cli(t, c.args...); code != exitBadInput || stdout != "" || stderr != c.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// TestCompareSharesInPoints: a difference of shares (goodput, refused
// attempts) is in percentage points, not percent.
func TestCompareSharesInPoints(t *testing.T) {
	dir := t.TempDir()
	src := "duration = \"10m\"\n[[workload]]\nname = \"chat\"\nroute = \"api\"\ntokens = { input = 1000, output = 100, max_tokens = 200 }\n" +
		"demand = { rate = %d, unit = \"requests/min\" }\nclient = { retry = \"openai-python\" }\nslo = { ttft = \"600ms\" }\n" +
		"[[provider]]\nname = \"api\"\nlatency = { ttft = { base = \"500ms\", dist = \"lognormal\", cv = 0.3 }, tpot = { mean = \"20ms\" } }\nprice = { input = 3, output = 15 }\n"
	var paths []string
	for _, n := range []int{10, 20} {
		p := filepath.Join(dir, fmt.Sprintf("r%d.toml", n))
		if err := os.WriteFile(p, []byte(fmt.Sprintf(src, n)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	code, stdout, stderr := cli(t, append([]string{"compare"}, append(paths, "--replications", "2", "--no-html")...)...)
	_, diff, _ := strings.Cut(stdout, "Difference from")
	if code != exitOK || !regexp.MustCompile(`goodput \(SLO met\) +[-+]?[0-9.]+ pts`).MatchString(diff) || regexp.MustCompile(`goodput \(SLO met\) +[-+]?[0-9.]+%`).MatchString(diff) {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}

// TestRefusedOneForm: refused attempts read as a count and its share of
// attempts in run, replications and sweep tables alike.
func TestRefusedOneForm(t *testing.T) {
	form := regexp.MustCompile(`refused attempts \(429/5xx\) +[0-9,]+( ± [0-9,]+)? \([0-9.]+%\)`)
	for _, args := range [][]string{
		{"run", "morning-peak", "--set", `duration="12h"`, "--no-html"},
		{"run", "morning-peak", "--set", `duration="12h"`, "--replications", "2", "--no-html"},
	} {
		code, stdout, stderr := cli(t, args...)
		if code != exitOK || !form.MatchString(stdout) || strings.Contains(stdout, "refused share of attempts") {
			t.Errorf("%v: exit %d, stderr %q, stdout:\n%s", args, code, stderr, stdout)
		}
	}
	page := filepath.Join(t.TempDir(), "r.html")
	if code, _, stderr := cli(t, "run", "morning-peak", "--set", `duration="12h"`, "--html", page, "-q"); code != exitOK {
		t.Fatalf("html: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(page); !regexp.MustCompile(`refused attempts \(429/5xx\)</t[hd]>\s*<td[^>]*>[^<]*?[0-9,]+ \([0-9.]+%\)`).Match(b) {
		i := strings.Index(string(b), "refused attempts (429/5xx)")
		t.Errorf("HTML table: %.300s", string(b)[max(i, 0):])
	}
	code, stdout, stderr := cli(t, "sweep", "morning-peak", "--param", "provider.sonnet.limits.itpm=400k,800k", "--set", `duration="12h"`)
	if code != exitOK || !regexp.MustCompile(`  [0-9,]+ \([0-9.]+%\) `).MatchString(stdout) {
		t.Errorf("sweep: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}
