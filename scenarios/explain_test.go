package scenarios

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	for path, want := range map[string][]string{
		"provider.sonnet.limits.rpm":   {"provider.limits.rpm\n  requests per minute\n", "type:    number", "unit:    requests/min", "allowed: > 0, ≤ 1e15, or absent for no limit"},
		"provider[0].limits.rpm":       {"provider.limits.rpm\n"},
		"provider.limits.rpm":          {"provider.limits.rpm\n"},
		"provider.key.prod.limits.rpm": {"provider.limits.rpm\n"},
		"workload.chat.tokens.input":   {"workload.tokens.input\n", "type:    distribution", "headroom explain distribution"},
		"workload.tokens.input.median": {"distribution.median\n", "lognormal (with p95)"},
		"provider.limits":              {"provider.limits\n", "[provider.limits] keys:\n", "  rpm ", "  retry_after "},
		"provider":                     {"[[provider]] keys:\n", "  limits "},
		"distribution":                 {"distribution table keys:\n", "  dist "},
		"workload.client.retry":        {"type:    preset name or table", "  max_attempts "},
		"duration":                     {"duration\n  simulated horizon\n", "default: 24h", "allowed: > 0, ≤ 366d"},
	} {
		got, err := Explain(path)
		if err != nil {
			t.Errorf("Explain(%q): %v", path, err)
			continue
		}
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("Explain(%q) does not say %q:\n%s", path, w, got)
			}
		}
	}
	for path, want := range map[string]string{
		"provider.limits.rmp": `unknown key "rmp" under provider.limits; allowed: rpm, itpm, otpm, tpm, rpd, tpd, window, burst, quantum, daily_reset, reserve, cache_reads_count, count_rejected, weights, spend_limit_usd, retry_after; did you mean "rpm"?`,
		"wrkload":             `unknown key "wrkload"; allowed:`,
		"duration.x":          `duration is a duration, not a table`,
		// A key given at the wrong depth, or a misspelt table before a
		// key, is named as the key it is, not taken as an element's name.
		"workload.think":      `no key "think" under workload; did you mean workload.demand.think?`,
		"workload.chat.think": `no key "think" under workload; did you mean workload.demand.think?`,
		"provider.limitz.rpm": `unknown key "limitz" under provider; allowed: name, model, limits,`,
		"workload.deman":      `did you mean "demand"?`,
	} {
		if _, err := Explain(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Explain(%q): got %v, want %q", path, err, want)
		}
	}
}

// TestJSONSchema: the JSON Schema, written from the same definitions,
// accepts every embedded example and the good fixtures, and refuses an
// unknown key, a wrong type, an unknown value and a number out of range, as
// decoding does (checked with a small validator for the part of JSON
// Schema it uses).
func TestJSONSchema(t *testing.T) {
	b, err := JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	var sch map[string]any
	if err := json.Unmarshal(b, &sch); err != nil {
		t.Fatal(err)
	}
	for _, e := range Examples() {
		s, err := LoadBytes(e.Source, e.Name)
		if err != nil {
			t.Fatal(err)
		}
		if msg := validate(sch, jsonOf(t, s.tree), ""); msg != "" {
			t.Errorf("example %s: %s", e.Name, msg)
		}
	}
	s := everyKey(t)
	if msg := validate(sch, jsonOf(t, s.tree), ""); msg != "" {
		t.Errorf("every-key.toml: %s", msg)
	}
	for _, bad := range []struct{ path, want string }{
		{"provider.api.limits.rmp", "provider[0].limits: unknown key rmp"},
		{"provider.api.limits.rpm", "provider[0].limits.rpm"},
		{"provider.api.limits.window", "provider[0].limits.window"},
		{"workload.chat.tokens.max_tokens", "workload[0].tokens.max_tokens"},
	} {
		value := map[string]any{"provider.api.limits.rmp": int64(1), "provider.api.limits.rpm": -5.0, "provider.api.limits.window": "fixd",
			"workload.chat.tokens.max_tokens": 2.5}[bad.path]
		tree, _, msg := setPath(s.tree, bad.path, value, false)
		if msg != "" && bad.path != "provider.api.limits.rmp" {
			t.Fatal(msg)
		}
		if bad.path == "provider.api.limits.rmp" { // setPath refuses it; set it directly
			tree = jsonOf(t, s.tree).(map[string]any)
			tree["provider"].([]any)[0].(map[string]any)["limits"].(map[string]any)["rmp"] = 1.0
		}
		if msg := validate(sch, jsonOf(t, tree), ""); !strings.Contains(msg, bad.want) {
			t.Errorf("%s = %v: the schema says %q, want %q", bad.path, value, msg, bad.want)
		}
	}
}

// jsonOf is a tree as JSON would give it (numbers as float64).
func jsonOf(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// validate checks v against the part of JSON Schema draft-07 that
// JSONSchema writes, and returns the first problem or "".
func validate(s map[string]any, v any, at string) string {
	if alts, ok := s["anyOf"].([]any); ok {
		var msgs []string
		for _, a := range alts {
			msg := validate(a.(map[string]any), v, at)
			if msg == "" {
				return ""
			}
			msgs = append(msgs, msg)
		}
		return strings.Join(msgs, " / ")
	}
	switch s["type"] {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return at + ": not an object"
		}
		props, _ := s["properties"].(map[string]any)
		for k, x := range m {
			p, ok := props[k].(map[string]any)
			if !ok {
				if s["additionalProperties"] == false {
					return at + ": unknown key " + k
				}
				continue
			}
			if msg := validate(p, x, strings.TrimPrefix(at+"."+k, ".")); msg != "" {
				return msg
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return at + ": not an array"
		}
		for i, x := range a {
			if msg := validate(s["items"].(map[string]any), x, at+"["+strconv.Itoa(i)+"]"); msg != "" {
				return msg
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return at + ": not a string"
		}
		if enum, ok := s["enum"].([]any); ok {
			for _, e := range enum {
				if e == str {
					return ""
				}
			}
			return at + ": not one of the values"
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return at + ": not a boolean"
		}
	case "number", "integer":
		f, ok := v.(float64)
		if !ok {
			return at + ": not a number"
		}
		if s["type"] == "integer" && f != float64(int64(f)) {
			return at + ": not an integer"
		}
		if c, ok := s["const"].(float64); ok && f != c {
			return at + ": not " + strconv.Itoa(int(c))
		}
		if m, ok := s["minimum"].(float64); ok && f < m {
			return at + ": below the minimum"
		}
		if m, ok := s["maximum"].(float64); ok && f > m {
			return at + ": above the maximum"
		}
		if m, ok := s["exclusiveMinimum"].(float64); ok && f <= m {
			return at + ": not above the minimum"
		}
		if m, ok := s["exclusiveMaximum"].(float64); ok && f >= m {
			return at + ": not below the maximum"
		}
	}
	return ""
}
