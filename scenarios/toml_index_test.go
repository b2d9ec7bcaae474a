package scenarios

import (
	"strings"
	"testing"
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
