package scenarios

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/headroom-sim/headroom/scenarios/schema"
)

// Overrides (--set, [[variant]] set, --param, sweep levels) are applied to
// the file's generic TOML tree by key path, walking the schema alongside so
// that a mistyped key or element name is refused at once with what exists.
// The tree is never modified: setPath copies the maps and arrays on the
// path it changes and shares the rest, so the file is parsed once however
// many configurations are built from it.
//
// Path syntax: dot-separated keys; a segment may be quoted ("gpt-4.1" or
// 'gpt-4.1') when it contains dots. An element of an array of tables is
// selected by its name (provider.sonnet) or its index (provider[1] or
// provider.1).

// setter applies one override to a tree.
type setter struct {
	value   any
	replace bool // replace a plain table rather than update the keys given
}

// setPath returns a copy of root with value at path, and the path's
// canonical form (keys and element indices: provider[0].limits.rpm). A
// table given for a plain table updates the keys it names; any other value
// (a distribution, a retry policy, an arrival process, a scalar, an array)
// replaces what was there. msg says what is wrong when the path does not
// exist.
func setPath(root map[string]any, path string, value any, replace bool) (map[string]any, string, string) {
	steps, err := parsePath(path)
	if err != nil {
		return nil, "", err.Error()
	}
	st := &setter{value: normalize(value), replace: replace}
	out, at, msg := st.set(root, root, reflect.TypeFor[Scenario](), steps, nil)
	if msg != "" {
		return nil, "", msg
	}
	m, _ := out.(map[string]any)
	return m, formatPath(at), ""
}

// set returns node with the value set at rest below it; at is the
// canonical path of node, t its schema type, root the whole tree (for
// element names in messages).
func (st *setter) set(root map[string]any, node any, t reflect.Type, rest, at []step) (any, []step, string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if len(rest) == 0 {
		return st.assign(root, node, t, at)
	}
	s := rest[0]
	show := func() string {
		if len(at) == 0 {
			return "the root"
		}
		return displaySteps(at, root)
	}
	switch {
	case t.Kind() == reflect.Struct:
		if s.isIdx {
			return nil, at, fmt.Sprintf("%s is a table, not an array; cannot select [%d]", show(), s.index)
		}
		m, msg := tableOf(node, t)
		if msg != "" {
			return nil, at, show() + ": " + msg
		}
		fields, err := schema.Fields(t)
		if err != nil {
			return nil, at, err.Error()
		}
		var f *schema.Field
		for i := range fields {
			if fields[i].Key == s.key {
				f = &fields[i]
			}
		}
		if f == nil {
			names := make([]string, len(fields))
			for i, f := range fields {
				names[i] = f.Key
			}
			msg := "unknown key " + strconv.Quote(s.key)
			if len(at) > 0 {
				msg += " under " + show()
			}
			return nil, at, msg + "; allowed: " + schema.List(names) + schema.DidYouMean(s.key, names)
		}
		v, end, msg := st.set(root, m[s.key], f.Type, rest[1:], append(at[:len(at):len(at)], keyStep(s.key)))
		if msg != "" {
			return nil, end, msg
		}
		out := make(map[string]any, len(m)+1)
		for k, x := range m {
			out[k] = x
		}
		out[s.key] = v
		return out, end, ""
	case t.Kind() == reflect.Slice:
		elems, _ := arrayOf(node)
		i, msg := pick(root, elems, s, at, t.Elem().Kind() == reflect.Struct)
		if msg != "" {
			return nil, at, msg
		}
		v, end, msg := st.set(root, elems[i], t.Elem(), rest[1:], append(at[:len(at):len(at)], idxStep(i)))
		if msg != "" {
			return nil, end, msg
		}
		if aot, ok := node.([]map[string]any); ok {
			if m, ok := v.(map[string]any); ok {
				out := append([]map[string]any(nil), aot...)
				out[i] = m
				return out, end, ""
			}
		}
		out := append([]any(nil), elems...)
		out[i] = v
		return out, end, ""
	}
	return nil, at, fmt.Sprintf("%s is %s, not a table; cannot select %s", show(), kindWords(t), showStep(s))
}

// assign is the value given for a key of type t that holds node.
func (st *setter) assign(root map[string]any, node any, t reflect.Type, at []step) (any, []step, string) {
	m, isTable := st.value.(map[string]any)
	if st.replace || !isTable || t.Kind() != reflect.Struct || schema.IsScalar(t) {
		return st.value, at, ""
	}
	// A table for a plain table updates the keys it names, one by one.
	var out any = node
	for _, k := range sortedKeys(m) {
		sub := &setter{value: m[k]}
		v, end, msg := sub.set(root, out, t, []step{keyStep(k)}, at)
		if msg != "" {
			return nil, end, msg
		}
		out = v
	}
	if out == nil {
		out = map[string]any{}
	}
	return out, at, ""
}

// tableOf returns node as a table of type t: an absent table is empty, and
// a value written in its short form (retry = "openai-python", a
// distribution given as a number) is expanded to the table it stands for.
func tableOf(node any, t reflect.Type) (map[string]any, string) {
	switch n := node.(type) {
	case nil:
		return map[string]any{}, ""
	case map[string]any:
		return n, ""
	}
	if schema.IsScalar(t) {
		v := reflect.New(t)
		if err := v.Interface().(schema.Scalar).DecodeScalar(node); err != nil {
			return nil, err.Error()
		}
		return schema.Table(v.Interface()), ""
	}
	return nil, "expected a table, got " + schema.TypeWords(node)
}

// pick selects the element of an array that step s names: an index, an
// element name (for arrays of tables) or a decimal index written as a key.
func pick(root map[string]any, elems []any, s step, at []step, named bool) (int, string) {
	show := displaySteps(at, root)
	if s.isIdx {
		if s.index >= len(elems) {
			return 0, fmt.Sprintf("index [%d] out of range: %s has %d element(s)", s.index, show, len(elems))
		}
		return s.index, ""
	}
	var have []string
	for i, e := range elems {
		if n, ok := elementName(e); ok && named {
			if n == s.key {
				return i, ""
			}
			have = append(have, n)
		}
	}
	if i, err := strconv.Atoi(s.key); err == nil && i >= 0 && strconv.Itoa(i) == s.key {
		if i < len(elems) {
			return i, ""
		}
		return 0, fmt.Sprintf("index %d out of range: %s has %d element(s)", i, show, len(elems))
	}
	noun := "element"
	for j := len(at) - 1; j >= 0; j-- {
		if !at[j].isIdx {
			noun = at[j].key
			break
		}
	}
	if len(have) == 0 {
		return 0, fmt.Sprintf("no %s named %q: its elements have no names; select one by index, like %s[0]", noun, s.key, show)
	}
	return 0, fmt.Sprintf("no %s named %q; have: %s%s", noun, s.key, schema.List(have), schema.DidYouMean(s.key, have))
}

func showStep(s step) string {
	if s.isIdx {
		return "[" + strconv.Itoa(s.index) + "]"
	}
	return strconv.Quote(s.key)
}

// kindWords describes a key's type as a TOML value, for messages.
func kindWords(t reflect.Type) string {
	switch t.Name() {
	case "Duration":
		return "a duration"
	case "Clock":
		return "a clock time"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Uint64:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Map:
		return "a table"
	}
	return "a single value"
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// arrayOf returns the elements of a TOML array value (nil for no array).
func arrayOf(node any) ([]any, bool) {
	switch a := node.(type) {
	case []any:
		return a, true
	case []map[string]any:
		out := make([]any, len(a))
		for i, m := range a {
			out[i] = m
		}
		return out, true
	}
	return nil, false
}

// normalize turns Go values given to an Override (int, float32, []float64)
// into the generic TOML values the decoder reads (int64, float64, []any).
func normalize(v any) any {
	switch x := v.(type) {
	case nil, string, bool, int64, float64, map[string]any, []map[string]any:
		if m, ok := x.(map[string]any); ok {
			out := make(map[string]any, len(m))
			for k, e := range m {
				out[k] = normalize(e)
			}
			return out
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if u := rv.Uint(); u <= math.MaxInt64 {
			return int64(u)
		}
		return float64(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	case reflect.String:
		return rv.String()
	case reflect.Slice:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = normalize(rv.Index(i).Interface())
		}
		return out
	}
	return v
}

// ParseSet parses a command-line override "KEY=VALUE". KEY is a path as for
// an override (quoted segments may contain '='); VALUE is TOML syntax (8000, 2.5,
// "5m", true, [1,2,3], { dist = "fixed", value = 3 }), and a number may carry
// a magnitude suffix as the summary prints it (2M, 1.5k: schema.ParseNumber,
// the parser --param and sweep levels use too). A VALUE that is not valid
// TOML and does not start with a quote, [ or { (a bare word like 5m or
// poisson) is taken as a string.
func ParseSet(s string) (path string, value any, err error) {
	eq := -1
	var quote byte
	for i := 0; i < len(s) && eq < 0; i++ {
		c := s[i]
		switch {
		case quote == '"' && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
		case c == '"' || c == '\'':
			quote = c
		case c == '=':
			eq = i
		}
	}
	if eq < 0 {
		return "", nil, fmt.Errorf("invalid override %q: expected KEY=VALUE", s)
	}
	path = strings.TrimSpace(s[:eq])
	if path == "" {
		return "", nil, fmt.Errorf("invalid override %q: missing key before =", s)
	}
	if _, perr := parsePath(path); perr != nil {
		return "", nil, fmt.Errorf("invalid override %q: %v", s, perr)
	}
	raw := strings.TrimSpace(s[eq+1:])
	if raw == "" {
		return "", nil, fmt.Errorf("invalid override %q: missing value after = (write \"\" for an empty string)", s)
	}
	if v, ok := schema.ParseNumber(raw); ok {
		return path, v, nil
	}
	value, verr := parseTOMLValue(raw)
	if verr == nil {
		return path, value, nil
	}
	if !strings.ContainsAny(raw[:1], "\"'[{") && !strings.ContainsAny(raw, "\r\n") {
		return path, raw, nil
	}
	return "", nil, fmt.Errorf("invalid value in override %q: %v", s, verr)
}

// parseTOMLValue parses one TOML value.
func parseTOMLValue(raw string) (any, error) {
	if line, msg := checkDepth([]byte("v = " + raw)); line > 0 {
		return nil, errors.New(msg)
	}
	var m map[string]any
	if _, err := toml.Decode("v = "+raw+"\n", &m); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, errors.New(pe.Message)
		}
		return nil, err
	}
	v, ok := m["v"]
	if len(m) != 1 || !ok {
		return nil, errors.New("not a single value")
	}
	return v, nil
}
