package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// DecodeStrict decodes the TOML document src into v (a non-nil pointer,
// normally to a struct) with github.com/BurntSushi/toml, rejecting unknown
// keys. file is the name used in errors. It returns the document's line index
// (also on error, for locating later validation problems) and, when anything
// is wrong, an Errors list sorted by line (use errors.As to get a *Error):
//
//   - a syntax error gives one problem at the parser's line;
//   - values of the wrong type, and errors returned by a field's
//     UnmarshalTOML or UnmarshalText method, are reported at the offending key
//     with element indices resolved, e.g.
//     `email.toml:9: workload "a".demand.rate: expected a number, got a string`;
//   - every unknown key is reported with the keys allowed at that level and
//     the closest one when it looks like a typo:
//     `unknown key "rpmm"; allowed: rpm, tpm; did you mean "rpm"?`.
//
// Keys inside values handled by UnmarshalTOML, or stored into fields of type
// any, map[string]any or toml.Primitive, are not checked. When a value has the
// wrong type, v may be partly decoded.
func DecodeStrict(file string, src []byte, v any) (ix *LineIndex, err error) {
	ix = IndexLines(src)
	defer func() {
		if r := recover(); r != nil {
			err = Errors{{File: file, Msg: fmt.Sprintf("internal error while decoding: %v", r)}}
		}
	}()
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Kind() != reflect.Pointer || rv.IsNil() {
		return ix, Errors{{File: file, Msg: fmt.Sprintf("cannot decode into %T: need a non-nil pointer", v)}}
	}

	// Parse into generic data first: it tells syntax errors apart from
	// decoding errors, and it is what the checks below walk.
	var raw map[string]any
	if perr := safely(func() error { _, err := toml.Decode(string(src), &raw); return err }); perr != nil {
		return ix, Errors{syntaxError(file, perr)}
	}

	var md toml.MetaData
	derr := safely(func() error {
		var err error
		md, err = toml.NewDecoder(bytes.NewReader(src)).Decode(v)
		return err
	})

	names := NamesFrom(raw)
	// Walk the generic data against v's type on a scratch value: always for
	// unknown keys, and for values when the decoder found a problem (its
	// message does not say which element of an array of tables is wrong,
	// and it stops at the first problem).
	a := &assigner{decode: true, collect: true, keysOnly: derr == nil, names: names}
	a.assign(reflect.New(rv.Elem().Type()).Elem(), raw, nil)

	var undecoded map[string]bool
	if derr == nil {
		undecoded = map[string]bool{}
		for _, k := range md.Undecoded() {
			for i := 1; i <= len(k); i++ {
				undecoded[strings.Join(k[:i], "\x00")] = true
			}
		}
	}
	var es Errors
	valueProblems := 0
	for _, p := range a.problems {
		if p.unknown && undecoded != nil && !undecoded[keysOnly(p.at)] {
			continue // the decoder used this key after all
		}
		if !p.unknown {
			valueProblems++
		}
		es = append(es, &Error{File: file, Line: ix.lineOf(p.at), Key: displaySteps(p.at, names), Msg: p.msg})
	}
	if derr != nil && valueProblems == 0 {
		es = append(es, decodeError(file, ix, raw, names, derr))
	}
	es.Sort()
	return ix, es.Err()
}

// safely runs f, turning a panic into an error.
func safely(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return f()
}

// syntaxError converts a parse error of the toml library.
func syntaxError(file string, err error) *Error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &Error{File: file, Line: pe.Position.Line, Msg: "invalid TOML: " + pe.Message}
	}
	return &Error{File: file, Msg: "invalid TOML: " + strings.TrimPrefix(err.Error(), "toml: ")}
}

// decodeErrorRE matches the toml library's plain decoding errors:
// `toml: line 5 (last key "a.b"): message`.
var decodeErrorRE = regexp.MustCompile(`^toml: (?:line (\d+) )?\(last key ("(?:[^"\\]|\\.)*")\): (?s)(.*)$`)

// decodeError converts an error of the toml decoder that the scratch walk did
// not reproduce. The decoder names the key without element indices; the
// element is recovered when only one element has that key.
func decodeError(file string, ix *LineIndex, raw map[string]any, names ElementNames, err error) *Error {
	var key, msg string
	line := 0
	var pe toml.ParseError
	if errors.As(err, &pe) {
		key, msg, line = pe.LastKey, pe.Message, pe.Position.Line
	} else if m := decodeErrorRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		key, _ = strconv.Unquote(m[2])
		msg = m[3]
	} else {
		return &Error{File: file, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	e := &Error{File: file, Line: line, Key: key, Msg: plainMessage(msg)}
	if key == "" {
		return e
	}
	steps := tomlKeySteps(key)
	if cands := concretePaths(raw, steps, nil, 2); len(cands) == 1 {
		e.Key = displaySteps(cands[0], names)
		if l := ix.lineOf(cands[0]); l > 0 {
			e.Line = l
		}
	} else {
		e.Key = displaySteps(steps, nil)
	}
	return e
}

var (
	incompatibleRE = regexp.MustCompile(`incompatible types: TOML value has type (.+); destination has type (.+)$`)
	mismatchRE     = regexp.MustCompile(`type mismatch for .*: expected table but found (.+)$`)
)

// plainMessage rewrites the toml library's type messages in plain words.
func plainMessage(msg string) string {
	if m := incompatibleRE.FindStringSubmatch(msg); m != nil {
		return "expected " + destWords(m[2]) + ", got " + goTypeWords(m[1])
	}
	if m := mismatchRE.FindStringSubmatch(msg); m != nil {
		return "expected a table, got " + goTypeWords(m[1])
	}
	return msg
}

func destWords(t string) string {
	switch t {
	case "float":
		return "a number"
	case "integer":
		return "an integer"
	case "string", "primitive (string-like)":
		return "a string"
	case "boolean":
		return "a boolean"
	case "slice":
		return "an array"
	case "map":
		return "a table"
	}
	return t
}

func goTypeWords(t string) string {
	switch t {
	case "string":
		return "a string"
	case "int64":
		return "an integer"
	case "float64":
		return "a float"
	case "bool":
		return "a boolean"
	case "time.Time":
		return "a date-time"
	case "map[string]any", "map[string]interface {}":
		return "a table"
	case "[]any", "[]interface {}":
		return "an array"
	case "[]map[string]any", "[]map[string]interface {}":
		return "an array of tables"
	}
	return t
}

// concretePaths lists the paths in data whose keys are those of steps, with
// element indices filled in for every array crossed; at most limit paths.
func concretePaths(data any, steps []step, at []step, limit int) [][]step {
	if len(steps) == 0 {
		return [][]step{at}
	}
	var out [][]step
	if elems, ok := arrayOf(data); ok {
		for i, e := range elems {
			out = append(out, concretePaths(e, steps, appendStep(at, idxStep(i)), limit-len(out))...)
			if len(out) >= limit {
				break
			}
		}
		return out
	}
	m, ok := data.(map[string]any)
	if !ok || steps[0].isIdx {
		return nil
	}
	next, ok := m[steps[0].key]
	if !ok {
		return nil
	}
	return concretePaths(next, steps[1:], appendStep(at, keyStep(steps[0].key)), limit)
}
