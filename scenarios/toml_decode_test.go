package scenarios

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// decodeErrs decodes src into a fresh tScenario and returns the problems.
func decodeErrs(t *testing.T, src string) Errors {
	t.Helper()
	var s tScenario
	_, err := DecodeStrict("email.toml", []byte(src), &s)
	if err == nil {
		return nil
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error is %T, want Errors: %v", err, err)
	}
	return es
}

// wantErrs checks problems: each want is "LINE|KEY|message substring".
func wantErrs(t *testing.T, es Errors, wants ...string) {
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

func TestDecodeStrictSample(t *testing.T) {
	var s tScenario
	ix, err := DecodeStrict("email.toml", []byte(sampleTOML), &s)
	if err != nil {
		t.Fatalf("DecodeStrict: %v", err)
	}
	if ix.Line("workload[1].opt.retries") != 44 {
		t.Errorf("index line %d", ix.Line("workload[1].opt.retries"))
	}
	if s.Name != "email" || s.Description != "morning peak" || s.Seed != 7 || time.Duration(s.Horizon) != 24*time.Hour {
		t.Errorf("top level: %+v", s)
	}
	p := s.Providers[0]
	if p.Limits.RPM != 4000 || p.Limits.TTFT.Dist != "lognormal" || p.Limits.TTFT.Base != 400*time.Millisecond ||
		time.Duration(p.Limits.Window) != time.Minute || p.Tags["tier"] != "gold" || len(p.Weights) != 2 {
		t.Errorf("provider 0: %+v", p)
	}
	if s.Providers[1].Limits.TTFT.Base != 250*time.Millisecond {
		t.Errorf("provider 1: %+v", s.Providers[1])
	}
	w := s.Workloads[1]
	if w.Demand.Rate != 10 || w.Opt == nil || w.Opt.Retries != 3 || w.Mix != [2]int{1, 2} || w.Stages[0].Name != "only" {
		t.Errorf("workload 1: %+v", w)
	}
	if s.Workloads[0].Stages[1].Timeout != 30*time.Second {
		t.Errorf("stage timeout: %+v", s.Workloads[0].Stages[1])
	}
	if s.Pools["gpu"].Size != 8 {
		t.Errorf("pool: %+v", s.Pools)
	}
}

func TestDecodeStrictUnknownKeys(t *testing.T) {
	src := `name = "x"
nmae = "typo"
[[provider]]
name = "sonnet"
[provider.limits]
rpm = 1
[[provider]]
name = "gpt"
[provider.limits]
rpmm = 4000
ttft = { base = "1s", extra = 3 }
bogus.dotted = 1
[[workload]]
name = "a"
demand.rat = 2
[[workload.stage]]
name = "s"
shar = 0.5
colour = "red"
[workload.opt]
retires = 2
[unknown.table]
x = 1
[extra]
free = { form = 1 }
`
	es := decodeErrs(t, src)
	wantErrs(t, es,
		`2|nmae|unknown key "nmae"; allowed: description, name, seed, horizon, start, provider, workload, pool, extra, anything; did you mean "name"?`,
		`10|provider "gpt".limits.rpmm|unknown key "rpmm"; allowed: rpm, itpm, otpm, tpm, rpd, tpd, window, burst, ttft; did you mean "rpm"?`,
		`11|provider "gpt".limits.ttft|unknown key "extra" in distribution`,
		`12|provider "gpt".limits.bogus|unknown key "bogus"`,
		`15|workload "a".demand.rat|did you mean "rate"?`,
		`18|workload "a".stage "s".shar|did you mean "share"?`,
		`19|workload "a".stage "s".colour|unknown key "colour"; allowed: name, share, timeout`,
		`21|workload "a".opt.retires|did you mean "retries"?`,
		`22|unknown|unknown key "unknown"`,
	)
	if strings.Contains(es[8].Msg, "did you mean") {
		t.Errorf("no suggestion expected for %q", es[8].Msg)
	}
	// One line per problem, sorted by line.
	lines := strings.Split(es.Error(), "\n")
	if len(lines) != 9 || !strings.HasPrefix(lines[1], `email.toml:10: provider "gpt".limits.rpmm: unknown key "rpmm"`) {
		t.Errorf("Errors.Error():\n%s", es.Error())
	}
}

func TestDecodeStrictUnmarshalTOMLKeysAreDecoded(t *testing.T) {
	// The toml library marks every key of a table handed to UnmarshalTOML
	// as decoded; check that directly and through DecodeStrict.
	src := `[[provider]]
name = "a"
limits.ttft = { base = "1s", dist = "lognormal", sigma = 0.5 }
[[provider]]
name = "b"
[provider.limits.ttft]
base = "2s"
dist = "fixed"
`
	var s tScenario
	md, err := toml.Decode(src, &s)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) != 0 {
		t.Errorf("toml library reports undecoded keys: %v", u)
	}
	var s2 tScenario
	if _, err := DecodeStrict("email.toml", []byte(src), &s2); err != nil {
		t.Errorf("DecodeStrict: %v", err)
	}
	if s2.Providers[0].Limits.TTFT.Sigma != 0.5 || s2.Providers[1].Limits.TTFT.Base != 2*time.Second {
		t.Errorf("decoded %+v", s2.Providers)
	}
}

func TestDecodeStrictFreeFormFields(t *testing.T) {
	// Keys under any and map[string]any fields are not checked.
	src := `anything = { a = { b = 1 } }
[extra]
x = { y = { z = [1, 2] } }
[extra.more]
w = 1
`
	if es := decodeErrs(t, src); es != nil {
		t.Errorf("unexpected problems: %v", es)
	}
}

func TestDecodeStrictTypeMismatchInSecondElement(t *testing.T) {
	// The toml library reports the line of the last element for errors in
	// arrays of tables; DecodeStrict must point at the right one.
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
	wantErrs(t, decodeErrs(t, src), `6|workload "b".demand.rate|expected a number, got a string`)
}

func TestDecodeStrictAllValueProblems(t *testing.T) {
	src := `seed = -1.5
horizon = "forever"
start = 12
[[provider]]
name = "sonnet"
enabled = "yes"
weights = [1, "two"]
tags = { team = 3 }
[provider.limits]
rpm = 2.5
tpd = 300
window = "soon"
ttft = { base = "1s", dist = "weibull" }
burst = true
[[workload]]
name = "w"
demand = 5
mix = [1, 2, 3]
  [[workload.stage]]
  name = "s"
  timeout = "3 parsecs"
[pool.gpu]
size = "big"
sise = 1
`
	es := decodeErrs(t, src)
	wantErrs(t, es,
		`1|seed|expected an integer, got a float`,
		`2|horizon|invalid duration "forever"`,
		`3|start|expected a date-time, got an integer`,
		`6|provider "sonnet".enabled|expected a boolean, got a string`,
		`7|provider "sonnet".weights[1]|expected a number, got a string`,
		`8|provider "sonnet".tags.team|expected a string, got an integer`,
		`10|provider "sonnet".limits.rpm|expected an integer, got a float`,
		`11|provider "sonnet".limits.tpd|300 is out of range for int8`,
		`12|provider "sonnet".limits.window|invalid duration "soon"`,
		`13|provider "sonnet".limits.ttft|unknown distribution "weibull"; allowed: fixed, lognormal, exponential`,
		`14|provider "sonnet".limits.burst|expected a number, got a boolean`,
		`17|workload "w".demand|expected a table, got an integer`,
		`18|workload "w".mix|expected an array of 2 elements, got 3`,
		`21|workload "w".stage "s".timeout|invalid duration "3 parsecs"`,
		`23|pool.gpu.size|expected an integer, got a string`,
		`24|pool.gpu.sise|unknown key "sise"; allowed: size, warmup; did you mean "size"?`,
	)
	if got := es[0].Error(); got != `email.toml:1: seed: expected an integer, got a float` {
		t.Errorf("Error() = %q", got)
	}
}

func TestDecodeStrictSyntaxError(t *testing.T) {
	src := "name = \"x\"\n[[provider]]\nname = \"a\"\nrpm = 4000 4000\n"
	es := decodeErrs(t, src)
	if len(es) != 1 || es[0].Line != 4 || !strings.HasPrefix(es[0].Msg, "invalid TOML: ") {
		t.Fatalf("got %v", es)
	}
	var e *Error
	if !errors.As(error(es), &e) || e.Line != 4 {
		t.Errorf("errors.As: %v", e)
	}
	if !strings.HasPrefix(es.Error(), "email.toml:4: invalid TOML: ") {
		t.Errorf("Error() = %q", es.Error())
	}
	// A duplicate key is a syntax error too.
	es = decodeErrs(t, "a = 1\nname = \"x\"\nname = \"y\"\n")
	if len(es) != 1 || es[0].Line != 3 {
		t.Errorf("duplicate key: %v", es)
	}
}

func TestDecodeStrictQuotedNames(t *testing.T) {
	src := `[[provider]]
name = "gpt-4.1"
[provider.limits]
"rp m" = 1
`
	wantErrs(t, decodeErrs(t, src), `4|provider "gpt-4.1".limits."rp m"|unknown key "rp m"`)
}

func TestDecodeStrictUnnamedElements(t *testing.T) {
	src := `[[provider]]
model = "m"
[[provider]]
model = "n"
limits.rpm = "x"
`
	wantErrs(t, decodeErrs(t, src), `5|provider[1].limits.rpm|expected an integer, got a string`)
}

func TestDecodeStrictCaseInsensitiveKeys(t *testing.T) {
	// The toml library falls back to case-insensitive field matching.
	var s tScenario
	if _, err := DecodeStrict("email.toml", []byte("NAME = \"x\"\n[[Provider]]\nName = \"a\"\n"), &s); err != nil {
		t.Fatalf("DecodeStrict: %v", err)
	}
	if s.Name != "x" || len(s.Providers) != 1 || s.Providers[0].Name != "a" {
		t.Errorf("decoded %+v", s)
	}
}

func TestDecodeStrictBadTarget(t *testing.T) {
	var s tScenario
	for _, v := range []any{nil, s, (*tScenario)(nil), 3} {
		if _, err := DecodeStrict("f.toml", []byte("a = 1"), v); err == nil {
			t.Errorf("DecodeStrict(%T) should fail", v)
		}
	}
	// A map target works and has no unknown keys.
	m := map[string]any{}
	if _, err := DecodeStrict("f.toml", []byte("a = 1\n[b]\nc = 2\n"), &m); err != nil || m["a"] != int64(1) {
		t.Errorf("map target: %v %v", err, m)
	}
}

func TestDecodeStrictPanickingUnmarshaler(t *testing.T) {
	var v struct {
		P panicky `toml:"p"`
	}
	_, err := DecodeStrict("f.toml", []byte("x = 1\np = 1\n"), &v)
	if err == nil || !strings.Contains(err.Error(), "f.toml:2: p: ") {
		t.Errorf("got %v", err)
	}
}

type panicky struct{}

func (panicky) UnmarshalTOML(any) error { panic("boom") }

func TestDecodeErrorTranslation(t *testing.T) {
	raw := map[string]any{"workload": []map[string]any{{"name": "a", "demand": map[string]any{"rate": "x"}}}}
	ix := IndexLines([]byte("[[workload]]\nname = \"a\"\ndemand.rate = \"x\"\n"))
	err := errors.New(`toml: line 3 (last key "workload.demand.rate"): incompatible types: TOML value has type string; destination has type float`)
	e := decodeError("f.toml", ix, raw, NamesFrom(raw), err)
	if e.Error() != `f.toml:3: workload "a".demand.rate: expected a number, got a string` {
		t.Errorf("got %q", e.Error())
	}
	err = errors.New(`toml: line 1 (last key "workload"): type mismatch for main.W: expected table but found int64`)
	e = decodeError("f.toml", ix, raw, nil, err)
	if e.Msg != "expected a table, got an integer" || e.Key != "workload" {
		t.Errorf("got %q", e.Error())
	}
	e = decodeError("f.toml", ix, raw, nil, errors.New("toml: cannot decode to type int"))
	if e.Msg != "cannot decode to type int" {
		t.Errorf("got %q", e.Error())
	}
}

func TestDecodeStrictUnknownKeysOnly(t *testing.T) {
	// Without value problems the decoder succeeds and its undecoded keys
	// confirm the unknown ones, including dotted keys and implicit tables.
	src := `foo.bar = 1
name = "n"
[[workload]]
name = "a"
[[workload]]
name = "b"
demand.shape = "flat"
demand.rtae = 1
`
	var s tScenario
	if _, err := toml.Decode(src, &s); err != nil {
		t.Fatalf("the toml library should accept this: %v", err)
	}
	wantErrs(t, decodeErrs(t, src),
		`1|foo|unknown key "foo"`,
		`8|workload "b".demand.rtae|did you mean "rate"?`,
	)
	// A table where an array of tables is expected.
	wantErrs(t, decodeErrs(t, src+"[workload.stage.deep]\nx = 1\n"),
		`1|foo|unknown key "foo"`,
		`8|workload "b".demand.rtae|did you mean "rate"?`,
		`9|workload "b".stage|expected an array, got a table`,
	)
}
