package report

import (
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TerminalSafe returns s with every character that a terminal would act on
// rather than show replaced by a visible one of the same width: C0
// controls (escape, carriage return, tab, newline…) by their Control
// Pictures (␛, ␍, ␉, ␊), delete by ␡, C1 controls and the bidirectional
// overrides and isolates (which reorder what follows) by �. Names from a
// scenario reach the terminal only through it, so a name cannot clear the
// screen, retitle the window, overwrite a line or fake a row.
func TerminalSafe(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		b.WriteRune(visible(r))
	}
	return b.String()
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			if c >= 0x80 {
				// Only some non-ASCII runes need it: look closer.
				for _, r := range s[i:] {
					if visible(r) != r {
						return true
					}
				}
				return false
			}
			return true
		}
	}
	return false
}

// visible maps a rune a terminal would act on to one it shows.
func visible(r rune) rune {
	switch {
	case r < 0x20:
		return 0x2400 + r
	case r == 0x7f:
		return 0x2421
	case r == utf8.RuneError, unicode.IsControl(r), bidiControl(r):
		return utf8.RuneError
	}
	return r
}

// bidiControl reports the bidirectional formatting characters: marks,
// embeddings, overrides and isolates.
func bidiControl(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// terminalDoc returns d when none of its strings needs TerminalSafe, else a
// copy with every string made safe (d itself is left as it is, for the
// JSON).
func terminalDoc[T any](d *T) *T {
	v := reflect.ValueOf(d).Elem()
	if !hasUnsafe(v) {
		return d
	}
	c := reflect.New(v.Type()).Elem()
	c.Set(safeCopy(v))
	return c.Addr().Interface().(*T)
}

// terminalLines is TerminalSafe line by line: the newlines of a
// multi-line title stay.
func terminalLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = TerminalSafe(l)
	}
	return strings.Join(lines, "\n")
}

// hasUnsafe reports whether any string under v needs TerminalSafe.
func hasUnsafe(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return needsEscape(v.String())
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && hasUnsafe(v.Elem())
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && hasUnsafe(v.Field(i)) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Float64 || v.Type().Elem().Kind() == reflect.Int64 {
			return false
		}
		for i := 0; i < v.Len(); i++ {
			if hasUnsafe(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			if hasUnsafe(iter.Key()) || hasUnsafe(iter.Value()) {
				return true
			}
		}
	}
	return false
}

// safeCopy copies v deeply enough that every string under it can be
// replaced by its TerminalSafe form without touching v.
func safeCopy(v reflect.Value) reflect.Value {
	if !hasUnsafe(v) {
		return v
	}
	switch v.Kind() {
	case reflect.String:
		return reflect.ValueOf(TerminalSafe(v.String())).Convert(v.Type())
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(safeCopy(v.Elem()))
		return p
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				c.Field(i).Set(safeCopy(v.Field(i)))
			}
		}
		return c
	case reflect.Slice:
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			c.Index(i).Set(safeCopy(v.Index(i)))
		}
		return c
	case reflect.Map:
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		iter := v.MapRange()
		for iter.Next() {
			c.SetMapIndex(safeCopy(iter.Key()), safeCopy(iter.Value()))
		}
		return c
	}
	return v
}

// csvText neutralises a text cell that a spreadsheet would run as a
// formula: one starting with =, +, -, @, a tab or a carriage return (or
// their full-width forms) gets a leading apostrophe, as OWASP advises,
// unless it is a plain number ("-5", "+1e3"), which a spreadsheet reads as
// the number it is.
func csvText(s string) string {
	if s == "" {
		return s
	}
	r, _ := utf8.DecodeRuneInString(s)
	switch r {
	case '=', '+', '-', '@', '\t', '\r', '＝', '＋', '－', '＠':
		if _, err := strconv.ParseFloat(s, 64); err == nil && r != '=' && r != '@' {
			return s
		}
		return "'" + s
	}
	return s
}
