package scenarios_test

import (
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/scenarios"
	"github.com/headroom-sim/headroom/workloads"
)

// quiet is a scenario that gives every default the warnings name: a
// support bot on an OpenAI-style tier with a priced prompt cache.
const quiet = `[[workload]]
name = "bot"
route = "gpt"
tokens = { input = { dist = "lognormal", median = 2500, p95 = 6000 }, output = 250, max_tokens = 800, shared_prefix = 1800 }
demand = { rate = 10, unit = "requests/min" }
client = { retry = "openai-python" }

[[provider]]
name = "gpt"
limits = { rpm = 5000, tpm = 2000000, cache_reads_count = true }
latency = { ttft = { base = "500ms" }, tpot = { mean = "20ms" } }
price = { input = 2.5, output = 10, cache_read = 1.25, cache_write = 2.5 }
`

// warningsOf loads src as w.toml and returns its warnings with overrides
// and sweep parameters, one per line.
func warningsOf(t *testing.T, src string, sets []scenarios.Override, params ...scenarios.Param) string {
	t.Helper()
	sc, err := scenarios.LoadBytes([]byte(src), "w.toml")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := sc.Warnings(sets, params...)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, w := range ws {
		out = append(out, w.String())
	}
	return strings.Join(out, "\n")
}

// edits applies old→new replacements to quiet, failing when one is not
// there (so a test cannot pass on a scenario it did not change).
func edits(t *testing.T, pairs ...string) string {
	t.Helper()
	src := quiet
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(src, pairs[i]) {
			t.Fatalf("%q not in the scenario", pairs[i])
		}
		src = strings.Replace(src, pairs[i], pairs[i+1], 1)
	}
	return src
}

func TestWarningsQuietScenario(t *testing.T) {
	if w := warningsOf(t, quiet, nil); w != "" {
		t.Fatalf("a scenario that gives every default warns:\n%s", w)
	}
}

// TestWarningsUnpricedCache: a provider whose prompt cache is on and
// holds a workload's shared prefix, with input priced but cache_read or
// cache_write not, bills those tokens at $0: named at the price's line.
// Writing the price, turning the cache off, a prefix shorter than
// min_tokens or a provider without prices at all silences it.
func TestWarningsUnpricedCache(t *testing.T) {
	const at = `w.toml:12: provider "gpt".price: the prompt cache is on and workload "bot" sends a 1800-token shared prefix, but `
	for _, c := range []struct{ name, src, want string }{
		{"no cache_read", edits(t, ", cache_read = 1.25", ""), at + "cache_read is not priced: tokens read from the cache cost nothing; give price.cache_read (OpenAI bills cache writes at the input price and reads at 0.1× to 0.5× of it, Anthropic writes at 1.25× and reads at 0.1×), or cache.enabled = false"},
		{"no cache_write", edits(t, ", cache_write = 2.5", ""), at + "cache_write is not priced: tokens written to the cache cost nothing, not the input price; give price.cache_write ("},
		{"neither", edits(t, ", cache_read = 1.25, cache_write = 2.5", ""), at + "cache_read and cache_write are not priced: tokens read from or written to the cache cost nothing; give price.cache_read and price.cache_write ("},
		{"through a route", edits(t, `route = "gpt"`, `route = "main"`, ", cache_read = 1.25", "") + "[[route]]\nname = \"main\"\nstrategy = \"fallback\"\ntargets = [\"gpt\"]\n",
			`provider "gpt".price: the prompt cache is on and workload "bot" sends`},
		{"a 1h TTL wants cache_write_1h", edits(t, ", cache_write = 2.5", ", cache_write_1h = 5") + "cache = { ttl = \"1h\" }\n", ""},
		{"a 5m TTL wants cache_write", edits(t, ", cache_write = 2.5", ", cache_write_1h = 5"), at + "cache_write is not priced"},
		{"cache off", edits(t, ", cache_read = 1.25, cache_write = 2.5", "") + "cache = { enabled = false }\n", ""},
		{"prefix below min_tokens", edits(t, ", cache_read = 1.25", "", "shared_prefix = 1800", "shared_prefix = 1000"), ""},
		{"written as 0", edits(t, "cache_read = 1.25", "cache_read = 0"), ""},
		{"the batch lane (no cache)", edits(t, `route = "gpt"`, "route = \"gpt\"\nlane = \"batch\"", ", cache_read = 1.25", ""), ""},
	} {
		got := warningsOf(t, c.src, nil)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: got\n%s\nwant %q", c.name, got, c.want)
		}
	}
	// No prices at all is the "no prices" warning alone.
	got := warningsOf(t, edits(t, "price = { input = 2.5, output = 10, cache_read = 1.25, cache_write = 2.5 }\n", ""), nil)
	if !strings.Contains(got, "no prices") || strings.Contains(got, "not priced") {
		t.Errorf("no prices: %s", got)
	}
}

// TestWarningsCacheReadsOnTPM: a tpm limit on a provider whose cache can
// hit, without cache_reads_count, exempts cache reads where OpenAI counts
// them: named at the tpm line, for the provider and for a key; writing
// true or false, weights (which price cache reads themselves) or a cache
// that cannot hit silences it.
func TestWarningsCacheReadsOnTPM(t *testing.T) {
	want := `w.toml:10: provider "gpt".limits.tpm: the prompt cache is on and workload "bot" sends a 1800-token shared prefix, and cache reads are exempt from tpm by default (as from Anthropic's ITPM, and as Bedrock settles them), but OpenAI counts cached prompt tokens toward TPM; write cache_reads_count = true (OpenAI) or false to say which`
	if got := warningsOf(t, edits(t, ", cache_reads_count = true", ""), nil); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, c := range []struct{ name, src string }{
		{"false", edits(t, "cache_reads_count = true", "cache_reads_count = false")},
		{"weights", edits(t, "cache_reads_count = true", "weights = { input = 1, cached_input = 0.5, output = 1 }")},
		{"itpm only", edits(t, "tpm = 2000000, cache_reads_count = true", "itpm = 2000000")},
		{"no prefix", edits(t, ", shared_prefix = 1800", "", ", cache_reads_count = true", "")},
	} {
		if got := warningsOf(t, c.src, nil); got != "" {
			t.Errorf("%s: %s", c.name, got)
		}
	}
	key := edits(t, `route = "gpt"`, "route = \"gpt\"\nkey = \"team\"") + "[[provider.key]]\nname = \"team\"\nlimits = { tpm = 100000 }\n"
	if got := warningsOf(t, key, nil); !strings.HasPrefix(got, `w.toml:16: provider "gpt".key "team".limits.tpm: the prompt cache is on`) {
		t.Errorf("a key's tpm: %s", got)
	}
}

// TestWarningsSuspiciousInput: valid values that are probably slips are
// named at their key: a rate curve that stops early or runs past the
// horizon, a shared prefix above most prompts, max_tokens below most
// answers, a price per token, a cache read above the input price.
func TestWarningsSuspiciousInput(t *testing.T) {
	hours := func(n int, last string) string {
		v := make([]string, n)
		for i := range v {
			v[i] = "5"
		}
		v[n-1] = last
		return "hourly = [" + strings.Join(v, ", ") + "]"
	}
	day := func(extra string, n int, last string) string {
		return edits(t, "rate = 10", hours(n, last)+extra)
	}
	for _, c := range []struct{ name, src, want string }{
		{"23 for a day", day("", 23, "5"), `w.toml:5: workload "bot".demand.hourly: the 23 hourly values from 00:00 cover 23h, but the horizon ends 24h after 00:00: no requests arrive in its last 1h; write a value (0 for none) for each hour up to the end, or repeat = true`},
		{"23 ending in 0", day("", 23, "0"), ""},
		{"24", day("", 24, "5"), ""},
		{"25", day("", 25, "5"), `w.toml:5: workload "bot".demand.hourly: the 25 hourly values from 00:00 cover 25h, but the horizon ends 24h after 00:00: the last is never used; remove it, or lengthen duration`},
		{"27", day("", 27, "5"), "the 27 hourly values from 00:00 cover 27h, but the horizon ends 24h after 00:00: the last 3 are never used; remove them, or lengthen duration"},
		{"25, the last 0", day("", 25, "0"), ""},
		{"25 linear: the last ends the ramp", day(`, shape = "linear"`, 25, "5"), ""},
		{"a day's values for 4 hours", "duration = \"4h\"\n" + day("", 24, "5"), ""},
		{"from 08:00 to 19:00 of a day", day(`, from = "08:00"`, 11, "5"), "the 11 hourly values from 08:00 cover 11h, but the horizon ends 16h after 08:00: no requests arrive in its last 5h"},
		{"11 from 08:00, 07:00 to 19:00", "duration = \"12h\"\nstart = \"07:00\"\n" + day(`, from = "08:00"`, 11, "5"), ""},
		{"23 repeated over two days", "duration = \"48h\"\n" + day(", repeat = true", 23, "5"), "the 23 hourly values from 00:00 repeat every 23h, which does not divide a day, so each repeat starts at another time of day"},
		{"24 repeated", "duration = \"48h\"\n" + day(", repeat = true", 24, "5"), ""},
		{"12 repeated", "duration = \"48h\"\n" + day(", repeat = true", 12, "5"), ""},
		{"a curve short of the hour", "duration = \"1h\"\n" + edits(t, "rate = 10", `curve = [1, 2, 3], every = "15m"`), "the 3 curve values every 15m from 00:00 cover 45m, but the horizon ends 1h after 00:00: no requests arrive in its last 15m; write a value (0 for none) for each 15m up to the end"},
		{"shared prefix above the median", edits(t, "shared_prefix = 1800", "shared_prefix = 18000"), `w.toml:4: workload "bot".tokens.shared_prefix: 18000 tokens is more than the input's median (2500 tokens), so more than half the prompts are raised to 18000 tokens`},
		{"max_tokens below the median", edits(t, "max_tokens = 800", "max_tokens = 10"), `w.toml:4: workload "bot".tokens.max_tokens: 10 tokens is less than the output's median (250 tokens), so more than half the answers are cut to 10 tokens`},
		{"a price per token", edits(t, "input = 2.5,", "input = 0.0000025,", "cache_read = 1.25", "cache_read = 0.000001", "cache_write = 2.5", "cache_write = 0.0000025"),
			`w.toml:12: provider "gpt".price.input: 0.0000025 USD per million tokens is below $0.001 per million: prices are per million tokens, so if $0.0000025 is per token, write 2.5`},
		{"cache_read above input", edits(t, "cache_read = 1.25", "cache_read = 12.5"), `w.toml:12: provider "gpt".price.cache_read: 12.5 is above input (2.5): reading a token from the cache costs more than sending it uncached`},
	} {
		got := warningsOf(t, c.src, nil)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: got\n%s\nwant %q", c.name, got, c.want)
		}
	}
}

// TestWarningsOverrideDurations: a bare number given for a duration by
// --set, a variant's set or --param is named at the override, as one in
// the file is; "15ms", a flag's parsed duration (a workloads.Duration) and
// 0 are not; a file's bare value that --set replaces no longer warns.
func TestWarningsOverrideDurations(t *testing.T) {
	const tpot = "provider.gpt.latency.tpot.mean"
	bare := `a bare number is read as seconds: 15 is 15s; write "15ms" or "15s" to say which`
	for _, c := range []struct {
		name string
		sets []scenarios.Override
		want string
	}{
		{"--set", []scenarios.Override{{Path: tpot, Value: int64(15)}}, "w.toml: --set " + tpot + ": " + bare},
		{"--set a table", []scenarios.Override{{Path: "provider.gpt.latency", Value: map[string]any{"tpot": map[string]any{"mean": 15.0}}}},
			`w.toml: --set provider.gpt.latency: provider "gpt".latency.tpot.mean: ` + bare},
		{"--set a string", []scenarios.Override{{Path: tpot, Value: "15ms"}}, ""},
		{"--set 0", []scenarios.Override{{Path: tpot, Value: int64(0)}}, ""},
		{"a flag's duration", []scenarios.Override{{Path: "duration", Value: workloads.Duration(600)}}, ""},
		{"--set a number of requests", []scenarios.Override{{Path: "provider.gpt.limits.rpm", Value: int64(15)}}, ""},
	} {
		if got := warningsOf(t, quiet, c.sets); c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: got\n%s\nwant %q", c.name, got, c.want)
		}
	}
	// A variant's set, at its line; the base does not warn.
	v := quiet + "[[variant]]\nname = \"slow\"\nset = { \"" + tpot + "\" = 15 }\n"
	if got, want := warningsOf(t, v, nil), `w.toml:15: variant "slow" sets `+tpot+": "+bare; got != want {
		t.Errorf("a variant: got\n%s\nwant\n%s", got, want)
	}
	if got := warningsOf(t, strings.Replace(v, "= 15 }", `= "15ms" }`, 1), nil); got != "" {
		t.Errorf(`a variant's "15ms": %s`, got)
	}
	// --param, each value.
	p, err := scenarios.ParseParam(tpot + `=0.02,"30ms",15`)
	if err != nil {
		t.Fatal(err)
	}
	got := warningsOf(t, quiet, nil, p)
	if want := "w.toml: --param " + tpot + "=0.02: a bare number is read as seconds: 0.02 is 0.02s;"; !strings.HasPrefix(got, want) ||
		strings.Count(got, "\n") != 1 || !strings.Contains(got, "--param "+tpot+"=15: "+bare) {
		t.Errorf("--param: got\n%s\nwant %q and =15", got, want)
	}
	// The file's bare value, replaced by --set, is the override's words.
	file := strings.Replace(quiet, `mean = "20ms"`, "mean = 15", 1)
	if got := warningsOf(t, file, nil); !strings.HasPrefix(got, `w.toml:11: provider "gpt".latency.tpot.mean: `+bare) {
		t.Errorf("the file's: %s", got)
	}
	if got := warningsOf(t, file, []scenarios.Override{{Path: tpot, Value: "15ms"}}); got != "" {
		t.Errorf("replaced by --set: %s", got)
	}
	if got := warningsOf(t, file, []scenarios.Override{{Path: "provider.gpt.latency", Value: map[string]any{"tpot": map[string]any{"mean": "15ms"}}}}); got != "" {
		t.Errorf("replaced by a --set table: %s", got)
	}
	// A table for a plain table updates only the keys it names: the file's
	// tpot.mean = 15 is still in effect, and still warned about.
	if got := warningsOf(t, file, []scenarios.Override{{Path: "provider.gpt.latency", Value: map[string]any{"ttft": map[string]any{"base": "1s"}}}}); !strings.HasPrefix(got, `w.toml:11: provider "gpt".latency.tpot.mean: `+bare) {
		t.Errorf("a --set table beside it: %q", got)
	}
}

// TestWarningsPlanKnobDurations: a [plan] knob over a duration whose
// values or range are bare numbers warns as the file does, once per knob
// at its first bare value, and an option's set key by key; units, and
// knobs over keys that are not durations, stay quiet, with or without
// --set.
func TestWarningsPlanKnobDurations(t *testing.T) {
	plan := `
[plan]
[[plan.target]]
metric = "e2e"
percentile = 95
max = "30s"

[[plan.knob]]
name = "tpot"
key = "provider.gpt.latency.tpot.mean"
values = ["10ms", 0.02, 0.03]

[[plan.knob]]
key = "provider.gpt.latency.ttft.base"
range = "1..3"

[[plan.knob]]
key = "provider.gpt.limits.rpm"
values = [1000, 2000]

[[plan.knob]]
name = "tier"
  [[plan.knob.option]]
  name = "fast"
  set = { "provider.gpt.latency.tpot.mean" = 0.01, "provider.gpt.limits.rpm" = 100 }
  [[plan.knob.option]]
  name = "slow"
  set = { "provider.gpt.latency.tpot.mean" = "30ms" }
`
	want := strings.Join([]string{
		`w.toml:23: plan.knob "tpot".values: a bare number is read as seconds: 0.02 is 0.02s; write "0.02ms" or "0.02s" to say which`,
		`w.toml:27: plan.knob[1].range: a bare number is read as seconds: 1 is 1s; write "1ms" or "1s" to say which`,
		`w.toml:37: plan.knob "tier".option "fast" sets provider.gpt.latency.tpot.mean: a bare number is read as seconds: 0.01 is 0.01s; write "0.01ms" or "0.01s" to say which`,
	}, "\n")
	for _, sets := range [][]scenarios.Override{nil, {{Path: "provider.gpt.limits.rpm", Value: int64(6000)}}} {
		if got := warningsOf(t, quiet+plan, sets); got != want {
			t.Errorf("with %v:\n%s\nwant\n%s", sets, got, want)
		}
	}
	unit := strings.NewReplacer(`0.02, 0.03]`, `"20ms"]`, `range = "1..3"`, `values = ["1s", "2s"]`, `= 0.01,`, `= "10ms",`).Replace(plan)
	if got := warningsOf(t, quiet+unit, nil); got != "" {
		t.Errorf("knobs with units warn:\n%s", got)
	}
}
