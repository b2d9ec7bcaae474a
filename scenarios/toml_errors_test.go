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
	names := func(arrayPath string, i int) (string, bool) {
		switch {
		case arrayPath == "provider" && i == 0:
			return "sonnet", true
		case arrayPath == "workload" && i == 1:
			return "b", true
		case arrayPath == "workload[1].stage" && i == 0:
			return "s.1", true
		}
		return "", false
	}
	cases := map[string]string{
		"provider[0].limits.itpm":    `provider "sonnet".limits.itpm`,
		"provider[1].limits.itpm":    `provider[1].limits.itpm`,
		"workload[1].stage[0].share": `workload "b".stage "s.1".share`,
		`provider[0]."a.b"`:          `provider "sonnet"."a.b"`,
		"weights[3]":                 "weights[3]",
		"not[a path":                 "not[a path",
		"":                           "",
	}
	for in, want := range cases {
		if got := DisplayKey(in, names); got != want {
			t.Errorf("DisplayKey(%q) = %q, want %q", in, got, want)
		}
	}
	if got := DisplayKey("provider[0].x", nil); got != "provider[0].x" {
		t.Errorf("nil names: %q", got)
	}
}

func TestNamesFromAndLocate(t *testing.T) {
	s := sample(t)
	names := NamesFrom(s)
	if n, ok := names("provider", 1); !ok || n != "gpt-4.1" {
		t.Errorf("names(provider, 1) = %q, %v", n, ok)
	}
	if n, ok := names("workload[0].stage", 1); !ok || n != "review" {
		t.Errorf("names(workload[0].stage, 1) = %q, %v", n, ok)
	}
	if _, ok := names("provider", 5); ok {
		t.Error("out of range element has a name")
	}
	if _, ok := names("provider[0].weights", 0); ok {
		t.Error("a number has a name")
	}
	ix := IndexLines([]byte(sampleTOML))
	e := Locate("email.toml", ix, s, "provider[0].limits.itpm", "must be > 0, got -5")
	if got := e.Error(); got != `email.toml:18: provider "sonnet".limits.itpm: must be > 0, got -5` {
		t.Errorf("Locate: %q", got)
	}
	e = Locate("email.toml", ix, s, "workload[1].stage[0].share", "must be in (0, 1]")
	if got := e.Error(); got != `email.toml:41: workload "classify".stage "only".share: must be in (0, 1]` {
		t.Errorf("Locate: %q", got)
	}
}

func TestSuggest(t *testing.T) {
	allowed := []string{"rpm", "itpm", "otpm", "tpm", "rpd", "tpd", "window", "burst"}
	cases := map[string]string{
		"rpmm":   "rpm",
		"RPn":    "rpm",
		"windw":  "window",
		"brust":  "burst",
		"xyzzy":  "",
		"a":      "",
		"itmp":   "itpm",
		"widnow": "window",
	}
	for in, want := range cases {
		got, ok := suggest(in, allowed)
		if !ok {
			got = ""
		}
		if got != want {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
}
