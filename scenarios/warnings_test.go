package scenarios_test

import (
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/scenarios"
)

// TestWarnings: a provider without a latency model or prices, a cluster
// without a price and a workload whose max_tokens defaults into a
// reservation are each named, at their line; a scenario that gives them
// all has none; a variant's own are marked with it.
func TestWarnings(t *testing.T) {
	base := strings.Replace(strings.Replace(base, "rate = 10 }", `rate = 10, unit = "requests/min" }`, 1),
		"\n\n[[provider]]", "\nclient = { retry = \"openai-python\" }\n[[provider]]", 1)
	warnings := func(src string, sets ...scenarios.Override) []string {
		t.Helper()
		sc, err := scenarios.LoadBytes([]byte(src), "w.toml")
		if err != nil {
			t.Fatal(err)
		}
		ws, err := sc.Warnings(sets)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, w := range ws {
			out = append(out, w.String())
		}
		return out
	}
	got := warnings(base + "limits = { otpm = 10000 }\n")
	want := []string{
		`w.toml:7: provider "api".latency: no latency model: the provider answers at once, so TTFT and E2E show only waiting; give [provider.latency] ttft and tpot`,
		`w.toml:7: provider "api".price: no prices: its tokens cost nothing, so the cost leaves it out; give [provider.price] input and output (USD per million tokens)`,
		`w.toml:4: workload "chat".tokens: no max_tokens: each request reserves provider "api"'s max_output (4096 tokens) against its output limits at admission; give tokens.max_tokens, what the client sends`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	full := strings.Replace(base, "output = 100 }", "output = 100, max_tokens = 200 }", 1) +
		"latency = { ttft = { base = \"1s\" }, tpot = { mean = \"20ms\" } }\nprice = { input = 3, output = 15 }\n" +
		"[[variant]]\nname = \"free\"\nset = { \"provider.api.price\" = { input = 0, output = 0 } }\n"
	if got := warnings(full); len(got) != 1 || !strings.HasPrefix(got[0], `w.toml:13: variant "free": provider "api".price: no prices`) {
		t.Errorf("a variant's own warning: %q", got)
	}
	if got := warnings(strings.Replace(full, "input = 0, output = 0", "input = 1", 1)); len(got) != 0 {
		t.Errorf("with every default given: %q", got)
	}
	cluster := strings.Replace(base, `route = "api"`, `route = "gpu"`, 1) +
		"[[cluster]]\nname = \"gpu\"\nreplicas = 1\ngpu = \"H100-SXM\"\nmodel = \"llama-3.1-8b\"\n"
	if got := warnings(cluster); len(got) != 3 || !strings.Contains(got[2], `cluster "gpu".price: no price: its GPUs cost nothing`) {
		t.Errorf("a cluster without a price: %q", got)
	}
}

// TestWarningsSilentDefaults: an open-loop rate without a unit (read per
// minute), a client without a retry policy (the Anthropic Python SDK's)
// and a duration written as a bare number (seconds) are each named at
// their line; giving the unit, the preset and "5000ms" silences them.
func TestWarningsSilentDefaults(t *testing.T) {
	src := "[[workload]]\nname = \"chat\"\nroute = \"api\"\ntokens = { input = 1000, output = 100, max_tokens = 200 }\n" +
		"demand = { rate = 10 }\nslo = { ttft = 5000 }\n\n[[provider]]\nname = \"api\"\n" +
		"latency = { ttft = { base = \"1s\" }, tpot = { mean = \"20ms\" } }\nprice = { input = 3, output = 15 }\n"
	got := func(src string) string {
		t.Helper()
		sc, err := scenarios.LoadBytes([]byte(src), "w.toml")
		if err != nil {
			t.Fatal(err)
		}
		ws, _ := sc.Warnings(nil)
		var out []string
		for _, w := range ws {
			out = append(out, w.String())
		}
		return strings.Join(out, "\n")
	}
	all := got(src)
	for _, want := range []string{
		`w.toml:5: workload "chat".demand.rate: no unit: rate is read in requests/min`,
		`workload "chat".client: no retry: the client retries as the Anthropic Python SDK does`,
		`"openai-python"`,
		`w.toml:6: workload "chat".slo.ttft: a bare number is read as seconds: 5000 is 1h23m20s; write "5000ms" or "5000s"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in\n%s", want, all)
		}
	}
	fixed := strings.NewReplacer("rate = 10 }", `rate = 10, unit = "requests/s" }`, "ttft = 5000", `ttft = "5000ms"`,
		"\n\n[[provider]]", "\nclient = { retry = \"openai-python\" }\n[[provider]]").Replace(src)
	if w := got(fixed); w != "" {
		t.Errorf("with unit, retry and a duration string: %s", w)
	}
	if w := got(strings.Replace(fixed, `ttft = "5000ms"`, "ttft = 0", 1)); w != "" {
		t.Errorf("0 is 0 in any unit: %s", w)
	}
}
