package workloads

import (
	"reflect"
	"strings"
	"testing"
)

// distHolder is the smallest struct a Dist can be decoded into.
type distHolder struct {
	D Dist `toml:"d"`
}

// decodeDist decodes d strictly and validates it, as a scenario's key is.
func decodeDist(src string) (Dist, error) {
	var h distHolder
	if err := decodeTOML(src, &h); err != nil {
		return h.D, err
	}
	if err := h.D.Validate(); err != nil {
		return h.D, Prefix("d", err)
	}
	return h.D, nil
}

func TestDistTOMLForms(t *testing.T) {
	cases := []struct {
		src  string
		want Dist
	}{
		{`d = 3`, Fixed(3)},
		{`d = 2.5`, Fixed(2.5)},
		{`d = "30s"`, Fixed(30)},
		{`d = "1m30s"`, Fixed(90)},
		{`d = { dist = "fixed", value = 3 }`, Fixed(3)},
		{`d = { dist = "uniform", min = 100, max = 300 }`, Dist{Kind: "uniform", Min: 100, Max: 300}},
		{`d = { dist = "exponential", mean = "30s" }`, Dist{Kind: "exponential", Mean: 30}},
		{`d = { dist = "lognormal", median = 1200, p95 = 4000 }`, Dist{Kind: "lognormal", Median: 1200, P95: 4000}},
		{`d = { dist = "lognormal", mean = "2s", cv = 0.5 }`, Dist{Kind: "lognormal", Mean: 2, CV: 0.5}},
		{`d = { dist = "gamma", mean = 5, cv = 2 }`, Dist{Kind: "gamma", Mean: 5, CV: 2}},
		{`d = { dist = "empirical", values = [100, 200, 400], weights = [0.5, 0.3, 0.2] }`,
			Dist{Kind: "empirical", Values: []float64{100, 200, 400}, Weights: []float64{0.5, 0.3, 0.2}}},
		{`d = { dist = "empirical", values = ["1s", 2.5, "1m"] }`, Dist{Kind: "empirical", Values: []float64{1, 2.5, 60}}},
		{"[d]\ndist = \"gamma\"\nmean = \"400ms\"\ncv = 1.5\n", Dist{Kind: "gamma", Mean: 0.4, CV: 1.5}},
	}
	for _, c := range cases {
		got, err := decodeDist(c.src)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.src, got, c.want)
		}
	}
}

func TestDistTOMLErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{`d = { dist = "lognormal", median = 1200, p99 = 4000 }`,
			`d.p99: unknown key "p99"; allowed: dist, value, min, max, mean, cv, median, p95, values, weights`},
		{`d = { dist = "lognormal", median = 1200 }`, "p95: must be > median"},
		{`d = { dist = "lognormal" }`, "median: missing; lognormal takes median and p95, or mean and cv"},
		{`d = { mean = 3 }`, "dist: missing; a distribution table needs dist = one of fixed, uniform"},
		{`d = { dist = 5 }`, "d.dist: expected a string, got an integer"},
		{`d = { dist = "normal", mean = 3 }`, `dist: unknown distribution "normal"; allowed: fixed, uniform`},
		{`d = { dist = "uniform", min = [1], max = 2 }`, "d.min: expected a number or a duration string, got an array"},
		{`d = { dist = "exponential", mean = "soon" }`, `mean: expected a number or a duration: invalid duration "soon"`},
		{`d = { dist = "exponential", mean = 3, cv = 1 }`, "cv: does not apply to the exponential distribution (exponential takes mean)"},
		{`d = { dist = "empirical", values = 3 }`, "d.values: expected an array, got an integer"},
		{`d = { dist = "empirical", values = [1, true] }`, "d.values[1]: expected a number or a duration string, got a boolean"},
		{`d = { dist = "empirical", values = [1, 2], weights = [1] }`, "weights: has 1 entries but values has 2"},
		{`d = { dist = "empirical", values = [1, 2], weights = [0, 0] }`, "weights: are all zero"},
		{`d = { dist = "fixed", value = -3 }`, "d.value: must be a finite number >= 0, got -3"},
		{`d = -3`, "d.value: must be a finite number >= 0, got -3"},
		{`d = "fast"`, "expected a number, a duration string or a distribution table"},
		{`d = true`, "expected a number, a duration string or a distribution table such as { dist = \"lognormal\", median = 1200, p95 = 4000 }, got boolean true"},
		{`d = { dist = "gamma", mean = 5, cv = inf }`, "cv: must be a finite number"},
	}
	for _, c := range cases {
		_, err := decodeDist(c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got error %v\nwant it to contain %q", c.src, err, c.want)
		}
		// The error names the key d.
		if err != nil && !strings.HasPrefix(err.Error(), "d") {
			t.Errorf("%s: error %q does not name the key d", c.src, err)
		}
	}
}
