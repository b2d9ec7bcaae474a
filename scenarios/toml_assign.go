package scenarios

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Types with special decoding rules. These are read-only after package
// initialisation.
var (
	unmarshalerType     = reflect.TypeFor[toml.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	durationType        = reflect.TypeFor[time.Duration]()
	timeType            = reflect.TypeFor[time.Time]()
	primitiveType       = reflect.TypeFor[toml.Primitive]()
	jsonNumberType      = reflect.TypeFor[json.Number]()
)

// problem is one thing wrong with a value, at a canonical path.
type problem struct {
	at      []step
	msg     string
	unknown bool // an unknown key
}

// assigner converts TOML values (as produced by the toml decoder) into Go
// values by reflection, recording problems with their paths.
type assigner struct {
	// decode follows the toml library's decoding rules and phrases
	// problems for a file ("got a string"); otherwise the more lenient
	// Set rules apply and problems show the offending value ("got "abc"").
	decode bool
	// collect keeps going after a problem to find them all.
	collect bool
	// keysOnly only looks for unknown keys: leaves are left alone and no
	// UnmarshalTOML/UnmarshalText method is called.
	keysOnly bool
	// names displays element names in messages; may be nil.
	names    ElementNames
	problems []problem
}

func (a *assigner) stopped() bool { return !a.collect && len(a.problems) > 0 }

func (a *assigner) fail(at []step, format string, args ...any) {
	a.problems = append(a.problems, problem{at: at, msg: fmt.Sprintf(format, args...)})
}

// mismatch records a value of the wrong type.
func (a *assigner) mismatch(at []step, expected string, data any) {
	got := typeWords(data)
	if !a.decode {
		got = valueWords(data)
		switch data.(type) {
		case int64, float64, bool:
			if strings.HasPrefix(expected, "a string") {
				got += " (quote it to make it a string)"
			}
		}
	}
	a.fail(at, "expected %s, got %s", expected, got)
}

// unknownKey records a key that matches no field of a struct.
func (a *assigner) unknownKey(at []step, key string, allowed []string) {
	msg := "unknown key " + strconv.Quote(key)
	if !a.decode && len(at) > 1 {
		msg += " under " + displaySteps(at[:len(at)-1], a.names)
	}
	msg += "; allowed: " + listOrNone(allowed) + didYouMean(key, allowed)
	a.problems = append(a.problems, problem{at: at, msg: msg, unknown: true})
}

// callSafely runs a user method, turning a panic into an error.
func callSafely(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

// implements reports whether values of type t (through their address) have
// the method set of iface.
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

// assign stores data into dst, which must be settable.
func (a *assigner) assign(dst reflect.Value, data any, at []step) {
	if a.stopped() {
		return
	}
	if data == nil {
		if !a.keysOnly {
			a.fail(at, "missing value")
		}
		return
	}
	t := dst.Type()
	if !a.decode {
		// Set also takes plain Go values: one of the field's own type is
		// stored as is, other Go numbers are read as TOML numbers.
		if dv := reflect.ValueOf(data); dv.Type().AssignableTo(t) && t.Kind() != reflect.Interface {
			if !dst.CanSet() {
				a.fail(at, "cannot set this field")
			} else if !a.keysOnly {
				dst.Set(dv)
			}
			return
		}
		data = normalizeNumber(data)
	}
	if t == primitiveType {
		if !a.keysOnly && !a.decode {
			a.fail(at, "cannot set a value that is decoded later (toml.Primitive)")
		}
		return
	}
	if t.Kind() == reflect.Pointer {
		if dst.IsNil() {
			if !dst.CanSet() {
				a.fail(at, "cannot set this field")
				return
			}
			dst.Set(reflect.New(t.Elem()))
		}
		a.assign(dst.Elem(), data, at)
		return
	}
	if !dst.CanAddr() || !dst.CanSet() {
		a.fail(at, "cannot set this field")
		return
	}
	isIface := t.Kind() == reflect.Interface
	if !isIface && implements(t, unmarshalerType) {
		if a.keysOnly {
			return
		}
		u, ok := dst.Addr().Interface().(toml.Unmarshaler)
		if !ok {
			return
		}
		if err := callSafely(func() error { return u.UnmarshalTOML(data) }); err != nil {
			a.fail(at, "%s", err.Error())
		}
		return
	}
	if t == timeType {
		if tm, ok := data.(time.Time); ok {
			if !a.keysOnly {
				dst.Set(reflect.ValueOf(tm))
			}
			return
		}
		if _, ok := data.(string); !ok {
			if !a.keysOnly {
				a.mismatch(at, "a date-time", data)
			}
			return
		}
	}
	if !isIface && implements(t, textUnmarshalerType) {
		if a.keysOnly {
			return
		}
		u, ok := dst.Addr().Interface().(encoding.TextUnmarshaler)
		if !ok {
			return
		}
		text, ok := a.textOf(data)
		if !ok {
			a.mismatch(at, "a string", data)
			return
		}
		if err := callSafely(func() error { return u.UnmarshalText([]byte(text)) }); err != nil {
			a.fail(at, "%s", err.Error())
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		a.assignStruct(dst, data, at)
	case reflect.Map:
		a.assignMap(dst, data, at)
	case reflect.Slice:
		a.assignSlice(dst, data, at)
	case reflect.Array:
		a.assignArray(dst, data, at)
	default:
		if !a.keysOnly {
			a.assignLeaf(dst, data, at)
		}
	}
}

// normalizeNumber turns Go numbers of other types into the int64 and float64
// the TOML decoder produces.
func normalizeNumber(data any) any {
	v := reflect.ValueOf(data)
	switch k := v.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		return v.Int()
	case k >= reflect.Uint && k <= reflect.Uintptr:
		if u := v.Uint(); u <= math.MaxInt64 {
			return int64(u)
		}
	case k == reflect.Float32 || k == reflect.Float64:
		return v.Float()
	}
	return data
}

// textOf renders a TOML value as text for an UnmarshalText method, the way the
// toml library does.
func (a *assigner) textOf(data any) (string, bool) {
	switch d := data.(type) {
	case toml.Marshaler:
		b, err := d.MarshalTOML()
		return string(b), err == nil
	case encoding.TextMarshaler:
		b, err := d.MarshalText()
		return string(b), err == nil
	case fmt.Stringer:
		return d.String(), true
	case string:
		return d, true
	case bool:
		return strconv.FormatBool(d), true
	case int64:
		return strconv.FormatInt(d, 10), true
	case float64:
		if a.decode {
			return fmt.Sprintf("%f", d), true
		}
		return strconv.FormatFloat(d, 'g', -1, 64), true
	}
	return "", false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// assignStruct stores a TOML table into a struct, key by key.
func (a *assigner) assignStruct(dst reflect.Value, data any, at []step) {
	tbl, ok := data.(map[string]any)
	if !ok {
		if !a.keysOnly {
			a.mismatch(at, "a table", data)
		}
		return
	}
	fields := structFields(dst.Type())
	for _, k := range sortedKeys(tbl) {
		if a.stopped() {
			return
		}
		child := appendStep(at, keyStep(k))
		f, ok := findField(fields, k)
		if !ok {
			a.unknownKey(child, k, fieldNames(fields))
			continue
		}
		fv, attached := fieldValue(dst, f.index, true)
		if !attached || !fv.CanSet() {
			if !a.keysOnly {
				a.fail(child, "cannot set unexported field %s.%s", dst.Type(), f.name)
			}
			continue
		}
		a.assign(fv, tbl[k], child)
	}
}

// assignMap stores a TOML table into a map with string keys. Outside decode
// mode, entries that already exist are updated rather than replaced.
func (a *assigner) assignMap(dst reflect.Value, data any, at []step) {
	t := dst.Type()
	kt := t.Key()
	if kt.Kind() != reflect.String && !(kt.Kind() == reflect.Interface && kt.NumMethod() == 0) {
		if !a.keysOnly {
			a.fail(at, "cannot decode into a map with %s keys", kt)
		}
		return
	}
	tbl, ok := data.(map[string]any)
	if !ok {
		if !a.keysOnly {
			a.mismatch(at, "a table", data)
		}
		return
	}
	if dst.IsNil() {
		dst.Set(reflect.MakeMapWithSize(t, len(tbl)))
	}
	for _, k := range sortedKeys(tbl) {
		if a.stopped() {
			return
		}
		key := mapKey(k, kt)
		elem := reflect.New(t.Elem()).Elem()
		if !a.decode {
			if old := dst.MapIndex(key); old.IsValid() {
				elem.Set(old)
			}
		}
		n := len(a.problems)
		a.assign(elem, tbl[k], appendStep(at, keyStep(k)))
		if len(a.problems) == n {
			dst.SetMapIndex(key, elem)
		}
	}
}

// mapKey converts a TOML key to a map key of type kt (a string kind or any).
func mapKey(k string, kt reflect.Type) reflect.Value {
	if kt.Kind() == reflect.Interface {
		return reflect.ValueOf(k)
	}
	return reflect.ValueOf(k).Convert(kt)
}

// arrayOf returns the elements of a TOML array value.
func arrayOf(data any) ([]any, bool) {
	switch d := data.(type) {
	case []any:
		return d, true
	case []map[string]any:
		out := make([]any, len(d))
		for i, m := range d {
			out[i] = m
		}
		return out, true
	}
	return nil, false
}

// assignSlice replaces a slice with the elements of a TOML array.
func (a *assigner) assignSlice(dst reflect.Value, data any, at []step) {
	elems, ok := arrayOf(data)
	if !ok {
		if !a.keysOnly {
			a.mismatch(at, "an array", data)
		}
		return
	}
	s := reflect.MakeSlice(dst.Type(), len(elems), len(elems))
	for i, e := range elems {
		if a.stopped() {
			return
		}
		a.assign(s.Index(i), e, appendStep(at, idxStep(i)))
	}
	dst.Set(s)
}

// assignArray fills a Go array from a TOML array of the same length.
func (a *assigner) assignArray(dst reflect.Value, data any, at []step) {
	elems, ok := arrayOf(data)
	if !ok {
		if !a.keysOnly {
			a.mismatch(at, "an array", data)
		}
		return
	}
	if len(elems) != dst.Len() {
		if !a.keysOnly {
			a.fail(at, "expected an array of %d elements, got %d", dst.Len(), len(elems))
		}
		return
	}
	arr := reflect.New(dst.Type()).Elem()
	for i, e := range elems {
		if a.stopped() {
			return
		}
		a.assign(arr.Index(i), e, appendStep(at, idxStep(i)))
	}
	dst.Set(arr)
}

// assignLeaf stores a scalar.
func (a *assigner) assignLeaf(dst reflect.Value, data any, at []step) {
	t := dst.Type()
	switch k := t.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		a.assignInt(dst, data, at)
	case k >= reflect.Uint && k <= reflect.Uintptr:
		a.assignUint(dst, data, at)
	case k == reflect.Float32 || k == reflect.Float64:
		a.assignFloat(dst, data, at)
	case k == reflect.String:
		if t == jsonNumberType {
			switch d := data.(type) {
			case int64:
				dst.SetString(strconv.FormatInt(d, 10))
				return
			case float64:
				dst.SetString(strconv.FormatFloat(d, 'g', -1, 64))
				return
			}
		}
		if s, ok := data.(string); ok {
			dst.SetString(s)
			return
		}
		a.mismatch(at, "a string", data)
	case k == reflect.Bool:
		if b, ok := data.(bool); ok {
			dst.SetBool(b)
			return
		}
		a.mismatch(at, "a boolean", data)
	case k == reflect.Interface:
		if t.NumMethod() > 0 {
			a.fail(at, "cannot decode into a field of type %s", t)
			return
		}
		dv := reflect.ValueOf(data)
		if !dv.Type().AssignableTo(t) {
			a.fail(at, "cannot decode into a field of type %s", t)
			return
		}
		dst.Set(dv)
	default:
		a.fail(at, "cannot decode into a field of type %s", t)
	}
}

// intOf extracts an integer; outside decode mode a float with an integral
// value is accepted too.
func (a *assigner) intOf(data any) (int64, bool) {
	switch d := data.(type) {
	case int64:
		return d, true
	case float64:
		if !a.decode && d == math.Trunc(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0 {
			return int64(d), true
		}
	}
	return 0, false
}

func (a *assigner) assignInt(dst reflect.Value, data any, at []step) {
	if dst.Type() == durationType {
		if s, ok := data.(string); ok {
			d, err := time.ParseDuration(s)
			if err != nil {
				a.fail(at, "invalid duration %q: write a number with a unit, like \"300ms\" or \"5m\"", s)
				return
			}
			dst.SetInt(int64(d))
			return
		}
	}
	n, ok := a.intOf(data)
	if !ok {
		expected := "an integer"
		if dst.Type() == durationType {
			expected = `a duration like "5m"`
		}
		a.mismatch(at, expected, data)
		return
	}
	if dst.OverflowInt(n) {
		a.fail(at, "%d is out of range for %s", n, dst.Kind())
		return
	}
	dst.SetInt(n)
}

func (a *assigner) assignUint(dst reflect.Value, data any, at []step) {
	n, ok := a.intOf(data)
	if !ok {
		a.mismatch(at, "an integer", data)
		return
	}
	k := dst.Kind()
	if n < 0 {
		// The toml library wraps negative numbers around for uint and
		// uint64; only reject them when decoding into smaller types.
		if !a.decode || (k != reflect.Uint && k != reflect.Uint64 && k != reflect.Uintptr) {
			a.fail(at, "%d is out of range for %s (must not be negative)", n, k)
			return
		}
	}
	if dst.OverflowUint(uint64(n)) {
		a.fail(at, "%d is out of range for %s", n, k)
		return
	}
	dst.SetUint(uint64(n))
}

func (a *assigner) assignFloat(dst reflect.Value, data any, at []step) {
	k := dst.Kind()
	switch d := data.(type) {
	case float64:
		if k == reflect.Float32 && (d < -math.MaxFloat32 || d > math.MaxFloat32) {
			a.fail(at, "%v is out of range for float32", d)
			return
		}
		dst.SetFloat(d)
	case int64:
		limit := int64(1<<53 - 1)
		if k == reflect.Float32 {
			limit = 1<<24 - 1
		}
		if d < -limit || d > limit {
			a.fail(at, "%d cannot be represented exactly as a %s", d, k)
			return
		}
		dst.SetFloat(float64(d))
	default:
		a.mismatch(at, "a number", data)
	}
}

// typeWords describes the TOML type of a decoded value in plain words.
func typeWords(data any) string {
	switch data.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case time.Time:
		return "a date-time"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("a %T", data)
}

// valueWords shows a decoded value in TOML syntax, shortened.
func valueWords(data any) string {
	s := tomlLiteral(data, 0)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// tomlLiteral writes a decoded TOML value in TOML syntax.
func tomlLiteral(data any, depth int) string {
	if depth > 8 {
		return "..."
	}
	switch d := data.(type) {
	case string:
		return quoteKey(d)
	case int64:
		return strconv.FormatInt(d, 10)
	case float64:
		switch {
		case math.IsInf(d, 1):
			return "inf"
		case math.IsInf(d, -1):
			return "-inf"
		case math.IsNaN(d):
			return "nan"
		}
		s := strconv.FormatFloat(d, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") {
			s += ".0"
		}
		return s
	case bool:
		return strconv.FormatBool(d)
	case time.Time:
		return d.Format(time.RFC3339Nano)
	case map[string]any:
		parts := make([]string, 0, len(d))
		for _, k := range sortedKeys(d) {
			parts = append(parts, formatKey(k)+" = "+tomlLiteral(d[k], depth+1))
		}
		if len(parts) == 0 {
			return "{}"
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	if elems, ok := arrayOf(data); ok {
		parts := make([]string, len(elems))
		for i, e := range elems {
			parts[i] = tomlLiteral(e, depth+1)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprintf("%v", data)
}
