package workloads

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// distKeys is the list of keys a distribution table accepts.
const distKeys = "dist, value, min, max, mean, cv, median, p95, values, weights"

// UnmarshalTOML decodes a distribution from
//
//   - a number: fixed at that value;
//   - a duration string such as "30s": fixed at that many seconds;
//   - a table with dist = "fixed" | "uniform" | "exponential" | "lognormal" |
//     "gamma" | "empirical" and that kind's parameters, e.g.
//     { dist = "lognormal", median = 1200, p95 = 4000 },
//     { dist = "exponential", mean = "30s" },
//     { dist = "empirical", values = [100, 200], weights = [0.7, 0.3] }.
//
// Every numeric field, including the entries of values, may be a number or
// a duration string (converted to seconds). Unknown keys, wrong types and
// missing or inconsistent parameters are errors naming the key; the
// decoded distribution is validated before UnmarshalTOML returns.
func (d *Dist) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64, float64, string:
		f, err := tomlNumber(x)
		if err != nil {
			return &FieldError{Msg: "expected a number, a duration string or a distribution table: " + err.Error()}
		}
		out := Fixed(f)
		if err := out.Validate(); err != nil {
			return err
		}
		*d = out
		return nil
	case map[string]any:
		out, err := distFromTable(x)
		if err != nil {
			return err
		}
		*d = out
		return nil
	default:
		return &FieldError{Msg: fmt.Sprintf("expected a number, a duration string or a distribution table such as { dist = \"lognormal\", median = 1200, p95 = 4000 }, got %s", describe(v))}
	}
}

// distFromTable decodes and validates a distribution table.
func distFromTable(m map[string]any) (Dist, error) {
	var out Dist
	// Visit keys in sorted order so that the error reported for a table
	// with several problems does not depend on map iteration order.
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k != "dist" && k != "values" && k != "weights" && scalarField(&out, k) == nil {
			return Dist{}, &FieldError{Msg: fmt.Sprintf("unknown key %q in distribution; allowed: %s", k, distKeys)}
		}
	}
	kindVal, ok := m["dist"]
	if !ok {
		return Dist{}, fieldErrorf("dist", "missing; a distribution table needs dist = one of %s", distKinds)
	}
	kind, ok := kindVal.(string)
	if !ok {
		return Dist{}, fieldErrorf("dist", "expected a string (one of %s), got %s", distKinds, describe(kindVal))
	}
	if _, known := kindKeys(kind); !known {
		return Dist{}, fieldErrorf("dist", "unknown distribution %q; allowed: %s", kind, distKinds)
	}
	out.Kind = kind
	for _, k := range keys {
		val := m[k]
		switch k {
		case "dist":
		case "values", "weights":
			list, err := tomlNumbers(k, val)
			if err != nil {
				return Dist{}, err
			}
			if k == "values" {
				out.Values = list
			} else {
				out.Weights = list
			}
		default:
			f, err := tomlNumber(val)
			if err != nil {
				return Dist{}, &FieldError{Key: k, Msg: err.Error()}
			}
			*scalarField(&out, k) = f
		}
	}
	if err := out.Validate(); err != nil {
		return Dist{}, err
	}
	return out, nil
}

// scalarField returns the address of d's scalar field for a TOML key, or
// nil if key names none.
func scalarField(d *Dist, key string) *float64 {
	for _, f := range distScalars() {
		if f.key == key {
			return f.get(d)
		}
	}
	return nil
}

// tomlNumber converts a decoded TOML integer, float or duration string to a
// float64 (seconds, for a duration).
func tomlNumber(v any) (float64, error) {
	switch x := v.(type) {
	case int64:
		return float64(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("must be a finite number, got %v", x)
		}
		return x, nil
	case string:
		d, err := ParseDuration(strings.TrimSpace(x))
		if err != nil {
			return 0, fmt.Errorf("expected a number or a duration: %w", err)
		}
		return float64(d), nil
	default:
		return 0, fmt.Errorf("expected a number or a duration string, got %s", describe(v))
	}
}

// tomlNumbers converts a decoded TOML array of numbers or duration strings.
func tomlNumbers(key string, v any) ([]float64, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fieldErrorf(key, "expected an array of numbers, got %s", describe(v))
	}
	out := make([]float64, len(list))
	for i, e := range list {
		f, err := tomlNumber(e)
		if err != nil {
			return nil, fieldErrorf(fmt.Sprintf("%s[%d]", key, i), "%v", err)
		}
		out[i] = f
	}
	return out, nil
}
