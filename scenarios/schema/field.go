package schema

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Field is one key of a spec struct, as its struct tags declare it.
type Field struct {
	Key     string       // the TOML key (tag toml)
	Index   int          // the struct field's index
	Type    reflect.Type // the struct field's Go type
	Doc     string       // what it means (tag doc)
	Unit    string       // its unit, if any (tag unit)
	Default string       // what applies when it is absent (tag default)
	Range   Range        // allowed numbers (tag range); the zero Range allows any finite number
	Zero    string       // what 0 means when 0 is outside Range (tag zero)
	Enum    []string     // allowed strings (tag enum, a|b|c)
	Noun    string       // what an enum value is called in messages (tag noun; default "value")
	Msg     string       // replaces the generic words of a range violation (tag msg)
	Accept  string       // "duration": a number may be written as a duration string (tag accept)
	Effect  string       // why the key does not change simulated results (tag effect)
}

// fieldCache memoises Fields per struct type, as encoding/json caches its
// field lists: the tags of a type never change, so the cache changes no
// result, only how often tags are parsed (every configuration decodes and
// checks every spec type).
var fieldCache sync.Map // reflect.Type -> cachedFields

type cachedFields struct {
	fields []Field
	err    error
}

// Fields lists the keys of struct type t in declaration order. Fields
// without a toml tag (or with toml:"-") are not keys. A malformed tag is an
// error naming the field. The slice is shared: do not modify it.
func Fields(t reflect.Type) ([]Field, error) {
	if c, ok := fieldCache.Load(t); ok {
		return c.(cachedFields).fields, c.(cachedFields).err
	}
	fields, err := parseFields(t)
	fieldCache.Store(t, cachedFields{fields, err})
	return fields, err
}

func parseFields(t reflect.Type) ([]Field, error) {
	var out []Field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		key := sf.Tag.Get("toml")
		if key == "" || key == "-" || !sf.IsExported() {
			continue
		}
		f := Field{Key: key, Index: i, Type: sf.Type, Doc: sf.Tag.Get("doc"), Unit: sf.Tag.Get("unit"),
			Default: sf.Tag.Get("default"), Zero: sf.Tag.Get("zero"), Noun: sf.Tag.Get("noun"),
			Msg: sf.Tag.Get("msg"), Accept: sf.Tag.Get("accept"), Effect: sf.Tag.Get("effect")}
		if e := sf.Tag.Get("enum"); e != "" {
			f.Enum = strings.Split(e, "|")
		}
		if f.Noun == "" {
			f.Noun = "value"
		}
		if r := sf.Tag.Get("range"); r != "" {
			rg, err := ParseRange(r)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: tag range: %w", t.Name(), sf.Name, err)
			}
			f.Range = rg
		}
		if f.Accept != "" && f.Accept != "duration" {
			return nil, fmt.Errorf("%s.%s: tag accept must be \"duration\", got %q", t.Name(), sf.Name, f.Accept)
		}
		out = append(out, f)
	}
	return out, nil
}

// keys lists the keys of fields, for "allowed:" lists.
func keys(fields []Field) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Key
	}
	return out
}

// Interval is a set of numbers: one point (Lo == Hi, both closed) or an
// interval whose ends may be open or infinite.
type Interval struct {
	Lo, Hi         float64
	LoOpen, HiOpen bool
}

func (iv Interval) contains(v float64) bool {
	return (v > iv.Lo || !iv.LoOpen && v == iv.Lo) && (v < iv.Hi || !iv.HiOpen && v == iv.Hi)
}

// Range is a union of intervals, written as in mathematics and joined by
// "|": "[0,1]", "(0,inf)", "[1,100000]", "0|(1,100)". Bounds may carry a
// duration unit ("(0,366d]", "[0,60s]"); such a range is shown in
// durations.
type Range struct {
	Parts    []Interval
	Duration bool   // bounds were written as durations
	Text     string // as written
}

// IsZero reports whether no range is declared.
func (r Range) IsZero() bool { return len(r.Parts) == 0 }

// Contains reports whether v is in the range; every finite number is in
// the zero Range. NaN and ±Inf are in no range.
func (r Range) Contains(v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	if r.IsZero() {
		return true
	}
	for _, p := range r.Parts {
		if p.contains(v) {
			return true
		}
	}
	return false
}

// ParseRange parses a range tag.
func ParseRange(s string) (Range, error) {
	r := Range{Text: s}
	for _, part := range strings.Split(s, "|") {
		part = strings.TrimSpace(part)
		if part == "" {
			return Range{}, fmt.Errorf("empty part in %q", s)
		}
		open, close := part[0], part[len(part)-1]
		if open != '[' && open != '(' {
			v, dur, err := parseBound(part)
			if err != nil {
				return Range{}, err
			}
			r.Duration = r.Duration || dur
			r.Parts = append(r.Parts, Interval{Lo: v, Hi: v})
			continue
		}
		if close != ']' && close != ')' {
			return Range{}, fmt.Errorf("%q: missing ] or )", part)
		}
		lo, hi, ok := strings.Cut(part[1:len(part)-1], ",")
		if !ok {
			return Range{}, fmt.Errorf("%q: expected two bounds", part)
		}
		a, d1, err := parseBound(lo)
		if err != nil {
			return Range{}, err
		}
		b, d2, err := parseBound(hi)
		if err != nil {
			return Range{}, err
		}
		if !(a <= b) {
			return Range{}, fmt.Errorf("%q: empty interval", part)
		}
		r.Duration = r.Duration || d1 || d2
		r.Parts = append(r.Parts, Interval{Lo: a, Hi: b, LoOpen: open == '(' || math.IsInf(a, -1), HiOpen: close == ')' || math.IsInf(b, 1)})
	}
	return r, nil
}

// parseBound parses a number, inf, -inf or a duration.
func parseBound(s string) (v float64, duration bool, err error) {
	s = strings.TrimSpace(s)
	switch s {
	case "inf", "+inf":
		return math.Inf(1), false, nil
	case "-inf":
		return math.Inf(-1), false, nil
	}
	if n, ok := ParseNumber(s); ok {
		if i, isInt := n.(int64); isInt {
			return float64(i), false, nil
		}
		return n.(float64), false, nil
	}
	if f, err := ParseSeconds(s); err == nil {
		return f, true, nil
	}
	return 0, false, fmt.Errorf("bad bound %q", s)
}

// formatNumber writes a bound or a value: integers plainly below 1e15, then
// in exponent form.
func formatNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// bound writes a bound of r: durations as durations, 0 as "0".
func (r Range) bound(v float64) string {
	if r.Duration && v != 0 && !math.IsInf(v, 0) {
		return FormatSeconds(v)
	}
	return formatNumber(v)
}

// words describes the interval in words, for "must be ...". below says
// whether the value lies below it (only one side is named when zero is
// set). float says whether the key takes fractions.
func (r Range) words(iv Interval, below, float bool, zero string) string {
	lower := ">= " + r.bound(iv.Lo)
	if iv.LoOpen {
		lower = "> " + r.bound(iv.Lo)
	}
	upper := "<= " + r.bound(iv.Hi)
	if iv.HiOpen {
		upper = "< " + r.bound(iv.Hi)
	}
	loInf, hiInf := math.IsInf(iv.Lo, -1), math.IsInf(iv.Hi, 1)
	switch {
	case iv.Lo == iv.Hi:
		return r.bound(iv.Lo)
	case zero != "" && below && !loInf:
		return lower + " (or " + zero + ")"
	case zero != "" && !below && !hiInf:
		return upper
	case hiInf && loInf:
		return "a finite number"
	case hiInf:
		if r.Duration {
			return "a duration " + lower
		}
		if float {
			return "a finite number " + lower
		}
		return lower
	case loInf:
		return upper
	case float && !r.Duration && below:
		// A fraction: name the side it is on, as above.
		return "a finite number " + lower
	case float && !r.Duration:
		return upper
	case !iv.LoOpen && !iv.HiOpen:
		return "between " + r.bound(iv.Lo) + " and " + r.bound(iv.Hi)
	}
	return lower + " and " + upper
}

// Problem returns what is wrong with the number v for field f, or "" when
// it is allowed: every number must be finite and in the declared range (0
// is also allowed when the field says what it means). isInt says whether
// the value came from an integer field (shown without a fraction).
func (f *Field) Problem(v float64, isInt bool) string {
	got := ", got " + f.show(v, isInt)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "must be a finite number" + got
	}
	if f.Range.Contains(v) || v == 0 && f.Zero != "" {
		return ""
	}
	if f.Msg != "" {
		return f.Msg + got
	}
	r := f.Range
	if len(r.Parts) == 1 {
		iv := r.Parts[0]
		return "must be " + r.words(iv, v < iv.Lo || v == iv.Lo && iv.LoOpen, !isInt, f.Zero) + got
	}
	words := make([]string, len(r.Parts))
	for i, iv := range r.Parts {
		words[i] = r.words(iv, false, !isInt, "")
	}
	msg := "must be " + strings.Join(words, " or ")
	if f.Zero != "" {
		msg += " (or 0: " + f.Zero + ")"
	}
	return msg + got
}

// show writes a value of f for a message.
func (f *Field) show(v float64, isInt bool) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case isInt:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case f.Range.Duration || f.Accept == "duration" && v > 0:
		if v >= 0 {
			return FormatSeconds(v)
		}
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// EnumProblem returns what is wrong with the string s for field f, or "".
// The empty string stands for an absent key and is always allowed here;
// the decoder refuses a written "" that is not listed.
func (f *Field) EnumProblem(s string) string {
	if len(f.Enum) == 0 || s == "" {
		return ""
	}
	for _, e := range f.Enum {
		if s == e {
			return ""
		}
	}
	return Unknown(f.Noun, s, f.Enum)
}
