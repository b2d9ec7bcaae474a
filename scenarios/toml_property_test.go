package scenarios

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"pgregory.net/rapid"
)

// genValue draws a TOML value (as the decoder produces it) for a field of
// type t, and the Go value Get should return after Set. ok is false for types
// the generator does not cover.
func genValue(rt *rapid.T, t reflect.Type) (value, want any, ok bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case durationType:
		d := time.Duration(rapid.Int64Range(0, int64(1000*time.Hour)).Draw(rt, "duration"))
		if rapid.Bool().Draw(rt, "as string") {
			return d.String(), d, true
		}
		return int64(d), d, true
	case reflect.TypeFor[tDur]():
		d := time.Duration(rapid.Int64Range(0, int64(1000*time.Hour)).Draw(rt, "duration"))
		return d.String(), tDur(d), true
	case reflect.TypeFor[tDist]():
		d := time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(rt, "base"))
		if rapid.Bool().Draw(rt, "as string") {
			return d.String(), tDist{Dist: "fixed", Base: d}, true
		}
		dist := rapid.SampledFrom([]string{"fixed", "lognormal", "exponential"}).Draw(rt, "dist")
		return map[string]any{"base": d.String(), "dist": dist}, tDist{Dist: dist, Base: d}, true
	case timeType:
		tm := time.Unix(rapid.Int64Range(0, 1<<33).Draw(rt, "unix"), 0).UTC()
		return tm, tm, true
	}
	switch k := t.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		switch k {
		case reflect.Int8:
			lo, hi = math.MinInt8, math.MaxInt8
		case reflect.Int16:
			lo, hi = math.MinInt16, math.MaxInt16
		case reflect.Int32:
			lo, hi = math.MinInt32, math.MaxInt32
		}
		n := rapid.Int64Range(lo, hi).Draw(rt, "int")
		want := reflect.ValueOf(n).Convert(t).Interface()
		if n > -1<<53 && n < 1<<53 && rapid.Bool().Draw(rt, "as float") {
			return float64(n), want, true
		}
		return n, want, true
	case k >= reflect.Uint && k <= reflect.Uint64:
		hi := int64(math.MaxInt64)
		switch k {
		case reflect.Uint8:
			hi = math.MaxUint8
		case reflect.Uint16:
			hi = math.MaxUint16
		case reflect.Uint32:
			hi = math.MaxUint32
		}
		n := rapid.Int64Range(0, hi).Draw(rt, "uint")
		return n, reflect.ValueOf(uint64(n)).Convert(t).Interface(), true
	case k == reflect.Float64:
		f := rapid.Float64().Filter(func(f float64) bool { return !math.IsNaN(f) }).Draw(rt, "float")
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 && rapid.Bool().Draw(rt, "as int") {
			return int64(f), f, true
		}
		return f, f, true
	case k == reflect.Float32:
		f := rapid.Float32().Filter(func(f float32) bool { return !math.IsNaN(float64(f)) }).Draw(rt, "float32")
		return float64(f), f, true
	case k == reflect.String:
		s := rapid.String().Draw(rt, "string")
		return s, reflect.ValueOf(s).Convert(t).Interface(), true
	case k == reflect.Bool:
		b := rapid.Bool().Draw(rt, "bool")
		return b, b, true
	case k == reflect.Interface:
		s := rapid.String().Draw(rt, "any")
		return s, s, true
	case k == reflect.Slice && t.Elem().Kind() == reflect.Float64:
		fs := rapid.SliceOf(rapid.Float64Range(-1e9, 1e9)).Draw(rt, "floats")
		vals := make([]any, len(fs))
		for i, f := range fs {
			vals[i] = f
		}
		return vals, append(make([]float64, 0, len(fs)), fs...), true
	case k == reflect.Array && t.Elem().Kind() == reflect.Int:
		arr := reflect.New(t).Elem()
		vals := make([]any, t.Len())
		for i := range vals {
			n := rapid.Int64Range(-1e6, 1e6).Draw(rt, "elem")
			vals[i] = n
			arr.Index(i).SetInt(n)
		}
		return vals, arr.Interface(), true
	}
	return nil, nil, false
}

// typeAt returns the Go type of the field at path.
func typeAt(v any, path string) (reflect.Type, bool) {
	steps, err := parsePath(path)
	if err != nil {
		return nil, false
	}
	val, _, _, msg := nav(reflect.ValueOf(v), steps, nil)
	if msg != "" || !val.IsValid() {
		return nil, false
	}
	return val.Type(), true
}

func TestSetGetProperty(t *testing.T) {
	var base tScenario
	if _, err := DecodeStrict("email.toml", []byte(sampleTOML), &base); err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(rt *rapid.T) {
		var s tScenario
		if _, err := DecodeStrict("email.toml", []byte(sampleTOML), &s); err != nil {
			rt.Fatal(err)
		}
		wants := map[string]any{} // canonical path -> last value set
		n := rapid.IntRange(1, 8).Draw(rt, "n")
		for k := 0; k < n; k++ {
			paths := Paths(&s)
			p := rapid.SampledFrom(paths).Draw(rt, "path")
			typ, ok := typeAt(&s, p)
			if !ok {
				rt.Fatalf("no type at listed path %q", p)
			}
			value, want, ok := genValue(rt, typ)
			if !ok {
				continue
			}
			canon, err := CanonicalPath(&s, p)
			if err != nil {
				rt.Fatalf("CanonicalPath(%q): %v", p, err)
			}
			if err := Set(&s, p, value); err != nil {
				rt.Fatalf("Set(%q, %#v): %v", p, value, err)
			}
			got, err := Get(&s, canon) // p may name an element that Set renamed
			if err != nil {
				rt.Fatalf("Get(%q) after Set: %v", canon, err)
			}
			if !reflect.DeepEqual(got, want) {
				rt.Fatalf("Get(%q) = %#v, want %#v (set %#v)", p, got, want, value)
			}
			wants[canon] = want
		}
		// Every assignment holds at the end (last write wins); canonical
		// paths stay valid when names change.
		for canon, want := range wants {
			if got, err := Get(&s, canon); err != nil || !reflect.DeepEqual(got, want) {
				rt.Fatalf("at the end Get(%q) = %#v, %v; want %#v", canon, got, err, want)
			}
		}
	})
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
		for _, k := range sortedKeys(d) {
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

func FuzzDecodeStrict(f *testing.F) {
	for _, s := range indexSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var s tScenario
		ix, err := DecodeStrict("f.toml", src, &s)
		if ix == nil {
			t.Fatal("nil index")
		}
		var plain tScenario
		_, perr := toml.Decode(string(src), &plain)
		if perr != nil && err == nil {
			t.Fatalf("the toml library fails (%v) but DecodeStrict does not", perr)
		}
		if err == nil {
			return
		}
		es, ok := err.(Errors)
		if !ok || len(es) == 0 {
			t.Fatalf("error %T %v", err, err)
		}
		lines := bytes.Count(src, []byte("\n")) + 1
		for _, e := range es {
			if e == nil || e.File != "f.toml" || e.Line < 0 || e.Line > lines || e.Msg == "" {
				t.Fatalf("bad problem %#v", e)
			}
			if strings.Contains(e.Msg, "internal error") {
				t.Fatalf("internal error: %v", e)
			}
		}
	})
}

func FuzzSet(f *testing.F) {
	for _, s := range []string{
		"provider.sonnet.limits.rpm=8000", `provider."gpt-4.1".limits.ttft={ base = "1s" }`,
		"workload[1].stage.0.timeout=5m", "pool.new=1", "provider.sonnet.weights=[1, 2.5]",
		"extra.whatever.nested.deep=true", "workload.summarize.opt.retries=3.0", `'a'."b".c[0]=x`,
	} {
		f.Add(s)
	}
	var base tScenario
	if _, err := DecodeStrict("email.toml", []byte(sampleTOML), &base); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		path, value, err := ParseSet(in)
		if err != nil {
			return
		}
		var s tScenario
		if _, err := DecodeStrict("email.toml", []byte(sampleTOML), &s); err != nil {
			t.Fatal(err)
		}
		for _, e := range []error{Set(&s, path, value), getErr(&s, path), canonErr(&s, path)} {
			if e != nil && strings.Contains(e.Error(), "internal error") {
				t.Fatalf("%q: %v", in, e)
			}
		}
		_ = Paths(&s)
	})
}

func getErr(v any, path string) error   { _, err := Get(v, path); return err }
func canonErr(v any, path string) error { _, err := CanonicalPath(v, path); return err }
