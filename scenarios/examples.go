package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed examples/*.toml
var examplesFS embed.FS

// DefaultExample is what `headroom run` simulates with no argument.
const DefaultExample = "morning-peak"

// Example is one embedded example scenario.
type Example struct {
	Name        string
	Description string
	Source      []byte
}

// Examples lists the embedded examples, sorted by name.
func Examples() []Example {
	entries, _ := fs.ReadDir(examplesFS, "examples")
	var out []Example
	for _, e := range entries {
		src, err := examplesFS.ReadFile("examples/" + e.Name())
		if err != nil {
			continue
		}
		out = append(out, Example{Name: strings.TrimSuffix(e.Name(), path.Ext(e.Name())), Description: descriptionOf(src), Source: src})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupExample returns the embedded example called name.
func LookupExample(name string) (Example, error) {
	var names []string
	for _, e := range Examples() {
		if e.Name == name {
			return e, nil
		}
		names = append(names, e.Name)
	}
	return Example{}, fmt.Errorf("no example named %q; have: %s", name, strings.Join(names, ", "))
}

// LoadExample loads an embedded example.
func LoadExample(name string) (*Scenario, error) {
	e, err := LookupExample(name)
	if err != nil {
		return nil, err
	}
	return LoadBytes(e.Source, "example:"+name)
}

// descriptionOf pulls the top-level description = "..." line.
func descriptionOf(src []byte) string {
	for _, line := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			break
		}
		if strings.HasPrefix(t, "description") {
			if i := strings.Index(t, "="); i >= 0 {
				return strings.Trim(strings.TrimSpace(t[i+1:]), `"`)
			}
		}
	}
	return ""
}
