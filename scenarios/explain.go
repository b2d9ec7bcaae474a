package scenarios

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/headroom-sim/headroom/scenarios/schema"
	"github.com/headroom-sim/headroom/workloads"
)

// Explain describes one key or table of the format from its definition:
// what it means, its type, unit, default and what it allows; a table also
// lists its keys. path is a key path as in a file or an override;
// elements of arrays of tables may be named or numbered or left out
// (provider.sonnet.limits.rpm, provider[0].limits.rpm and
// provider.limits.rpm are the same key). "distribution" explains a
// distribution table.
func Explain(path string) (string, error) {
	tables := Tables()
	if path == "" || path == distributionPath {
		tb, _ := lookupTable(tables, path)
		return explainTable(tables, tb), nil
	}
	steps, err := parsePath(path)
	if err != nil {
		return "", err
	}
	t := deref(reflect.TypeFor[Scenario]())
	var at []string
	var key *KeyDoc
	for i, st := range steps {
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct {
			t = t.Elem()
			if st.isIdx {
				continue // an element, by index
			}
			if !hasKey(t, st.key) {
				// A name: an element, unless it reads as a mistaken key
				// (a near spelling of one, or a key deeper down, given
				// last) or the next step is no key of the element.
				if i+1 < len(steps) && (steps[i+1].isIdx || hasKey(t, steps[i+1].key)) {
					continue
				}
				_, near := schema.Suggest(st.key, tableKeys(t))
				if near || i+1 == len(steps) && deeperKeys(tables, st.key, at) != nil {
					return "", unknownKey(tables, t, st.key, at)
				}
				continue
			}
		}
		if st.isIdx {
			return "", fmt.Errorf("%s: %s is not an array of tables", path, strings.Join(at, "."))
		}
		if schema.IsRanged(t) {
			t = deref(reflect.TypeFor[Scenario]())
			at = []string{distributionPath}
			if tb, ok := lookupTable(tables, distributionPath); ok {
				t = tb.t
			}
		}
		if t.Kind() != reflect.Struct {
			return "", fmt.Errorf("%s: %s is a %s, not a table", path, strings.Join(at, "."), keyType(t))
		}
		tb, ok := lookupTable(tables, strings.Join(at, "."))
		if !ok {
			return "", fmt.Errorf("%s: no table %s", path, strings.Join(at, "."))
		}
		if tb.Same != "" {
			tb, _ = lookupTable(tables, tb.Same)
		}
		key = nil
		var names []string
		for j := range tb.Keys {
			names = append(names, tb.Keys[j].Key)
			if tb.Keys[j].Key == st.key {
				key = &tb.Keys[j]
			}
		}
		if key == nil {
			return "", unknownKey(tables, t, st.key, at)
		}
		at = append(at, st.key)
		fields, _ := schema.Fields(t)
		for _, f := range fields {
			if f.Key == st.key {
				t = deref(f.Type)
			}
		}
		if i == len(steps)-1 {
			break
		}
	}
	if key.Table != "" || t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct {
		tb, _ := lookupTable(tables, strings.Join(at, "."))
		return explainKey(*key) + "\n" + explainTable(tables, tb), nil
	}
	out := explainKey(*key)
	if key.Type == "distribution" {
		out += "\n(see `headroom explain distribution` for the forms of a distribution)\n"
	}
	return out, nil
}

// unknownKey is the error for a key that table t (at path at) lacks: its
// keys, a near spelling, or the deeper keys of that name
// (workload.think: did you mean workload.demand.think?).
func unknownKey(tables []Table, t reflect.Type, key string, at []string) error {
	names := tableKeys(t)
	where := ""
	if len(at) > 0 {
		where = " under " + strings.Join(at, ".")
	}
	if deeper := deeperKeys(tables, key, at); len(deeper) > 0 {
		return fmt.Errorf("no key %q%s; did you mean %s?", key, where, strings.Join(deeper, " or "))
	}
	return fmt.Errorf("unknown key %q%s; allowed: %s%s", key, where, schema.List(names), schema.DidYouMean(key, names))
}

// deeperKeys lists the paths of the keys named key below the table at.
func deeperKeys(tables []Table, key string, at []string) []string {
	prefix := strings.Join(at, ".")
	var out []string
	for _, tb := range tables {
		if prefix != "" && tb.Path != prefix && !strings.HasPrefix(tb.Path, prefix+".") {
			continue
		}
		for _, k := range tb.Keys {
			if k.Key == key && !slices.Contains(out, k.Path) {
				out = append(out, k.Path)
			}
		}
	}
	return out
}

// keysOf lists table type t's keys.
func tableKeys(t reflect.Type) []string {
	fields, _ := schema.Fields(t)
	names := make([]string, 0, len(fields))
	for _, f := range fields {
		names = append(names, f.Key)
	}
	return names
}

func hasKey(t reflect.Type, key string) bool {
	fields, _ := schema.Fields(t)
	for _, f := range fields {
		if f.Key == key {
			return true
		}
	}
	return false
}

// explainKey writes one key's entry.
func explainKey(k KeyDoc) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n  %s\n", k.Path, k.Meaning)
	for _, f := range [][2]string{{"type", k.Type}, {"unit", k.Unit}, {"default", k.Default}, {"allowed", k.Allowed}} {
		if f[1] != "" {
			fmt.Fprintf(&b, "  %-8s %s\n", f[0]+":", f[1])
		}
	}
	if k.Type == "duration" {
		b.WriteString("  a string such as \"400ms\", \"30s\", \"5m\" or \"1h30m\"; a bare number is read as seconds\n  (5000 is 1h23m20s: write \"5000ms\"), and a warning says so\n")
	}
	return b.String()
}

// explainTable lists a table's keys, one line each.
func explainTable(tables []Table, tb Table) string {
	if tb.Same != "" {
		tb, _ = lookupTable(tables, tb.Same)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s keys:\n", tb.Header)
	width := 0
	for _, k := range tb.Keys {
		width = max(width, len(k.Key))
	}
	for _, k := range tb.Keys {
		def := ""
		switch k.Default {
		case "":
		case "required":
			def = " (required)"
		default:
			def = " (default " + k.Default + ")"
		}
		fmt.Fprintf(&b, "  %-*s  %s: %s%s\n", width, k.Key, k.Type, k.Meaning, def)
	}
	return b.String()
}

// JSONSchema returns a JSON Schema (draft-07) of the scenario format,
// written from the same definitions, for editors that check TOML against a
// schema (Taplo, the Even Better TOML extension): completion, the meaning
// of each key on hover, unknown keys, wrong types and numbers out of range
// flagged as one types. What a schema cannot say (one demand mode, p95
// above the median, references between tables) is left to headroom
// validate.
func JSONSchema() ([]byte, error) {
	root := objectSchema(reflect.TypeFor[Scenario]())
	root["$schema"] = "http://json-schema.org/draft-07/schema#"
	root["title"] = "Headroom scenario"
	root["description"] = "A Headroom capacity-planning scenario: workloads, hosted providers, GPU clusters, routes, a gateway and variants."
	return json.MarshalIndent(root, "", "  ")
}

// objectSchema is the JSON Schema of a table of type t.
func objectSchema(t reflect.Type) map[string]any {
	fields, err := schema.Fields(t)
	if err != nil {
		panic(err) // the schema tests parse every tag
	}
	props := map[string]any{}
	for i := range fields {
		props[fields[i].Key] = keySchema(&fields[i], fields[i].Type)
	}
	return map[string]any{"type": "object", "properties": props, "additionalProperties": false}
}

// keySchema is the JSON Schema of key f of type t.
func keySchema(f *schema.Field, t reflect.Type) map[string]any {
	t = deref(t)
	var s map[string]any
	short := func() map[string]any {
		if t.Implements(describedType) {
			return reflect.Zero(t).Interface().(schema.Described).ScalarSchema()
		}
		return nil
	}
	switch {
	case t.Kind() == reflect.Struct && schema.IsScalar(t):
		s = map[string]any{"anyOf": []any{short(), objectSchema(t)}}
	case t.Kind() == reflect.Struct:
		s = objectSchema(t)
	case schema.IsScalar(t):
		s = short()
	case t.Kind() == reflect.Slice:
		s = map[string]any{"type": "array", "items": keySchema(f, t.Elem())}
	case t.Kind() == reflect.Map:
		s = map[string]any{"type": "object"}
	case t.Kind() == reflect.Bool:
		s = map[string]any{"type": "boolean"}
	case t.Kind() == reflect.String:
		s = map[string]any{"type": "string"}
		if len(f.Enum) > 0 {
			s["enum"] = f.Enum
		}
	default:
		s = numberSchema(f, t.Kind() != reflect.Float64)
		if f.Accept == "duration" {
			s = map[string]any{"anyOf": []any{s, workloads.Duration(0).ScalarSchema()["anyOf"].([]any)[0]}}
		}
	}
	if t.Kind() != reflect.Slice || schema.IsScalar(t) {
		desc := f.Doc
		if f.Unit != "" {
			desc += " (" + f.Unit + ")"
		}
		if f.Default != "" {
			desc += ". Default: " + f.Default
		}
		if a := f.Allowed(); a != "" {
			desc += ". Allowed: " + a
		}
		s["description"] = desc
	}
	return s
}

// numberSchema is the JSON Schema of a number with f's range: its bounds
// when it is one interval, a list of values when it is points.
func numberSchema(f *schema.Field, integer bool) map[string]any {
	typ := "number"
	if integer {
		typ = "integer"
	}
	var alts []any
	for _, iv := range f.Range.Parts {
		s := map[string]any{"type": typ}
		switch {
		case iv.Lo == iv.Hi:
			s["const"] = iv.Lo
		default:
			if !iv.LoOpen {
				s["minimum"] = iv.Lo
			} else if iv.Lo > -1e308 {
				s["exclusiveMinimum"] = iv.Lo
			}
			if !iv.HiOpen {
				s["maximum"] = iv.Hi
			} else if iv.Hi < 1e308 {
				s["exclusiveMaximum"] = iv.Hi
			}
		}
		alts = append(alts, s)
	}
	if f.Zero != "" {
		alts = append(alts, map[string]any{"type": typ, "const": 0})
	}
	switch len(alts) {
	case 0:
		return map[string]any{"type": typ}
	case 1:
		return alts[0].(map[string]any)
	}
	return map[string]any{"anyOf": alts}
}
