package workloads

import (
	"fmt"

	"github.com/headroom-sim/headroom/scenarios/schema"
)

// FieldError is a validation error at a key path relative to the value
// validated, e.g. Key "demand.hourly[3]", Msg "must be >= 0, got -2". It is
// the scenario schema's error type, so that decoding and validation report
// problems the same way.
type FieldError = schema.FieldError

// Prefix returns err with prefix joined in front of its key path: "tokens"
// and "input.p95" give "tokens.input.p95", "hourly" and "[3]" give
// "hourly[3]". A key starting with "[" or a prefix ending in "." joins
// without adding a dot. An error that is not a *FieldError becomes
// FieldError{Key: prefix, Msg: err.Error()}. nil stays nil.
func Prefix(prefix string, err error) error { return schema.Prefix(prefix, err) }

// fieldErrorf is shorthand for a *FieldError with a formatted message.
func fieldErrorf(key, format string, args ...any) *FieldError {
	return &FieldError{Key: key, Msg: fmt.Sprintf(format, args...)}
}
