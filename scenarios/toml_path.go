package scenarios

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// step is one element of a key path: either a table key or an array index.
type step struct {
	key   string
	index int
	isIdx bool
}

func keyStep(k string) step { return step{key: k} }
func idxStep(i int) step    { return step{index: i, isIdx: true} }

// maxPathSteps bounds the number of steps in a path so that pathological
// input cannot make path handling quadratic in memory.
const maxPathSteps = 256

// appendStep returns a new slice holding at followed by s. It never aliases
// the backing array of at.
func appendStep(at []step, s step) []step {
	out := make([]step, len(at), len(at)+1)
	copy(out, at)
	return append(out, s)
}

// isBareKey reports whether k can be written as a TOML bare key.
func isBareKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// quoteKey writes k as a TOML basic string (with quotes).
func quoteKey(k string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(k); {
		r, size := utf8.DecodeRuneInString(k[i:])
		if r == utf8.RuneError && size == 1 {
			// Invalid UTF-8: keep the byte as a \x escape so that the
			// result round-trips through unescapeBasic.
			fmt.Fprintf(&b, `\x%02X`, k[i])
			i++
			continue
		}
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteString(k[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// formatKey writes one key segment, quoting it when it is not a bare key.
func formatKey(k string) string {
	if isBareKey(k) {
		return k
	}
	return quoteKey(k)
}

// formatPath writes steps in the canonical form used by the line index, e.g.
// provider[0].limits."a.b".
func formatPath(steps []step) string {
	var b strings.Builder
	for i, s := range steps {
		if s.isIdx {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(formatKey(s.key))
	}
	return b.String()
}

// unescapeBasic decodes the body of a TOML basic string (without quotes).
// Invalid escapes are kept literally; it never fails.
func unescapeBasic(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case 'e':
			b.WriteByte(0x1b)
		case '"':
			b.WriteByte('"')
		case '\\':
			b.WriteByte('\\')
		case 'x', 'u', 'U':
			n := 2
			switch s[i] {
			case 'u':
				n = 4
			case 'U':
				n = 8
			}
			if i+1+n <= len(s) {
				if v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32); err == nil {
					if s[i] == 'x' {
						b.WriteByte(byte(v))
					} else {
						b.WriteRune(rune(v))
					}
					i += n
					continue
				}
			}
			b.WriteByte('\\')
			b.WriteByte(s[i])
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// pathError describes a malformed key path.
func pathError(path, why string) error {
	return fmt.Errorf("invalid key path %q: %s", path, why)
}

// parsePath splits a key path such as `provider."gpt-4.1".limits[0].rpm` into
// steps. Segments are separated by dots; a segment is a bare word (any
// characters except . [ ] quotes and white space), a "basic" or 'literal'
// quoted string; [N] selects an array element. The empty path has no steps.
func parsePath(path string) ([]step, error) {
	var steps []step
	i := 0
	n := len(path)
	expectKey := true // a key segment is required next (start or after '.')
	for i < n {
		if len(steps) >= maxPathSteps {
			return nil, pathError(path, "too many segments")
		}
		c := path[i]
		switch {
		case c == '[':
			if expectKey && len(steps) > 0 {
				return nil, pathError(path, "missing key before [")
			}
			j := strings.IndexByte(path[i:], ']')
			if j < 0 {
				return nil, pathError(path, "missing ]")
			}
			num := strings.TrimSpace(path[i+1 : i+j])
			v, err := strconv.Atoi(num)
			if err != nil || v < 0 || num == "" || num[0] == '+' {
				return nil, pathError(path, fmt.Sprintf("bad index [%s]", num))
			}
			steps = append(steps, idxStep(v))
			i += j + 1
			expectKey = false
		case c == '.':
			if expectKey {
				return nil, pathError(path, "empty segment")
			}
			i++
			expectKey = true
			if i == n {
				return nil, pathError(path, "ends with a dot")
			}
		default:
			if !expectKey {
				return nil, pathError(path, fmt.Sprintf("expected . or [ at %q", path[i:]))
			}
			var seg string
			switch c {
			case '"':
				end := -1
				for j := i + 1; j < n; j++ {
					if path[j] == '\\' {
						j++
						continue
					}
					if path[j] == '"' {
						end = j
						break
					}
				}
				if end < 0 {
					return nil, pathError(path, "unterminated quote")
				}
				seg = unescapeBasic(path[i+1 : end])
				i = end + 1
			case '\'':
				j := strings.IndexByte(path[i+1:], '\'')
				if j < 0 {
					return nil, pathError(path, "unterminated quote")
				}
				seg = path[i+1 : i+1+j]
				i += j + 2
			default:
				j := i
				for j < n && !strings.ContainsRune(".[]\"' \t\r\n", rune(path[j])) {
					j++
				}
				if j == i {
					return nil, pathError(path, fmt.Sprintf("unexpected %q", path[i:i+1]))
				}
				seg = path[i:j]
				i = j
			}
			steps = append(steps, keyStep(seg))
			expectKey = false
		}
	}
	return steps, nil
}

// tomlKeySteps converts a key as printed by the toml library (Key.String,
// possibly quoted segments, no indices) into steps. It falls back to a
// single segment when the key cannot be parsed.
func tomlKeySteps(k string) []step {
	st, err := parsePath(k)
	if err != nil {
		return []step{keyStep(k)}
	}
	return st
}

// keysOnly returns the key segments of steps, dropping array indices, joined
// with NUL: the identity of a key as the toml library's MetaData sees it.
func keysOnly(steps []step) string {
	var parts []string
	for _, s := range steps {
		if !s.isIdx {
			parts = append(parts, s.key)
		}
	}
	return strings.Join(parts, "\x00")
}
