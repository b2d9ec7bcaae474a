package workloads

import (
	"fmt"
	"math"
	"sort"
)

// Arrival process kinds accepted in ArrivalSpec.Kind.
const (
	ArrivalPoisson  = "poisson"
	ArrivalConstant = "constant"
	ArrivalGamma    = "gamma"
)

// maxArrivalCV bounds the burstiness of a gamma arrival process. Beyond it
// nearly all requests arrive in a handful of clumps and the shape 1/cv²
// approaches the limits of the sampler.
const maxArrivalCV = 100

// ArrivalSpec is how bursty an open-loop arrival process is, given as the
// coefficient of variation of the gaps between arrivals (in operational
// time, see Arrivals): poisson (cv 1), constant (cv 0) or gamma with a
// chosen cv. The zero value means poisson.
//
// In TOML it is a string, "poisson" or "constant" (a bare "gamma" is an
// error because gamma needs a cv), or a table { kind = "gamma", cv = 2.0 }
// or { kind = "poisson" }.
type ArrivalSpec struct {
	Kind string  // "poisson" (also ""), "constant" or "gamma"
	CV   float64 // gamma only: coefficient of variation of the gaps, > 0
}

// UnmarshalTOML decodes an arrival process from a string or a table and
// validates it.
func (a *ArrivalSpec) UnmarshalTOML(v any) error {
	var out ArrivalSpec
	switch x := v.(type) {
	case string:
		if x == ArrivalGamma {
			return &FieldError{Msg: `gamma arrivals need a cv: write { kind = "gamma", cv = 2.0 }`}
		}
		out.Kind = x
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch k {
			case "kind":
				s, ok := x[k].(string)
				if !ok {
					return fieldErrorf("kind", "expected a string (poisson, constant or gamma), got %s", describe(x[k]))
				}
				out.Kind = s
			case "cv":
				f, err := tomlNumber(x[k])
				if err != nil {
					return &FieldError{Key: "cv", Msg: err.Error()}
				}
				out.CV = f
			default:
				return &FieldError{Msg: fmt.Sprintf("unknown key %q in arrivals; allowed: kind, cv", k)}
			}
		}
		if _, ok := x["kind"]; !ok {
			return fieldErrorf("kind", "missing; arrivals tables need kind = poisson, constant or gamma")
		}
	default:
		return &FieldError{Msg: fmt.Sprintf(`expected "poisson", "constant" or a table such as { kind = "gamma", cv = 2.0 }, got %s`, describe(v))}
	}
	if err := out.Validate(); err != nil {
		return err
	}
	*a = out
	return nil
}

// Validate checks the kind and that cv is given exactly for gamma.
func (a ArrivalSpec) Validate() error {
	switch a.Kind {
	case "", ArrivalPoisson, ArrivalConstant:
		if a.CV != 0 {
			return fieldErrorf("cv", "applies only to gamma arrivals (poisson has cv 1, constant cv 0), got %v", a.CV)
		}
	case ArrivalGamma:
		if math.IsNaN(a.CV) || a.CV <= 0 {
			return fieldErrorf("cv", "must be > 0 for gamma arrivals, got %v", a.CV)
		}
		if a.CV > maxArrivalCV {
			return fieldErrorf("cv", "must be <= %d, got %v", maxArrivalCV, a.CV)
		}
	default:
		return fieldErrorf("kind", "unknown arrival process %q; allowed: poisson, constant, gamma", a.Kind)
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
