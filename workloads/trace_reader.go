package workloads

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// TraceError is a problem with a trace file, at a line when Line > 0.
type TraceError struct {
	File string
	Line int
	Msg  string
}

// Error returns "file:line: msg".
func (e *TraceError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// TraceRow is one record as read from a trace, before the replay transforms
// (speed, scale, loop) but after the filter and the window.
type TraceRow struct {
	// Time is in seconds from trace time From (the window's start).
	Time float64
	// Line is the record's line in its file.
	Line int
	// Input and Output are its prompt and generated tokens.
	Input, Output int
	// Model, Tenant and Workload are the record's fields when the format
	// has them ("" otherwise).
	Model, Tenant, Workload string
	// Blocks are the record's block hashes, BlockSize prompt tokens each
	// (the slice is reused by the next call to Next).
	Blocks []uint64
	// Session identifies the record's session when HasSession.
	Session    uint64
	HasSession bool
	// Prefix identifies a shared prefix PrefixTokens long when HasPrefix.
	Prefix       uint64
	PrefixTokens int
	HasPrefix    bool

	abs  int64 // absolute time in ns, before it is made relative
	keep bool  // the filter keeps it
}

// copyFrom copies o into r, reusing r's Blocks.
func (r *TraceRow) copyFrom(o *TraceRow) {
	b := append(r.Blocks[:0], o.Blocks...)
	*r = *o
	r.Blocks = b
}

// rowSource yields a file's rows in file order.
type rowSource interface {
	// next parses the next row into r (abs, Line, tokens, fields, keep).
	next(r *TraceRow) error
	close() error
}

// TraceReader reads a trace's records in time order, keeping those the
// spec's filter and window [From, To) select. Memory is bounded by the
// longest line and the records within the sort window, not by the trace's
// length.
type TraceReader struct {
	spec   *TraceSpec
	path   string
	format string
	src    rowSource
	block  int

	sortNs  int64
	heap    minHeap[int64, *TraceRow] // rows held for sorting, by (abs, Line)
	pool    []*TraceRow
	maxSeen int64 // latest time read so far
	maxLine int
	eof     bool

	started bool
	t0      int64 // absolute time of the earliest record
	fromNs  int64
	toNs    int64 // 0: no end
	done    bool
	cur     TraceRow

	// what was read
	rows    int64 // data rows read
	kept    int64 // rows returned
	lastRel float64
}

// OpenTrace opens spec's file and reads its header. The caller must Close
// the reader. A ServeGen trace, which describes arrivals by their
// statistics, draws them from a fixed seed; OpenTraceRand takes the random
// stream.
func OpenTrace(spec *TraceSpec) (*TraceReader, error) {
	return OpenTraceRand(spec, rand.New(rand.NewPCG(0x5e7e, 0x6e4)))
}

// OpenTraceRand is OpenTrace drawing a ServeGen trace's arrivals and tokens
// from rnd.
func OpenTraceRand(spec *TraceSpec, rnd *rand.Rand) (*TraceReader, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	path := spec.Path()
	format := spec.Format
	if format == "" {
		f, err := DetectTraceFormat(path)
		if err != nil {
			return nil, err
		}
		format = f
		// The checks that depend on the format, now that it is known.
		s := *spec
		s.Format = format
		if err := s.Validate(); err != nil {
			return nil, err
		}
	}
	r := &TraceReader{spec: spec, path: path, format: format, sortNs: int64(float64(spec.SortWindow) * 1e9),
		fromNs: int64(float64(spec.From) * 1e9), toNs: int64(float64(spec.To) * 1e9)}
	var err error
	switch format {
	case FormatAzure, FormatBurstGPT, FormatCSV:
		r.src, err = openCSVSource(spec, path, format)
	case FormatMooncake, FormatJSONL:
		r.src, err = openJSONLSource(spec, path, format)
	case FormatServeGen:
		r.src, err = openServeGenSource(spec, path, rnd)
	}
	if err != nil {
		return nil, err
	}
	r.block = spec.BlockSize
	if r.block == 0 {
		r.block = defaultSynthBlock
		if format == FormatMooncake {
			r.block = mooncakeBlock
		}
	}
	return r, nil
}

// Format is the trace's format (detected when the spec left it out).
func (r *TraceReader) Format() string { return r.format }

// Path is the file read.
func (r *TraceReader) Path() string { return r.path }

// BlockSize is the number of prompt tokens per block of TraceRow.Blocks,
// and of the blocks made from sessions and prefix ids.
func (r *TraceReader) BlockSize() int { return r.block }

// Start is the absolute time of the trace's earliest record, in
// nanoseconds since the Unix epoch for date-time traces (in the trace's own
// time base otherwise), once a record has been read.
func (r *TraceReader) Start() int64 { return r.t0 }

// RowsRead is the number of data rows read so far, kept or not.
func (r *TraceReader) RowsRead() int64 { return r.rows }

// Close closes the file.
func (r *TraceReader) Close() error {
	if r.src == nil {
		return nil
	}
	err := r.src.close()
	r.src = nil
	return err
}

// errorf is a TraceError at a line of the file.
func (r *TraceReader) errorf(line int, format string, a ...any) error {
	return &TraceError{File: r.path, Line: line, Msg: fmt.Sprintf(format, a...)}
}

// Next reads the next record the filter and window keep into row, whose
// Blocks slice it reuses. It returns io.EOF after the last one, and a
// *TraceError for a malformed or out-of-order row.
func (r *TraceReader) Next(row *TraceRow) error {
	for {
		if r.done {
			return io.EOF
		}
		next, err := r.sorted()
		if err != nil {
			if errors.Is(err, io.EOF) {
				r.done = true
			}
			return err
		}
		if !r.started {
			r.started = true
			r.t0 = next.abs
		}
		rel := next.abs - r.t0
		if r.toNs > 0 && rel >= r.toNs {
			r.done = true
			return io.EOF
		}
		if !next.keep || rel < r.fromNs {
			continue
		}
		row.copyFrom(next)
		row.Time = float64(rel-r.fromNs) / 1e9
		r.kept++
		r.lastRel = row.Time
		return nil
	}
}

// sorted returns the next row in time order: straight from the source, or
// through the sort window's heap.
func (r *TraceReader) sorted() (*TraceRow, error) {
	if r.src == nil {
		return nil, io.EOF
	}
	if r.sortNs == 0 {
		cur := &r.cur
		if err := r.src.next(cur); err != nil {
			return nil, err
		}
		r.rows++
		if r.rows > 1 && cur.abs < r.maxSeen {
			return nil, r.errorf(cur.Line, "time is %s earlier than line %d's; rows must be in time order, or set sort_window to at least %s to sort them",
				fmtSeconds(float64(r.maxSeen-cur.abs)/1e9), r.maxLine, fmtSeconds(float64(r.maxSeen-cur.abs)/1e9))
		}
		r.maxSeen, r.maxLine = cur.abs, cur.Line
		return cur, nil
	}
	// Fill the heap until its earliest row can no longer be preceded.
	for !r.eof && (r.heap.Len() == 0 || r.heap.topKey() >= r.maxSeen-r.sortNs) {
		row := r.get()
		if err := r.src.next(row); err != nil {
			r.put(row)
			if errors.Is(err, io.EOF) {
				r.eof = true
				break
			}
			return nil, err
		}
		r.rows++
		if r.rows > 1 && row.abs < r.maxSeen-r.sortNs {
			return nil, r.errorf(row.Line, "time is %s earlier than line %d's, more than sort_window (%s) allows; raise sort_window to at least %s",
				fmtSeconds(float64(r.maxSeen-row.abs)/1e9), r.maxLine, fmtSeconds(float64(r.sortNs)/1e9), fmtSeconds(float64(r.maxSeen-row.abs)/1e9))
		}
		if r.rows == 1 || row.abs > r.maxSeen {
			r.maxSeen, r.maxLine = row.abs, row.Line
		}
		r.heap.push(row.abs, row.Line, row)
	}
	if r.heap.Len() == 0 {
		return nil, io.EOF
	}
	top := r.heap.pop()
	r.cur.copyFrom(top)
	r.put(top)
	return &r.cur, nil
}

func (r *TraceReader) get() *TraceRow {
	if n := len(r.pool); n > 0 {
		row := r.pool[n-1]
		r.pool = r.pool[:n-1]
		return row
	}
	return &TraceRow{}
}

func (r *TraceReader) put(row *TraceRow) { r.pool = append(r.pool, row) }

// fmtSeconds formats a duration in seconds for messages.
func fmtSeconds(s float64) string { return Duration(s).String() }

// openTraceFile opens a trace file, decompressing it when it starts with
// the gzip magic bytes.
func openTraceFile(path string) (io.Reader, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, &TraceError{File: path, Msg: strings.TrimPrefix(err.Error(), "open "+path+": ")}
	}
	br := bufio.NewReaderSize(f, 1<<16)
	magic, _ := br.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, nil, &TraceError{File: path, Msg: "gzip: " + err.Error()}
		}
		return bufio.NewReaderSize(zr, 1<<16), multiCloser{zr, f}, nil
	}
	return br, f, nil
}

type multiCloser []io.Closer

func (m multiCloser) Close() error {
	var first error
	for _, c := range m {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// DetectTraceFormat tells a trace's format from its first line: a JSON
// object with Mooncake's fields, or a CSV header of the Azure or BurstGPT
// traces, or ServeGen's six numeric columns. Other CSV and JSONL files need
// format = "csv" or "jsonl" with their columns named.
func DetectTraceFormat(path string) (string, error) {
	rd, cl, err := openTraceFile(path)
	if err != nil {
		return "", err
	}
	defer cl.Close()
	br := bufio.NewReader(rd)
	line, err := br.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", &TraceError{File: path, Msg: err.Error()}
	}
	line = strings.TrimSpace(strings.TrimPrefix(line, "\ufeff"))
	if line == "" {
		return "", &TraceError{File: path, Line: 1, Msg: "empty first line: cannot tell the trace's format; set format (" + traceFormats + ")"}
	}
	if strings.HasPrefix(line, "{") {
		if strings.Contains(line, `"input_length"`) && strings.Contains(line, `"timestamp"`) {
			return FormatMooncake, nil
		}
		return "", &TraceError{File: path, Line: 1, Msg: "a JSON record without Mooncake's fields (timestamp, input_length, output_length): set format = \"jsonl\" and name its fields in columns = { time = ..., input = ..., output = ... }"}
	}
	cols := splitHeader(line)
	has := func(name string) bool {
		return slices.ContainsFunc(cols, func(c string) bool { return strings.EqualFold(c, name) })
	}
	switch {
	case has("TIMESTAMP") && has("ContextTokens") && has("GeneratedTokens"):
		return FormatAzure, nil
	case has("Timestamp") && has("Request tokens") && has("Response tokens"):
		return FormatBurstGPT, nil
	case len(cols) == 6 && isNumber(cols[0]) && isNumber(cols[1]):
		return FormatServeGen, nil
	}
	return "", &TraceError{File: path, Line: 1, Msg: fmt.Sprintf("cannot tell the trace's format from its header (%s); set format = \"csv\" and name its columns in columns = { time = ..., input = ..., output = ... }, or set format to one of %s", line, traceFormats)}
}

// splitHeader splits a CSV header line into trimmed, unquoted names.
func splitHeader(line string) []string {
	parts := strings.Split(line, ",")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"`)
	}
	return parts
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == 'e' || c == 'E' || c == '+') {
			return false
		}
	}
	return true
}

// filterSet is one field's allowed values.
type filterSet []string

func (f filterSet) allows(v string) bool { return len(f) == 0 || slices.Contains(f, v) }

// allowsBytes is allows without converting v.
func (f filterSet) allowsBytes(v []byte) bool {
	if len(f) == 0 {
		return true
	}
	for _, x := range f {
		if string(v) == x {
			return true
		}
	}
	return false
}

// interner returns one copy of each distinct label, so that rows do not
// hold their lines alive; past maxInterned labels it stops remembering.
type interner map[string]string

const maxInterned = 4096

func (in interner) get(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	v := strings.Clone(s)
	if len(in) < maxInterned {
		in[v] = v
	}
	return v
}

// getBytes is get for a field of a line; "" for an empty one.
func (in interner) getBytes(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if v, ok := in[string(b)]; ok {
		return v
	}
	return in.get(string(b))
}

// hashID hashes an id (a session or prefix name) with FNV-1a, which is
// deterministic across runs (hash/maphash is seeded per process).
func hashID[S ~string | ~[]byte](b S) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(b); i++ {
		h ^= uint64(b[i])
		h *= 1099511628211
	}
	return h
}

// parseBlocks parses block hashes: integers separated by commas, spaces or
// semicolons, optionally in square brackets. Non-integer tokens (hash
// strings) are hashed.
func parseBlocks[S ~string | ~[]byte](s S, dst []uint64) ([]uint64, error) {
	s = trimSpace(s)
	if len(s) > 0 && s[0] == '[' {
		s = s[1:]
	}
	if len(s) > 0 && s[len(s)-1] == ']' {
		s = s[:len(s)-1]
	}
	dst = dst[:0]
	start := -1
	flush := func(end int) error {
		if start < 0 {
			return nil
		}
		tok := s[start:end]
		start = -1
		for len(tok) > 0 && (tok[0] == '"' || tok[0] == '\'') {
			tok = tok[1:]
		}
		for len(tok) > 0 && (tok[len(tok)-1] == '"' || tok[len(tok)-1] == '\'') {
			tok = tok[:len(tok)-1]
		}
		if len(tok) == 0 {
			return nil
		}
		if len(dst) >= maxTraceBlocks {
			return fmt.Errorf("more than %d block hashes", maxTraceBlocks)
		}
		var v uint64
		ok := true
		for i := 0; i < len(tok); i++ {
			c := tok[i]
			if c < '0' || c > '9' || v > (1<<63)/5 {
				ok = false
				break
			}
			v = v*10 + uint64(c-'0')
		}
		if !ok {
			v = hashID(tok)
		}
		dst = append(dst, v)
		return nil
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ',', ' ', ';', '\t':
			if err := flush(i); err != nil {
				return dst, err
			}
		default:
			if start < 0 {
				start = i
			}
		}
	}
	err := flush(len(s))
	return dst, err
}

// baseName is the file name for messages where the full path is noise.
func baseName(p string) string { return filepath.Base(p) }

// bytesTrim trims spaces and one level of quotes.
func bytesTrim(b []byte) []byte { return bytes.Trim(bytes.TrimSpace(b), `"`) }
