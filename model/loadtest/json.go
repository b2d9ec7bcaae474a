package loadtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// doc is one JSON file being read, able to say on which line a value is.
type doc struct {
	file string
	data []byte
}

// sanitize turns the non-standard NaN, Infinity and -Infinity that Python's
// json module writes into strings ("NaN", "Infinity", "-Infinity"), so that
// encoding/json can read the file; it adds no newlines, so lines stay put.
func sanitize(b []byte) []byte {
	if !bytes.Contains(b, []byte("NaN")) && !bytes.Contains(b, []byte("Infinity")) {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b) + 64)
	inStr, esc := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			out.WriteByte(c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
		case bytes.HasPrefix(b[i:], []byte("NaN")):
			out.WriteString(`"NaN"`)
			i += 2
			continue
		case bytes.HasPrefix(b[i:], []byte("-Infinity")):
			out.WriteString(`"-Infinity"`)
			i += 8
			continue
		case bytes.HasPrefix(b[i:], []byte("Infinity")):
			out.WriteString(`"Infinity"`)
			i += 7
			continue
		}
		out.WriteByte(c)
	}
	return out.Bytes()
}

// lineAt is the line of a byte offset (1-based).
func (d *doc) lineAt(off int64) int {
	if off > int64(len(d.data)) {
		off = int64(len(d.data))
	}
	return 1 + bytes.Count(d.data[:off], []byte("\n"))
}

// syntaxErr words a decoding error with its line.
func (d *doc) syntaxErr(err error, what string) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &Error{File: d.file, Line: d.lineAt(se.Offset), Msg: "not valid JSON: " + se.Error() + "; expected " + what}
	case errors.As(err, &te):
		return &Error{File: d.file, Line: d.lineAt(te.Offset), Msg: fmt.Sprintf("%s: expected a %s, got a JSON %s; expected %s", te.Field, te.Type, te.Value, what)}
	}
	return &Error{File: d.file, Msg: strings.TrimPrefix(err.Error(), "json: ") + "; expected " + what}
}

// errAt is an error at a JSON path ("benchmarks[2].metrics.ttft"), with
// the line where that value is when it can be found.
func (d *doc) errAt(path, format string, a ...any) error {
	return &Error{File: d.file, Line: d.lineOfPath(path), Msg: path + ": " + fmt.Sprintf(format, a...)}
}

// pathFrame is one container on the way to a value.
type pathFrame struct {
	array bool
	index int    // the next element's index (arrays)
	key   string // the current member's key (objects)
	want  bool   // an object expects a key next
}

// lineOfPath finds the line where the value at path starts, walking the
// document's tokens; 0 when not found.
func (d *doc) lineOfPath(path string) int {
	dec := json.NewDecoder(bytes.NewReader(d.data))
	var stack []pathFrame
	cur := func() string {
		var b strings.Builder
		for _, f := range stack {
			if f.array {
				fmt.Fprintf(&b, "[%d]", f.index)
			} else {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			}
		}
		return b.String()
	}
	// after moves the innermost container past one value.
	after := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].array {
				stack[n-1].index++
			} else {
				stack[n-1].want = true
			}
		}
	}
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return 0
		}
		if n := len(stack); n > 0 && !stack[n-1].array && stack[n-1].want {
			if s, ok := tok.(string); ok {
				stack[n-1].key, stack[n-1].want = s, false
				continue
			}
		}
		if dl, ok := tok.(json.Delim); ok && (dl == '}' || dl == ']') {
			stack = stack[:len(stack)-1]
			after()
			continue
		}
		if cur() == path {
			off := before
			for off < int64(len(d.data)) && strings.IndexByte(" \t\r\n,:", d.data[off]) >= 0 {
				off++
			}
			return d.lineAt(off)
		}
		if dl, ok := tok.(json.Delim); ok {
			stack = append(stack, pathFrame{array: dl == '[', want: dl == '{'})
			continue
		}
		after()
	}
}

// object decodes raw as an object of raw values.
func object(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	return m, true
}

// number reads a JSON number, or a string holding one ("550", "inf",
// "Infinity", "NaN"); ok is false when the key is absent or null.
func number(m map[string]json.RawMessage, key string) (v float64, ok bool, err error) {
	raw, present := m[key]
	if !present || string(raw) == "null" {
		return math.NaN(), false, nil
	}
	return numberValue(raw)
}

func numberValue(raw json.RawMessage) (float64, bool, error) {
	var f float64
	if err := json.Unmarshal(raw, &f); err == nil {
		return f, true, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return math.NaN(), false, fmt.Errorf("expected a number, got %s", short(raw))
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "inf", "infinity", "+inf":
		return math.Inf(1), true, nil
	case "-inf", "-infinity":
		return math.Inf(-1), true, nil
	case "nan":
		return math.NaN(), true, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return math.NaN(), false, fmt.Errorf("expected a number, got %s", short(raw))
	}
	return f, true, nil
}

// short is a JSON value shortened for messages.
func short(raw json.RawMessage) string {
	s := string(raw)
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

// readAllLimited reads a file of at most limit bytes.
func readAllLimited(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("larger than %d MiB", limit>>20)
	}
	return b, nil
}
