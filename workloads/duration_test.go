package workloads

import (
	"math"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"pgregory.net/rapid"
)

func TestParseDuration(t *testing.T) {
	cases := []struct {
		in   string
		want float64
	}{
		{"0", 0},
		{"0s", 0},
		{"400ms", 0.4},
		{"100ms", 0.1},
		{"1.5s", 1.5},
		{"5m", 300},
		{"1h30m", 5400},
		{"1.1h", 3960},
		{"2d", 172800},
		{"1d12h", 129600},
		{"250us", 250e-6},
		{"250µs", 250e-6},
		{"7ns", 7e-9},
		{"+3s", 3},
		{".5s", 0.5},
		{"2.s", 2},
		{"1000000d", 86400e6}, // beyond time.Duration's 292 years
	}
	for _, c := range cases {
		got, err := ParseDuration(c.in)
		if err != nil {
			t.Errorf("ParseDuration(%q): %v", c.in, err)
			continue
		}
		if float64(got) != c.want {
			t.Errorf("ParseDuration(%q) = %v, want %v", c.in, float64(got), c.want)
		}
	}
	bad := map[string]string{
		"":     "empty",
		"-5s":  "negative",
		"30":   "missing unit",
		"5x":   "unknown unit",
		"s":    "expected a number",
		"1..s": "expected a number",
		"5m3":  "missing unit",
		"abc":  "expected a number",
	}
	for in, want := range bad {
		_, err := ParseDuration(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDuration(%q) error = %v, want it to mention %q", in, err, want)
		}
	}
}

func TestDurationStringRoundTrip(t *testing.T) {
	for _, c := range []struct {
		d    Duration
		want string
	}{{0, "0s"}, {1.5, "1.5s"}, {0.4, "0.4s"}, {59, "59s"}, {300, "5m"}, {5400, "1h30m"}, {86400 + 3661, "1d1h1m1s"}, {90.25, "90.25s"}} {
		if got := c.d.String(); got != c.want {
			t.Errorf("Duration(%v).String() = %q, want %q", float64(c.d), got, c.want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		var d Duration
		if rapid.Bool().Draw(t, "integer") {
			d = Duration(rapid.Int64Range(0, 1<<40).Draw(t, "secs"))
		} else {
			d = Duration(math.Abs(rapid.Float64Range(0, 1e12).Draw(t, "secs")))
		}
		back, err := ParseDuration(d.String())
		if err != nil {
			t.Fatalf("ParseDuration(%q): %v", d.String(), err)
		}
		if back != d {
			t.Fatalf("%v -> %q -> %v", float64(d), d.String(), float64(back))
		}
	})
}

func TestDurationTOML(t *testing.T) {
	var v struct{ D Duration }
	for in, want := range map[string]float64{
		`D = "1h30m"`: 5400,
		`D = 42`:      42,
		`D = 0.25`:    0.25,
		`D = "2d"`:    172800,
	} {
		v.D = -1
		if _, err := toml.Decode(in, &v); err != nil {
			t.Errorf("%s: %v", in, err)
		} else if float64(v.D) != want {
			t.Errorf("%s: got %v, want %v", in, float64(v.D), want)
		}
	}
	for in, want := range map[string]string{
		`D = -3`:     ">= 0",
		`D = -0.5`:   ">= 0",
		`D = "-3s"`:  "negative",
		`D = true`:   "boolean",
		`D = nan`:    "finite",
		`D = "3 s"`:  "unknown unit",
		`D = [1, 2]`: "array",
	} {
		_, err := toml.Decode(in, &v)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to mention %q", in, err, want)
		}
	}
	// Encoding goes through MarshalText and decodes back to the same value.
	var out strings.Builder
	if err := toml.NewEncoder(&out).Encode(struct{ D Duration }{5400.5}); err != nil {
		t.Fatal(err)
	}
	var back struct{ D Duration }
	if _, err := toml.Decode(out.String(), &back); err != nil || back.D != 5400.5 {
		t.Errorf("encoded %q decoded to %v, %v", out.String(), float64(back.D), err)
	}
	if _, err := Duration(-1).MarshalText(); err == nil {
		t.Error("MarshalText of a negative duration must fail")
	}
	if Duration(90).Seconds() != 90 {
		t.Error("Seconds")
	}
}

func TestParseClock(t *testing.T) {
	for in, want := range map[string]float64{
		"00:00": 0, "08:00": 28800, "8:30": 30600, "23:59": 86340, "23:59:59": 86399, "12:00:30": 43230,
	} {
		got, err := ParseClock(in)
		if err != nil || got != want {
			t.Errorf("ParseClock(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "24:00", "12:60", "12:00:60", "12", "1:2", "12:00:00:00", "ab:cd", "-1:00", "123:00", "12:5"} {
		if _, err := ParseClock(in); err == nil {
			t.Errorf("ParseClock(%q) succeeded, want error", in)
		}
	}
}
