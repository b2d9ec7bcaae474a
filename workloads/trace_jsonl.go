package workloads

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// jsonlSource reads one JSON object per line: Mooncake's records, or any
// object with its fields named in the spec.
type jsonlSource struct {
	path     string
	sc       *bufio.Scanner
	closer   io.Closer
	line     int
	mooncake bool
	cols     TraceColumns
	datetime bool
	unitNs   float64
	prefTok  int
	where    [3]filterSet // model, tenant, workload
	labels   [3]interner
	moon     mooncakeRecord
	obj      map[string]json.RawMessage
}

// mooncakeRecord is one line of a Mooncake trace. Fields left at -1 were
// missing.
type mooncakeRecord struct {
	Timestamp    json.Number `json:"timestamp"`
	InputLength  int64       `json:"input_length"`
	OutputLength int64       `json:"output_length"`
	HashIDs      []uint64    `json:"hash_ids"`
}

func openJSONLSource(spec *TraceSpec, path, format string) (*jsonlSource, error) {
	rd, cl, err := openTraceFile(path)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 1<<16), maxTraceLine)
	s := &jsonlSource{path: path, sc: sc, closer: cl, mooncake: format == FormatMooncake, cols: spec.Columns,
		datetime: spec.TimeUnit == TimeDatetime, unitNs: unitNanos(spec.TimeUnit), prefTok: spec.PrefixTokens,
		where: [3]filterSet{spec.Where.Model, spec.Where.Tenant, spec.Where.Workload}}
	for i := range s.labels {
		s.labels[i] = interner{}
	}
	if !s.mooncake {
		s.obj = map[string]json.RawMessage{}
	}
	return s, nil
}

func (s *jsonlSource) close() error { return s.closer.Close() }

func (s *jsonlSource) next(r *TraceRow) error {
	var text []byte
	for {
		if !s.sc.Scan() {
			if err := s.sc.Err(); err != nil {
				if errors.Is(err, bufio.ErrTooLong) {
					return &TraceError{File: s.path, Line: s.line + 1, Msg: fmt.Sprintf("line longer than %d MiB", maxTraceLine>>20)}
				}
				return &TraceError{File: s.path, Line: s.line + 1, Msg: err.Error()}
			}
			return io.EOF
		}
		s.line++
		text = bytes.TrimSpace(s.sc.Bytes())
		if s.line == 1 {
			text = bytes.TrimPrefix(text, []byte("\ufeff"))
		}
		if len(text) > 0 {
			break
		}
	}
	r.Line = s.line
	if s.mooncake {
		return s.nextMooncake(r, text)
	}
	return s.nextGeneric(r, text)
}

func (s *jsonlSource) errorf(format string, a ...any) error {
	return &TraceError{File: s.path, Line: s.line, Msg: fmt.Sprintf(format, a...)}
}

// jsonErr words a JSON syntax or type error.
func jsonErr(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q: expected a %s, got a JSON %s", te.Field, te.Type, te.Value)
	}
	return "not a JSON object: " + strings.TrimPrefix(err.Error(), "json: ")
}

func (s *jsonlSource) nextMooncake(r *TraceRow, text []byte) error {
	m := &s.moon
	m.Timestamp, m.InputLength, m.OutputLength = "", -1, -1
	m.HashIDs = r.Blocks[:0]
	if err := json.Unmarshal(text, m); err != nil {
		return s.errorf("%s", jsonErr(err))
	}
	r.Blocks = m.HashIDs
	if m.Timestamp == "" {
		return s.errorf("missing field \"timestamp\" (milliseconds from the trace's start)")
	}
	var err error
	if r.abs, err = parseNumericTime(string(m.Timestamp), 1e6); err != nil {
		return s.errorf("field \"timestamp\": %v", err)
	}
	for _, f := range []struct {
		name string
		v    int64
		dst  *int
	}{{"input_length", m.InputLength, &r.Input}, {"output_length", m.OutputLength, &r.Output}} {
		switch {
		case f.v == -1:
			return s.errorf("missing field %q", f.name)
		case f.v < 0 || f.v > maxTokens:
			return s.errorf("field %q: %d is out of range 0..%d", f.name, f.v, maxTokens)
		}
		*f.dst = int(f.v)
	}
	if len(r.Blocks) > maxTraceBlocks {
		return s.errorf("field \"hash_ids\": more than %d block hashes", maxTraceBlocks)
	}
	r.keep = true
	r.HasSession, r.HasPrefix = false, false
	r.Model, r.Tenant, r.Workload = "", "", ""
	return nil
}

// rawString is a JSON value as text: a string unquoted, anything else as
// written (numbers, true, false); null is empty.
func rawString(v json.RawMessage) (string, error) {
	if len(v) == 0 || string(v) == "null" {
		return "", nil
	}
	if v[0] == '"' {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", err
		}
		return s, nil
	}
	if v[0] == '{' || v[0] == '[' {
		return "", errors.New("expected a string or a number, got a JSON " + map[byte]string{'{': "object", '[': "array"}[v[0]])
	}
	return string(v), nil
}

func (s *jsonlSource) nextGeneric(r *TraceRow, text []byte) error {
	clear(s.obj)
	if err := json.Unmarshal(text, &s.obj); err != nil {
		return s.errorf("%s", jsonErr(err))
	}
	field := func(name string, required bool) (string, bool, error) {
		v, ok := s.obj[name]
		if !ok {
			if required {
				return "", false, s.errorf("missing field %q", name)
			}
			return "", false, nil
		}
		str, err := rawString(v)
		if err != nil {
			return "", false, s.errorf("field %q: %v", name, err)
		}
		return str, true, nil
	}
	c := s.cols
	ts, _, err := field(c.Time, true)
	if err != nil {
		return err
	}
	if s.datetime {
		r.abs, err = parseDatetime(ts)
	} else {
		r.abs, err = parseNumericTime(ts, s.unitNs)
	}
	if err != nil {
		return s.errorf("field %q: %v", c.Time, err)
	}
	for _, f := range []struct {
		name string
		dst  *int
	}{{c.Input, &r.Input}, {c.Output, &r.Output}} {
		v, _, err := field(f.name, true)
		if err != nil {
			return err
		}
		if *f.dst, err = parseCount(v); err != nil {
			return s.errorf("field %q: %v", f.name, err)
		}
	}
	r.keep = true
	for i, f := range []struct {
		name string
		dst  *string
	}{{c.Model, &r.Model}, {c.Tenant, &r.Tenant}, {c.Workload, &r.Workload}} {
		*f.dst = ""
		if f.name == "" {
			continue
		}
		v, _, err := field(f.name, false)
		if err != nil {
			return err
		}
		if !s.where[i].allows(v) {
			r.keep = false
		}
		if v != "" {
			*f.dst = s.labels[i].get(v)
		}
	}
	r.HasSession, r.HasPrefix = false, false
	r.Blocks = r.Blocks[:0]
	if c.Session != "" {
		if v, ok, err := field(c.Session, false); err != nil {
			return err
		} else if ok && v != "" {
			r.Session, r.HasSession = hashID([]byte(v)), true
		}
	}
	if c.Prefix != "" {
		if v, ok, err := field(c.Prefix, false); err != nil {
			return err
		} else if ok && v != "" {
			r.Prefix, r.HasPrefix = hashID([]byte(v)), true
			r.PrefixTokens = s.prefTok
			if c.PrefixTokens != "" {
				pt, _, err := field(c.PrefixTokens, true)
				if err != nil {
					return err
				}
				if r.PrefixTokens, err = parseCount(pt); err != nil {
					return s.errorf("field %q: %v", c.PrefixTokens, err)
				}
			}
		}
	}
	if c.Blocks != "" {
		if v, ok := s.obj[c.Blocks]; ok && len(v) > 0 && string(v) != "null" {
			if r.Blocks, err = jsonBlocks(v, r.Blocks); err != nil {
				return s.errorf("field %q: %v", c.Blocks, err)
			}
		}
	}
	return nil
}

// jsonBlocks reads a JSON array of block hashes (integers or strings), or a
// string of them separated by spaces, commas or semicolons.
func jsonBlocks(v json.RawMessage, dst []uint64) ([]uint64, error) {
	if v[0] == '"' {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return dst, err
		}
		return parseBlocks(s, dst)
	}
	if v[0] != '[' {
		return dst, errors.New("expected an array of block hashes")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return dst, errors.New("expected an array of block hashes")
	}
	if len(items) > maxTraceBlocks {
		return dst, fmt.Errorf("more than %d block hashes", maxTraceBlocks)
	}
	dst = dst[:0]
	for _, it := range items {
		s, err := rawString(it)
		if err != nil {
			return dst, err
		}
		if n, err := strconv.ParseUint(s, 10, 64); err == nil {
			dst = append(dst, n)
		} else {
			dst = append(dst, hashID([]byte(s)))
		}
	}
	return dst, nil
}
