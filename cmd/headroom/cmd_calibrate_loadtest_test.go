package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/scenarios"
)

const loadtestData = "../../model/loadtest/testdata/"

// TestCalibrateHostedFromLoadTests: load-test results fit a hosted API's
// latency and print a [provider.latency] block that a scenario accepts.
func TestCalibrateHostedFromLoadTests(t *testing.T) {
	code, stdout, stderr := cli(t, "calibrate", loadtestData+"vllm_rate4.json", loadtestData+"llmperf-c2_individual_responses.json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"load level(s) read", "LLMPerf's inter_token_latency_s includes the first token", "[provider.latency]", "ttft = { base = "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	block := stdout[strings.Index(stdout, "[provider.latency]"):]
	src := "[[workload]]\nname = \"chat\"\nroute = \"api\"\ntokens = { input = 1000, output = 100 }\ndemand = { rate = 10 }\n\n[[provider]]\nname = \"api\"\n" + block
	if _, err := scenarios.LoadBytes([]byte(src), "pasted.toml"); err != nil {
		t.Errorf("the printed block does not load: %v\n%s", err, src)
	}
}

// TestCalibrateClusterFromLoadTests: with --target cluster the levels feed
// the step-model fit.
func TestCalibrateClusterFromLoadTests(t *testing.T) {
	code, stdout, stderr := cli(t, "calibrate", loadtestData+"guidellm_report.json", "--target", "cluster", "--kind", "table")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"decode, 6.0 in flight decoding (Little's law)", "prefill of 1000 tokens", "[cluster.step]"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

func TestCalibrateLoadTestBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte("{\n  \"mean_ttft_ms\": \"soon\"\n}"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"calibrate", bad}, "bad.json:2: mean_ttft_ms: expected a number"},
		{[]string{"calibrate", loadtestData + "vllm_inf.json", "--target", "gpu"}, `--target "gpu"`},
		{[]string{"calibrate", loadtestData + "vllm_inf.json", "--target", "hosted", "--gpu", "H100-SXM"}, "describe a self-hosted engine"},
		{[]string{"calibrate", loadtestData + "vllm_inf.json", "--format", "guidellm"}, "looks like vllm output"},
		{[]string{"calibrate", "../../model/perf/testdata/steps_example.csv", "--target", "hosted"}, "--target applies to load-test results"},
	}
	for _, c := range cases {
		code, _, stderr := cli(t, c.args...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
}

// TestCalibrateWritesExamplesForm: the fitted latency block writes TPOT as
// the examples do (mean), and --format's help lists every format it takes.
func TestCalibrateWritesExamplesForm(t *testing.T) {
	code, stdout, stderr := cli(t, "calibrate", "../../model/loadtest/testdata/vllm_rate4.json")
	if code != exitOK || !strings.Contains(stdout, "tpot = { mean = ") || strings.Contains(stdout, "tpot = { base") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	_, stdout, _ = cli(t, "calibrate", "--help")
	for _, f := range []string{"splitwise", "steps", "vidur", "vllm", "guidellm", "llmperf", "genai-perf"} {
		if !regexp.MustCompile(`--format FORMAT .*\b` + f + `\b`).MatchString(stdout) {
			t.Errorf("--format help lacks %s", f)
		}
	}
}
