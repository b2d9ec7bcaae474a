package schema

import (
	"reflect"
)

// Table writes the struct v as the TOML table Decode would read back into
// an equal value, keeping only the keys whose values are not zero: numbers
// as float64 or int64, strings, booleans, arrays and nested tables. Keys
// whose type is Scalar but not a struct are written as numbers or strings
// of their underlying kind. It is how an override reaches a key inside a
// value written in its short form: retry = "openai-python" becomes
// { preset = "openai-python" } before max_attempts is set in it.
func Table(v any) map[string]any {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return map[string]any{}
	}
	m, _ := encode(rv).(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

// encode writes v as a generic TOML value, or nil when it is zero.
func encode(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return encode(v.Elem())
	case reflect.Struct:
		fields, err := Fields(v.Type())
		if err != nil {
			return nil
		}
		m := map[string]any{}
		for _, f := range fields {
			if x := encode(v.Field(f.Index)); x != nil {
				m[f.Key] = x
			}
		}
		if len(m) == 0 {
			return nil
		}
		return m
	case reflect.Slice:
		if v.Len() == 0 {
			return nil
		}
		out := make([]any, v.Len())
		for i := range out {
			if out[i] = encode(v.Index(i)); out[i] == nil {
				out[i] = zeroOf(v.Index(i))
			}
		}
		return out
	case reflect.String:
		if v.String() == "" {
			return nil
		}
		return v.String()
	case reflect.Bool:
		if !v.Bool() {
			return nil
		}
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Int() == 0 {
			return nil
		}
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if v.Uint() == 0 {
			return nil
		}
		return int64(v.Uint())
	case reflect.Float32, reflect.Float64:
		if v.Float() == 0 {
			return nil
		}
		return v.Float()
	}
	return nil
}

// zeroOf is the generic TOML value of a zero array element.
func zeroOf(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return 0.0
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(0)
	case reflect.String:
		return ""
	case reflect.Bool:
		return false
	}
	return map[string]any{}
}
