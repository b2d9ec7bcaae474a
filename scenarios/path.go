package scenarios

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/headroom-sim/headroom/scenarios/schema"
)

// step is one element of a key path: either a table key or an array index.
type step struct {
	key   string
	index int
	isIdx bool
}

func keyStep(k string) step { return step{key: k} }
func idxStep(i int) step    { return step{index: i, isIdx: true} }

// MaxDepth bounds how deeply a scenario nests: arrays and inline tables
// inside one another, the parts of a dotted key or a table header, and the
// steps of a key path in an override. The deepest key of the format has
// six parts (gateway.tenant[0].key[0].units_per_min); a file that nests
// deeper is refused before it is parsed, so no input can exhaust the
// parser's stack or make key handling quadratic.
const MaxDepth = 32

// maxPathSteps bounds the steps of a path.
const maxPathSteps = MaxDepth

// appendStep returns a new slice holding at followed by s. It never aliases
// the backing array of at.
func appendStep(at []step, s step) []step {
	out := make([]step, len(at), len(at)+1)
	copy(out, at)
	return append(out, s)
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
		b.WriteString(schema.FormatKey(s.key))
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
