package serve

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
)

// jsonError turns an encoding/json error met while reading the field at
// (a JSON path such as "messages[0].content"; "" for the body) into a
// 400 that names the field and what it must be, in the API's words: never
// a Go type or a decoder message.
func jsonError(at string, err error) *apiError {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		field := joinField(at, te.Field)
		e := badRequest(field, "%s must be %s, got %s", fieldName(field), typeWords(te.Type), valueWords(te.Value))
		e.code = "invalid_type" // OpenAI's code for a field of the wrong type
		return e
	case errors.As(err, &se):
		return badRequest(at, "%s is not valid JSON: %s (at byte %d)", fieldName(at), strings.TrimPrefix(se.Error(), "json: "), se.Offset)
	}
	// Truncated input and the like: the decoder's message, which names no
	// Go type, without its package prefix.
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if strings.Contains(msg, "unexpected EOF") || msg == "EOF" {
		msg = "it ends before its JSON value does"
	}
	return badRequest(at, "%s is not valid JSON: %s", fieldName(at), msg)
}

// joinField appends the decoder's dotted field path to a JSON path.
func joinField(at, field string) string {
	switch {
	case field == "":
		return at
	case at == "":
		return field
	}
	return at + "." + field
}

// typeWords says what a Go type is in JSON terms: "a string", "an
// integer", "an array", "an object"...
func typeWords(t reflect.Type) string {
	if t == nil {
		return "a JSON value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[json.RawMessage]() {
		return "a JSON value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array of " + plural(typeWords(t.Elem()))
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a JSON value"
}

// plural turns "a string" into "strings", "an object" into "objects".
func plural(s string) string {
	switch {
	case strings.HasPrefix(s, "an array of "):
		return "arrays of " + strings.TrimPrefix(s, "an array of ")
	case s == "true or false":
		return "true or false values"
	case s == "a JSON value":
		return "JSON values"
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "an "), "a ")
	return s + "s"
}

// valueWords says what JSON value was found: the decoder names it
// "string", "number", "number 1.5", "object", "array" or "bool".
func valueWords(v string) string {
	switch {
	case v == "bool":
		return "true or false"
	case v == "array" || v == "object":
		return "an " + v
	case strings.HasPrefix(v, "number "):
		return "the number " + strings.TrimPrefix(v, "number ")
	case v == "":
		return "another kind of value"
	}
	return "a " + v
}

// partError words the failure to read one element of an array (a content
// part, an input item): a field of the wrong type is named; anything else
// (not an object at all) says what the element must be.
func partError(at string, err error, want string) *apiError {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return jsonError(at, err)
	}
	return badRequest(at, "%s must be %s", at, want)
}
