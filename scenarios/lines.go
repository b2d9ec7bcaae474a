package scenarios

import "bytes"

// LineIndex maps the key paths of a TOML document to the 1-based line where
// each key is defined. Paths use element indices for arrays, e.g.
// provider[0].limits.rpm. Build one with IndexLines; a nil *LineIndex is an
// empty index.
type LineIndex struct {
	root indexNode
	n    int // number of paths with a line
}

// indexNode is one key or element in the LineIndex trie.
type indexNode struct {
	line  int // 0 when the path was only seen as a prefix
	depth int // number of steps from the root
	keys  map[string]*indexNode
	elems map[int]*indexNode
	count int // elements seen for an array of tables ([[key]] headers)
}

// key returns the child for table key k, creating it; nil past maxPathSteps.
func (n *indexNode) key(k string) *indexNode {
	if c, ok := n.keys[k]; ok {
		return c
	}
	if n.depth >= maxPathSteps {
		return nil
	}
	if n.keys == nil {
		n.keys = make(map[string]*indexNode)
	}
	c := &indexNode{depth: n.depth + 1}
	n.keys[k] = c
	return c
}

// elem returns the child for element i, creating it; nil past maxPathSteps.
func (n *indexNode) elem(i int) *indexNode {
	if c, ok := n.elems[i]; ok {
		return c
	}
	if n.depth >= maxPathSteps {
		return nil
	}
	if n.elems == nil {
		n.elems = make(map[int]*indexNode)
	}
	c := &indexNode{depth: n.depth + 1}
	n.elems[i] = c
	return c
}

// maxNesting bounds how deeply inline tables and arrays are followed (see
// MaxDepth).
const maxNesting = MaxDepth

// IndexLines scans TOML source and records the line of every key: table
// headers ([a.b] and [[a]]), keys and dotted keys (each prefix of a.b.c),
// keys inside inline tables, and array elements (key[i], and key[i].sub for
// inline tables inside arrays). A multi-line value belongs to the line where
// its key starts. Elements of arrays of tables are numbered relative to their
// parent element. The first definition of a path wins. IndexLines never
// fails: on malformed input it skips to the next line and returns what it
// could index. Time and memory are linear in the size of src.
func IndexLines(src []byte) *LineIndex {
	ix := &LineIndex{}
	s := &lineScanner{
		src:   bytes.TrimPrefix(src, []byte("\xef\xbb\xbf")),
		line:  1,
		ix:    ix,
		table: &ix.root,
	}
	s.run()
	return ix
}

// Line returns the line of the longest prefix of path that is indexed, so
// "provider[0].limits.rpm" falls back to "provider[0].limits", then
// "provider[0]", then "provider". It returns 0 when nothing matches or the
// path is malformed.
func (ix *LineIndex) Line(path string) int {
	if ix == nil || ix.n == 0 {
		return 0
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
	line := 0
	n := &ix.root
	for _, s := range steps {
		if s.isIdx {
			n = n.elems[s.index]
		} else {
			n = n.keys[s.key]
		}
		if n == nil {
			break
		}
		if n.line > 0 {
			line = n.line
		}
	}
	return line
}

// Len returns the number of indexed paths.
func (ix *LineIndex) Len() int {
	if ix == nil {
		return 0
	}
	return ix.n
}

// each calls f for every indexed path, in no particular order.
func (ix *LineIndex) each(f func(path []step, line int)) {
	if ix == nil {
		return
	}
	var walk func(n *indexNode, at []step)
	walk = func(n *indexNode, at []step) {
		if n.line > 0 {
			f(at, n.line)
		}
		for k, c := range n.keys {
			walk(c, appendStep(at, keyStep(k)))
		}
		for i, c := range n.elems {
			walk(c, appendStep(at, idxStep(i)))
		}
	}
	walk(&ix.root, nil)
}

// lineScanner is the state of one IndexLines run.
type lineScanner struct {
	src   []byte
	pos   int
	line  int
	ix    *LineIndex
	table *indexNode // the current table, with element indices resolved
}

func (s *lineScanner) eof() bool  { return s.pos >= len(s.src) }
func (s *lineScanner) peek() byte { return s.src[s.pos] }

func (s *lineScanner) hasPrefix(p string) bool {
	return bytes.HasPrefix(s.src[s.pos:], []byte(p))
}

// record stores the line of node n unless it is already known.
func (s *lineScanner) record(n *indexNode, line int) {
	if n != nil && n.line == 0 && n != &s.ix.root {
		n.line = line
		s.ix.n++
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

	n := &s.ix.root
	for i, k := range keys {
		arr := n.key(k)
		if arr == nil {
			return
		}
		s.record(arr, line)
		n = arr
		if i == len(keys)-1 && array {
			arr.count++
			n = arr.elem(arr.count - 1)
		} else if arr.count > 0 {
			n = arr.elem(arr.count - 1)
		}
		if n == nil {
			return
		}
		s.record(n, line)
	}
	s.table = n
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

// keyValue parses `key = value` in table t and records the key (and every
// prefix of a dotted key) on the line where the key starts.
func (s *lineScanner) keyValue(t *indexNode, depth int) bool {
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
	n := t
	for _, k := range keys {
		if n = n.key(k); n == nil {
			return false
		}
		s.record(n, line)
	}
	return s.value(n, depth)
}

// value consumes one value of the key at path.
func (s *lineScanner) value(n *indexNode, depth int) bool {
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
		return s.inlineTable(n, depth+1)
	case '[':
		return s.array(n, depth+1)
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
func (s *lineScanner) inlineTable(n *indexNode, depth int) bool {
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
		if !s.keyValue(n, depth) {
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

// array consumes [ v, v, ... ] and records each element as key[i].
func (s *lineScanner) array(n *indexNode, depth int) bool {
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
		elem := n.elem(i)
		if elem == nil {
			return false
		}
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
