package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeScenarios are the scenario files the README quotes whole, each
// after the line that names it: the quoted block must be the file, byte for
// byte, and the file must run without a warning and at a cost above zero.
var readmeScenarios = []struct{ intro, file string }{
	{"The smallest scenario that validates without a warning is `testdata/good/minimal.toml`:", "testdata/good/minimal.toml"},
	{"replays it against a hosted tier of 100 RPM and 200k ITPM, with a variant that doubles both:", "testdata/logs/replay.toml"},
}

// TestReadmeQuotesScenarioFiles: the scenarios the README explains are the
// files in the repository, and they validate without warnings and cost
// something (a scenario without prices would print $0.00 and warn).
func TestReadmeQuotesScenarioFiles(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	for _, sc := range readmeScenarios {
		t.Run(sc.file, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("..", "..", sc.file))
			if err != nil {
				t.Fatal(err)
			}
			i := strings.Index(text, sc.intro)
			if i < 0 {
				t.Fatalf("the README no longer introduces %s with %q", sc.file, sc.intro)
			}
			rest := text[i+len(sc.intro):]
			const open = "```toml\n"
			j := strings.Index(rest, open)
			if j < 0 || strings.TrimSpace(rest[:j]) != "" {
				t.Fatalf("no toml block right after the README's introduction of %s", sc.file)
			}
			body := rest[j+len(open):]
			k := strings.Index(body, "```")
			if k < 0 {
				t.Fatalf("the README's block for %s is not closed", sc.file)
			}
			if got := strings.TrimRight(body[:k], "\n"); got != strings.TrimRight(string(want), "\n") {
				t.Errorf("the README's quote of %s differs from the file:\n--- README\n%s\n--- %s\n%s", sc.file, got, sc.file, want)
			}
			out := filepath.Join(t.TempDir(), "out.json")
			code, _, stderr := cli(t, "run", filepath.Join("..", "..", sc.file), "--strict", "--json", out, "--no-html", "-q")
			if code != exitOK || stderr != "" {
				t.Fatalf("%s: exit %d, stderr:\n%s", sc.file, code, stderr)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Warnings []any `json:"warnings"`
				Variants []struct {
					Summary struct {
						Cost struct {
							Total float64 `json:"total"`
						} `json:"cost_usd"`
					} `json:"summary"`
				} `json:"variants"`
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Warnings) != 0 || len(doc.Variants) == 0 || doc.Variants[0].Summary.Cost.Total <= 0 {
				t.Errorf("%s: warnings %v, cost %+v: the README promises no warning and a cost above zero", sc.file, doc.Warnings, doc.Variants)
			}
		})
	}
}
