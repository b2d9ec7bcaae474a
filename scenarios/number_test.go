package scenarios_test

import (
	"testing"

	"github.com/headroom-sim/headroom/scenarios"
)

func TestParseNumber(t *testing.T) {
	for _, c := range []struct {
		in   string
		want any
	}{
		{"2M", int64(2_000_000)}, {"1.5k", int64(1500)}, {"800K", int64(800_000)}, {"3G", int64(3_000_000_000)},
		{"0.5k", int64(500)}, {"1.25M", int64(1_250_000)}, {"0.0001k", 0.1}, {"-2k", int64(-2000)}, {"1e3k", int64(1_000_000)},
	} {
		got, ok := scenarios.ParseNumber(c.in)
		if !ok || got != c.want {
			t.Errorf("ParseNumber(%q) = %#v %v, want %#v", c.in, got, ok, c.want)
		}
	}
	for _, in := range []string{"2", "5m", "2MB", "k", "1.5.2k", "abc", "", "2 M"} {
		if v, ok := scenarios.ParseNumber(in); ok {
			t.Errorf("ParseNumber(%q) = %v, want not a suffixed number", in, v)
		}
	}
}

func TestFormatNumber(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{2e6, "2M"}, {1.5e6, "1.5M"}, {800e3, "800k"}, {1500, "1.5k"}, {1250, "1250"}, {1000, "1k"},
		{64, "64"}, {0.25, "0.25"}, {0, "0"}, {1234567, "1234567"}, {-2e6, "-2M"}, {1e-9, "1e-09"}, {4e9, "4000M"},
	} {
		if got := scenarios.FormatNumber(c.in); got != c.want {
			t.Errorf("FormatNumber(%v) = %q, want %q", c.in, got, c.want)
		}
	}
	// What FormatNumber prints, ParseNumber (or TOML) reads back.
	for _, v := range []float64{2e6, 1.5e6, 800e3, 1500, 2500e3} {
		got, ok := scenarios.ParseNumber(scenarios.FormatNumber(v))
		if !ok || got != int64(v) {
			t.Errorf("round trip of %v: %v %v", v, got, ok)
		}
	}
}
