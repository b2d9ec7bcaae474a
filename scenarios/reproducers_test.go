package scenarios_test

import (
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/scenarios"
)

// base is the smallest scenario; each reproducer adds to it.
const base = `[[workload]]
name = "chat"
route = "api"
tokens = { input = 1000, output = 100 }
demand = { rate = 10 }

[[provider]]
name = "api"
`

// TestNumbersReproducers: numbers that used to pass validation (NaN and
// infinities, which comparisons let through, and out-of-range values that
// were silently changed) are refused at their key, each with what is
// allowed.
func TestNumbersReproducers(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
	}{
		{"batch discount nan", strings.Replace(base, `route = "api"`, `route = "api"`+"\nlane = \"batch\"", 1) + "price = { batch_discount = nan }\n",
			`repro.toml:10: provider "api".price.batch_discount: must be a finite number, got nan`},
		{"prices 1e308", base + "price = { input = 1e308, output = 1e308 }\n",
			"repro.toml:9: provider \"api\".price.input: must be <= 1000000, got 1e+308\n" +
				"repro.toml:9: provider \"api\".price.output: must be <= 1000000, got 1e+308"},
		{"lognormal cv inf", base + "latency = { ttft = { base = \"1s\", dist = \"lognormal\", cv = inf } }\n",
			`repro.toml:9: provider "api".latency.ttft.cv: must be a finite number, got inf`},
		{"outage fraction nan", base + "[[provider.outage]]\nduration = \"1m\"\nfraction = nan\n",
			`repro.toml:11: provider "api".outage[0].fraction: must be a finite number, got nan`},
		{"weights nan", base + "limits = { tpm = 1000, weights = { input = nan } }\n",
			`repro.toml:9: provider "api".limits.weights.input: must be a finite number, got nan`},
		{"compute efficiency nan", strings.Replace(base, `route = "api"`, `route = "gpu"`, 1) +
			"[[cluster]]\nname = \"gpu\"\nreplicas = 1\ngpu = \"H100-SXM\"\nmodel = \"llama-3.1-8b\"\nstep = { compute_efficiency = nan }\n",
			`repro.toml:14: cluster "gpu".step.compute_efficiency: must be a finite number, got nan`},
		{"gpu_spec inf", strings.Replace(base, `route = "api"`, `route = "gpu"`, 1) +
			"[[cluster]]\nname = \"gpu\"\nreplicas = 1\ngpu = \"H100-SXM\"\nmodel = \"llama-3.1-8b\"\ngpu_spec = { tflops = inf }\n",
			`repro.toml:14: cluster "gpu".gpu_spec.tflops: must be a finite number, got inf`},
		{"seed -1", "seed = -1\n" + base, `repro.toml:1: seed: must be >= 0, got -1`},
		{"duration 0s", "duration = \"0s\"\n" + base, `repro.toml:1: duration: must be > 0 and at most 366 days, got 0s`},
		{"input 1e15", strings.Replace(base, "input = 1000", "input = 1e15", 1),
			`repro.toml:4: workload "chat".tokens.input: value: must be <= 1073741824, got 1e+15`},
		{"count 2.5", strings.Replace(base, "demand = { rate = 10 }", "demand = { count = 2.5 }", 1),
			`repro.toml:5: workload "chat".demand.count: expected an integer, got a float`},
		{"written zero replaced by a default", base + "[[provider.outage]]\nduration = \"1m\"\nfraction = 0\n",
			`repro.toml:11: provider "api".outage[0].fraction: must be a finite number > 0, got 0`},
	} {
		_, err := scenarios.LoadBytes([]byte(c.src), "repro.toml")
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.want)
		}
	}
}

// TestKeysWithoutEffectReproducers: keys that decoded but did nothing are
// refused where they stand.
func TestKeysWithoutEffectReproducers(t *testing.T) {
	for _, c := range []struct {
		name, add, want string
	}{
		{"ttft mean", `latency = { ttft = { base = "0s", dist = "exponential", mean = "1s" } }`,
			`repro.toml:9: provider "api".latency.ttft.mean: unknown key "mean"; allowed: base, per_input_token, dist, cv`},
		{"tpot per_input_token", `latency = { tpot = { mean = "20ms", per_input_token = "1ms" } }`,
			`repro.toml:9: provider "api".latency.tpot.per_input_token: unknown key "per_input_token"; allowed: mean, base, dist, cv`},
		{"cv on an exponential factor", `latency = { ttft = { base = "1s", dist = "exponential", cv = 2 } }`,
			`repro.toml:9: provider "api".latency.ttft.cv: applies to dist = "lognormal" only (a fixed factor is 1, an exponential one has cv 1)`},
		{"burst on a sliding window", `limits = { rpm = 100, window = "sliding", burst = "10s" }`,
			`repro.toml:9: provider "api".limits.burst: sizes a token bucket; a fixed or sliding window holds one window of the limit (quantum sets its length)`},
		{"weights without tpm", `limits = { rpm = 100, weights = { output = 4 } }`,
			`repro.toml:9: provider "api".limits.weights: weigh the tokens of tpm and tpd; set one of them`},
	} {
		_, err := scenarios.LoadBytes([]byte(base+c.add+"\n"), "repro.toml")
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.want)
		}
	}
}
