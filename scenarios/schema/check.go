package schema

import (
	"reflect"
	"strconv"
)

// validator is implemented by spec types that check themselves.
type validator interface{ Validate() error }

var validatorType = reflect.TypeFor[validator]()

// hasValidate reports whether t (or *t) has a Validate method.
func hasValidate(t reflect.Type) bool {
	return t.Implements(validatorType) || reflect.PointerTo(t).Implements(validatorType)
}

// Check checks the value v (a struct or a pointer to one) against the
// struct tags of its type, as Decode does for the keys of a file: every
// number finite and in its declared range, every enumerated string one of
// its values (the empty string stands for an absent key). It returns the
// first problem, keyed by its path relative to v.
//
// Check descends into nested tables, except those whose type has a Validate
// method of its own: that method calls Check, and the owner calls it, so
// that every number is checked once per validation. A Validate method on a
// string type (a clock time) is called.
func Check(v any) error {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil
	}
	if !rv.CanAddr() {
		c := reflect.New(rv.Type()).Elem()
		c.Set(rv)
		rv = c
	}
	if errs := check(rv, "", false, false); len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// check checks the fields of struct v at path; with all it returns every
// problem, otherwise the first. With set it skips zero fields, which stand
// for absent keys.
func check(v reflect.Value, path string, all, set bool) []*FieldError {
	fields, err := Fields(v.Type())
	if err != nil {
		return []*FieldError{{Key: path, Msg: "internal error: " + err.Error()}}
	}
	var errs []*FieldError
	for i := range fields {
		f := &fields[i]
		if set && v.Field(f.Index).IsZero() {
			continue
		}
		errs = append(errs, checkValue(v.Field(f.Index), JoinPath(path, FormatKey(f.Key)), f, all)...)
		if len(errs) > 0 && !all {
			return errs
		}
	}
	return errs
}

func checkValue(v reflect.Value, path string, f *Field, all bool) []*FieldError {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	fail := func(msg string) []*FieldError { return []*FieldError{{Key: path, Msg: msg}} }
	var errs []*FieldError
	if IsRanged(v.Type()) && !f.Range.IsZero() && v.CanAddr() {
		v.Addr().Interface().(Ranged).EachNumber(func(k string, x float64) {
			if msg := f.Problem(x, false); msg != "" {
				errs = append(errs, &FieldError{Key: JoinPath(path, k), Msg: msg})
			}
		})
		if len(errs) > 0 && !all {
			return errs[:1]
		}
	}
	switch v.Kind() {
	case reflect.Struct:
		if hasValidate(v.Type()) {
			return errs
		}
		return append(errs, check(v, path, all, false)...)
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			errs = append(errs, checkValue(v.Index(i), path+"["+strconv.Itoa(i)+"]", f, all)...)
			if len(errs) > 0 && !all {
				return errs
			}
		}
	case reflect.Float32, reflect.Float64:
		if msg := f.Problem(v.Float(), false); msg != "" {
			return fail(msg)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if msg := f.Problem(float64(v.Int()), true); msg != "" {
			return fail(msg)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if msg := f.Problem(float64(v.Uint()), true); msg != "" {
			return fail(msg)
		}
	case reflect.String:
		if msg := f.EnumProblem(v.String()); msg != "" {
			return fail(msg)
		}
		if hasValidate(v.Type()) && v.CanAddr() {
			if err := v.Addr().Interface().(validator).Validate(); err != nil {
				return []*FieldError{Prefix(path, err).(*FieldError)}
			}
		}
	}
	return errs
}
