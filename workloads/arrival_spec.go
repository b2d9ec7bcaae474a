package workloads

import (
	"fmt"

	"github.com/headroom-sim/headroom/scenarios/schema"
)

// Arrival process kinds accepted in ArrivalSpec.Kind.
const (
	ArrivalPoisson  = "poisson"
	ArrivalConstant = "constant"
	ArrivalGamma    = "gamma"
)

// ArrivalSpec is how bursty an open-loop arrival process is, given as the
// coefficient of variation of the gaps between arrivals (in operational
// time, see Arrivals): poisson (cv 1), constant (cv 0) or gamma with a
// chosen cv. The zero value means poisson.
//
// In TOML it is a string, "poisson" or "constant" (a bare "gamma" is an
// error because gamma needs a cv), or a table { kind = "gamma", cv = 2.0 }
// or { kind = "poisson" }.
type ArrivalSpec struct {
	Kind string  `toml:"kind" enum:"poisson|constant|gamma" noun:"arrival process" default:"poisson" doc:"poisson: exponential gaps (cv 1); constant: evenly spaced (cv 0); gamma: gaps with coefficient of variation cv"`
	CV   float64 `toml:"cv" range:"(0,100]" zero:"absent, for poisson and constant" doc:"gamma only: coefficient of variation of the gaps; > 1 is burstier than poisson"`
}

// DecodeScalar reads the short form, a process's name: "poisson" or
// "constant" (a bare "gamma" is an error, because gamma needs a cv).
func (a *ArrivalSpec) DecodeScalar(v any) error {
	x, ok := v.(string)
	if !ok {
		return &FieldError{Msg: fmt.Sprintf(`expected "poisson", "constant" or a table such as { kind = "gamma", cv = 2.0 }, got %s`, describe(v))}
	}
	if x == ArrivalGamma {
		return &FieldError{Msg: `gamma arrivals need a cv: write { kind = "gamma", cv = 2.0 }`}
	}
	*a = ArrivalSpec{Kind: x}
	return nil
}

// Validate checks the kind and that cv is given exactly for gamma.
func (a ArrivalSpec) Validate() error {
	if err := schema.Check(&a); err != nil {
		return err
	}
	if a.Kind == "" && a.CV != 0 {
		return fieldErrorf("kind", "missing; gamma arrivals need kind = \"gamma\"")
	}
	switch a.Kind {
	case "", ArrivalPoisson, ArrivalConstant:
		if a.CV != 0 {
			return fieldErrorf("cv", "applies only to gamma arrivals (poisson has cv 1, constant cv 0), got %v", a.CV)
		}
	case ArrivalGamma:
		if a.CV == 0 {
			return fieldErrorf("cv", "must be > 0 for gamma arrivals, got 0")
		}
	}
	return nil
}

// String names the process, e.g. "poisson" or "gamma(cv=2)".
func (a ArrivalSpec) String() string {
	switch a.Kind {
	case "":
		return ArrivalPoisson
	case ArrivalGamma:
		return fmt.Sprintf("gamma(cv=%g)", a.CV)
	}
	return a.Kind
}

// KeyType names the type in the scenario reference.
func (ArrivalSpec) KeyType() string { return "process name or table" }

// ScalarSchema is the JSON Schema of an arrival process given by name.
func (ArrivalSpec) ScalarSchema() map[string]any {
	return map[string]any{"type": "string", "enum": []any{ArrivalPoisson, ArrivalConstant}}
}
