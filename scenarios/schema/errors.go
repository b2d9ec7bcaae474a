package schema

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FieldError is a problem at a key path relative to the value decoded or
// checked, e.g. Key "demand.hourly[3]", Msg "must be a finite number >= 0,
// got -2".
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
// "hourly[3]". An error that is not a *FieldError becomes
// FieldError{Key: prefix, Msg: err.Error()}. nil stays nil.
func Prefix(prefix string, err error) error {
	if err == nil {
		return nil
	}
	var fe *FieldError
	if !errors.As(err, &fe) {
		return &FieldError{Key: prefix, Msg: err.Error()}
	}
	return &FieldError{Key: JoinPath(prefix, fe.Key), Msg: fe.Msg}
}

// JoinPath joins two key paths with a dot where one is needed: a key
// starting with "[" or a prefix ending in "." joins without one.
func JoinPath(prefix, key string) string {
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

// isBareKey reports whether k can be written as a TOML bare key.
func isBareKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// FormatKey writes one key segment as TOML does: bare when it can be,
// otherwise as a basic string with escapes (invalid UTF-8 as \xNN).
func FormatKey(k string) string {
	if isBareKey(k) {
		return k
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(k); {
		r, size := utf8.DecodeRuneInString(k[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02X`, k[i])
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteString(k[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// distance is the optimal-string-alignment edit distance between a and b
// (insertions, deletions, substitutions and transpositions of neighbours
// cost 1, so "rmp" is one step from "rpm").
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		if a == b {
			return 0
		}
		return 64
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// Suggest returns the candidate closest to s when it is close enough to be
// a plausible typo: one edit for words of up to three letters, two beyond.
// A common spelling of a candidate that no edit distance finds ("rps" for
// "requests/s") suggests it too.
func Suggest(s string, candidates []string) (string, bool) {
	best, bestD := "", 1<<30
	ls := strings.ToLower(s)
	if c, ok := spellings[strings.Join(strings.Fields(ls), " ")]; ok && slices.Contains(candidates, c) && !slices.Contains(candidates, s) {
		return c, true
	}
	for _, c := range candidates {
		if d := distance(ls, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	limit := 2
	if len(s) <= 3 {
		limit = 1
	}
	if best == s || bestD > limit || bestD >= len(s) {
		return "", false
	}
	return best, true
}

// DidYouMean formats a suggestion suffix (`; did you mean "rpm"?`) or "".
// A name that begins several candidates ("openai" of "openai-go",
// "openai-node", "openai-python") suggests them all.
func DidYouMean(s string, candidates []string) string {
	if c, ok := Suggest(s, candidates); ok {
		return "; did you mean " + strconv.Quote(c) + "?"
	}
	var starts []string
	if ls := strings.ToLower(s); len(ls) >= 3 {
		for _, c := range candidates {
			if lc := strings.ToLower(c); strings.HasPrefix(lc, ls) && lc != ls {
				starts = append(starts, strconv.Quote(c))
			}
		}
	}
	switch len(starts) {
	case 0:
		return ""
	case 1:
		return "; did you mean " + starts[0] + "?"
	}
	return "; did you mean " + strings.Join(starts[:len(starts)-1], ", ") + " or " + starts[len(starts)-1] + "?"
}

// List joins names for an "allowed:" or "have:" list; "(none)" when empty.
func List(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

// Unknown formats the message for a name that is not one of allowed:
// `unknown NOUN "x"; allowed: a, b; did you mean "a"?`.
func Unknown(noun, name string, allowed []string) string {
	return fmt.Sprintf("unknown %s %q; allowed: %s%s", noun, name, List(allowed), DidYouMean(name, allowed))
}

// spellings are the ways people write an allowed value that is too far
// from it for an edit distance: rate units as load-test tools and
// dashboards print them.
var spellings = func() map[string]string {
	m := map[string]string{}
	for c, words := range map[string][]string{
		"requests/s":    {"rps", "qps", "req/s", "reqs/s", "request/s", "r/s", "/s", "requests/sec", "requests/second", "requests per second", "requests_per_second", "per second", "per_second", "requests/seconds"},
		"requests/min":  {"rpm", "qpm", "req/min", "reqs/min", "request/min", "r/min", "/min", "requests/m", "requests/minute", "requests per minute", "requests_per_minute", "per minute", "per_minute", "requests/minutes"},
		"requests/hour": {"rph", "qph", "req/h", "req/hour", "reqs/hour", "request/hour", "r/h", "/h", "/hour", "requests/h", "requests/hr", "requests per hour", "requests_per_hour", "per hour", "per_hour", "requests/hours"},
	} {
		for _, w := range words {
			m[w] = c
		}
	}
	return m
}()
