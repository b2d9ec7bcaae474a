package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWarningsFromOverridesAndInputs: the warnings for an unpriced prompt
// cache, a tpm limit that exempts cache reads and a rate curve that stops
// early reach stderr with file, line and key, and --strict makes them bad
// input (exit 2); a bare number given for a duration by --set or --param
// warns as in a file, and fails --strict, while sweep's --duration does
// not.
func TestWarningsFromOverridesAndInputs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bot.toml")
	src := `duration = "2m"
[[workload]]
name = "bot"
route = "gpt"
tokens = { input = 3000, output = 100, max_tokens = 200, shared_prefix = 1800 }
demand = { rate = 10, unit = "requests/min" }
client = { retry = "openai-python" }

[[provider]]
name = "gpt"
limits = { rpm = 5000, tpm = 2000000, cache_reads_count = true }
latency = { ttft = { base = "500ms" }, tpot = { mean = "20ms" } }
price = { input = 2.5, output = 10, cache_read = 1.25, cache_write = 2.5 }
`
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(src)
	if code, _, stderr := cli(t, "validate", path, "--strict"); code != exitOK || stderr != "" {
		t.Fatalf("a scenario that gives its defaults: exit %d, stderr %q", code, stderr)
	}
	write(strings.NewReplacer(", cache_reads_count = true", "", ", cache_read = 1.25", "", `duration = "2m"`, `duration = "2h"`,
		"rate = 10,", "hourly = [10],").Replace(src))
	code, _, stderr := cli(t, "validate", path, "--strict")
	for _, want := range []string{
		"headroom: warning: " + path + `:6: workload "bot".demand.hourly: the 1 hourly values from 00:00 cover 1h, but the horizon ends 2h after 00:00: no requests arrive in its last 1h`,
		"headroom: warning: " + path + `:11: provider "gpt".limits.tpm: the prompt cache is on and workload "bot" sends a 1800-token shared prefix, and cache reads are exempt from tpm by default`,
		"headroom: warning: " + path + `:13: provider "gpt".price: the prompt cache is on and workload "bot" sends a 1800-token shared prefix, but cache_read is not priced`,
		"headroom: " + path + ": --strict: the 3 warning(s) above are errors",
	} {
		if code != exitBadInput || !strings.Contains(stderr, want) {
			t.Errorf("validate --strict: exit %d, want %q in\n%s", code, want, stderr)
		}
	}

	write(src)
	bare := `a bare number is read as seconds: 15 is 15s; write "15ms" or "15s" to say which`
	code, stdout, stderr := cli(t, "run", path, "-q", "--strict", "--set", "provider.gpt.latency.tpot.mean=15")
	if code != exitBadInput || stdout != "" || !strings.Contains(stderr, "headroom: warning: "+path+": --set provider.gpt.latency.tpot.mean: "+bare) {
		t.Errorf("run --set --strict: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	if code, _, stderr := cli(t, "run", path, "-q", "--strict", "--no-html", "--set", "provider.gpt.latency.tpot.mean=15ms"); code != exitOK || stderr != "" {
		t.Errorf("run --set 15ms --strict: exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = cli(t, "sweep", path, "-q", "--strict", "--no-html", "--param", "provider.gpt.latency.tpot.mean=15,20ms")
	if code != exitBadInput || !strings.Contains(stderr, "headroom: warning: "+path+": --param provider.gpt.latency.tpot.mean=15: "+bare) ||
		strings.Contains(stderr, "=20ms") {
		t.Errorf("sweep --param --strict: exit %d, stderr:\n%s", code, stderr)
	}
	if code, _, stderr := cli(t, "sweep", path, "-q", "--strict", "--no-html", "--duration", "1m", "--param", "provider.gpt.limits.rpm=100,200"); code != exitOK || stderr != "" {
		t.Errorf("sweep --duration 1m --strict: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestRunWarningsOnStderr: run prints a scenario's warnings on stderr
// exactly once whatever happens to stdout (-q, --json, stdout thrown
// away), and the terminal summary lists them again under the table;
// compare and sweep do the same.
func TestRunWarningsOnStderr(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "free.toml")
	src := `duration = "2m"
[[workload]]
name = "chat"
route = "api"
tokens = { input = 1000, output = 100, max_tokens = 200 }
demand = { rate = 10, unit = "requests/min" }
client = { retry = "anthropic-python" }

[[provider]]
name = "api"
latency = { ttft = { base = "500ms" }, tpot = { mean = "20ms" } }
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	warning := "headroom: warning: " + path + `:9: provider "api".price: no prices`
	for _, args := range [][]string{
		{"run", path},
		{"run", path, "-q"},
		{"run", path, "--json", filepath.Join(dir, "out.json"), "--no-html"},
		{"run", path, "-q", "--json", filepath.Join(dir, "out2.json"), "--no-html"},
		{"compare", path, path, "-q"},
		{"sweep", path, "-q", "--param", "workload.chat.demand.rate=5,10"},
	} {
		code, stdout, stderr := cli(t, args...)
		want := 1 // once per scenario file
		if args[0] == "compare" {
			want = 2
		}
		if code != exitOK || strings.Count(stderr, "headroom: warning: ") != want || strings.Count(stderr, warning) != want {
			t.Errorf("%v: exit %d, want the warning once on stderr (twice for compare, once per file), got:\n%s", args, code, stderr)
		}
		listed := strings.Contains(stdout, "Warnings (defaults that change the answer):") && strings.Contains(stdout, `provider "api".price: no prices`)
		if quiet := strings.Contains(strings.Join(args, " "), "-q"); quiet == listed {
			t.Errorf("%v: the table lists the warnings %v, want %v; stdout:\n%s", args, listed, !quiet, stdout)
		}
	}
}

// TestServeAndPlanWarnings: serve and plan print a file's and --set's
// warnings on stderr, once each, as run does, and --strict makes them bad
// input (exit 2) before anything listens or runs.
func TestServeAndPlanWarnings(t *testing.T) {
	bare := `a bare number is read as seconds: 1 is 1s; write "1ms" or "1s" to say which`
	src := mmcScenario(0.5, 0.25, strings.Replace(staffingPlan, `range = "1..12"`, `range = "1..3"`, 1))
	src = strings.Replace(src, "prices = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]", "prices = [10, 20, 30]", 1)
	file := writeScenario(t, src)
	set := "provider.server.latency.ttft.base=1"
	want := "headroom: warning: " + file + ": --set provider.server.latency.ttft.base: " + bare
	for _, cmd := range []string{"serve", "plan"} {
		code, stdout, stderr := cli(t, cmd, file, "--strict", "--set", set, "--listen", "127.0.0.1:0")
		if cmd == "plan" {
			code, stdout, stderr = cli(t, cmd, file, "--strict", "--set", set)
		}
		if code != exitBadInput || stdout != "" || strings.Count(stderr, want) != 1 || !strings.Contains(stderr, "--strict: the 1 warning(s) above are errors") {
			t.Errorf("%s --strict: exit %d, stdout %q, stderr:\n%s", cmd, code, stdout, stderr)
		}
	}
	code, _, stderr := cli(t, "plan", file, "-q", "--set", set)
	if code != exitOK || strings.Count(stderr, want) != 1 || strings.Count(stderr, "warning") != 1 {
		t.Errorf("plan: exit %d, want the warning once in stderr:\n%s", code, stderr)
	}
	if code, _, stderr := cli(t, "plan", file, "-q", "--strict"); code != exitOK || stderr != "" {
		t.Errorf("plan --strict with no warning: exit %d, stderr:\n%s", code, stderr)
	}
}
