package schema_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/BurntSushi/toml"
	"pgregory.net/rapid"

	"github.com/headroom-sim/headroom/scenarios/schema"
)

func TestParseNumber(t *testing.T) {
	for _, c := range []struct {
		in   string
		want any
	}{
		{"2M", int64(2_000_000)}, {"1.5k", int64(1500)}, {"800K", int64(800_000)}, {"3G", int64(3_000_000_000)},
		{"0.5k", int64(500)}, {"1.25M", int64(1_250_000)}, {"0.0001k", 0.1}, {"-2k", int64(-2000)}, {"1e3k", int64(1_000_000)},
		{"1.1k", int64(1100)}, {"2_000k", int64(2_000_000)},
		// Plain numbers, as TOML decodes them.
		{"2", int64(2)}, {"-7", int64(-7)}, {"+3", int64(3)}, {"2_000_000", int64(2_000_000)}, {"0", int64(0)},
		{"2.5", 2.5}, {"1e6", 1e6}, {"1.0", 1.0}, {"-0.25", -0.25}, {"1E-3", 1e-3}, {".5", 0.5},
	} {
		got, ok := schema.ParseNumber(c.in)
		if !ok || got != c.want {
			t.Errorf("ParseNumber(%q) = %#v %v, want %#v", c.in, got, ok, c.want)
		}
	}
	for _, in := range []string{"5m", "2MB", "k", "1.5.2k", "abc", "", "2 M", "nan", "inf", "1e400", "9223372036854775808",
		"1__0", "_1", "1_", "01", "1.", "1e", "0x10", "2kk", "M", "-", "1e308k"} {
		if v, ok := schema.ParseNumber(in); ok {
			t.Errorf("ParseNumber(%q) = %v, want not a number", in, v)
		}
	}
}

// TestParseNumberAsTOML: a plain number is read as TOML reads it, to the
// same Go value and type, so --set 8000 and rpm = 8000 in a file are one.
func TestParseNumberAsTOML(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s string
		switch rapid.IntRange(0, 2).Draw(t, "form") {
		case 0:
			s = strconv.FormatInt(rapid.Int64().Draw(t, "int"), 10)
		case 1:
			s = strconv.FormatFloat(rapid.Float64Range(-1e300, 1e300).Draw(t, "float"), 'g', -1, 64)
		default:
			s = strconv.FormatFloat(rapid.Float64Range(-1e6, 1e6).Draw(t, "fixed"), 'f', rapid.IntRange(1, 6).Draw(t, "digits"), 64)
		}
		var m map[string]any
		_, err := toml.Decode("v = "+s, &m)
		got, ok := schema.ParseNumber(s)
		if err != nil {
			if ok {
				t.Fatalf("ParseNumber(%q) = %v; TOML refuses it: %v", s, got, err)
			}
			return
		}
		if !ok || got != m["v"] {
			t.Fatalf("ParseNumber(%q) = %#v %v; TOML reads %#v", s, got, ok, m["v"])
		}
	})
}

func TestFormatNumber(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{2e6, "2M"}, {1.5e6, "1.5M"}, {800e3, "800k"}, {1500, "1.5k"}, {1250, "1250"}, {1000, "1k"},
		{64, "64"}, {0.25, "0.25"}, {0, "0"}, {1234567, "1234567"}, {-2e6, "-2M"}, {1e-9, "1e-09"}, {4e9, "4000M"},
	} {
		if got := schema.FormatNumber(c.in); got != c.want {
			t.Errorf("FormatNumber(%v) = %q, want %q", c.in, got, c.want)
		}
	}
	// What FormatNumber prints, ParseNumber reads back.
	for _, v := range []float64{2e6, 1.5e6, 800e3, 1500, 2500e3, 0.25, 1250, -3e6} {
		got, ok := schema.ParseNumber(schema.FormatNumber(v))
		f := math.NaN()
		switch x := got.(type) {
		case int64:
			f = float64(x)
		case float64:
			f = x
		}
		if !ok || f != v {
			t.Errorf("round trip of %v: %v %v", v, got, ok)
		}
	}
}
