package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The README and COMMANDS.md quote terminal sessions in ```text blocks: a
// line "$ bin/headroom ARGS" and then what the command prints. The test
// below runs every such command and checks that the quoted lines are what
// it prints, so that what a user reads is what the tool really says.
//
// How a block is read:
//   - A line starting with "$ " is a command; a trailing backslash continues
//     it on the next line. The lines up to the next command are its output,
//     stdout and stderr together, as a terminal shows them.
//   - The quote is the output, line for line, from its first line to its
//     last, except that a line "…" stands for any number of lines left out,
//     and a line ending in "…" is the start of a longer line.
//   - Volatile parts (wall times, temporary paths, the version) are
//     normalised on both sides by normaliseExcerptLine.
//
// Commands of the form "bin/headroom ..." run in-process through run, in a
// scratch directory that links the repository's files (so testdata/... and
// model/... resolve and out/... is written to the scratch directory). Any
// other command (sed, ls, head) runs through sh -c in that directory.

// excerptFiles are the files whose ```text blocks are checked, relative to
// the repository root.
var excerptFiles = []string{"README.md", "cmd/headroom/COMMANDS.md"}

// excerptRule says how to treat one block, named by its file and its first
// command (without the "$ "). Blocks without a rule run as they are.
type excerptRule struct {
	file, first string
	// skip, when set, is why the block cannot run in a test.
	skip string
	// slow blocks run only when HEADROOM_EXCERPTS=all is set.
	slow bool
	// shFirst runs the commands of the ```sh block above the block first
	// (they make the files it uses).
	shFirst bool
	// before lists command lines run (unchecked) before the block's
	// command of that index (0-based): the steps the prose around the
	// block has the reader do.
	before map[int][]string
}

// excerptRules is the explicit list of blocks that are skipped, slow or
// need steps the prose describes. Every rule must match a block.
var excerptRules = []excerptRule{
	// serve runs in real time and its excerpt is a session with curl
	// against the live endpoint: not a test's job (cmd_serve_test.go tests
	// serve itself).
	{file: "README.md", first: `bin/headroom serve morning-peak --set 'start="09:00"' --set 'duration="10m"' --json out/live.json --no-html`,
		skip: "a live serve session driven by curl"},
	{file: "README.md", first: `bin/headroom serve morning-peak --set provider.sonnet.limits.rpm=2 -q &`,
		skip: "a serve in the background driven by a curl loop"},
	// The plans search many candidates: 10 to 50 s each, 50 s to 2½
	// minutes for the three on two shared cores, against about 10 s for
	// all the other blocks together. make test sets HEADROOM_EXCERPTS=all.
	{file: "README.md", first: "bin/headroom plan email-plan", slow: true},
	{file: "README.md", first: "bin/headroom plan fleet-70b", slow: true},
	{file: "README.md", first: "bin/headroom plan hybrid-plan", slow: true},
	// The two files come from the ```sh block above the excerpt.
	{file: "cmd/headroom/COMMANDS.md", first: "bin/headroom compare rpm-1000.toml rpm-1500.toml --replications 10",
		shFirst: true},
	// my.toml is the example the section starts from, then the edit the
	// second command's comment describes.
	{file: "cmd/headroom/COMMANDS.md", first: "bin/headroom validate my.toml",
		before: map[int][]string{
			0: {"bin/headroom examples salespeople-peak > my.toml"},
			1: {`sed -i 's/^  rpm = 1000$/  rpm = -1000/' my.toml`},
		}},
}

// excerptLine is one line of a block, with its line number in the file.
type excerptLine struct {
	n    int
	text string
}

// excerptCommand is one "$ " command of a block and the output it quotes.
type excerptCommand struct {
	line excerptLine // the command, continuations joined
	want []excerptLine
}

// excerptBlock is one ```text block that quotes bin/headroom.
type excerptBlock struct {
	file string
	line int // of the opening fence
	cmds []excerptCommand
	// sh holds the commands of the last ```sh block above it.
	sh []string
	// before holds lines ahead of the first command, which no command
	// printed: the test reports them.
	before []excerptLine
}

// parseExcerpts returns the file's ```text blocks that run bin/headroom.
func parseExcerpts(file, text string) []excerptBlock {
	var blocks []excerptBlock
	var sh []string // the commands of the last ```sh block
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "```sh" {
			sh = nil
			for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
				l := lines[i]
				for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
					i++
					l = strings.TrimSuffix(l, `\`) + strings.TrimSpace(lines[i])
				}
				if strings.TrimSpace(l) != "" {
					sh = append(sh, l)
				}
			}
			continue
		}
		if strings.TrimSpace(lines[i]) != "```text" {
			continue
		}
		b := excerptBlock{file: file, line: i + 1, sh: sh}
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			l := lines[i]
			if cmd, ok := strings.CutPrefix(l, "$ "); ok {
				c := excerptCommand{line: excerptLine{i + 1, cmd}}
				for strings.HasSuffix(c.line.text, `\`) && i+1 < len(lines) {
					i++
					c.line.text = strings.TrimSuffix(c.line.text, `\`) + strings.TrimSpace(lines[i])
				}
				b.cmds = append(b.cmds, c)
				continue
			}
			if len(b.cmds) > 0 {
				c := &b.cmds[len(b.cmds)-1]
				c.want = append(c.want, excerptLine{i + 1, l})
			} else if strings.TrimSpace(l) != "" {
				b.before = append(b.before, excerptLine{i + 1, l})
			}
		}
		quotesHeadroom := false
		for k := range b.cmds {
			c := &b.cmds[k]
			for len(c.want) > 0 && strings.TrimSpace(c.want[len(c.want)-1].text) == "" {
				c.want = c.want[:len(c.want)-1]
			}
			quotesHeadroom = quotesHeadroom || strings.HasPrefix(c.line.text, "bin/headroom ")
		}
		if quotesHeadroom {
			blocks = append(blocks, b)
		}
	}
	return blocks
}

var (
	ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")
	// A plan's "Search:" line ends in the search's wall time.
	searchElapsed = regexp.MustCompile(`^(Search: .*; )[0-9][0-9hms.]*\.$`)
	// Progress lines, drawn on a terminal's stderr only; dropped should
	// one appear.
	progressLine = regexp.MustCompile(`^(simulating|planning)… `)
)

// normaliseExcerptLine rewrites what differs from run to run, on both the
// quoted and the real side: a terminal's redrawn line keeps only what is
// left after its last carriage return, escapes are dropped, the scratch
// directory reads $TMP, the version $VERSION, a plan's search time ELAPSED.
// Progress lines become "" and are then dropped by the caller.
func normaliseExcerptLine(s, tmp string) (string, bool) {
	s = ansiEscape.ReplaceAllString(s, "")
	if i := strings.LastIndex(s, "\r"); i >= 0 {
		s = s[i+1:]
	}
	if tmp != "" {
		s = strings.ReplaceAll(s, tmp, "$TMP")
	}
	if version != "" {
		s = strings.ReplaceAll(s, version, "$VERSION")
	}
	s = searchElapsed.ReplaceAllString(s, "${1}ELAPSED.")
	if progressLine.MatchString(s) {
		return "", false
	}
	return strings.TrimRight(s, " \t"), true
}

// matchExcerpt reports whether want, the quoted lines, is got, the real
// lines, with "…" lines standing for any run of lines and lines ending in
// "…" for any line they start. When it is not, it returns the index of the
// first quoted line no reading of the quote gets past, or len(want) when
// the whole quote matches but the output goes on.
func matchExcerpt(want, got []string) (bool, int) {
	n, m := len(want), len(got)
	// seen[i][j]: the state (quote line i, real line j) was visited.
	seen := make([][]bool, n+1)
	for i := range seen {
		seen[i] = make([]bool, m+1)
	}
	furthest := 0
	var walk func(i, j int) bool
	walk = func(i, j int) bool {
		if seen[i][j] {
			return false
		}
		seen[i][j] = true
		furthest = max(furthest, i)
		if i == n {
			return j == m
		}
		w := want[i]
		if w == "…" {
			return walk(i+1, j) || (j < m && walk(i, j+1))
		}
		if j == m {
			return false
		}
		if p, ok := strings.CutSuffix(w, "…"); ok {
			if strings.HasPrefix(got[j], p) {
				return walk(i+1, j+1)
			}
			return false
		}
		return w == got[j] && walk(i+1, j+1)
	}
	if walk(0, 0) {
		return true, -1
	}
	return false, furthest // len(want) when the output goes on after the quote
}

// shellWords splits a command line the way sh does for the little the
// excerpts use: blanks separate words, '...' quotes literally, "..." quotes
// with backslash escapes, a backslash escapes outside quotes, an unquoted #
// starting a word begins a comment. For each word it reports whether any of
// it was quoted (only unquoted words are globbed or read as operators).
func shellWords(s string) (words []string, quoted []bool, err error) {
	var cur strings.Builder
	inWord, q := false, false
	flush := func() {
		if inWord {
			words, quoted = append(words, cur.String()), append(quoted, q)
		}
		cur.Reset()
		inWord, q = false, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !inWord:
			flush()
			return words, quoted, nil
		case c == '\\':
			if i+1 == len(s) {
				return nil, nil, errors.New("a trailing backslash")
			}
			i++
			cur.WriteByte(s[i])
			inWord, q = true, true
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, nil, errors.New("an unclosed single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += 1 + j
			inWord, q = true, true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, nil, errors.New("an unclosed double quote")
			}
			inWord, q = true, true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, quoted, nil
}

// lockedBuffer is one buffer for stdout and stderr together, as a terminal
// shows them.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// runExcerptCommand runs one command line in the current directory and
// returns what it printed, stdout and stderr together, and whether it
// succeeded. "bin/headroom ARGS [> FILE]" runs in-process; anything else
// runs through sh -c.
func runExcerptCommand(t *testing.T, line string) (string, bool) {
	t.Helper()
	words, quoted, err := shellWords(line)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	if len(words) == 0 || words[0] != "bin/headroom" {
		if strings.Contains(line, "bin/headroom") {
			t.Fatalf("%s: only a plain bin/headroom command runs in-process; give the block a rule", line)
		}
		if _, err := exec.LookPath("sh"); err != nil {
			t.Skipf("no sh to run %q: %v", line, err)
		}
		out, err := exec.Command("sh", "-c", line).CombinedOutput()
		return string(out), err == nil
	}
	if len(words) > 1 && words[1] == "serve" || strings.Contains(line, "://") {
		t.Fatalf("%s: serves or calls a live endpoint, which does not end by itself in a test; give the block a skip rule", line)
	}
	var args []string
	redirect := ""
	for k := 1; k < len(words); k++ {
		w := words[k]
		if !quoted[k] {
			switch {
			case w == ">":
				if k+2 != len(words) {
					t.Fatalf("%s: > must come last, before one file", line)
				}
				redirect = words[k+1]
				k++
				continue
			case strings.ContainsAny(w, "|;&<>`$"):
				t.Fatalf("%s: the shell operator in %q does not run in-process; give the block a rule", line, w)
			case strings.ContainsAny(w, "*?["):
				if m, _ := filepath.Glob(w); len(m) > 0 {
					args = append(args, m...)
					continue
				}
			}
		}
		args = append(args, w)
	}
	var out lockedBuffer
	var stdout interface {
		Write([]byte) (int, error)
	} = &out
	var file bytes.Buffer
	if redirect != "" {
		stdout = &file
	}
	code := run(args, stdout, &out)
	if redirect != "" {
		if err := os.WriteFile(redirect, file.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out.buf.String(), code == exitOK
}

// TestExcerpts runs the commands the README and COMMANDS.md quote and
// checks the quotes against what they print. HEADROOM_EXCERPTS=all runs
// the slow blocks (the plans) too; -short skips the test.
func TestExcerpts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command the README and COMMANDS.md quote; not in -short")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	all := os.Getenv("HEADROOM_EXCERPTS") == "all"
	used := make([]bool, len(excerptRules))
	var checked, commands, skipped int
	var skips []string
	start := time.Now()
	for _, file := range excerptFiles {
		text, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range parseExcerpts(file, string(text)) {
			var rule excerptRule
			for k, r := range excerptRules {
				if r.file == b.file && r.first == b.cmds[0].line.text {
					rule, used[k] = r, true
				}
			}
			name := fmt.Sprintf("%s:%d", b.file, b.line)
			switch {
			case rule.skip != "":
				skipped++
				skips = append(skips, name+" ("+rule.skip+")")
				continue
			case rule.slow && !all:
				skipped++
				skips = append(skips, name+" (slow: HEADROOM_EXCERPTS=all runs it)")
				continue
			}
			if len(b.before) > 0 {
				t.Errorf("%s:%d: %q comes before the block's first command, so nothing checks it", b.file, b.before[0].n, b.before[0].text)
			}
			checked++
			commands += len(b.cmds)
			t.Run(name, func(t *testing.T) {
				began := time.Now()
				checkExcerptBlock(t, root, b, rule)
				t.Logf("%s: %d command(s) in %s", name, len(b.cmds), time.Since(began).Round(time.Millisecond))
			})
		}
	}
	for k, r := range excerptRules {
		if !used[k] {
			t.Errorf("the rule for %s %q matches no block: update excerptRules", r.file, r.first)
		}
	}
	t.Logf("checked %d blocks (%d commands) in %s; skipped %d: %s", checked, commands, time.Since(start).Round(time.Second), skipped, strings.Join(skips, "; "))
}

// checkExcerptBlock runs one block's commands in a fresh scratch directory
// and compares each quote with the real output.
func checkExcerptBlock(t *testing.T, root string, b excerptBlock, rule excerptRule) {
	dir := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch e.Name() {
		case "out", "bin", ".git":
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	tmp, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for k, c := range b.cmds {
		steps := rule.before[k]
		if k == 0 && rule.shFirst {
			if len(b.sh) == 0 {
				t.Fatalf("%s:%d: no ```sh block above it to run first", b.file, b.line)
			}
			steps = append(append([]string(nil), b.sh...), steps...)
		}
		for _, setup := range steps {
			if out, ok := runExcerptCommand(t, setup); !ok {
				t.Fatalf("%s:%d: the step %q before the command failed:\n%s", b.file, c.line.n, setup, out)
			}
		}
		out, _ := runExcerptCommand(t, c.line.text)
		var got []string
		for _, l := range strings.Split(strings.TrimRight(strings.ReplaceAll(out, dir, tmp), "\n"), "\n") {
			if l, ok := normaliseExcerptLine(l, tmp); ok {
				got = append(got, l)
			}
		}
		for len(got) > 0 && got[len(got)-1] == "" {
			got = got[:len(got)-1]
		}
		want := make([]string, 0, len(c.want))
		for _, l := range c.want {
			s, _ := normaliseExcerptLine(l.text, tmp)
			want = append(want, s)
		}
		if ok, at := matchExcerpt(want, got); !ok && at == len(want) {
			t.Errorf("%s:%d: $ %s\nthe command prints more than the quote, which does not end in a … line; it prints:\n%s", b.file, c.line.n, c.line.text, strings.Join(got, "\n"))
		} else if !ok {
			t.Errorf("%s:%d: $ %s\nthe quote's line %d does not follow from what the command prints:\n  %q\nit prints:\n%s",
				b.file, c.line.n, c.line.text, c.want[at].n, c.want[at].text, strings.Join(got, "\n"))
		}
	}
}

// TestMatchExcerpt: the quote rules on small cases.
func TestMatchExcerpt(t *testing.T) {
	got := []string{"a", "b", "c", "d"}
	for _, c := range []struct {
		want []string
		ok   bool
		at   int
	}{
		{[]string{"a", "b", "c", "d"}, true, -1},
		{[]string{"a", "…", "d"}, true, -1},
		{[]string{"…", "c", "…"}, true, -1},
		{[]string{"…"}, true, -1},
		{[]string{"a", "c", "d"}, false, 1},      // a line left out without "…"
		{[]string{"a", "b", "c"}, false, 3},      // the end left out without "…"
		{[]string{"b", "c", "d"}, false, 0},      // the start left out without "…"
		{[]string{"a", "…", "c", "b"}, false, 3}, // out of order
		{[]string{"a", "…", "d", "…", "e"}, false, 4},
	} {
		ok, at := matchExcerpt(c.want, got)
		if ok != c.ok || at != c.at {
			t.Errorf("matchExcerpt(%q) = %v, %d, want %v, %d", c.want, ok, at, c.ok, c.at)
		}
	}
	if ok, _ := matchExcerpt([]string{"Headroom · x — a long …"}, []string{"Headroom · x — a long line"}); !ok {
		t.Error("a line ending in … should match the line it starts")
	}
	if ok, _ := matchExcerpt([]string{"Headroom · y…"}, []string{"Headroom · x"}); ok {
		t.Error("a line ending in … matched a line it does not start")
	}
}

// TestShellWords: the quoting the excerpts use splits as sh splits it.
func TestShellWords(t *testing.T) {
	for _, c := range []struct {
		line  string
		words []string
	}{
		{`bin/headroom serve x --set 'start="09:00"'`, []string{"bin/headroom", "serve", "x", "--set", `start="09:00"`}},
		{`run --set start='"08:00"' --param 'a=1,2; b=3'`, []string{"run", "--set", `start="08:00"`, "--param", "a=1,2; b=3"}},
		{`validate my.toml            # after typing rpm = -1000`, []string{"validate", "my.toml"}},
		{`a "b \"c\" d" e\ f x#y`, []string{"a", `b "c" d`, "e f", "x#y"}},
	} {
		words, _, err := shellWords(c.line)
		if err != nil || strings.Join(words, "|") != strings.Join(c.words, "|") {
			t.Errorf("shellWords(%q) = %q, %v; want %q", c.line, words, err, c.words)
		}
	}
	for _, bad := range []string{`a 'b`, `a "b`, `a \`} {
		if _, _, err := shellWords(bad); err == nil {
			t.Errorf("shellWords(%q): no error", bad)
		}
	}
	_, quoted, _ := shellWords(`out/*.json 'x*'`)
	if quoted[0] || !quoted[1] {
		t.Errorf("quoted = %v, want [false true]", quoted)
	}
}
