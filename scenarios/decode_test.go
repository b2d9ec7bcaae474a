package scenarios

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// problems loads src and returns its problems, one per line of the error.
func problems(t *testing.T, src string) Errors {
	t.Helper()
	_, err := LoadBytes([]byte(src), "email.toml")
	if err == nil {
		return nil
	}
	var es Errors
	if errors.As(err, &es) {
		return es
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error is %T, want located problems: %v", err, err)
	}
	return Errors{e}
}

// wantProblems checks problems: each want is "LINE|KEY|message substring".
func wantProblems(t *testing.T, es Errors, wants ...string) {
	t.Helper()
	if len(es) != len(wants) {
		t.Fatalf("got %d problems, want %d:\n%v", len(es), len(wants), es)
	}
	for i, w := range wants {
		parts := strings.SplitN(w, "|", 3)
		e := es[i]
		if e.File != "email.toml" {
			t.Errorf("problem %d: file %q", i, e.File)
		}
		if got := strconv.Itoa(e.Line); got != parts[0] {
			t.Errorf("problem %d: line %s, want %s (%v)", i, got, parts[0], e)
		}
		if e.Key != parts[1] {
			t.Errorf("problem %d: key %q, want %q (%v)", i, e.Key, parts[1], e)
		}
		if !strings.Contains(e.Msg, parts[2]) {
			t.Errorf("problem %d: message %q does not contain %q", i, e.Msg, parts[2])
		}
	}
}

// TestDecodeUnknownKeysAtOnce: every unknown key of a file is reported at
// once, at its line, with the keys allowed there and the closest one.
func TestDecodeUnknownKeysAtOnce(t *testing.T) {
	src := `name = "x"
nmae = "typo"
[[provider]]
name = "sonnet"
[provider.limits]
rpm = 1
[[provider]]
name = "gpt"
[provider.limits]
rmp = 4000
RPM = 5
bogus.dotted = 1
[[workload]]
name = "a"
route = "sonnet"
tokens = { input = 10, output = { dist = "lognormal", median = 5, p99 = 9 } }
demand.rat = 2
[workload.client]
retry = { preset = "openai-python", max_atempts = 2 }
[unknown.table]
x = 1
`
	es := problems(t, src)
	wantProblems(t, es,
		`2|nmae|unknown key "nmae"; allowed: name, description, seed, duration, interval, start, workload, provider, cluster, route, gateway, variant, plan; did you mean "name"?`,
		`10|provider "gpt".limits.rmp|unknown key "rmp"; allowed: rpm, itpm, otpm, tpm, rpd, tpd, window, burst, quantum, daily_reset, reserve, cache_reads_count, count_rejected, weights, spend_limit_usd, retry_after; did you mean "rpm"?`,
		`11|provider "gpt".limits.RPM|did you mean "rpm"?`,
		`12|provider "gpt".limits.bogus|unknown key "bogus"`,
		`16|workload "a".tokens.output|unknown key "p99"; allowed: dist, value, min, max, mean, cv, median, p95, values, weights; did you mean "p95"?`,
		`17|workload "a".demand.rat|did you mean "rate"?`,
		`19|workload "a".client.retry.max_atempts|did you mean "max_attempts"?`,
		`20|unknown|unknown key "unknown"`,
	)
	if strings.Contains(es[7].Msg, "did you mean") {
		t.Errorf("no suggestion expected for %q", es[7].Msg)
	}
	lines := strings.Split(es.Error(), "\n")
	if len(lines) != 8 || !strings.HasPrefix(lines[1], `email.toml:10: provider "gpt".limits.rmp: unknown key "rmp"`) {
		t.Errorf("Errors.Error():\n%s", es.Error())
	}
}

// TestDecodeValueProblemsAtOnce: every value of the wrong type, every
// number out of its range, every unknown enumerated value, at its key.
func TestDecodeValueProblemsAtOnce(t *testing.T) {
	src := `seed = -1.5
duration = "forever"
start = 12
[[provider]]
name = "sonnet"
cache = { enabled = "yes" }
[provider.limits]
rpm = nan
window = "fixd"
burst = true
[[workload]]
name = "w"
route = "sonnet"
demand = 5
tokens = { input = 1e15, output = 10, max_tokens = 2.5 }
[[cluster]]
name = "gpu"
max_num_seqs = 0
  [cluster.step]
  batches = [1, "two"]
  per = "rmp"
`
	es := problems(t, src)
	wantProblems(t, es,
		`1|seed|expected an integer, got a float`,
		`2|duration|invalid duration "forever"`,
		`3|start|expected a clock time such as "09:00", got integer 12`,
		`6|provider "sonnet".cache.enabled|expected a boolean, got a string`,
		`8|provider "sonnet".limits.rpm|must be a finite number, got nan`,
		`9|provider "sonnet".limits.window|unknown window "fixd"; allowed: token-bucket, fixed, sliding; did you mean "fixed"?`,
		`10|provider "sonnet".limits.burst|expected a duration such as "30s" or a number of seconds, got boolean true`,
		`14|workload "w".demand|expected a table, got an integer`,
		`15|workload "w".tokens.input|value: must be <= 1073741824, got 1e+15`,
		`15|workload "w".tokens.max_tokens|expected an integer, got a float`,
		`18|cluster "gpu".max_num_seqs|must be between 1 and 100000, got 0`,
		`20|cluster "gpu".step.batches[1]|expected a number, got a string`,
		`21|cluster "gpu".step.per|unknown table unit "rmp"; allowed: iteration, request`,
	)
	if got := es[0].Error(); got != `email.toml:1: seed: expected an integer, got a float` {
		t.Errorf("Error() = %q", got)
	}
}

func TestDecodeTypeMismatchInSecondElement(t *testing.T) {
	src := `[[workload]]
name = "a"
demand.rate = 1
[[workload]]
name = "b"
demand.rate = "fast"
[[workload]]
name = "c"
demand.rate = 3
`
	wantProblems(t, problems(t, src), `6|workload "b".demand.rate|expected a number, got a string`)
}

func TestDecodeSyntaxErrors(t *testing.T) {
	for src, line := range map[string]int{
		"name = \"x\"\n[[provider]]\nname = \"a\"\nrpm = 4000 4000\n": 4,
		"seed = 1\nname = \"x\"\nname = \"y\"\n":                      3, // a duplicate key
	} {
		es := problems(t, src)
		if len(es) != 1 || es[0].Line != line || !strings.HasPrefix(es[0].Msg, "invalid TOML: ") {
			t.Errorf("%q: got %v, want one problem at line %d", src, es, line)
		}
	}
}

func TestDecodeQuotedAndUnnamed(t *testing.T) {
	wantProblems(t, problems(t, "[[provider]]\nname = \"gpt-4.1\"\n[provider.limits]\n\"rp m\" = 1\n"),
		`4|provider "gpt-4.1".limits."rp m"|unknown key "rp m"`)
	wantProblems(t, problems(t, "[[provider]]\nmodel = \"m\"\n[[provider]]\nmodel = \"n\"\nlimits.rpm = \"x\"\n"),
		`5|provider[1].limits.rpm|expected a number, got a string`)
}

// TestDecodeNestingBounded: inputs that nest beyond MaxDepth are refused
// before they are parsed, at once and in bounded memory.
func TestDecodeNestingBounded(t *testing.T) {
	for name, src := range map[string]string{
		"arrays":      "x = " + strings.Repeat("[", 3_000_000) + strings.Repeat("]", 3_000_000) + "\n",
		"tables":      "x = " + strings.Repeat("{a = ", 30_000) + "1" + strings.Repeat("}", 30_000) + "\n",
		"dotted key":  strings.Repeat("k.", 30_000) + "k = 1\n",
		"header":      "[" + strings.Repeat("t.", 100) + "t]\n",
		"multi-line":  "x = [\n" + strings.Repeat("[\n", 40) + strings.Repeat("]\n", 40) + "]\n",
		"set in file": "[[variant]]\nset = { \"seed\" = " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + " }\n",
	} {
		start := time.Now()
		es := problems(t, src)
		if len(es) != 1 || !strings.Contains(es[0].Msg, "more than 32") || es[0].Line == 0 {
			t.Errorf("%s: got %v, want one located problem naming the limit", name, es)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %v", name, d)
		}
	}
	// Nesting up to the limit is fine for the scanner (the schema then
	// says what is wrong).
	ok := "x = " + strings.Repeat("[", 32) + strings.Repeat("]", 32) + "\n"
	if line, msg := checkDepth([]byte(ok)); line != 0 {
		t.Errorf("32 levels refused: %s", msg)
	}
	// Brackets in strings and comments do not count.
	quoted := "x = \"" + strings.Repeat("[", 100) + "\" # " + strings.Repeat("{", 100) + "\ny = '''\n" + strings.Repeat("[", 100) + "\n'''\n"
	if line, msg := checkDepth([]byte(quoted)); line != 0 {
		t.Errorf("quoted brackets counted: %s", msg)
	}
}

// TestOverridesOnTheTree: overrides reach keys by name or index, through
// values written in their short form, and leave the file's tree alone.
func TestOverridesOnTheTree(t *testing.T) {
	src := `[[workload]]
name = "chat"
route = "api"
demand = { hourly = [1, 2] }
tokens = { input = 1500, output = { dist = "lognormal", median = 100, p95 = 400 } }
client = { retry = "openai-python" }

[[provider]]
name = "api"
  [[provider.key]]
  name = "prod"
  limits = { rpm = 100 }
  [[provider.outage]]
  after = "1h"
  duration = "5m"
`
	s, err := LoadBytes([]byte(src), "o.toml")
	if err != nil {
		t.Fatal(err)
	}
	before, _ := s.Configs(nil)
	c, err := s.Config([]Override{
		{Path: "workload.chat.client.retry.max_attempts", Value: 5},
		{Path: "workload.chat.tokens.output.median", Value: 200},
		{Path: "workload.chat.tokens.input", Value: map[string]any{"dist": "uniform", "min": 10, "max": 20}},
		{Path: "provider.api.key.prod.limits.rpm", Value: 2000},
		{Path: "provider.api.outage[0].status", Value: int64(503)},
		{Path: "provider.0.limits.rpm", Value: 7.0},
		{Path: "workload.chat.demand.hourly[1]", Value: 9},
	})
	if err != nil {
		t.Fatal(err)
	}
	w, p := c.Workloads[0], c.Providers[0]
	if w.Client.Retry.Preset != "openai-python" || w.Client.Retry.MaxAttempts != 5 || w.Tokens.Output.Median != 200 || w.Tokens.Output.P95 != 400 ||
		w.Tokens.Input.Kind != "uniform" || w.Tokens.Input.Max != 20 || p.Keys[0].Limits.RPM != 2000 || p.Outages[0].Status != 503 ||
		p.Limits.RPM != 7 || !reflect.DeepEqual(w.Demand.Hourly, []float64{1, 9}) {
		t.Errorf("after overrides: %+v\n%+v", w, p)
	}
	after, _ := s.Configs(nil)
	if !reflect.DeepEqual(before, after) || after[0].Workloads[0].Client.Retry.MaxAttempts != 3 {
		t.Error("overrides changed the scenario they were applied to")
	}
	for _, c := range []struct {
		ov   Override
		want string
	}{
		{Override{"workload.chta.route", "x"}, `no workload named "chta"; have: chat; did you mean "chat"?`},
		{Override{"provider[3].limits.rpm", 1}, `index [3] out of range: provider has 1 element(s)`},
		{Override{"provider.api.limits.rpm.x", 1}, `provider "api".limits.rpm is a number, not a table; cannot select "x"`},
		{Override{"provider.api[0]", 1}, `provider "api" is a table, not an array; cannot select [0]`},
		{Override{"provider.api.limits", map[string]any{"rpm": 1, "rmpp": 2}}, `unknown key "rmpp" under provider "api".limits`},
		{Override{"workload.chat.demand", map[string]any{"rate": 5}}, `--set workload.chat.demand: workload "chat".demand.hourly: cannot be combined with rate`},
		{Override{"workload.chat.client.retry.max_attempts", 0}, `--set workload.chat.client.retry.max_attempts: must be between 1 and 1000, got 0`},
		{Override{"provider.api.outage[0].fraction", 0}, `--set provider.api.outage[0].fraction: must be a finite number > 0, got 0`},
		{Override{"seed", -1}, `--set seed: must be >= 0, got -1`},
		{Override{"provider..x", 1}, `invalid key path`},
	} {
		_, err := s.Config([]Override{c.ov})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s = %v:\n got %v\nwant %s", c.ov.Path, c.ov.Value, err, c.want)
		}
	}
}

func TestParseSet(t *testing.T) {
	cases := []struct {
		in    string
		path  string
		value any
	}{
		{"provider.sonnet.limits.rpm=8000", "provider.sonnet.limits.rpm", int64(8000)},
		{"rate = 2.5", "rate", 2.5},
		{`window="5m"`, "window", "5m"},
		{"window=5m", "window", "5m"},
		{"dist=poisson", "dist", "poisson"},
		{"on=true", "on", true},
		{"xs=[1,2,3]", "xs", []any{int64(1), int64(2), int64(3)}},
		{`d={ dist = "fixed", value = 3 }`, "d", map[string]any{"dist": "fixed", "value": int64(3)}},
		{`provider."gpt-4.1".limits.rpm=1`, `provider."gpt-4.1".limits.rpm`, int64(1)},
		{`"a=b".c=1`, `"a=b".c`, int64(1)},
		{"x=1_000", "x", int64(1000)},
		{"x=a=b", "x", "a=b"},
		{"x=hello world", "x", "hello world"},
		{`x=""`, "x", ""},
		// Magnitudes as the summary prints them, as --param takes them.
		{"provider.sonnet.limits.itpm=2M", "provider.sonnet.limits.itpm", int64(2_000_000)},
		{"rpm=1.5k", "rpm", int64(1500)},
		{"x=0.0001k", "x", 0.1},
		{`x="2M"`, "x", "2M"},
	}
	for _, c := range cases {
		path, value, err := ParseSet(c.in)
		if err != nil || path != c.path || !reflect.DeepEqual(value, c.value) {
			t.Errorf("ParseSet(%q) = %q, %#v, %v; want %q, %#v", c.in, path, value, err, c.path, c.value)
		}
	}
	for _, bad := range []string{"novalue", "=3", "x=", "x=[1,2", `x="open`, "x={a=}", "a..b=1", "x=1\ny=2", "x=" + strings.Repeat("[", 100) + strings.Repeat("]", 100)} {
		if p, v, err := ParseSet(bad); err == nil {
			t.Errorf("ParseSet(%q) = %q, %#v; want an error", bad, p, v)
		}
	}
}
