package workloads

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// csvSource reads a CSV trace by column name: the Azure and BurstGPT
// presets, or a generic CSV with its columns named in the spec.
type csvSource struct {
	path   string
	lr     *csvLines
	closer io.Closer
	// column indexes, -1 when absent
	time, input, output, model, tenant, workload, logType, session, prefix, prefixTok, blocks int
	names                                                                                     []string // column names as in the header
	datetime                                                                                  bool
	unitNs                                                                                    float64
	prefixTokens                                                                              int
	where                                                                                     [4]filterSet // model, tenant, workload, log type
	labels                                                                                    [4]interner
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
	s := &csvSource{path: path, closer: cl, unitNs: 1e9, prefixTokens: spec.PrefixTokens, lr: newCSVLines(rd)}
	fail := func(line int, format string, a ...any) (*csvSource, error) {
		cl.Close()
		return nil, &TraceError{File: path, Line: line, Msg: fmt.Sprintf(format, a...)}
	}
	head, err := s.lr.read()
	if errors.Is(err, io.EOF) {
		return fail(0, "empty file; expected a header line naming the columns")
	}
	if err != nil {
		return fail(s.lr.line, "%v", err)
	}
	s.lr.want = len(head)
	index := map[string]int{}
	for i, h := range head {
		name := string(trimSpace(h))
		if i == 0 {
			name = strings.TrimPrefix(name, "\ufeff")
		}
		s.names = append(s.names, name)
		if _, dup := index[strings.ToLower(name)]; !dup {
			index[strings.ToLower(name)] = i
		}
	}
	var missing []string
	col := func(name, key string, required bool) int {
		if name == "" {
			return -1
		}
		if i, ok := index[strings.ToLower(name)]; ok {
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
		return fail(s.lr.line, "header has no column %s; the columns are: %s", strings.Join(missing, ", "), strings.Join(s.names, ", "))
	}
	s.where = [4]filterSet{spec.Where.Model, spec.Where.Tenant, spec.Where.Workload, spec.Where.LogType}
	for i := range s.labels {
		s.labels[i] = interner{}
	}
	return s, nil
}

func (s *csvSource) close() error { return s.closer.Close() }

func (s *csvSource) next(r *TraceRow) error {
	rec, err := s.lr.read()
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	line := s.lr.line
	if err != nil {
		return &TraceError{File: s.path, Line: line, Msg: err.Error()}
	}
	r.Line = line
	bad := func(col int, format string, a ...any) error {
		return &TraceError{File: s.path, Line: line, Msg: fmt.Sprintf("column %q: ", s.names[col]) + fmt.Sprintf(format, a...)}
	}
	ts := trimSpace(rec[s.time])
	if s.datetime {
		r.abs, err = parseDatetime(ts)
	} else {
		r.abs, err = parseNumericTime(ts, s.unitNs)
	}
	if err != nil {
		return bad(s.time, "%v", err)
	}
	if r.Input, err = parseCount(trimSpace(rec[s.input])); err != nil {
		return bad(s.input, "%v", err)
	}
	if r.Output, err = parseCount(trimSpace(rec[s.output])); err != nil {
		return bad(s.output, "%v", err)
	}
	r.keep = true
	fields := [4]int{s.model, s.tenant, s.workload, s.logType}
	vals := [4]*string{&r.Model, &r.Tenant, &r.Workload, nil}
	for i, c := range fields {
		var v []byte
		if c >= 0 {
			v = trimSpace(rec[c])
		}
		if !s.where[i].allowsBytes(v) {
			r.keep = false
		}
		if vals[i] != nil {
			*vals[i] = s.labels[i].getBytes(v)
		}
	}
	r.HasSession, r.HasPrefix = false, false
	r.Blocks = r.Blocks[:0]
	if s.session >= 0 {
		if v := trimSpace(rec[s.session]); len(v) > 0 {
			r.Session, r.HasSession = hashID(v), true
		}
	}
	if s.prefix >= 0 {
		if v := trimSpace(rec[s.prefix]); len(v) > 0 {
			r.Prefix, r.HasPrefix = hashID(v), true
			r.PrefixTokens = s.prefixTokens
			if s.prefixTok >= 0 {
				if r.PrefixTokens, err = parseCount(trimSpace(rec[s.prefixTok])); err != nil {
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

// csvLines splits a CSV file into records line by line, without
// allocating per record: fields are slices of the read buffer. Quoted
// fields (with "" for a quote) are supported within a line; a quoted field
// spanning lines, which no trace format uses, is an error. It is written
// out because encoding/csv allocates a string per record, which is most of
// what a long replay allocates.
type csvLines struct {
	br     *bufio.Reader
	line   int // line number of the record last returned
	next   int // line number of the next line
	want   int // fields per record (0: any)
	fields [][]byte
	long   []byte // a line longer than the reader's buffer
	unq    []byte // unquoted field contents
	ends   []int  // field ends in unq
}

func newCSVLines(r io.Reader) *csvLines {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 1<<16 {
		br = bufio.NewReaderSize(r, 1<<16)
	}
	return &csvLines{br: br, next: 1}
}

// readLine returns the next line without its end, or io.EOF.
func (l *csvLines) readLine() ([]byte, error) {
	b, err := l.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		l.long = append(l.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(l.long) > maxTraceLine {
				return nil, fmt.Errorf("line longer than %d MiB", maxTraceLine>>20)
			}
			b, err = l.br.ReadSlice('\n')
			l.long = append(l.long, b...)
		}
		b = l.long
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(b) == 0 && errors.Is(err, io.EOF) {
		return nil, io.EOF
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	return b, nil
}

// read returns the next non-empty record's fields, valid until the next
// call.
func (l *csvLines) read() ([][]byte, error) {
	var b []byte
	for {
		var err error
		l.line = l.next
		b, err = l.readLine()
		if err != nil {
			return nil, err
		}
		l.next++
		if len(trimSpace(b)) > 0 {
			break
		}
	}
	l.fields = l.fields[:0]
	if bytes.IndexByte(b, '"') < 0 {
		for {
			i := bytes.IndexByte(b, ',')
			if i < 0 {
				l.fields = append(l.fields, b)
				break
			}
			l.fields = append(l.fields, b[:i])
			b = b[i+1:]
		}
	} else if err := l.splitQuoted(b); err != nil {
		return nil, err
	}
	if l.want > 0 && len(l.fields) != l.want {
		return nil, fmt.Errorf("%d fields, but the header has %d: every row must have as many", len(l.fields), l.want)
	}
	return l.fields, nil
}

// splitQuoted splits a line with quoted fields.
func (l *csvLines) splitQuoted(b []byte) error {
	l.unq, l.ends = l.unq[:0], l.ends[:0]
	i := 0
	for {
		// One field starting at i.
		for i < len(b) && b[i] == ' ' {
			i++
		}
		if i < len(b) && b[i] == '"' {
			i++
			for {
				j := bytes.IndexByte(b[i:], '"')
				if j < 0 {
					return errors.New("a quoted field does not end on its line (fields spanning lines are not supported)")
				}
				l.unq = append(l.unq, b[i:i+j]...)
				i += j + 1
				if i < len(b) && b[i] == '"' { // "" is a quote
					l.unq = append(l.unq, '"')
					i++
					continue
				}
				break
			}
			for i < len(b) && b[i] == ' ' {
				i++
			}
			if i < len(b) && b[i] != ',' {
				return fmt.Errorf("unexpected %q after a quoted field", b[i])
			}
		} else {
			j := bytes.IndexByte(b[i:], ',')
			if j < 0 {
				j = len(b) - i
			}
			field := b[i : i+j]
			if bytes.IndexByte(field, '"') >= 0 {
				return errors.New(`a quote inside an unquoted field; quote the field and write "" for a quote`)
			}
			l.unq = append(l.unq, field...)
			i += j
		}
		l.ends = append(l.ends, len(l.unq))
		if i >= len(b) {
			break
		}
		i++ // the comma
	}
	start := 0
	for _, e := range l.ends {
		l.fields = append(l.fields, l.unq[start:e])
		start = e
	}
	return nil
}
