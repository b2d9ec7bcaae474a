package workloads

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestDemandValidateErrors(t *testing.T) {
	think := Dist{Kind: "exponential", Mean: 30}
	cases := []struct {
		name string
		d    DemandSpec
		key  string
		msg  string
	}{
		{"no mode", DemandSpec{}, "", "no demand given"},
		{"two modes", DemandSpec{Rate: 5, Hourly: []float64{1}}, "hourly", "cannot be combined with rate"},
		{"three modes", DemandSpec{Rate: 5, Users: 3, Count: 2, Think: think}, "users", "got rate, users, count"},
		{"negative rate", DemandSpec{Rate: -2}, "rate", ">= 0"},
		{"NaN rate", DemandSpec{Rate: math.NaN()}, "rate", "finite"},
		{"negative hourly", DemandSpec{Hourly: []float64{1, 2, 3, -2}}, "hourly[3]", "must be a finite number >= 0, got -2"},
		{"NaN curve", DemandSpec{Curve: []float64{1, math.NaN()}, Every: 60}, "curve[1]", "finite"},
		{"all-zero hourly", DemandSpec{Hourly: []float64{0, 0}}, "hourly", "all 2 points are zero"},
		{"curve without every", DemandSpec{Curve: []float64{1}}, "every", "missing"},
		{"every with hourly", DemandSpec{Hourly: []float64{1}, Every: 60}, "every", "1h apart"},
		{"every with rate", DemandSpec{Rate: 1, Every: 60}, "every", "does not apply to rate demand"},
		{"bad unit", DemandSpec{Rate: 1, Unit: "rps"}, "unit", `unknown unit "rps"; allowed: requests/s, requests/min, requests/hour`},
		{"unit with users", DemandSpec{Users: 3, Think: think, Unit: "requests/s"}, "unit", "does not apply to users demand"},
		{"bad shape", DemandSpec{Hourly: []float64{1}, Shape: "smooth"}, "shape", `unknown shape "smooth"`},
		{"shape with rate", DemandSpec{Rate: 1, Shape: "linear"}, "shape", "does not apply"},
		{"from with rate", DemandSpec{Rate: 1, From: "08:00"}, "from", "does not apply"},
		{"repeat with rate", DemandSpec{Rate: 1, Repeat: true}, "repeat", "does not apply"},
		{"bad from", DemandSpec{Hourly: []float64{1}, From: "25:00"}, "from", "hour 25 out of range"},
		{"bad arrivals", DemandSpec{Rate: 1, Arrivals: ArrivalSpec{Kind: "gamma"}}, "arrivals.cv", "> 0"},
		{"arrivals with users", DemandSpec{Users: 3, Think: think, Arrivals: ArrivalSpec{Kind: "constant"}}, "arrivals", "does not apply"},
		{"users without think", DemandSpec{Users: 3}, "think", "missing"},
		{"bad think", DemandSpec{Users: 3, Think: Dist{Kind: "lognormal", Median: 10, P95: 5}}, "think.p95", "> median"},
		{"think without users", DemandSpec{Rate: 1, Think: think}, "think", "does not apply"},
		{"negative users", DemandSpec{Users: -1, Think: think}, "users", "> 0"},
		{"absurd users", DemandSpec{Users: 20_000_000, Think: think}, "users", "<= 10000000"},
		{"negative count", DemandSpec{Count: -1}, "count", "> 0"},
		{"absurd count", DemandSpec{Count: 200_000_000}, "count", "<= 100000000"},
		{"at without count", DemandSpec{Rate: 1, At: 5}, "at", "does not apply"},
		{"negative at", DemandSpec{Count: 5, At: -1}, "at", ">= 0"},
		{"absurd curve", DemandSpec{Curve: make([]float64, 1_000_001), Every: 1}, "curve", "at most 1000000"},
	}
	for _, c := range cases {
		err := c.d.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s: got %v, want a FieldError", c.name, err)
			continue
		}
		if fe.Key != c.key || !strings.Contains(fe.Msg, c.msg) {
			t.Errorf("%s: got {%q, %q}, want key %q with %q", c.name, fe.Key, fe.Msg, c.key, c.msg)
		}
	}
	for _, d := range []DemandSpec{
		{Rate: 5},
		{Hourly: []float64{0, 1}, From: "08:00", Shape: "linear", Repeat: true, Unit: "requests/hour"},
		{Curve: []float64{1}, Every: 900, Arrivals: ArrivalSpec{Kind: "gamma", CV: 2}},
		{Users: 100, Think: think},
		{Count: 1000, At: 60},
	} {
		if err := d.Validate(); err != nil {
			t.Errorf("%+v: unexpected %v", d, err)
		}
	}
}

func TestDemandModes(t *testing.T) {
	if d := (DemandSpec{Users: 3}); !d.Closed() || d.IsJob() {
		t.Error("users demand must be closed and not a job")
	}
	if d := (DemandSpec{Count: 3}); d.Closed() || !d.IsJob() {
		t.Error("count demand must be a job and not closed")
	}
	if d := (DemandSpec{Rate: 3}); d.Closed() || d.IsJob() {
		t.Error("rate demand is open loop")
	}
}

func TestBuildCurveUnits(t *testing.T) {
	for unit, perSecond := range map[string]float64{"": 1, "requests/min": 1, "requests/s": 60, "requests/hour": 1.0 / 60} {
		c, err := (&DemandSpec{Rate: 60, Unit: unit}).BuildCurve(0)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Rate(123); math.Abs(got-perSecond) > 1e-15 {
			t.Errorf("rate 60 %q = %v/s, want %v", unit, got, perSecond)
		}
	}
	// Curve points are converted the same way.
	c := mustCurve(t, DemandSpec{Curve: []float64{3600, 7200}, Every: 900, Unit: "requests/hour"}, 0)
	if c.Rate(0) != 1 || c.Rate(900) != 2 || c.Cumulative(1800) != 2700 {
		t.Errorf("requests/hour curve: %v %v %v", c.Rate(0), c.Rate(900), c.Cumulative(1800))
	}
}

func TestBuildCurveErrors(t *testing.T) {
	think := Dist{Kind: "fixed", Value: 1}
	for _, d := range []DemandSpec{{}, {Users: 2, Think: think}, {Count: 5}, {Rate: -1}} {
		if _, err := d.BuildCurve(0); err == nil {
			t.Errorf("%+v: BuildCurve succeeded", d)
		}
	}
	for _, clock := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := (&DemandSpec{Rate: 1}).BuildCurve(clock); err == nil {
			t.Errorf("BuildCurve(%v) succeeded", clock)
		}
	}
}

func TestDemandTOML(t *testing.T) {
	src := `
[chat]
hourly = [600, 1500, 900]
from = "08:00"
shape = "linear"
repeat = true
arrivals = { kind = "gamma", cv = 2 }

[agents]
users = 50
think = { dist = "exponential", mean = "30s" }

[batch]
count = 10000
at = "1h"

[steady]
rate = 5
unit = "requests/s"
arrivals = "constant"

[sampled]
curve = [1, 2, 3]
every = "15m"
`
	var got map[string]DemandSpec
	if err := decodeTOML(src, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]DemandSpec{
		"chat":    {Hourly: []float64{600, 1500, 900}, From: "08:00", Shape: "linear", Repeat: true, Arrivals: ArrivalSpec{Kind: "gamma", CV: 2}},
		"agents":  {Users: 50, Think: Dist{Kind: "exponential", Mean: 30}},
		"batch":   {Count: 10000, At: 3600},
		"steady":  {Rate: 5, Unit: "requests/s", Arrivals: ArrivalSpec{Kind: "constant"}},
		"sampled": {Curve: []float64{1, 2, 3}, Every: 900},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded\n%+v\nwant\n%+v", got, want)
	}
	for name, d := range got {
		if err := d.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
