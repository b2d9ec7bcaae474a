package schema

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestRange(t *testing.T) {
	for _, c := range []struct {
		spec     string
		in, out  []float64
		duration bool
	}{
		{"[0,1]", []float64{0, 0.5, 1}, []float64{-1e-9, 1.0000001, math.NaN(), math.Inf(1)}, false},
		{"(0,inf)", []float64{1e-300, 1e300}, []float64{0, -1, math.Inf(1)}, false},
		{"0|(1,100)", []float64{0, 1.5, 99}, []float64{0.5, 1, 100}, false},
		{"500|503|529", []float64{500, 503, 529}, []float64{0, 501}, false},
		{"(0s,366d]", []float64{1e-9, 366 * 86400}, []float64{0, 366*86400 + 1}, true},
		{"[0s,60s]", []float64{0, 60}, []float64{60.001}, true},
	} {
		r, err := ParseRange(c.spec)
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		for _, v := range c.in {
			if !r.Contains(v) {
				t.Errorf("%s should contain %v", c.spec, v)
			}
		}
		for _, v := range c.out {
			if r.Contains(v) {
				t.Errorf("%s should not contain %v", c.spec, v)
			}
		}
		if r.Duration != c.duration {
			t.Errorf("%s: duration %v", c.spec, r.Duration)
		}
	}
	for _, bad := range []string{"", "[0,1", "(1,0)", "[a,b]", "0|", "[0;1]"} {
		if _, err := ParseRange(bad); err == nil {
			t.Errorf("ParseRange(%q) should fail", bad)
		}
	}
}

// TestProblemWords: the words of a range violation say what is allowed,
// and never let NaN through.
func TestProblemWords(t *testing.T) {
	f := func(rng, zero, msg string) *Field {
		r, err := ParseRange(rng)
		if err != nil {
			t.Fatal(err)
		}
		return &Field{Range: r, Zero: zero, Msg: msg}
	}
	for _, c := range []struct {
		f     *Field
		v     float64
		isInt bool
		want  string
	}{
		{f("[0,inf)", "", ""), -5, false, "must be a finite number >= 0, got -5"},
		{f("(0,inf)", "", ""), -1, false, "must be a finite number > 0, got -1"},
		{f("(0,1e15]", "absent for no limit", ""), -1, false, "must be > 0 (or absent for no limit), got -1"},
		{f("(0,1e15]", "absent for no limit", ""), 2e15, false, "must be <= 1e+15, got 2e+15"},
		{f("(0,1e15]", "absent for no limit", ""), 0, false, ""},
		{f("(0,10000000]", "", ""), 1e12, true, "must be > 0 and <= 10000000, got 1000000000000"},
		{f("[0,1073741824]", "", ""), -1, true, "must be between 0 and 1073741824, got -1"},
		{f("0|(1,100)", "", "must be 0 (uniform) or an exponent > 1 (and < 100)"), 0.5, false, "must be 0 (uniform) or an exponent > 1 (and < 100), got 0.5"},
		{f("500|503|529", "", ""), 404, true, "must be 500 or 503 or 529, got 404"},
		{f("(0s,366d]", "", ""), 0, false, "must be > 0 and <= 366d, got 0s"},
		{f("[0s,inf)", "", ""), -1, false, "must be a duration >= 0, got -1"},
		{f("[0,1]", "", ""), math.NaN(), false, "must be a finite number, got nan"},
		{f("[0,1]", "", ""), math.Inf(-1), false, "must be a finite number, got -inf"},
		{&Field{}, math.Inf(1), false, "must be a finite number, got inf"},
		{&Field{}, 1e308, false, ""},
	} {
		if got := c.f.Problem(c.v, c.isInt); got != c.want {
			t.Errorf("%s, %v: got %q, want %q", c.f.Range.Text, c.v, got, c.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	allowed := []string{"rpm", "itpm", "otpm", "tpm", "rpd", "tpd", "window", "burst"}
	for in, want := range map[string]string{
		"rpmm": "rpm", "RPn": "rpm", "rmp": "rpm", "RPM": "rpm", "windw": "window", "brust": "burst",
		"xyzzy": "", "a": "", "itmp": "itpm", "widnow": "window", "rpm": "",
	} {
		got, ok := Suggest(in, allowed)
		if !ok {
			got = ""
		}
		if got != want {
			t.Errorf("Suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

// sample is a table type with every kind of key the decoder handles.
type sample struct {
	N     int       `toml:"n" range:"[0,100]" doc:"n"`
	U     uint64    `toml:"u" doc:"u"`
	F     float64   `toml:"f" range:"[0,1]" doc:"f"`
	D     float64   `toml:"d" accept:"duration" range:"[0s,1h]" doc:"d"`
	S     string    `toml:"s" enum:"a|b" doc:"s"`
	B     *bool     `toml:"b" doc:"b"`
	L     []float64 `toml:"l" range:"[0,10]" doc:"l"`
	Sub   []sample  `toml:"sub" doc:"sub"`
	Short short     `toml:"short" doc:"short"`
	Free  map[string]any
	Skip  int `toml:"-"`
}

// short is a table that may also be written as a string.
type short struct {
	Kind string  `toml:"kind" enum:"x|y" doc:"kind"`
	V    float64 `toml:"v" range:"[0,5]" doc:"v"`
}

func (s *short) DecodeScalar(v any) error {
	k, ok := v.(string)
	if !ok {
		return &FieldError{Msg: "expected a kind or a table, got " + TypeWords(v)}
	}
	*s = short{Kind: k}
	return nil
}

func TestDecode(t *testing.T) {
	var s sample
	tr := true
	errs := Decode(map[string]any{"n": int64(3), "u": 7.0, "f": int64(1), "d": "1m", "s": "b", "b": tr, "l": []any{int64(1), 2.5},
		"sub": []map[string]any{{"n": int64(1)}}, "short": "y"}, &s)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if s.N != 3 || s.U != 7 || s.F != 1 || s.D != 60 || s.S != "b" || s.B == nil || !*s.B || !reflect.DeepEqual(s.L, []float64{1, 2.5}) ||
		len(s.Sub) != 1 || s.Sub[0].N != 1 || s.Short.Kind != "y" {
		t.Errorf("decoded %+v", s)
	}
	errs = Decode(map[string]any{"n": 2.5, "u": int64(-1), "f": math.NaN(), "d": "soon", "s": "c", "b": "yes", "l": []any{int64(11)},
		"sub": []map[string]any{{"nn": int64(1)}}, "short": map[string]any{"kind": "z", "v": int64(9)}, "Skip": int64(1)}, &s)
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{
		"Skip: unknown key \"Skip\"; allowed: n, u, f, d, s, b, l, sub, short",
		"b: expected a boolean, got a string",
		"d: expected a number or a duration: invalid duration \"soon\": expected a number at \"soon\"",
		"f: must be a finite number, got nan",
		"l[0]: must be <= 10, got 11",
		"n: expected an integer, got a float",
		"s: unknown value \"c\"; allowed: a, b",
		"short.kind: unknown value \"z\"; allowed: x, y",
		"short.v: must be <= 5, got 9",
		"sub[0].nn: unknown key \"nn\"; allowed: n, u, f, d, s, b, l, sub, short; did you mean \"n\"?",
		"u: must be >= 0, got -1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if errs := Decode(map[string]any{}, s); len(errs) != 1 {
		t.Errorf("decoding into a non-pointer: %v", errs)
	}
}

// TestTableRoundTrip: a value written with Table decodes back to itself.
func TestTableRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := sample{N: rapid.IntRange(0, 100).Draw(t, "n"), F: rapid.Float64Range(0, 1).Draw(t, "f"),
			S: rapid.SampledFrom([]string{"", "a", "b"}).Draw(t, "s"), L: rapid.SliceOf(rapid.Float64Range(0, 10)).Draw(t, "l"),
			Short: short{Kind: rapid.SampledFrom([]string{"", "x"}).Draw(t, "kind"), V: rapid.Float64Range(0, 5).Draw(t, "v")}}
		if len(v.L) == 0 {
			v.L = nil
		}
		var back sample
		if errs := Decode(Table(&v), &back); len(errs) > 0 {
			t.Fatal(errs)
		}
		if !reflect.DeepEqual(back, v) {
			t.Fatalf("%+v came back as %+v", v, back)
		}
	})
}
