package scenarios

import (
	"reflect"

	"github.com/headroom-sim/headroom/scenarios/schema"
	"github.com/headroom-sim/headroom/workloads"
)

// editDurations names the bare numbers that edits (--set, a variant's set,
// --param) give for durations, at the edit, as bareDurations does for the
// file: --set provider.gpt.latency.tpot.mean=15 is 15 seconds per token.
// An edit marked exact (a flag's value, already in seconds) is left alone.
// It also returns the canonical paths whose values in the file the edits
// replace, which no longer apply.
func (s *Scenario) editDurations(edits []edit) (out []Warning, set []string) {
	for _, e := range edits {
		if e.path == "" {
			continue
		}
		_, canon, msg := setPath(s.tree, e.path, e.value, e.replace)
		if msg != "" {
			continue // derive reports it
		}
		t, ok := typeAt(canon)
		if !ok {
			set = append(set, canon)
			continue
		}
		set = replacedPaths(set, canon, t, normalize(e.value), e.replace)
		if e.exact {
			continue
		}
		walkDurations(normalize(e.value), t, canon, func(path string, n float64) {
			msg := bareMessage(n)
			if path != canon {
				msg = displayKey(path, s.tree) + ": " + msg
			}
			out = append(out, Warning{File: s.file, Line: e.line, Key: e.key, Message: msg, located: true})
		})
	}
	return out, set
}

// replacedPaths adds to list the canonical paths whose values an edit of
// v at path (of schema type t) replaces, as setPath applies it: a table
// given for a plain table updates only the keys it names, anything else
// replaces the whole value.
func replacedPaths(list []string, path string, t reflect.Type, v any, replace bool) []string {
	t = deref(t)
	m, isTable := v.(map[string]any)
	if replace || !isTable || t.Kind() != reflect.Struct || schema.IsScalar(t) {
		return append(list, path)
	}
	fields, err := schema.Fields(t)
	if err != nil {
		return append(list, path)
	}
	for _, f := range fields {
		if x, ok := m[f.Key]; ok {
			list = replacedPaths(list, schema.JoinPath(path, f.Key), f.Type, x, false)
		}
	}
	return list
}

// paramDurations is editDurations for the values of sweep parameters.
func (s *Scenario) paramDurations(params []Param) []Warning {
	var edits []edit
	for _, p := range params {
		if p.IsLoad() {
			continue
		}
		for _, q := range append([]Param{p}, p.Linked...) {
			for j, v := range q.Values {
				edits = append(edits, edit{path: q.Key, value: v, key: "--param " + q.Key + "=" + q.Raw[j]})
			}
		}
	}
	out, _ := s.editDurations(edits)
	return out
}

// typeAt is the schema type of the key at canonical path path.
func typeAt(path string) (reflect.Type, bool) {
	steps, err := parsePath(path)
	if err != nil {
		return nil, false
	}
	t := reflect.TypeFor[Scenario]()
	for _, st := range steps {
		t = deref(t)
		switch {
		case st.isIdx && t.Kind() == reflect.Slice:
			t = t.Elem()
		case !st.isIdx && t.Kind() == reflect.Struct:
			fields, err := schema.Fields(t)
			if err != nil {
				return nil, false
			}
			found := false
			for _, f := range fields {
				if f.Key == st.key {
					t, found = f.Type, true
					break
				}
			}
			if !found {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return t, true
}

// exactValue reports whether an override's value is already in the key's
// unit: a workloads.Duration is seconds a flag parsed (--duration 10m),
// not a bare number someone typed.
func exactValue(v any) bool {
	_, ok := v.(workloads.Duration)
	return ok
}
