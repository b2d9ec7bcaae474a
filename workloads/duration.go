package workloads

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/headroom-sim/headroom/scenarios/schema"
)

// Duration is a non-negative span of time in seconds. In TOML it is either
// a string in the syntax of Go's time.ParseDuration extended with a "d"
// (24h) unit, e.g. "400ms", "5m", "1h30m", "2d", or a bare number of
// seconds.
type Duration float64

// DecodeScalar decodes a duration string or a number of seconds.
func (d *Duration) DecodeScalar(v any) error {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return fmt.Errorf("duration must be >= 0, got %d", x)
		}
		*d = Duration(x)
		return nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return fmt.Errorf("duration must be a finite number of seconds >= 0, got %v", x)
		}
		*d = Duration(x)
		return nil
	case string:
		p, err := ParseDuration(x)
		if err != nil {
			return err
		}
		*d = p
		return nil
	default:
		return fmt.Errorf("expected a duration such as \"30s\" or a number of seconds, got %s", describe(v))
	}
}

// UnmarshalTOML is DecodeScalar, for code that decodes with the toml
// library directly (such as a test reading calibrate's output).
func (d *Duration) UnmarshalTOML(v any) error { return d.DecodeScalar(v) }

// Seconds returns the duration in seconds.
func (d Duration) Seconds() float64 { return float64(d) }

// String formats d compactly so that ParseDuration gives back exactly d:
// whole numbers of seconds from a minute up as "1d2h3m4s" (zero parts
// left out), anything else as seconds with the shortest exact decimal,
// e.g. "0.4s", "1.5s", "90.25s".
func (d Duration) String() string { return schema.FormatSeconds(float64(d)) }

// MarshalText encodes d as its String form. It fails for a negative or
// non-finite duration, which no decoder would accept back.
func (d Duration) MarshalText() ([]byte, error) {
	s := float64(d)
	if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
		return nil, fmt.Errorf("cannot encode duration %v: must be finite and >= 0", s)
	}
	return []byte(d.String()), nil
}

// ParseDuration parses a duration in the syntax of Go's time.ParseDuration
// ("300ms", "1.5h", "2h45m") extended with a "d" unit of 24 hours. It
// computes in floating-point seconds rather than integer nanoseconds, so it
// neither overflows at 292 years nor rounds below a nanosecond. A negative
// duration is an error.
func ParseDuration(s string) (Duration, error) {
	v, err := schema.ParseSeconds(s)
	return Duration(v), err
}

// Clock is a time of day, written "HH:MM" or "HH:MM:SS" (00:00 to
// 23:59:59; the hour may have one digit). The empty Clock is unset. It is
// the one clock type: scenario keys, the results' start clock and the
// verdict all use it.
type Clock string

// ClockAt is the clock time of seconds after midnight (taken modulo a
// day), as "HH:MM", or "HH:MM:SS" when the seconds are not zero.
func ClockAt(seconds float64) Clock {
	s := math.Mod(seconds, 86400)
	if s < 0 || math.IsNaN(s) {
		s = 0
	}
	h, m, sec := int(s)/3600, (int(s)%3600)/60, int(s)%60
	if sec != 0 {
		return Clock(fmt.Sprintf("%02d:%02d:%02d", h, m, sec))
	}
	return Clock(fmt.Sprintf("%02d:%02d", h, m))
}

// ClockHMS is seconds after midnight (taken modulo a day) as "HH:MM:SS",
// the seconds always written.
func ClockHMS(seconds float64) string {
	s := math.Mod(seconds, 86400)
	if s < 0 || math.IsNaN(s) {
		s = 0
	}
	t := int(s)
	return fmt.Sprintf("%02d:%02d:%02d", t/3600, t/60%60, t%60)
}

// IsSet reports whether the clock is given.
func (c Clock) IsSet() bool { return c != "" }

// Seconds is the clock time in seconds after midnight; 0 when unset or
// invalid (Validate tells).
func (c Clock) Seconds() float64 {
	s, err := ParseClock(string(c))
	if err != nil {
		return 0
	}
	return s
}

// Validate checks the clock's syntax; the unset clock is valid.
func (c Clock) Validate() error {
	if c == "" {
		return nil
	}
	_, err := ParseClock(string(c))
	return err
}

// DecodeScalar decodes a clock time string, or a TOML local time such as
// 09:30:00.
func (c *Clock) DecodeScalar(v any) error {
	switch x := v.(type) {
	case string:
		if _, err := ParseClock(x); err != nil {
			return err
		}
		*c = Clock(x)
		return nil
	case time.Time:
		if y, _, _ := x.Date(); y == 0 && x.Nanosecond() == 0 {
			*c = ClockAt(float64(x.Hour()*3600 + x.Minute()*60 + x.Second()))
			return nil
		}
	}
	return fmt.Errorf("expected a clock time such as \"09:00\", got %s", describe(v))
}

// ParseClock parses a clock time "HH:MM" or "HH:MM:SS" (00:00 to 23:59:59;
// the hour may have one digit) into seconds after midnight.
func ParseClock(s string) (float64, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 2 && len(parts) != 3 {
		return 0, fmt.Errorf("invalid clock time %q: want \"HH:MM\" or \"HH:MM:SS\"", s)
	}
	limits := [3]int{23, 59, 59}
	names := [3]string{"hour", "minute", "second"}
	mults := [3]float64{3600, 60, 1}
	total := 0.0
	for i, p := range parts {
		if len(p) == 0 || len(p) > 2 || (i > 0 && len(p) != 2) {
			return 0, fmt.Errorf("invalid clock time %q: want \"HH:MM\" or \"HH:MM:SS\"", s)
		}
		n := 0
		for _, c := range []byte(p) {
			if c < '0' || c > '9' {
				return 0, fmt.Errorf("invalid clock time %q: %q is not a number", s, p)
			}
			n = n*10 + int(c-'0')
		}
		if n > limits[i] {
			return 0, fmt.Errorf("invalid clock time %q: %s %d out of range 0..%d", s, names[i], n, limits[i])
		}
		total += float64(n) * mults[i]
	}
	return total, nil
}

// describe names a decoded TOML value's type for error messages.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nothing"
	case string:
		return fmt.Sprintf("string %q", x)
	case int64:
		return fmt.Sprintf("integer %d", x)
	case float64:
		return fmt.Sprintf("float %v", x)
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case []any:
		return "an array"
	case []map[string]any:
		return "an array of tables"
	case map[string]any:
		return "a table"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// durationPattern is the syntax of a duration string, for JSON Schema.
const durationPattern = `^[+]?(0|(([0-9]+[.]?[0-9]*|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h|d))+)$`

// KeyType names the type in the scenario reference.
func (Duration) KeyType() string { return "duration" }

// ScalarSchema is the JSON Schema of a duration: a string such as "30s" or
// a number of seconds.
func (Duration) ScalarSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "string", "pattern": durationPattern},
		map[string]any{"type": "number", "minimum": 0},
	}}
}

// KeyType names the type in the scenario reference.
func (Clock) KeyType() string { return "clock time" }

// ScalarSchema is the JSON Schema of a clock time, "HH:MM" or "HH:MM:SS".
func (Clock) ScalarSchema() map[string]any {
	return map[string]any{"type": "string", "pattern": `^([01]?[0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$`}
}
