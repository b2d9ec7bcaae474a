package scenarios

import "fmt"

// checkDepth scans TOML source before it is parsed and reports the first
// line where it nests deeper than MaxDepth: arrays and inline tables inside
// one another, or a dotted key or table header with more parts. It only
// tracks strings, comments and brackets, so it takes linear time and
// constant memory on any input; well-formed or not, the parser never sees
// deeper nesting than it counts.
func checkDepth(src []byte) (line int, msg string) {
	line = 1
	var stack []byte // 'a' for an array, 't' for an inline table
	key, parts := true, 1
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n':
			line++
			if len(stack) == 0 {
				key, parts = true, 1
			}
		case c == '#':
			for i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			n, end := skipString(src, i)
			line += n
			i = end
		case key && c == '.':
			if parts++; parts > MaxDepth {
				return line, fmt.Sprintf("a key with more than %d parts; keys of a scenario have at most 6", MaxDepth)
			}
		case key && c == '=':
			key = false
		case key && c == '[' && len(stack) == 0:
			// A table header: its brackets do not nest values.
			for i+1 < len(src) && src[i+1] == '[' {
				i++
			}
		case key && c == ']' && len(stack) == 0:
		case !key && (c == '[' || c == '{'):
			if len(stack) >= MaxDepth {
				return line, fmt.Sprintf("arrays and inline tables nested more than %d deep", MaxDepth)
			}
			if c == '[' {
				stack = append(stack, 'a')
			} else {
				stack = append(stack, 't')
				key, parts = true, 1
			}
		case c == ']' || c == '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			key = false
		case c == ',' && len(stack) > 0:
			if stack[len(stack)-1] == 't' {
				key, parts = true, 1
			}
		}
	}
	return 0, ""
}

// skipString skips the string starting at src[i] (basic, literal, or
// either multi-line form) and returns the newlines inside it and the index
// of its last byte. An unterminated string runs to the end of its line
// (single-line forms) or of the input.
func skipString(src []byte, i int) (newlines, end int) {
	q := src[i]
	multi := i+2 < len(src) && src[i+1] == q && src[i+2] == q
	if multi {
		i += 3
		for ; i < len(src); i++ {
			switch {
			case src[i] == '\n':
				newlines++
			case src[i] == '\\' && q == '"':
				if i+1 < len(src) && src[i+1] == '\n' {
					newlines++
				}
				i++
			case src[i] == q && i+2 < len(src) && src[i+1] == q && src[i+2] == q:
				for i+3 < len(src) && src[i+3] == q {
					i++ // up to two quotes may end the content
				}
				return newlines, i + 2
			}
		}
		return newlines, len(src) - 1
	}
	for i++; i < len(src); i++ {
		switch {
		case src[i] == '\n':
			return 0, i - 1
		case src[i] == '\\' && q == '"':
			if i+1 < len(src) && src[i+1] == '\n' {
				return 0, i
			}
			i++
		case src[i] == q:
			return 0, i
		}
	}
	return 0, len(src) - 1
}
