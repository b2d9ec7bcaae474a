package schema

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"time"
)

// Scalar is implemented, with a pointer receiver, by spec types that may be
// written as a single TOML value: a duration ("30s"), a clock time
// ("09:00"), a distribution given as a number, a retry preset's name. v is
// a string, int64, float64, bool or time.Time. A struct type that is also
// Scalar is written either way: a table is decoded by its fields, any other
// value by DecodeScalar. This is the one way a polymorphic value is
// decoded.
type Scalar interface {
	DecodeScalar(v any) error
}

// Ranged is implemented by values whose numbers are in the unit of the key
// that holds them, such as a distribution of tokens or of seconds: the
// holder's range applies to each number it yields (key relative to the
// value). Problems inside such a value are shown at the holder's key.
type Ranged interface {
	EachNumber(f func(key string, v float64))
}

var (
	scalarType = reflect.TypeFor[Scalar]()
	rangedType = reflect.TypeFor[Ranged]()
)

// IsRanged reports whether values of t are Ranged.
func IsRanged(t reflect.Type) bool {
	return t.Implements(rangedType) || reflect.PointerTo(t).Implements(rangedType)
}

// IsScalar reports whether values of t (through a pointer) are Scalar.
func IsScalar(t reflect.Type) bool { return reflect.PointerTo(t).Implements(scalarType) }

// Decode stores the generic TOML value data (as github.com/BurntSushi/toml
// decodes into an any: map[string]any, []map[string]any, []any, string,
// int64, float64, bool, time.Time) into the value dst points to, strictly,
// by the struct tags of dst's type. Every problem is returned, each keyed
// by its path relative to dst:
//
//   - unknown keys, with the keys allowed and the closest one;
//   - values of the wrong type ("expected a number, got a string");
//   - numbers that are not finite, not integral for an integer, or outside
//     the key's declared range;
//   - strings that are not one of the key's enumerated values.
//
// Decode neither panics nor fills defaults: an absent key stays zero.
func Decode(data any, dst any) []*FieldError {
	rv := reflect.ValueOf(dst)
	if !rv.IsValid() || rv.Kind() != reflect.Pointer || rv.IsNil() {
		return []*FieldError{{Msg: fmt.Sprintf("cannot decode into %T: need a non-nil pointer", dst)}}
	}
	d := &decoder{}
	d.value(rv.Elem(), data, "", nil)
	return d.errs
}

type decoder struct{ errs []*FieldError }

func (d *decoder) fail(path, format string, a ...any) {
	d.errs = append(d.errs, &FieldError{Key: path, Msg: fmt.Sprintf(format, a...)})
}

func (d *decoder) mismatch(path, want string, data any) {
	d.fail(path, "expected %s, got %s", want, TypeWords(data))
}

// value decodes data into v (settable) at path; f is the field that holds
// it (nil at the root), whose range and enum apply.
func (d *decoder) value(v reflect.Value, data any, path string, f *Field) {
	t := v.Type()
	if t.Kind() == reflect.Pointer {
		p := reflect.New(t.Elem())
		n := len(d.errs)
		d.value(p.Elem(), data, path, f)
		if len(d.errs) == n {
			v.Set(p)
		}
		return
	}
	if IsScalar(t) {
		n := len(d.errs)
		if m, ok := data.(map[string]any); ok && t.Kind() == reflect.Struct {
			d.table(v, m, path)
		} else {
			if err := v.Addr().Interface().(Scalar).DecodeScalar(data); err != nil {
				d.errs = append(d.errs, Prefix(path, err).(*FieldError))
				return
			}
			switch t.Kind() {
			case reflect.Struct:
				d.errs = append(d.errs, check(v, path, true, true)...)
			case reflect.Float32, reflect.Float64:
				d.number(v, path, f)
			}
		}
		d.ranged(v, path, f, n)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := data.(map[string]any)
		if !ok {
			d.mismatch(path, "a table", data)
			return
		}
		d.table(v, m, path)
	case reflect.Slice:
		elems, ok := arrayOf(data)
		if !ok {
			d.mismatch(path, "an array", data)
			return
		}
		s := reflect.MakeSlice(t, len(elems), len(elems))
		for i, e := range elems {
			d.value(s.Index(i), e, path+"["+strconv.Itoa(i)+"]", f)
		}
		v.Set(s)
	case reflect.Map:
		m, ok := data.(map[string]any)
		if !ok || t.Key().Kind() != reflect.String {
			d.mismatch(path, "a table", data)
			return
		}
		out := reflect.MakeMapWithSize(t, len(m))
		for _, k := range sortedKeys(m) {
			e := reflect.New(t.Elem()).Elem()
			if t.Elem().Kind() == reflect.Interface {
				e.Set(reflect.ValueOf(m[k]))
			} else {
				d.value(e, m[k], JoinPath(path, FormatKey(k)), f)
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), e)
		}
		v.Set(out)
	case reflect.String:
		s, ok := data.(string)
		if !ok {
			d.mismatch(path, "a string", data)
			return
		}
		if f != nil && len(f.Enum) > 0 && !slices.Contains(f.Enum, s) {
			d.fail(path, "%s", Unknown(f.Noun, s, f.Enum))
			return
		}
		v.SetString(s)
	case reflect.Bool:
		b, ok := data.(bool)
		if !ok {
			d.mismatch(path, "a boolean", data)
			return
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		d.integer(v, data, path, f)
	case reflect.Float32, reflect.Float64:
		var x float64
		switch n := data.(type) {
		case int64:
			x = float64(n)
		case float64:
			x = n
		case string:
			if f == nil || f.Accept != "duration" {
				d.mismatch(path, "a number", data)
				return
			}
			s, err := ParseSeconds(n)
			if err != nil {
				d.fail(path, "expected a number or a duration: %v", err)
				return
			}
			x = s
		default:
			want := "a number"
			if f != nil && f.Accept == "duration" {
				want = "a number or a duration string"
			}
			d.mismatch(path, want, data)
			return
		}
		v.SetFloat(x)
		d.number(v, path, f)
	default:
		d.fail(path, "cannot decode into a field of type %s", t)
	}
}

// table decodes a TOML table into struct v by its fields' tags.
func (d *decoder) table(v reflect.Value, m map[string]any, path string) {
	fields, err := Fields(v.Type())
	if err != nil {
		d.fail(path, "internal error: %v", err)
		return
	}
	for _, k := range sortedKeys(m) {
		at := JoinPath(path, FormatKey(k))
		i := slices.IndexFunc(fields, func(f Field) bool { return f.Key == k })
		if i < 0 {
			names := keys(fields)
			d.fail(at, "unknown key %q; allowed: %s%s", k, List(names), DidYouMean(k, names))
			continue
		}
		d.value(v.Field(fields[i].Index), m[k], at, &fields[i])
	}
}

// integer decodes an integer: an int64, or a float with an integral value.
func (d *decoder) integer(v reflect.Value, data any, path string, f *Field) {
	var x float64
	switch n := data.(type) {
	case int64:
		x = float64(n)
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) || n != math.Trunc(n) {
			d.fail(path, "expected an integer, got %s", floatWords(n))
			return
		}
		x = n
	default:
		d.mismatch(path, "an integer", data)
		return
	}
	if f != nil {
		if msg := f.Problem(x, true); msg != "" {
			d.fail(path, "%s", msg)
			return
		}
	}
	switch {
	case v.CanUint() && x < 0:
		d.fail(path, "must be >= 0, got %s", formatNumber(x))
	case v.CanUint() && x < 1<<64 && !v.OverflowUint(uint64(x)):
		if n, ok := data.(int64); ok {
			v.SetUint(uint64(n))
		} else {
			v.SetUint(uint64(x))
		}
	case v.CanInt() && x >= -(1<<63) && x < 1<<63 && !v.OverflowInt(int64(x)):
		if n, ok := data.(int64); ok {
			v.SetInt(n)
		} else {
			v.SetInt(int64(x))
		}
	default:
		d.fail(path, "%s is out of range for an integer", formatNumber(x))
	}
}

// number checks a decoded float (or float-kind Scalar) against f.
func (d *decoder) number(v reflect.Value, path string, f *Field) {
	if f == nil {
		return
	}
	if msg := f.Problem(v.Float(), false); msg != "" {
		d.fail(path, "%s", msg)
	}
}

// ranged checks the numbers of a Ranged value against its holder's range.
// A number out of it is one error, in the holder's words (think's "between
// 0 and 366d"), replacing the value's own (a mean's ">= 0") among the
// errors since the n-th.
func (d *decoder) ranged(v reflect.Value, path string, f *Field, n int) {
	if f == nil || f.Range.IsZero() {
		return
	}
	r, ok := v.Addr().Interface().(Ranged)
	if !ok {
		return
	}
	r.EachNumber(func(k string, x float64) {
		if msg := f.Problem(x, false); msg != "" {
			key := JoinPath(path, k)
			d.errs = append(d.errs[:n], slices.DeleteFunc(d.errs[n:], func(e *FieldError) bool { return e.Key == key })...)
			d.fail(key, "%s", msg)
		}
	})
}

// arrayOf returns the elements of a TOML array value.
func arrayOf(data any) ([]any, bool) {
	switch a := data.(type) {
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

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

func floatWords(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return "a float"
}

// TypeWords names the TOML type of a decoded value in plain words ("a
// string", "an integer", "a table").
func TypeWords(data any) string {
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
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("a %T", data)
}
