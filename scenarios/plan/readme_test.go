package plan

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// slug is GitHub's anchor for a heading: lower case, punctuation other
// than '-' dropped, spaces made '-'.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// headings maps a Markdown file's heading anchors to their text, outside
// code blocks.
func headings(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	code := false
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "```") {
			code = !code
		}
		if !code && strings.HasPrefix(l, "#") {
			h := strings.TrimSpace(strings.TrimLeft(l, "#"))
			out[slug(h)] = h
		}
	}
	return out
}

var (
	mdLink  = regexp.MustCompile(`\[([^\]]*)\]\(([^)#]*)#([^)]+)\)`)
	section = regexp.MustCompile(`§(\d+(?:\.\d+)*)`)
)

// TestREADMEPlanSectionReferences: every § and link in the README's plan
// section names a heading that exists, and a link's § number is its
// heading's.
func TestREADMEPlanSectionReferences(t *testing.T) {
	root := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "### Plan: what to buy to hold the peak")
	if start < 0 {
		t.Fatal("no plan section in the README")
	}
	end := strings.Index(readme[start+4:], "\n### ")
	if end < 0 {
		t.Fatal("the plan section does not end")
	}
	sec := readme[start : start+4+end]
	files := map[string]map[string]string{
		"":                       headings(t, filepath.Join(root, "README.md")),
		"scenarios/REFERENCE.md": headings(t, filepath.Join(root, "scenarios", "REFERENCE.md")),
	}
	numbered := func(hs map[string]string, n string) bool {
		for _, h := range hs {
			if strings.HasPrefix(h, n+" ") || strings.HasPrefix(h, n+". ") {
				return true
			}
		}
		return false
	}
	for _, m := range mdLink.FindAllStringSubmatch(sec, -1) {
		label, file, anchor := m[1], m[2], m[3]
		hs, ok := files[file]
		if !ok {
			t.Errorf("link %s: unknown file %q", m[0], file)
			continue
		}
		h, ok := hs[anchor]
		if !ok {
			t.Errorf("link %s: no heading #%s", m[0], anchor)
			continue
		}
		if n := section.FindStringSubmatch(label); n != nil && !strings.HasPrefix(h, n[1]+" ") && !strings.HasPrefix(h, n[1]+". ") {
			t.Errorf("link %s: says §%s, the heading is %q", m[0], n[1], h)
		}
	}
	bare := mdLink.ReplaceAllString(sec, "")
	for _, n := range section.FindAllStringSubmatch(bare, -1) {
		if !numbered(files[""], n[1]) {
			t.Errorf("§%s in the plan section names no README heading", n[1])
		}
	}
}
