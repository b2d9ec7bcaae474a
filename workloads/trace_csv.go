package workloads

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// csvSource reads a CSV trace by column name: the Azure and BurstGPT
// presets, or a generic CSV with its columns named in the spec.
type csvSource struct {
	path   string
	cr     *csv.Reader
	closer io.Closer
	// column indexes, -1 when absent
	time, input, output, model, tenant, workload, logType, session, prefix, prefixTok, blocks int
	names                                                                                     map[int]string // column names for messages
	datetime                                                                                  bool
	unitNs                                                                                    float64
	prefixTokens                                                                              int
	where                                                                                     [4]filterSet // model, tenant, workload, log type
	labels                                                                                    [4]interner
	ncol                                                                                      int
}

// csvPreset is a fixed format's column names.
type csvPreset struct {
	time, input, output, model, logType, session string
	datetime                                     bool
}

var csvPresets = map[string]csvPreset{
	FormatAzure: {time: "TIMESTAMP", input: "ContextTokens", output: "GeneratedTokens", datetime: true},
	// BurstGPT: Timestamp is seconds from the start of the collection;
	// the later files add "Session ID" and "Elapsed time" columns.
	FormatBurstGPT: {time: "Timestamp", input: "Request tokens", output: "Response tokens", model: "Model", logType: "Log Type", session: "Session ID"},
}

func openCSVSource(spec *TraceSpec, path, format string) (*csvSource, error) {
	rd, cl, err := openTraceFile(path)
	if err != nil {
		return nil, err
	}
	s := &csvSource{path: path, closer: cl, unitNs: 1e9, prefixTokens: spec.PrefixTokens}
	fail := func(line int, format string, a ...any) (*csvSource, error) {
		cl.Close()
		return nil, &TraceError{File: path, Line: line, Msg: fmt.Sprintf(format, a...)}
	}
	cr := csv.NewReader(rd)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = 0 // every row as long as the header
	cr.TrimLeadingSpace = true
	s.cr = cr
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return fail(0, "empty file; expected a header line naming the columns")
	}
	if err != nil {
		return fail(0, "%s", csvErr(err))
	}
	s.ncol = len(head)
	index := map[string]int{}
	for i, h := range head {
		h = strings.TrimSpace(h)
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		if _, dup := index[strings.ToLower(h)]; !dup {
			index[strings.ToLower(h)] = i
		}
	}
	s.names = map[int]string{}
	var missing []string
	col := func(name, key string, required bool) int {
		if name == "" {
			return -1
		}
		if i, ok := index[strings.ToLower(name)]; ok {
			s.names[i] = name
			return i
		}
		if required {
			if key != "" {
				missing = append(missing, fmt.Sprintf("%q (columns.%s)", name, key))
			} else {
				missing = append(missing, fmt.Sprintf("%q", name))
			}
		}
		return -1
	}
	if p, ok := csvPresets[format]; ok {
		s.time = col(p.time, "", true)
		s.input = col(p.input, "", true)
		s.output = col(p.output, "", true)
		s.model = col(p.model, "", len(spec.Where.Model) > 0)
		s.logType = col(p.logType, "", len(spec.Where.LogType) > 0)
		s.session = col(p.session, "", false)
		s.tenant, s.workload, s.prefix, s.prefixTok, s.blocks = -1, -1, -1, -1, -1
		s.datetime = p.datetime
	} else {
		c := spec.Columns
		s.time = col(c.Time, "time", true)
		s.input = col(c.Input, "input", true)
		s.output = col(c.Output, "output", true)
		s.model = col(c.Model, "model", true)
		s.tenant = col(c.Tenant, "tenant", true)
		s.workload = col(c.Workload, "workload", true)
		s.session = col(c.Session, "session", true)
		s.prefix = col(c.Prefix, "prefix", true)
		s.prefixTok = col(c.PrefixTokens, "prefix_tokens", true)
		s.blocks = col(c.Blocks, "blocks", true)
		s.logType = -1
		s.datetime = spec.TimeUnit == TimeDatetime
		s.unitNs = unitNanos(spec.TimeUnit)
	}
	if len(missing) > 0 {
		return fail(1, "header has no column %s; the columns are: %s", strings.Join(missing, ", "), strings.Join(head, ", "))
	}
	s.where = [4]filterSet{spec.Where.Model, spec.Where.Tenant, spec.Where.Workload, spec.Where.LogType}
	for i := range s.labels {
		s.labels[i] = interner{}
	}
	return s, nil
}

func (s *csvSource) close() error { return s.closer.Close() }

// csvErr words an encoding/csv error without its "record on line" prefix.
func csvErr(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			return "wrong number of fields: every row must have as many as the header"
		}
		return pe.Err.Error()
	}
	return err.Error()
}

func (s *csvSource) next(r *TraceRow) error {
	rec, err := s.cr.Read()
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	if err != nil {
		line := 0
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			line = pe.Line
		}
		return &TraceError{File: s.path, Line: line, Msg: csvErr(err)}
	}
	line, _ := s.cr.FieldPos(0)
	r.Line = line
	bad := func(col int, format string, a ...any) error {
		return &TraceError{File: s.path, Line: line, Msg: fmt.Sprintf("column %q: ", s.names[col]) + fmt.Sprintf(format, a...)}
	}
	ts := strings.TrimSpace(rec[s.time])
	if s.datetime {
		r.abs, err = parseDatetime(ts)
	} else {
		r.abs, err = parseNumericTime(ts, s.unitNs)
	}
	if err != nil {
		return bad(s.time, "%v", err)
	}
	if r.Input, err = parseCount(strings.TrimSpace(rec[s.input])); err != nil {
		return bad(s.input, "%v", err)
	}
	if r.Output, err = parseCount(strings.TrimSpace(rec[s.output])); err != nil {
		return bad(s.output, "%v", err)
	}
	r.keep = true
	fields := [4]int{s.model, s.tenant, s.workload, s.logType}
	vals := [4]*string{&r.Model, &r.Tenant, &r.Workload, nil}
	for i, c := range fields {
		v := ""
		if c >= 0 {
			v = strings.TrimSpace(rec[c])
		}
		if !s.where[i].allows(v) {
			r.keep = false
		}
		if vals[i] != nil {
			if v == "" {
				*vals[i] = ""
			} else {
				*vals[i] = s.labels[i].get(v)
			}
		}
	}
	r.HasSession, r.HasPrefix = false, false
	r.Blocks = r.Blocks[:0]
	if s.session >= 0 {
		if v := strings.TrimSpace(rec[s.session]); v != "" {
			r.Session, r.HasSession = hashID([]byte(v)), true
		}
	}
	if s.prefix >= 0 {
		if v := strings.TrimSpace(rec[s.prefix]); v != "" {
			r.Prefix, r.HasPrefix = hashID([]byte(v)), true
			r.PrefixTokens = s.prefixTokens
			if s.prefixTok >= 0 {
				if r.PrefixTokens, err = parseCount(strings.TrimSpace(rec[s.prefixTok])); err != nil {
					return bad(s.prefixTok, "%v", err)
				}
			}
		}
	}
	if s.blocks >= 0 {
		if r.Blocks, err = parseBlocks(rec[s.blocks], r.Blocks); err != nil {
			return bad(s.blocks, "%v", err)
		}
	}
	return nil
}
