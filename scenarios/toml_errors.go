package scenarios

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
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

// ElementNames tells the display name of element i of the array of tables at
// arrayPath (a canonical path such as "workload[0].stage"); ok is false when
// the element has no name.
type ElementNames func(arrayPath string, i int) (name string, ok bool)

// DisplayKey turns a canonical key path into the form shown to planners:
// every element index whose element has a name is replaced by the quoted
// name, so provider[0].limits.itpm becomes `provider "sonnet".limits.itpm`.
// Elements without a name keep their [i]. names may be nil; a malformed path
// is returned unchanged.
func DisplayKey(path string, names ElementNames) string {
	steps, err := parsePath(path)
	if err != nil {
		return path
	}
	return displaySteps(steps, names)
}

// displaySteps is DisplayKey for a parsed path.
func displaySteps(steps []step, names ElementNames) string {
	var b strings.Builder
	for i, s := range steps {
		if s.isIdx {
			if names != nil {
				if n, ok := names(formatPath(steps[:i]), s.index); ok {
					b.WriteString(" " + strconv.Quote(n))
					continue
				}
			}
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(formatKey(s.key))
	}
	return b.String()
}

// NamesFrom returns the ElementNames of a decoded tree: the name of an
// element is its field tagged `toml:"name"` (or the "name" key of a map
// element) when that is a non-empty string. root may be a struct, a pointer
// to one, or generic TOML data (map[string]any). It never modifies root.
func NamesFrom(root any) ElementNames {
	return func(arrayPath string, i int) (string, bool) {
		steps, err := parsePath(arrayPath)
		if err != nil {
			return "", false
		}
		v, err := lookup(reflect.ValueOf(root), appendStep(steps, idxStep(i)))
		if err != nil {
			return "", false
		}
		return elementName(v)
	}
}

// Locate builds an *Error for a problem found after decoding (for example by
// validation): the line comes from ix and the key is displayed with element
// names taken from root. path is a canonical path with element indices, as
// produced by CanonicalPath, e.g. "provider[0].limits.itpm".
func Locate(file string, ix *LineIndex, root any, path, msg string) *Error {
	return &Error{File: file, Line: ix.Line(path), Key: DisplayKey(path, NamesFrom(root)), Msg: msg}
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		if a == b {
			return 0
		}
		return 64
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// suggest returns the candidate closest to key when it is close enough to be
// a plausible typo.
func suggest(key string, candidates []string) (string, bool) {
	best, bestD := "", 1<<30
	lk := strings.ToLower(key)
	for _, c := range candidates {
		d := editDistance(lk, strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	limit := 2
	if len(key) <= 3 {
		limit = 1
	}
	if bestD == 0 || bestD > limit || bestD >= len(key) {
		return "", false
	}
	return best, true
}

// didYouMean formats a suggestion suffix ("; did you mean "rpm"?") or "".
func didYouMean(key string, candidates []string) string {
	if s, ok := suggest(key, candidates); ok {
		return "; did you mean " + strconv.Quote(s) + "?"
	}
	return ""
}

// listOrNone joins names for an "allowed:" or "have:" list.
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}
