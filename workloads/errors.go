package workloads

import (
	"fmt"
	"strings"
)

// FieldError is a validation error at a key path relative to the value
// validated, e.g. Key "demand.hourly[3]", Msg "must be >= 0, got -2".
type FieldError struct {
	Key string // dotted path with [i] indices; empty for the value itself
	Msg string // what is wrong, and what would be right
}

// Error returns "<key>: <msg>", or just the message when Key is empty.
func (e *FieldError) Error() string {
	if e.Key == "" {
		return e.Msg
	}
	return e.Key + ": " + e.Msg
}

// Prefix returns err with prefix joined in front of its key path: "tokens"
// and "input.p95" give "tokens.input.p95", "hourly" and "[3]" give
// "hourly[3]". A key starting with "[" or a prefix ending in "." joins
// without adding a dot. An error that is not a *FieldError becomes
// FieldError{Key: prefix, Msg: err.Error()}. nil stays nil.
func Prefix(prefix string, err error) error {
	if err == nil {
		return nil
	}
	fe, ok := err.(*FieldError)
	if !ok {
		return &FieldError{Key: prefix, Msg: err.Error()}
	}
	return &FieldError{Key: joinKey(prefix, fe.Key), Msg: fe.Msg}
}

// joinKey joins two key paths with a dot where one is needed.
func joinKey(prefix, key string) string {
	switch {
	case prefix == "":
		return key
	case key == "":
		return prefix
	case strings.HasPrefix(key, "[") || strings.HasSuffix(prefix, "."):
		return prefix + key
	default:
		return prefix + "." + key
	}
}

// fieldErrorf is shorthand for a *FieldError with a formatted message.
func fieldErrorf(key, format string, args ...any) *FieldError {
	return &FieldError{Key: key, Msg: fmt.Sprintf(format, args...)}
}
