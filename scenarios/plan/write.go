package plan

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/headroom-sim/headroom/scenarios"
)

// WinnerTOML writes the scenario with a candidate's overrides applied, as
// TOML ready to run: the file's tables with the command-line overrides and
// the candidate's knob values set in them, without the [plan] table. The
// file's comments and layout are not kept (the document is re-encoded),
// so a header says what it is.
func (pr *Problem) WinnerTOML(sets []scenarios.Override, label string) ([]byte, error) {
	var tree map[string]any
	if _, err := toml.Decode(string(pr.sc.Source()), &tree); err != nil {
		return nil, fmt.Errorf("write the winner: %w", err)
	}
	for _, o := range append(append([]scenarios.Override(nil), pr.sets...), sets...) {
		canon, err := scenarios.CanonicalPath(pr.sc, o.Path)
		if err != nil {
			return nil, fmt.Errorf("write the winner: %s: %w", o.Path, err)
		}
		steps, err := splitCanonical(canon)
		if err != nil {
			return nil, fmt.Errorf("write the winner: %s: %w", o.Path, err)
		}
		if err := setTree(tree, steps, o.Value); err != nil {
			return nil, fmt.Errorf("write the winner: %s: %w", o.Path, err)
		}
	}
	delete(tree, "plan")
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s: the cheapest candidate that holds, as found by headroom plan:\n#   %s\n", pr.base.Name, label)
	for _, o := range sets {
		fmt.Fprintf(&b, "#   %s = %s\n", o.Path, valueLabel(o.Value))
	}
	b.WriteString("# Written from the scenario's tables with these values set (comments are not kept).\n\n")
	if err := toml.NewEncoder(&b).Encode(tree); err != nil {
		return nil, fmt.Errorf("write the winner: %w", err)
	}
	if _, err := scenarios.LoadBytes(b.Bytes(), pr.sc.File()); err != nil {
		return nil, fmt.Errorf("write the winner: the written scenario does not load: %w", err)
	}
	return b.Bytes(), nil
}

// treeStep is one step of a canonical path: a key or an index.
type treeStep struct {
	key   string
	index int
	isIdx bool
}

// splitCanonical splits a canonical path ("cluster[1].price.per_gpu_hour",
// `provider."gpt-4.1".limits.rpm`) into steps.
func splitCanonical(path string) ([]treeStep, error) {
	var out []treeStep
	for i := 0; i < len(path); {
		switch c := path[i]; {
		case c == '.':
			i++
		case c == '[':
			j := strings.IndexByte(path[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("unbalanced [ in %q", path)
			}
			n, err := strconv.Atoi(path[i+1 : i+j])
			if err != nil {
				return nil, fmt.Errorf("bad index in %q", path)
			}
			out = append(out, treeStep{index: n, isIdx: true})
			i += j + 1
		case c == '"':
			j := i + 1
			for j < len(path) && path[j] != '"' {
				if path[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(path) {
				return nil, fmt.Errorf("unbalanced quote in %q", path)
			}
			k, err := strconv.Unquote(path[i : j+1])
			if err != nil {
				return nil, fmt.Errorf("bad quoted key in %q", path)
			}
			out = append(out, treeStep{key: k})
			i = j + 1
		default:
			j := i
			for j < len(path) && path[j] != '.' && path[j] != '[' {
				j++
			}
			out = append(out, treeStep{key: path[i:j]})
			i = j
		}
	}
	return out, nil
}

// setTree sets value at steps in a decoded TOML tree, creating tables as
// needed.
func setTree(node any, steps []treeStep, value any) error {
	for i, s := range steps {
		last := i == len(steps)-1
		if s.isIdx {
			switch arr := node.(type) {
			case []map[string]any:
				if s.index >= len(arr) {
					return fmt.Errorf("no element %d", s.index)
				}
				if last {
					return fmt.Errorf("cannot replace a whole table")
				}
				node = arr[s.index]
			case []any:
				if s.index >= len(arr) {
					return fmt.Errorf("no element %d", s.index)
				}
				if last {
					arr[s.index] = value
					return nil
				}
				node = arr[s.index]
			default:
				return fmt.Errorf("not an array at step %d", i)
			}
			continue
		}
		m, ok := node.(map[string]any)
		if !ok {
			return fmt.Errorf("not a table at %q", s.key)
		}
		if last {
			old, oldMap := m[s.key].(map[string]any)
			if nv, ok := value.(map[string]any); ok && oldMap {
				for k, v := range nv { // a table updates the table, as --set does
					old[k] = v
				}
				return nil
			}
			m[s.key] = value
			return nil
		}
		next, ok := m[s.key]
		if !ok {
			if steps[i+1].isIdx {
				return fmt.Errorf("no array %q", s.key)
			}
			next = map[string]any{}
			m[s.key] = next
		}
		node = next
	}
	return nil
}
