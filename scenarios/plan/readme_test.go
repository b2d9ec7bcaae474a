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

// TestREADMEPlanSectionReferences: every § and link in the documents' plan
// sections (the README's recipe for how many GPUs, and the plans section
// of cmd/headroom/COMMANDS.md) names a heading that exists, and a link's §
// number is its heading's. Links are relative to the document; a bare §
// names a heading of the document itself.
func TestREADMEPlanSectionReferences(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, doc := range []struct{ file, heading string }{
		{"README.md", "### 4.2 How many GPUs for our peak at our SLO?"},
		{"cmd/headroom/COMMANDS.md", "## 8. Plans"},
	} {
		path := filepath.Join(root, filepath.FromSlash(doc.file))
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		start := strings.Index(text, doc.heading+"\n")
		if start < 0 {
			t.Errorf("%s: no plan section %q", doc.file, doc.heading)
			continue
		}
		level := strings.Repeat("#", strings.Index(doc.heading, " "))
		sec := text[start:]
		if end := strings.Index(sec[len(doc.heading):], "\n"+level+" "); end >= 0 {
			sec = sec[:len(doc.heading)+end]
		}
		own := headings(t, path)
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
			hs := own
			if file != "" {
				target := filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s: link %s: no file %s", doc.file, m[0], file)
					continue
				}
				hs = headings(t, target)
			}
			h, ok := hs[anchor]
			if !ok {
				t.Errorf("%s: link %s: no heading #%s", doc.file, m[0], anchor)
				continue
			}
			if n := section.FindStringSubmatch(label); n != nil && !strings.HasPrefix(h, n[1]+" ") && !strings.HasPrefix(h, n[1]+". ") {
				t.Errorf("%s: link %s: says §%s, the heading is %q", doc.file, m[0], n[1], h)
			}
		}
		bare := mdLink.ReplaceAllString(sec, "")
		for _, n := range section.FindAllStringSubmatch(bare, -1) {
			if !numbered(own, n[1]) {
				t.Errorf("%s: §%s in the plan section names no heading of its own", doc.file, n[1])
			}
		}
	}
}
