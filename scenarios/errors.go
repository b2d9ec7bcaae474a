package scenarios

import (
	"sort"
	"strconv"
	"strings"

	"github.com/headroom-sim/headroom/scenarios/schema"
)

// Error is a scenario problem located in a file, printed as
// `email.toml:14: provider "sonnet".limits.itpm: must be > 0, got -5`.
// Key is the planner-facing key (see DisplayKey); Line is 1-based, 0 when
// unknown.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

// Error formats the problem as "FILE:LINE: KEY: MSG". ":LINE" is omitted when
// Line is 0 and "KEY: " when Key is empty; without a file a known line is
// printed as "line N: ".
func (e *Error) Error() string {
	if e == nil {
		return "<nil>"
	}
	var b strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		b.WriteString(e.File + ":" + strconv.Itoa(e.Line) + ": ")
	case e.File != "":
		b.WriteString(e.File + ": ")
	case e.Line > 0:
		b.WriteString("line " + strconv.Itoa(e.Line) + ": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is a list of scenario problems. It prints one problem per line,
// ordered by file and line (problems without a line come last in their file),
// keeping the original order among equal positions.
type Errors []*Error

// Error prints the problems one per line, sorted by line.
func (es Errors) Error() string {
	sorted := make(Errors, 0, len(es))
	for _, e := range es {
		if e != nil {
			sorted = append(sorted, e)
		}
	}
	sorted.Sort()
	lines := make([]string, len(sorted))
	for i, e := range sorted {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Sort orders the problems in place by file, then line (0 last), keeping the
// original order among equal positions. Nil entries sort last.
func (es Errors) Sort() {
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a == nil || b == nil {
			return a != nil && b == nil
		}
		if a.File != b.File {
			return a.File < b.File
		}
		la, lb := a.Line, b.Line
		if la == 0 {
			la = int(^uint(0) >> 1)
		}
		if lb == 0 {
			lb = int(^uint(0) >> 1)
		}
		return la < lb
	})
}

// Unwrap exposes the individual problems to errors.Is and errors.As, so
// errors.As(err, &e) with e a *Error finds the first one.
func (es Errors) Unwrap() []error {
	out := make([]error, 0, len(es))
	for _, e := range es {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// Err returns es as an error, or nil when it holds no problem. Use it to
// avoid returning a non-nil error interface holding an empty list.
func (es Errors) Err() error {
	for _, e := range es {
		if e != nil {
			return es
		}
	}
	return nil
}

// displayKey turns a canonical key path into the form shown to planners:
// every element index whose element has a name in tree is replaced by the
// quoted name, so provider[0].limits.itpm becomes
// `provider "sonnet".limits.itpm`. Elements without a name keep their [i];
// a malformed path is returned unchanged.
func displayKey(path string, tree map[string]any) string {
	steps, err := parsePath(path)
	if err != nil {
		return path
	}
	return displaySteps(steps, tree)
}

// displaySteps is displayKey for a parsed path.
func displaySteps(steps []step, tree map[string]any) string {
	var b strings.Builder
	var node any = tree
	for i, s := range steps {
		node = child(node, s)
		if s.isIdx {
			if n, ok := elementName(node); ok {
				b.WriteString(" " + strconv.Quote(n))
			} else {
				b.WriteString("[" + strconv.Itoa(s.index) + "]")
			}
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(schema.FormatKey(s.key))
	}
	return b.String()
}

// child is the value at step s below node in a generic TOML tree, or nil.
func child(node any, s step) any {
	if s.isIdx {
		switch a := node.(type) {
		case []map[string]any:
			if s.index < len(a) {
				return a[s.index]
			}
		case []any:
			if s.index < len(a) {
				return a[s.index]
			}
		}
		return nil
	}
	if m, ok := node.(map[string]any); ok {
		return m[s.key]
	}
	return nil
}

// elementName is the name of an element of an array of tables: its "name"
// key, when that is a non-empty string.
func elementName(node any) (string, bool) {
	m, ok := node.(map[string]any)
	if !ok {
		return "", false
	}
	n, ok := m["name"].(string)
	return n, ok && n != ""
}
