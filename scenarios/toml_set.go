package scenarios

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Set assigns value to the field at path in the struct tree rooted at v (a
// non-nil pointer), as a planner's override: `--set provider.sonnet.limits.rpm=8000`
// or a [[variant]] `set = { "provider.sonnet.limits.rpm" = 8000 }`.
//
// Path syntax: dot-separated keys named by the toml tags (the empty path is
// the root); a segment may be quoted ("gpt-4.1" or 'gpt-4.1') when it contains
// dots. An element of an array of tables is selected by its name (the
// element's `toml:"name"` field), or by index: provider[1] or provider.1. Map
// fields (map[string]T) are addressed by key; a new key may be added only as
// the last segment.
//
// value is a Go value as produced by the TOML decoder (int64, float64, string,
// bool, time.Time, []any, []map[string]any, map[string]any). Conversions:
// int64 into integer and float fields; float64 with an integral value into
// integer fields; strings into time.Duration ("5m"); anything a field's
// UnmarshalTOML(any) method or encoding.TextUnmarshaler accepts goes through
// that method; []any into slices element by element (replacing the slice);
// map[string]any into structs and maps key by key (updating the existing
// value; unknown struct keys are errors). Nil pointers are allocated as
// needed. For convenience value may also be a Go value of the field's own
// type (as returned by Get), which is stored as is, or any Go number (int,
// uint32, float32...), which is treated as the corresponding TOML number.
//
// Set is atomic: on error v is left unchanged. Errors are *Error values whose
// Key is path and whose message names what is allowed, e.g.
// `no workload named "sumarize"; have: summarize, classify` or
// `unknown key "rpmm" under provider "sonnet".limits; allowed: rpm, tpm`.
func Set(v any, path string, value any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &Error{Key: path, Msg: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &Error{Key: path, Msg: fmt.Sprintf("cannot set into %T: need a non-nil pointer", v)}
	}
	steps, perr := parsePath(path)
	if perr != nil {
		return &Error{Key: path, Msg: perr.Error()}
	}
	st := &setter{names: NamesFrom(v), dry: true}
	if msg := st.set(rv.Elem(), steps, nil, value); msg != "" {
		return &Error{Key: path, Msg: msg}
	}
	st.dry = false
	if msg := st.set(rv.Elem(), steps, nil, value); msg != "" {
		return &Error{Key: path, Msg: msg}
	}
	return nil
}

// setter walks a path for Set. In dry mode nothing reachable from the root is
// modified: nil pointers are replaced by detached zero values and the value is
// converted into a scratch copy, so that every error is found before the real
// pass changes anything.
type setter struct {
	names ElementNames
	dry   bool
}

// set returns a message describing the problem, or "".
func (st *setter) set(dst reflect.Value, rest, at []step, value any) string {
	if len(rest) == 0 {
		a := &assigner{names: st.names}
		target := dst
		if st.dry {
			target = reflect.New(dst.Type()).Elem()
		}
		if !target.CanSet() {
			return "cannot set this field"
		}
		a.assign(target, value, at)
		if len(a.problems) > 0 {
			p := a.problems[0]
			if len(p.at) > len(at) && !p.unknown {
				return displaySteps(p.at, st.names) + ": " + p.msg
			}
			return p.msg
		}
		return ""
	}
	for dst.Kind() == reflect.Pointer || dst.Kind() == reflect.Interface {
		if dst.Kind() == reflect.Interface {
			if dst.IsNil() {
				return fmt.Sprintf("%s has no value; cannot select %s", st.show(at), showStep(rest[0]))
			}
			inner := dst.Elem()
			tmp := reflect.New(inner.Type()).Elem()
			tmp.Set(inner)
			if msg := st.set(tmp, rest, at, value); msg != "" {
				return msg
			}
			if !st.dry {
				if !dst.CanSet() {
					return "cannot set this field"
				}
				dst.Set(tmp)
			}
			return ""
		}
		if dst.IsNil() {
			if st.dry {
				dst = reflect.New(dst.Type().Elem()).Elem()
				continue
			}
			if !dst.CanSet() {
				return "cannot set this field"
			}
			dst.Set(reflect.New(dst.Type().Elem()))
		}
		dst = dst.Elem()
	}
	s := rest[0]
	switch dst.Kind() {
	case reflect.Struct:
		if s.isIdx {
			return fmt.Sprintf("%s is a table, not an array; cannot select [%d]", st.show(at), s.index)
		}
		fields := structFields(dst.Type())
		f, ok := findField(fields, s.key)
		if !ok {
			msg := "unknown key " + strconv.Quote(s.key)
			if len(at) > 0 {
				msg += " under " + st.show(at)
			}
			return msg + "; allowed: " + listOrNone(fieldNames(fields)) + didYouMean(s.key, fieldNames(fields))
		}
		fv, attached := fieldValue(dst, f.index, !st.dry)
		if !st.dry && (!attached || !fv.CanSet()) {
			return fmt.Sprintf("cannot set unexported field %s", f.name)
		}
		return st.set(fv, rest[1:], appendStep(at, keyStep(f.name)), value)
	case reflect.Slice, reflect.Array:
		i, msg := selectIndex(dst, s, at, st.names)
		if msg != "" {
			return msg
		}
		return st.set(dst.Index(i), rest[1:], appendStep(at, idxStep(i)), value)
	case reflect.Map:
		kt := dst.Type().Key()
		if kt.Kind() != reflect.String && !(kt.Kind() == reflect.Interface && kt.NumMethod() == 0) {
			return fmt.Sprintf("%s has %s keys and cannot be addressed by key", st.show(at), kt)
		}
		if s.isIdx {
			return fmt.Sprintf("%s is a table, not an array; cannot select [%d]", st.show(at), s.index)
		}
		key := mapKey(s.key, kt)
		old := dst.MapIndex(key)
		if !old.IsValid() && len(rest) > 1 {
			return noSuchElement(at, s.key, mapKeys(dst))
		}
		elem := reflect.New(dst.Type().Elem()).Elem()
		if old.IsValid() {
			elem.Set(old)
		}
		if msg := st.set(elem, rest[1:], appendStep(at, keyStep(s.key)), value); msg != "" {
			return msg
		}
		if !st.dry {
			if dst.IsNil() {
				if !dst.CanSet() {
					return "cannot set this field"
				}
				dst.Set(reflect.MakeMap(dst.Type()))
			}
			dst.SetMapIndex(key, elem)
		}
		return ""
	}
	return fmt.Sprintf("%s is %s, not a table; cannot select %s", st.show(at), kindWords(dst.Type()), showStep(s))
}

// show displays a canonical path for messages.
func (st *setter) show(at []step) string {
	if len(at) == 0 {
		return "the root"
	}
	return displaySteps(at, st.names)
}

func showStep(s step) string {
	if s.isIdx {
		return "[" + strconv.Itoa(s.index) + "]"
	}
	return strconv.Quote(s.key)
}

// kindWords describes a Go type as a TOML value, for messages.
func kindWords(t reflect.Type) string {
	if t == durationType {
		return "a duration"
	}
	if t == timeType {
		return "a date-time"
	}
	if t.Kind() != reflect.Interface && (implements(t, unmarshalerType) || implements(t, textUnmarshalerType)) {
		return "a single value"
	}
	switch k := t.Kind(); {
	case k >= reflect.Int && k <= reflect.Uintptr:
		return "an integer"
	case k == reflect.Float32 || k == reflect.Float64:
		return "a number"
	case k == reflect.String:
		return "a string"
	case k == reflect.Bool:
		return "a boolean"
	case k == reflect.Slice || k == reflect.Array:
		return "an array"
	case k == reflect.Struct || k == reflect.Map:
		return "a table"
	}
	return "a " + t.String()
}

// collectionName names the elements of the array or map at path at, for
// messages: the last key of the path ("workload" for workload[0].stage's
// parent), or "element".
func collectionName(at []step) string {
	for i := len(at) - 1; i >= 0; i-- {
		if !at[i].isIdx {
			return at[i].key
		}
	}
	return "element"
}

// noSuchElement formats `no workload named "x"; have: a, b; did you mean "a"?`.
func noSuchElement(at []step, name string, have []string) string {
	return fmt.Sprintf("no %s named %q; have: %s%s", collectionName(at), name, listOrNone(have), didYouMean(name, have))
}

// mapKeys lists the keys of a map with string keys, sorted.
func mapKeys(m reflect.Value) []string {
	keys := make([]string, 0, m.Len())
	iter := m.MapRange()
	for iter.Next() {
		k := iter.Key()
		if k.Kind() == reflect.Interface {
			k = k.Elem()
		}
		if k.Kind() == reflect.String {
			keys = append(keys, k.String())
		}
	}
	sort.Strings(keys)
	return keys
}

// selectIndex picks the element of the slice or array seq that step s names:
// an index step, an element name, or a decimal index written as a key.
func selectIndex(seq reflect.Value, s step, at []step, names ElementNames) (int, string) {
	n := seq.Len()
	if s.isIdx {
		if s.index >= n {
			return 0, fmt.Sprintf("index [%d] out of range: %s has %d element(s)", s.index, displaySteps(at, names), n)
		}
		return s.index, ""
	}
	var have []string
	for i := 0; i < n; i++ {
		name, ok := elementName(seq.Index(i))
		if ok && name == s.key {
			return i, ""
		}
		if ok {
			have = append(have, name)
		}
	}
	if i, err := strconv.Atoi(s.key); err == nil && i >= 0 && strconv.Itoa(i) == s.key {
		if i < n {
			return i, ""
		}
		return 0, fmt.Sprintf("index %d out of range: %s has %d element(s)", i, displaySteps(at, names), n)
	}
	if len(have) == 0 {
		return 0, fmt.Sprintf("no %s named %q: its elements have no names; select one by index, like %s[0]",
			collectionName(at), s.key, displaySteps(at, names))
	}
	return 0, noSuchElement(at, s.key, have)
}

// elementName returns the name of an array element: its field tagged
// `toml:"name"` or its "name" map key, when that is a non-empty string.
func elementName(v reflect.Value) (string, bool) {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return "", false
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return "", false
	}
	var nv reflect.Value
	switch v.Kind() {
	case reflect.Struct:
		f, ok := findField(structFields(v.Type()), "name")
		if !ok {
			return "", false
		}
		fv, attached := fieldValue(v, f.index, false)
		if !attached {
			return "", false
		}
		nv = fv
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return "", false
		}
		nv = v.MapIndex(reflect.ValueOf("name").Convert(v.Type().Key()))
	default:
		return "", false
	}
	for nv.IsValid() && (nv.Kind() == reflect.Pointer || nv.Kind() == reflect.Interface) {
		if nv.IsNil() {
			return "", false
		}
		nv = nv.Elem()
	}
	if !nv.IsValid() || nv.Kind() != reflect.String || nv.String() == "" {
		return "", false
	}
	return nv.String(), true
}

// nav follows steps from v without modifying anything. It returns the value
// found, the canonical path (field names and element indices), and whether a
// nil pointer was crossed (the value is then a detached zero value).
func nav(v reflect.Value, steps []step, names ElementNames) (reflect.Value, []step, bool, string) {
	var at []step
	unset := false
	for _, s := range steps {
		for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
			if v.IsNil() {
				if v.Kind() == reflect.Interface {
					return v, at, true, fmt.Sprintf("%s has no value; cannot select %s", displayOrRoot(at, names), showStep(s))
				}
				v = reflect.New(v.Type().Elem()).Elem()
				unset = true
				continue
			}
			v = v.Elem()
		}
		if !v.IsValid() {
			return v, at, unset, "no value"
		}
		switch v.Kind() {
		case reflect.Struct:
			if s.isIdx {
				return v, at, unset, fmt.Sprintf("%s is a table, not an array; cannot select [%d]", displayOrRoot(at, names), s.index)
			}
			fields := structFields(v.Type())
			f, ok := findField(fields, s.key)
			if !ok {
				msg := "unknown key " + strconv.Quote(s.key)
				if len(at) > 0 {
					msg += " under " + displaySteps(at, names)
				}
				return v, at, unset, msg + "; allowed: " + listOrNone(fieldNames(fields)) + didYouMean(s.key, fieldNames(fields))
			}
			fv, attached := fieldValue(v, f.index, false)
			if !attached {
				unset = true
			}
			v = fv
			at = appendStep(at, keyStep(f.name))
		case reflect.Slice, reflect.Array:
			i, msg := selectIndex(v, s, at, names)
			if msg != "" {
				return v, at, unset, msg
			}
			v = v.Index(i)
			at = appendStep(at, idxStep(i))
		case reflect.Map:
			kt := v.Type().Key()
			if s.isIdx || (kt.Kind() != reflect.String && !(kt.Kind() == reflect.Interface && kt.NumMethod() == 0)) {
				return v, at, unset, fmt.Sprintf("%s cannot be indexed by %s", displayOrRoot(at, names), showStep(s))
			}
			mv := v.MapIndex(mapKey(s.key, kt))
			if !mv.IsValid() {
				return v, at, unset, noSuchElement(at, s.key, mapKeys(v))
			}
			v = mv
			at = appendStep(at, keyStep(s.key))
		default:
			return v, at, unset, fmt.Sprintf("%s is %s, not a table; cannot select %s", displayOrRoot(at, names), kindWords(v.Type()), showStep(s))
		}
	}
	return v, at, unset, ""
}

func displayOrRoot(at []step, names ElementNames) string {
	if len(at) == 0 {
		return "the root"
	}
	return displaySteps(at, names)
}

// lookup is nav without the bookkeeping, for reading names.
func lookup(v reflect.Value, steps []step) (reflect.Value, error) {
	out, _, _, msg := nav(v, steps, nil)
	if msg != "" {
		return reflect.Value{}, errors.New(msg)
	}
	return out, nil
}

// Get returns the current value at path in the tree rooted at v (see Set for
// the path syntax), as the Go value stored there: the field's own type (an
// int, a time.Duration, a struct, a slice...), with pointers followed. A
// value behind a nil pointer is reported as nil. Errors are *Error values as
// for Set.
func Get(v any, path string) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, &Error{Key: path, Msg: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	steps, perr := parsePath(path)
	if perr != nil {
		return nil, &Error{Key: path, Msg: perr.Error()}
	}
	rv := reflect.ValueOf(v)
	val, _, unset, msg := nav(rv, steps, NamesFrom(v))
	if msg != "" {
		return nil, &Error{Key: path, Msg: msg}
	}
	if unset {
		return nil, nil
	}
	for val.IsValid() && (val.Kind() == reflect.Pointer || val.Kind() == reflect.Interface) {
		if val.IsNil() {
			return nil, nil
		}
		val = val.Elem()
	}
	if !val.IsValid() {
		return nil, nil
	}
	if !val.CanInterface() {
		return nil, &Error{Key: path, Msg: "value is not accessible"}
	}
	return val.Interface(), nil
}

// CanonicalPath resolves path in the tree rooted at v (see Set for the
// syntax) and returns it in canonical form, with field names from the toml
// tags and element indices: provider.sonnet.limits.rpm becomes
// provider[0].limits.rpm. Use it to look the key up in a LineIndex.
func CanonicalPath(v any, path string) (canon string, err error) {
	defer func() {
		if r := recover(); r != nil {
			canon, err = "", &Error{Key: path, Msg: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	steps, perr := parsePath(path)
	if perr != nil {
		return "", &Error{Key: path, Msg: perr.Error()}
	}
	_, at, _, msg := nav(reflect.ValueOf(v), steps, NamesFrom(v))
	if msg != "" {
		return "", &Error{Key: path, Msg: msg}
	}
	return formatPath(at), nil
}

// ParseSet parses a command-line override "KEY=VALUE". KEY is a path as for
// Set (quoted segments may contain '='); VALUE is TOML syntax (8000, 2.5,
// "5m", true, [1,2,3], { dist = "fixed", value = 3 }). A VALUE that is not
// valid TOML and does not start with a quote, [ or { (a bare word like 5m or
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
func parseTOMLValue(raw string) (value any, err error) {
	defer func() {
		if r := recover(); r != nil {
			value, err = nil, fmt.Errorf("invalid value")
		}
	}()
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

// Paths lists the settable leaf paths of the tree rooted at v, sorted, using
// element names where they are unique (provider.sonnet.limits.rpm) and
// indices otherwise (provider[1].limits.rpm). Leaves are scalars, arrays of
// scalars, empty maps and arrays, and values decoded by UnmarshalTOML or
// UnmarshalText; structs behind nil pointers are listed with their zero
// fields.
func Paths(v any) (out []string) {
	defer func() {
		if r := recover(); r != nil {
			out = nil
		}
	}()
	var paths []string
	listPaths(reflect.ValueOf(v), "", nil, &paths, 0)
	sort.Strings(paths)
	return paths
}

func joinPath(prefix, seg string) string {
	if prefix == "" {
		return seg
	}
	return prefix + "." + seg
}

// isLeafType reports whether values of t are set as a whole.
func isLeafType(t reflect.Type) bool {
	if t == timeType || t == primitiveType {
		return true
	}
	if t.Kind() != reflect.Interface && (implements(t, unmarshalerType) || implements(t, textUnmarshalerType)) {
		return true
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map, reflect.Slice, reflect.Array, reflect.Pointer, reflect.Interface:
		return false
	}
	return true
}

// listPaths appends the leaf paths under v. types holds the struct types
// expanded through nil pointers on the way, to stop on recursive types.
func listPaths(v reflect.Value, prefix string, types []reflect.Type, out *[]string, depth int) {
	leaf := func() {
		if prefix != "" {
			*out = append(*out, prefix)
		}
	}
	if depth > 32 || !v.IsValid() {
		leaf()
		return
	}
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			if v.Kind() == reflect.Interface {
				leaf()
				return
			}
			et := v.Type().Elem()
			if isLeafType(et) || et.Kind() != reflect.Struct || containsType(types, et) {
				leaf()
				return
			}
			types = append(types[:len(types):len(types)], et)
			v = reflect.New(et).Elem()
			continue
		}
		v = v.Elem()
	}
	if isLeafType(v.Type()) {
		leaf()
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		fields := structFields(v.Type())
		if len(fields) == 0 {
			leaf()
		}
		for _, f := range fields {
			fv, _ := fieldValue(v, f.index, false)
			listPaths(fv, joinPath(prefix, formatKey(f.name)), types, out, depth+1)
		}
	case reflect.Map:
		keys := mapKeys(v)
		if len(keys) == 0 || v.Type().Key().Kind() != reflect.String {
			leaf()
			return
		}
		for _, k := range keys {
			listPaths(v.MapIndex(mapKey(k, v.Type().Key())), joinPath(prefix, formatKey(k)), types, out, depth+1)
		}
	case reflect.Slice, reflect.Array:
		n := v.Len()
		if n == 0 || isLeafType(derefType(v.Type().Elem())) {
			leaf()
			return
		}
		count := map[string]int{}
		for i := 0; i < n; i++ {
			if name, ok := elementName(v.Index(i)); ok {
				count[name]++
			}
		}
		for i := 0; i < n; i++ {
			seg := prefix + "[" + strconv.Itoa(i) + "]"
			if name, ok := elementName(v.Index(i)); ok && count[name] == 1 {
				seg = joinPath(prefix, formatKey(name))
			}
			listPaths(v.Index(i), seg, types, out, depth+1)
		}
	default:
		leaf()
	}
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func containsType(types []reflect.Type, t reflect.Type) bool {
	for _, x := range types {
		if x == t {
			return true
		}
	}
	return false
}
