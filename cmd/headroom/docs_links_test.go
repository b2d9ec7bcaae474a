package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// anchor is GitHub's anchor for a heading: lower case, punctuation other
// than '-' and '_' dropped, spaces made '-'.
func anchor(h string) string {
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

// mdHeadings returns a Markdown text's headings by anchor, outside code
// blocks.
func mdHeadings(text string) map[string]string {
	out := map[string]string{}
	code := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "```") {
			code = !code
		}
		if !code && strings.HasPrefix(l, "#") {
			h := strings.TrimSpace(strings.TrimLeft(l, "#"))
			h = strings.NewReplacer("`", "", "*", "").Replace(h)
			out[anchor(h)] = h
		}
	}
	return out
}

var (
	mdLink    = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s#]*)(?:#([^)\s]+))?\)`)
	mdSection = regexp.MustCompile(`§\s?(\d+(?:\.\d+)*)`)
)

// TestDocumentLinks: every relative link in the repository's Markdown
// documents (README.md and the documents beside the code) names a file that
// exists and, with an anchor, a heading of it; a link whose text says §N
// points at a heading numbered N. Documents moved or renumbered leave no
// dangling link.
func TestDocumentLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	var docs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "out", "bin", ".ci":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".md") {
			docs = append(docs, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 3 {
		t.Fatalf("found only %d documents", len(docs))
	}
	cache := map[string]map[string]string{}
	headingsOf := func(p string) (map[string]string, bool) {
		if hs, ok := cache[p]; ok {
			return hs, hs != nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			cache[p] = nil
			return nil, false
		}
		cache[p] = mdHeadings(string(b))
		return cache[p], true
	}
	links := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		code := false
		for n, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "```") {
				code = !code
			}
			if code {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				label, file, frag := m[1], m[2], m[3]
				if strings.Contains(file, "://") || strings.HasPrefix(file, "mailto:") {
					continue
				}
				links++
				target := doc
				if file != "" {
					target = filepath.Join(filepath.Dir(doc), file)
				}
				rel, _ := filepath.Rel(root, doc)
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s:%d: link %s: no file %s", rel, n+1, m[0], file)
					continue
				}
				if frag == "" || !strings.HasSuffix(target, ".md") {
					continue
				}
				hs, _ := headingsOf(target)
				h, ok := hs[frag]
				if !ok {
					t.Errorf("%s:%d: link %s: no heading #%s in %s", rel, n+1, m[0], frag, file)
					continue
				}
				if s := mdSection.FindStringSubmatch(label); s != nil && !strings.HasPrefix(h, s[1]+" ") && !strings.HasPrefix(h, s[1]+". ") {
					t.Errorf("%s:%d: link %s says §%s, the heading is %q", rel, n+1, m[0], s[1], h)
				}
			}
		}
	}
	t.Logf("%d documents, %d relative links", len(docs), links)
}
