package scenarios

import (
	"bytes"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"pgregory.net/rapid"
)

func TestIndexSpecExample(t *testing.T) {
	src := `name = "x"
[[provider]]
name = "sonnet"
  [provider.limits]
  rpm = 4000
  ttft = { base = "400ms", dist = "lognormal" }
[[provider]]
a.b = 3
`
	ix := IndexLines([]byte(src))
	want := map[string]int{
		"name":                         1,
		"provider":                     2,
		"provider[0]":                  2,
		"provider[0].name":             3,
		"provider[0].limits":           4,
		"provider[0].limits.rpm":       5,
		"provider[0].limits.ttft":      6,
		"provider[0].limits.ttft.base": 6,
		"provider[0].limits.ttft.dist": 6,
		"provider[1]":                  7,
		"provider[1].a":                8,
		"provider[1].a.b":              8,
	}
	for path, line := range want {
		if got := ix.Line(path); got != line {
			t.Errorf("Line(%q) = %d, want %d", path, got, line)
		}
	}
}

func TestIndexFallbackToPrefix(t *testing.T) {
	ix := IndexLines([]byte(sampleTOML))
	cases := map[string]int{
		"provider[0].limits.rpm":       17,
		"provider[0].limits.burst":     16, // not in the file: its table
		"provider[1].limits.burst":     24, // dotted key defines provider[1].limits
		"provider[1].model":            22, // falls back to the element
		"provider[7].limits":           7,  // no element 7: the array itself
		"nothing":                      0,
		"":                             0,
		"provider[0].limits.rpm.x.y.z": 17,
		`provider[0]."limits".rpm`:     17,
		"provider[":                    0, // malformed
	}
	for path, line := range cases {
		if got := ix.Line(path); got != line {
			t.Errorf("Line(%q) = %d, want %d", path, got, line)
		}
	}
}

func TestIndexSample(t *testing.T) {
	ix := IndexLines([]byte(sampleTOML))
	cases := map[string]string{
		"name":                         `name = "email"`,
		"provider[0]":                  "# line 7",
		"provider[0].tags":             "tags = {",
		"provider[0].tags.tier":        "tags = {",
		"provider[0].weights":          "weights = [",
		"provider[0].weights[0]":       "1.0,",
		"provider[0].weights[1]":       "2.5,",
		"provider[0].limits":           "# line 16",
		"provider[0].limits.ttft.dist": "# line 20",
		"provider[1]":                  "# line 22",
		"provider[1].name":             `"gpt-4.1"`,
		"provider[1].limits.rpm":       "# line 24",
		"provider[1].limits.ttft":      `"250ms"`,
		"workload[0]":                  "# line 27",
		"workload[0].demand.shape":     "demand = {",
		"workload[0].stage[0]":         "# line 30",
		"workload[0].stage[0].share":   "share = 0.7",
		"workload[0].stage[1]":         "# line 33",
		"workload[0].stage[1].timeout": `"30s"`,
		"workload[1]":                  "# line 37",
		"workload[1].mix[1]":           "mix = [1, 2]",
		"workload[1].stage[0]":         "# line 41",
		"workload[1].stage[0].name":    `"only"`,
		"workload[1].opt":              "# line 43",
		"workload[1].opt.retries":      "retries = 3",
		"pool.gpu.warmup":              `"90s"`,
		"extra.whatever.nested.deep":   "whatever = {",
	}
	for path, substr := range cases {
		want := lineOf(sampleTOML, substr)
		if got := ix.Line(path); got != want || want == 0 {
			t.Errorf("Line(%q) = %d, want %d (%q)", path, got, want, substr)
		}
	}
	// Continuation lines of the multi-line array define nothing.
	if ix.Line("provider[0].weights[2]") != lineOf(sampleTOML, "weights = [") {
		t.Errorf("weights[2] should fall back to the array's line")
	}
}

func TestIndexTrickySyntax(t *testing.T) {
	src := `# [[comment]] = 1
"a.b" = 1                       # 2: one quoted key
'lit.key' = 2                   # 3
s1 = "has # and [x] and = signs" # 4
s2 = 'c:\path # [not] = table'  # 5
ml = """
[[provider]]
fake = 1
"""                             # 6-9: multi-line basic string
after = 1                       # 10
ml2 = '''
x = 1 ''' # 11-12: literal multi-line, closes mid-line
after2 = 2                      # 13
esc = "quote \" [y] = 2"        # 14
quoted."dotted.part".leaf = 3   # 15
arr = [ [1, 2], [3, [4]] ]      # 16
multi = [                       # 17
  { name = "a", v = 1 },        # 18
  # comment line
  { name = "b",
    v = 2 },                    # 20-21
]
qq = """two "" quotes "inside"""  # 23
after3 = 3                      # 24
[ "quoted header" . sub ]       # 25
k = 1                           # 26
`
	ix := IndexLines([]byte(src))
	cases := map[string]int{
		`"a.b"`:                     2,
		`'lit.key'`:                 3, // a literal-quoted path segment
		`"lit.key"`:                 3,
		"s1":                        4,
		"s2":                        5,
		"ml":                        6,
		"after":                     10,
		"provider":                  0,
		"fake":                      0,
		"ml2":                       11,
		"x":                         0,
		"after2":                    13,
		"esc":                       14,
		"y":                         0,
		`quoted."dotted.part".leaf`: 15,
		"arr[1][1][0]":              16,
		"multi":                     17,
		"multi[0].name":             18,
		"multi[1]":                  20,
		"multi[1].v":                21,
		"qq":                        23,
		"after3":                    24,
		`"quoted header".sub`:       25,
		`"quoted header".sub.k`:     26,
	}
	for path, line := range cases {
		if got := ix.Line(path); got != line {
			t.Errorf("Line(%q) = %d, want %d", path, got, line)
		}
	}
}

func TestIndexNestedArraysOfTables(t *testing.T) {
	src := `[[workload]]
name = "a"
[[workload.stage]]
name = "s0"
[[workload.stage.step]]
x = 1
[[workload.stage.step]]
x = 2
[[workload.stage]]
name = "s1"
[[workload]]
name = "b"
[[workload.stage]]
name = "t0"
[workload.stage.limits]
rpm = 1
`
	ix := IndexLines([]byte(src))
	cases := map[string]int{
		"workload[0].stage[0].step[0].x":  6,
		"workload[0].stage[0].step[1].x":  8,
		"workload[0].stage[1].name":       10,
		"workload[1].name":                12,
		"workload[1].stage[0]":            13,
		"workload[1].stage[0].name":       14,
		"workload[1].stage[0].limits.rpm": 16,
		"workload[1].stage[1]":            13, // no such element: falls back to workload[1].stage
	}
	for path, line := range cases {
		if got := ix.Line(path); got != line {
			t.Errorf("Line(%q) = %d, want %d", path, got, line)
		}
	}
}

func TestIndexMalformedIsPartial(t *testing.T) {
	src := "a = 1\nb = = =\n[[broken\nc = \"unterminated\nd = 4\n[x.\ne = {f = 1,,}\ng = 7\n"
	ix := IndexLines([]byte(src))
	for path, line := range map[string]int{"a": 1, "d": 5, "g": 8, "e": 7} {
		if got := ix.Line(path); got != line {
			t.Errorf("Line(%q) = %d, want %d", path, got, line)
		}
	}
	var nilIx *LineIndex
	if nilIx.Line("a") != 0 || nilIx.Len() != 0 {
		t.Error("nil index should be empty")
	}
	if IndexLines(nil).Len() != 0 {
		t.Error("empty source should have an empty index")
	}
	// CRLF line endings and a BOM.
	ix = IndexLines([]byte("\xef\xbb\xbfa = 1\r\n[t]\r\nb = 2\r\n"))
	if ix.Line("a") != 1 || ix.Line("t.b") != 3 {
		t.Errorf("CRLF/BOM: a=%d t.b=%d", ix.Line("a"), ix.Line("t.b"))
	}
}

func TestIndexDeepInputDoesNotBlowUp(t *testing.T) {
	deep := "a = " + strings.Repeat("[", 100000) + "\nb = 1\n"
	if got := IndexLines([]byte(deep)).Line("b"); got != 2 {
		t.Errorf("b after deep array: %d", got)
	}
	long := strings.Repeat("k.", 5000) + "k = 1\nz = 2\n"
	if got := IndexLines([]byte(long)).Line("z"); got != 2 {
		t.Errorf("z after long dotted key: %d", got)
	}
}

// sampleTOML is a TOML document with every construct the line index
// handles; the line numbers of its keys are relied upon by the tests.
const sampleTOML = `# A scenario.
name = "email"                                   # line 2
seed = 7
horizon = "24h"
description = "morning peak"

[[provider]]                                     # line 7
name = "sonnet"
model = "claude-sonnet"
enabled = true
tags = { team = "mail", tier = "gold" }          # line 11
weights = [
  1.0,
  2.5,  # comment [x] = 3
]
  [provider.limits]                              # line 16
  rpm = 4000
  itpm = 400000
  window = "1m"
  ttft = { base = "400ms", dist = "lognormal" }  # line 20

[[provider]]                                     # line 22
name = "gpt-4.1"
limits.rpm = 500                                 # line 24
limits.ttft = "250ms"

[[workload]]                                     # line 27
name = "summarize"
demand = { rate = 2.5, shape = "diurnal" }
  [[workload.stage]]                             # line 30
  name = "draft"
  share = 0.7
  [[workload.stage]]                             # line 33
  name = "review"
  timeout = "30s"

[[workload]]                                     # line 37
name = "classify"
demand.rate = 10
mix = [1, 2]
  [[workload.stage]]                             # line 41
  name = "only"
  [workload.opt]                                 # line 43
  retries = 3

[pool.gpu]                                       # line 46
size = 8
warmup = "90s"

[extra]                                          # line 50
whatever = { nested = { deep = 1 } }
`

// lineOf returns the 1-based line of the first line containing substr.
func lineOf(src, substr string) int {
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, substr) {
			return i + 1
		}
	}
	return 0
}

func TestPathRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 6).Draw(rt, "n")
		var steps []step
		for i := 0; i < n; i++ {
			if i > 0 && rapid.IntRange(0, 3).Draw(rt, "kind") == 0 {
				steps = append(steps, idxStep(rapid.IntRange(0, 1000).Draw(rt, "index")))
				continue
			}
			key := string(rapid.SliceOf(rapid.Byte()).Draw(rt, "key"))
			if rapid.Bool().Draw(rt, "bare") {
				key = rapid.StringMatching(`[A-Za-z0-9_-]{1,8}`).Draw(rt, "bare key")
			}
			steps = append(steps, keyStep(key))
		}
		text := formatPath(steps)
		back, err := parsePath(text)
		if err != nil {
			rt.Fatalf("parsePath(%q): %v", text, err)
		}
		if len(back) != len(steps) || (len(steps) > 0 && !reflect.DeepEqual(back, steps)) {
			rt.Fatalf("round trip of %#v via %q gave %#v", steps, text, back)
		}
	})
}

// indexSeeds are documents for the fuzzers' seed corpus.
var indexSeeds = []string{
	sampleTOML,
	"name = \"x\"\n[[provider]]\nname = \"sonnet\"\n  [provider.limits]\n  rpm = 4000\n  ttft = { base = \"400ms\", dist = \"lognormal\" }\n[[provider]]\na.b = 3\n",
	"s = \"\"\"\n[[x]]\n\"\"\"\nt = '''a'''\n[\"q.k\".'l']\nk = [ 1, [2, { a = 3 }], ]\n",
	"a = {\n b = 1,\n c = [\n 1,\n ],\n}\n",
	"[[a]]\n[[a.b]]\n[[a.b.c]]\nx = 1\n[[a]]\n[a.b]\n",
	"a = \"unterminated\nb = [1, 2\n[c\nd = 1",
	"seed = -1.5\nhorizon = 5\n[[workload]]\ndemand = 3\nstage = 1\n[pool.x]\nsize = \"s\"\n",
	"\xef\xbb\xbfa = 1\r\n\"\\u00e9\" = 2\n",
}

func FuzzIndex(f *testing.F) {
	for _, s := range indexSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		ix := IndexLines(src)
		lines := bytes.Count(src, []byte("\n")) + 1
		indexed := map[string]bool{}
		count := 0
		ix.each(func(p []step, l int) {
			path := formatPath(p)
			indexed[path] = true
			count++
			if l < 1 || l > lines {
				t.Fatalf("%q at line %d of %d", path, l, lines)
			}
			if ix.Line(path) != l {
				t.Fatalf("Line(%q) = %d, want %d", path, ix.Line(path), l)
			}
		})
		if count != ix.Len() {
			t.Fatalf("Len() = %d, but %d paths", ix.Len(), count)
		}
		for _, p := range []string{"", "a", "a.b[0].c", "[0]", `"x".y`, string(src)} {
			if l := ix.Line(p); l < 0 || l > lines {
				t.Fatalf("Line(%q) = %d", p, l)
			}
		}
		// For valid TOML every key the toml library sees is indexed.
		var raw map[string]any
		if len(src) > 4096 {
			return
		}
		if _, err := toml.Decode(string(src), &raw); err != nil {
			return
		}
		for _, p := range allPaths(raw, nil, nil) {
			if !indexed[formatPath(p)] {
				t.Fatalf("valid TOML but %q is not indexed; have %v", formatPath(p), indexed)
			}
		}
	})
}

// allPaths lists the keys of a decoded document, with element indices for
// arrays of tables (inline arrays are not descended).
func allPaths(data any, at []step, out [][]step) [][]step {
	switch d := data.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(d)) {
			p := appendStep(at, keyStep(k))
			out = append(out, p)
			if aot, ok := d[k].([]map[string]any); ok {
				for i, e := range aot {
					out = allPaths(e, appendStep(p, idxStep(i)), out)
				}
				continue
			}
			out = allPaths(d[k], p, out)
		}
	}
	return out
}
