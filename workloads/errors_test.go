package workloads

import (
	"errors"
	"testing"
)

func TestFieldErrorError(t *testing.T) {
	if got := (&FieldError{Key: "hourly[3]", Msg: "must be >= 0, got -2"}).Error(); got != "hourly[3]: must be >= 0, got -2" {
		t.Errorf("got %q", got)
	}
	if got := (&FieldError{Msg: "no demand given"}).Error(); got != "no demand given" {
		t.Errorf("empty key: got %q", got)
	}
}

func TestPrefix(t *testing.T) {
	cases := []struct {
		prefix string
		err    error
		want   string // Key of the result
	}{
		{"tokens", &FieldError{Key: "input.p95", Msg: "m"}, "tokens.input.p95"},
		{"demand", &FieldError{Key: "hourly[3]", Msg: "m"}, "demand.hourly[3]"},
		{"hourly", &FieldError{Key: "[3]", Msg: "m"}, "hourly[3]"},
		{"workloads[2]", &FieldError{Key: "[1]", Msg: "m"}, "workloads[2][1]"},
		{"workloads[2]", &FieldError{Key: "demand", Msg: "m"}, "workloads[2].demand"},
		{"workload.", &FieldError{Key: "demand", Msg: "m"}, "workload.demand"},
		{"tokens", &FieldError{Msg: "m"}, "tokens"},
		{"", &FieldError{Key: "rate", Msg: "m"}, "rate"},
		{"think", errors.New("m"), "think"},
	}
	for _, c := range cases {
		err := Prefix(c.prefix, c.err)
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Fatalf("Prefix(%q, %v) = %T, want *FieldError", c.prefix, c.err, err)
		}
		if fe.Key != c.want || fe.Msg != "m" {
			t.Errorf("Prefix(%q, %v) = {%q, %q}, want {%q, \"m\"}", c.prefix, c.err, fe.Key, fe.Msg, c.want)
		}
	}
	if Prefix("x", nil) != nil {
		t.Error("Prefix of nil must be nil")
	}
	// Prefix must not modify the error it was given.
	orig := &FieldError{Key: "p95", Msg: "m"}
	_ = Prefix("input", orig)
	if orig.Key != "p95" {
		t.Errorf("Prefix modified its argument: %q", orig.Key)
	}
}
