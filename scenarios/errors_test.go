package scenarios

import (
	"errors"
	"testing"
)

func TestErrorFormat(t *testing.T) {
	cases := []struct {
		e    Error
		want string
	}{
		{Error{"email.toml", 14, `provider "sonnet".limits.itpm`, "must be > 0, got -5"}, `email.toml:14: provider "sonnet".limits.itpm: must be > 0, got -5`},
		{Error{"email.toml", 0, "seed", "bad"}, "email.toml: seed: bad"},
		{Error{"email.toml", 3, "", "invalid TOML: x"}, "email.toml:3: invalid TOML: x"},
		{Error{"", 3, "k", "m"}, "line 3: k: m"},
		{Error{"", 0, "k", "m"}, "k: m"},
		{Error{"", 0, "", "m"}, "m"},
	}
	for _, c := range cases {
		if got := c.e.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
	var nilErr *Error
	if nilErr.Error() != "<nil>" {
		t.Error("nil *Error")
	}
}

func TestErrorsSortedByLine(t *testing.T) {
	es := Errors{
		{File: "a.toml", Line: 9, Msg: "nine"},
		{File: "a.toml", Msg: "no line"},
		nil,
		{File: "a.toml", Line: 2, Key: "k", Msg: "two"},
		{File: "a.toml", Line: 9, Msg: "nine again"},
	}
	want := "a.toml:2: k: two\na.toml:9: nine\na.toml:9: nine again\na.toml: no line"
	if got := es.Error(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if es[0].Msg != "nine" {
		t.Error("Error() must not reorder the receiver")
	}
	var e *Error
	if !errors.As(es, &e) || e.Msg != "nine" {
		t.Errorf("errors.As found %v", e)
	}
	if (Errors{}).Err() != nil || (Errors{nil}).Err() != nil || es.Err() == nil {
		t.Error("Err")
	}
}

func TestDisplayKey(t *testing.T) {
	tree := map[string]any{
		"provider": []map[string]any{{"name": "sonnet"}, {"model": "unnamed"}},
		"workload": []map[string]any{{"name": "a"}, {"name": "b", "stage": []map[string]any{{"name": "s.1"}}}},
	}
	cases := map[string]string{
		"provider[0].limits.itpm":    `provider "sonnet".limits.itpm`,
		"provider[1].limits.itpm":    `provider[1].limits.itpm`,
		"provider[7].limits.itpm":    `provider[7].limits.itpm`,
		"workload[1].stage[0].share": `workload "b".stage "s.1".share`,
		`provider[0]."a.b"`:          `provider "sonnet"."a.b"`,
		"weights[3]":                 "weights[3]",
		"not[a path":                 "not[a path",
		"":                           "",
	}
	for in, want := range cases {
		if got := displayKey(in, tree); got != want {
			t.Errorf("displayKey(%q) = %q, want %q", in, got, want)
		}
	}
	if got := displayKey("provider[0].x", nil); got != "provider[0].x" {
		t.Errorf("nil tree: %q", got)
	}
}

// TestLocate: a problem found after decoding is placed at its key's line,
// shown with element names; one inside a distribution at the
// distribution's key.
func TestLocate(t *testing.T) {
	src := `[[provider]]
name = "sonnet"
  [provider.limits]
  itpm = 4000

[[workload]]
name = "summarize"
route = "sonnet"
demand = { rate = 1 }
tokens = { input = { dist = "lognormal", median = 1200, p95 = 4000 }, output = 100 }
`
	s, err := LoadBytes([]byte(src), "email.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ key, want string }{
		{"provider[0].limits.itpm", `email.toml:4: provider "sonnet".limits.itpm: must be > 0`},
		{"provider[0].limits.rpm", `email.toml:3: provider "sonnet".limits.rpm: must be > 0`},
		{"workload[0].tokens.input.p95", `email.toml:10: workload "summarize".tokens.input: p95: must be > 0`},
		{"workload[0].demand.rate", `email.toml:9: workload "summarize".demand.rate: must be > 0`},
	} {
		if got := s.locate(c.key, "must be > 0", s.tree, nil).Error(); got != c.want {
			t.Errorf("locate(%q) = %q, want %q", c.key, got, c.want)
		}
	}
}
