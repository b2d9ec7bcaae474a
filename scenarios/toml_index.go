package scenarios

import "bytes"

// LineIndex maps the key paths of a TOML document to the 1-based line where
// each key is defined. Paths use element indices for arrays, e.g.
// provider[0].limits.rpm. Build one with IndexLines; the zero value and a nil
// *LineIndex are empty indexes.
type LineIndex struct {
	lines map[string]int
}

// maxNesting bounds how deeply inline tables and arrays are followed.
const maxNesting = 64

// IndexLines scans TOML source and records the line of every key: table
// headers ([a.b] and [[a]]), keys and dotted keys (each prefix of a.b.c),
// keys inside inline tables, and array elements (key[i], and key[i].sub for
// inline tables inside arrays). A multi-line value belongs to the line where
// its key starts. Elements of arrays of tables are numbered relative to their
// parent element. The first definition of a path wins. IndexLines never
// fails: on malformed input it skips to the next line and returns what it
// could index.
func IndexLines(src []byte) *LineIndex {
	s := &lineScanner{
		src:  bytes.TrimPrefix(src, []byte("\xef\xbb\xbf")),
		line: 1,
		ix:   &LineIndex{lines: make(map[string]int)},
		aot:  make(map[string]int),
	}
	s.run()
	return s.ix
}

// Line returns the line of the longest prefix of path that is indexed, so
// "provider[0].limits.rpm" falls back to "provider[0].limits", then
// "provider[0]", then "provider". It returns 0 when nothing matches or the
// path is malformed.
func (ix *LineIndex) Line(path string) int {
	if ix == nil || len(ix.lines) == 0 {
		return 0
	}
	if l, ok := ix.lines[path]; ok {
		return l
	}
	steps, err := parsePath(path)
	if err != nil {
		return 0
	}
	return ix.lineOf(steps)
}

// lineOf is Line for a parsed path.
func (ix *LineIndex) lineOf(steps []step) int {
	if ix == nil {
		return 0
	}
	for k := len(steps); k > 0; k-- {
		if l, ok := ix.lines[formatPath(steps[:k])]; ok {
			return l
		}
	}
	return 0
}

// Len returns the number of indexed paths.
func (ix *LineIndex) Len() int {
	if ix == nil {
		return 0
	}
	return len(ix.lines)
}

// lineScanner is the state of one IndexLines run.
type lineScanner struct {
	src   []byte
	pos   int
	line  int
	ix    *LineIndex
	aot   map[string]int // array-of-tables path -> number of elements seen
	table []step         // the current table, with element indices
}

func (s *lineScanner) eof() bool  { return s.pos >= len(s.src) }
func (s *lineScanner) peek() byte { return s.src[s.pos] }

func (s *lineScanner) hasPrefix(p string) bool {
	return bytes.HasPrefix(s.src[s.pos:], []byte(p))
}

// record stores the line of path unless it is already known.
func (s *lineScanner) record(path []step, line int) {
	if len(path) == 0 || len(path) > maxPathSteps {
		return
	}
	k := formatPath(path)
	if _, ok := s.ix.lines[k]; !ok {
		s.ix.lines[k] = line
	}
}

// skipSpace skips blanks on the current line.
func (s *lineScanner) skipSpace() {
	for !s.eof() {
		switch s.peek() {
		case ' ', '\t', '\r':
			s.pos++
		default:
			return
		}
	}
}

// skipSpaceNL skips blanks, newlines and comments.
func (s *lineScanner) skipSpaceNL() {
	for !s.eof() {
		switch s.peek() {
		case ' ', '\t', '\r':
			s.pos++
		case '\n':
			s.pos++
			s.line++
		case '#':
			s.skipToEOL()
		default:
			return
		}
	}
}

// skipToEOL moves to the next newline (not consuming it).
func (s *lineScanner) skipToEOL() {
	if i := bytes.IndexByte(s.src[s.pos:], '\n'); i >= 0 {
		s.pos += i
	} else {
		s.pos = len(s.src)
	}
}

func (s *lineScanner) run() {
	for !s.eof() {
		s.skipSpace()
		if s.eof() {
			return
		}
		start := s.pos
		switch s.peek() {
		case '\n':
			s.pos++
			s.line++
			continue
		case '#':
			s.skipToEOL()
			continue
		case '[':
			s.header()
		default:
			s.keyValue(s.table, 0)
		}
		// Whatever follows on the line (a comment or garbage) defines
		// nothing.
		s.skipToEOL()
		if s.pos == start && !s.eof() {
			s.pos++ // guarantee progress
		}
	}
}

// header handles [table] and [[array.of.tables]].
func (s *lineScanner) header() {
	line := s.line
	s.pos++ // [
	array := false
	if !s.eof() && s.peek() == '[' {
		array = true
		s.pos++
	}
	keys, ok := s.key()
	if !ok {
		return
	}
	s.skipSpace()
	closing := "]"
	if array {
		closing = "]]"
	}
	if !s.hasPrefix(closing) {
		return
	}
	s.pos += len(closing)

	var path []step
	for i, k := range keys {
		path = appendStep(path, keyStep(k))
		last := i == len(keys)-1
		name := formatPath(path)
		if last && array {
			n := s.aot[name]
			s.aot[name] = n + 1
			s.record(path, line)
			path = appendStep(path, idxStep(n))
		} else if n, ok := s.aot[name]; ok && n > 0 {
			s.record(path, line)
			path = appendStep(path, idxStep(n-1))
		}
		s.record(path, line)
		if len(path) > maxPathSteps {
			return
		}
	}
	s.table = path
}

// key parses a possibly dotted key and returns its segments.
func (s *lineScanner) key() ([]string, bool) {
	var keys []string
	for {
		s.skipSpace()
		if s.eof() {
			return nil, false
		}
		var k string
		switch c := s.peek(); c {
		case '"':
			body, ok := s.singleLineString('"')
			if !ok {
				return nil, false
			}
			k = unescapeBasic(body)
		case '\'':
			body, ok := s.singleLineString('\'')
			if !ok {
				return nil, false
			}
			k = body
		default:
			start := s.pos
			for !s.eof() && isKeyByte(s.peek()) {
				s.pos++
			}
			if s.pos == start {
				return nil, false
			}
			k = string(s.src[start:s.pos])
		}
		keys = append(keys, k)
		if len(keys) > maxPathSteps {
			return nil, false
		}
		s.skipSpace()
		if s.eof() || s.peek() != '.' {
			return keys, true
		}
		s.pos++
	}
}

// isKeyByte reports whether c may appear in a bare key. It is more lenient
// than TOML (which allows only A-Za-z0-9_-): anything that cannot start or
// end another token is accepted.
func isKeyByte(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '.', '=', '[', ']', '{', '}', ',', '#', '"', '\'':
		return false
	}
	return true
}

// singleLineString consumes a "basic" or 'literal' single-line string and
// returns its raw body.
func (s *lineScanner) singleLineString(q byte) (string, bool) {
	s.pos++ // opening quote
	start := s.pos
	for !s.eof() {
		c := s.peek()
		switch {
		case c == '\n':
			return "", false
		case c == '\\' && q == '"':
			if s.pos+1 < len(s.src) && s.src[s.pos+1] == '\n' {
				return "", false
			}
			s.pos += 2
			if s.pos > len(s.src) {
				s.pos = len(s.src)
			}
			continue
		case c == q:
			body := string(s.src[start:s.pos])
			s.pos++
			return body, true
		}
		s.pos++
	}
	return "", false
}

// multiLineString consumes a triple-quoted basic or literal string,
// counting newlines. The opening delimiter is at s.pos.
func (s *lineScanner) multiLineString(q byte) bool {
	s.pos += 3
	for !s.eof() {
		c := s.peek()
		switch {
		case c == '\n':
			s.line++
			s.pos++
		case c == '\\' && q == '"':
			s.pos++
			if !s.eof() {
				if s.peek() == '\n' {
					s.line++
				}
				s.pos++
			}
		case c == q:
			run := 0
			for !s.eof() && s.peek() == q {
				run++
				s.pos++
			}
			if run >= 3 {
				return true
			}
		default:
			s.pos++
		}
	}
	return false
}

// keyValue parses `key = value` relative to prefix and records the key (and
// every prefix of a dotted key) on the line where the key starts.
func (s *lineScanner) keyValue(prefix []step, depth int) bool {
	line := s.line
	keys, ok := s.key()
	if !ok {
		return false
	}
	s.skipSpace()
	if s.eof() || s.peek() != '=' {
		return false
	}
	s.pos++
	path := prefix
	for _, k := range keys {
		path = appendStep(path, keyStep(k))
		s.record(path, line)
	}
	if len(path) > maxPathSteps {
		return false
	}
	return s.value(path, depth)
}

// value consumes one value of the key at path.
func (s *lineScanner) value(path []step, depth int) bool {
	s.skipSpace()
	if s.eof() || depth > maxNesting {
		return false
	}
	switch c := s.peek(); c {
	case '"', '\'':
		if s.hasPrefix(string([]byte{c, c, c})) {
			return s.multiLineString(c)
		}
		_, ok := s.singleLineString(c)
		return ok
	case '{':
		return s.inlineTable(path, depth+1)
	case '[':
		return s.array(path, depth+1)
	default:
		start := s.pos
		for !s.eof() {
			switch s.peek() {
			case ',', ']', '}', '#', '\n':
				return s.pos > start
			}
			s.pos++
		}
		return s.pos > start
	}
}

// inlineTable consumes { k = v, ... } (newlines allowed, as in TOML 1.1).
func (s *lineScanner) inlineTable(path []step, depth int) bool {
	s.pos++ // {
	for {
		s.skipSpaceNL()
		if s.eof() {
			return false
		}
		if s.peek() == '}' {
			s.pos++
			return true
		}
		if !s.keyValue(path, depth) {
			return false
		}
		s.skipSpaceNL()
		if s.eof() {
			return false
		}
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return true
		default:
			return false
		}
	}
}

// array consumes [ v, v, ... ] and records each element as path[i].
func (s *lineScanner) array(path []step, depth int) bool {
	s.pos++ // [
	for i := 0; ; i++ {
		s.skipSpaceNL()
		if s.eof() {
			return false
		}
		if s.peek() == ']' {
			s.pos++
			return true
		}
		elem := appendStep(path, idxStep(i))
		s.record(elem, s.line)
		if !s.value(elem, depth) {
			return false
		}
		s.skipSpaceNL()
		if s.eof() {
			return false
		}
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return true
		default:
			return false
		}
	}
}
