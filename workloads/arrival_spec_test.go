package workloads

import (
	"strings"
	"testing"
)

func TestArrivalSpecTOML(t *testing.T) {
	type holder struct {
		A ArrivalSpec `toml:"a"`
	}
	good := map[string]ArrivalSpec{
		`a = "poisson"`:                    {Kind: "poisson"},
		`a = "constant"`:                   {Kind: "constant"},
		`a = { kind = "gamma", cv = 2.0 }`: {Kind: "gamma", CV: 2},
		`a = { kind = "gamma", cv = 3 }`:   {Kind: "gamma", CV: 3},
		`a = { kind = "poisson" }`:         {Kind: "poisson"},
		``:                                 {},
	}
	for src, want := range good {
		var h holder
		if err := decodeTOML(src, &h); err != nil {
			t.Errorf("%s: %v", src, err)
		} else if h.A != want {
			t.Errorf("%s: got %+v, want %+v", src, h.A, want)
		}
	}
	bad := map[string]string{
		`a = "gamma"`:                           `gamma arrivals need a cv: write { kind = "gamma", cv = 2.0 }`,
		`a = "bursty"`:                          `a.kind: unknown arrival process "bursty"; allowed: poisson, constant, gamma`,
		`a = { kind = "gamma" }`:                "a.cv: must be > 0 for gamma arrivals",
		`a = { kind = "gamma", cv = -1 }`:       "a.cv: must be > 0 (or absent, for poisson and constant), got -1",
		`a = { kind = "gamma", cv = 1000 }`:     "a.cv: must be <= 100, got 1000",
		`a = { kind = "poisson", cv = 2 }`:      "cv: applies only to gamma arrivals",
		`a = { kind = "gamma", cv = "x" }`:      "a.cv: expected a number, got a string",
		`a = { kind = "gamma", cv = 2, k = 1 }`: `a.k: unknown key "k"; allowed: kind, cv`,
		`a = { cv = 2 }`:                        "a.kind: missing",
		`a = { kind = 1 }`:                      "a.kind: expected a string, got an integer",
		`a = 3`:                                 `expected "poisson", "constant" or a table`,
	}
	for src, want := range bad {
		var h holder
		err := decodeTOML(src, &h)
		if err == nil {
			err = Prefix("a", h.A.Validate())
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s:\n got error %v\nwant it to contain %q", src, err, want)
		}
	}
}

func TestArrivalSpecValidateAndString(t *testing.T) {
	if err := (ArrivalSpec{}).Validate(); err != nil {
		t.Errorf("zero ArrivalSpec (poisson): %v", err)
	}
	for _, c := range []struct {
		a    ArrivalSpec
		want string
	}{{ArrivalSpec{}, "poisson"}, {ArrivalSpec{Kind: "constant"}, "constant"}, {ArrivalSpec{Kind: "gamma", CV: 2}, "gamma(cv=2)"}} {
		if got := c.a.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
}
