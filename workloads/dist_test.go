package workloads

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

func TestZ95(t *testing.T) {
	if q := distuv.UnitNormal.Quantile(0.95); math.Abs(q-z95) > 1e-12 {
		t.Errorf("z95 = %v, but Φ⁻¹(0.95) = %v", z95, q)
	}
}

func TestDistValidate(t *testing.T) {
	good := []Dist{
		Fixed(0), Fixed(3),
		{Kind: "uniform", Min: 100, Max: 300},
		{Kind: "uniform", Min: 5, Max: 5},
		{Kind: "exponential", Mean: 30},
		{Kind: "lognormal", Median: 1200, P95: 4000},
		{Kind: "lognormal", Mean: 2, CV: 0.5},
		{Kind: "gamma", Mean: 5, CV: 2},
		{Kind: "empirical", Values: []float64{100, 200, 400}, Weights: []float64{0.5, 0.3, 0.2}},
		{Kind: "empirical", Values: []float64{7}},
		{Kind: "empirical", Values: []float64{1, 2}, Weights: []float64{0, 1}},
	}
	for _, d := range good {
		if err := d.Validate(); err != nil {
			t.Errorf("%v: unexpected error %v", d, err)
		}
	}
	bad := []struct {
		d   Dist
		key string
		msg string
	}{
		{Dist{}, "", "not set"},
		{Dist{Kind: "weibull"}, "dist", "unknown distribution"},
		{Fixed(-1), "value", ">= 0"},
		{Fixed(math.NaN()), "value", "finite"},
		{Dist{Kind: "uniform", Min: 300, Max: 100}, "max", ">= min"},
		{Dist{Kind: "uniform", Min: -1, Max: 100}, "min", ">= 0"},
		{Dist{Kind: "exponential"}, "mean", "> 0"},
		{Dist{Kind: "exponential", Mean: 3, CV: 2}, "cv", "does not apply"},
		{Dist{Kind: "fixed", Value: 3, Values: []float64{1}}, "values", "does not apply"},
		{Dist{Kind: "lognormal"}, "median", "missing"},
		{Dist{Kind: "lognormal", Median: 1200}, "p95", "> median"},
		{Dist{Kind: "lognormal", Median: 1200, P95: 1000}, "p95", "> median"},
		{Dist{Kind: "lognormal", P95: 1000}, "median", "> 0"},
		{Dist{Kind: "lognormal", Median: 1200, P95: 4000, Mean: 3}, "mean", "cannot be combined"},
		{Dist{Kind: "lognormal", Mean: 2}, "cv", "> 0"},
		{Dist{Kind: "gamma", Mean: 5}, "cv", "> 0"},
		{Dist{Kind: "gamma", CV: 1}, "mean", "> 0"},
		{Dist{Kind: "gamma", Mean: 1, CV: 1e200}, "cv", "out of range"},
		{Dist{Kind: "gamma", Mean: 5, CV: 1, Min: 2}, "min", "does not apply"},
		{Dist{Kind: "empirical"}, "values", "missing"},
		{Dist{Kind: "empirical", Values: []float64{1, -2}}, "values[1]", ">= 0"},
		{Dist{Kind: "empirical", Values: []float64{1, 2}, Weights: []float64{1}}, "weights", "1 entries but values has 2"},
		{Dist{Kind: "empirical", Values: []float64{1, 2}, Weights: []float64{0, 0}}, "weights", "all zero"},
		{Dist{Kind: "empirical", Values: []float64{1, 2}, Weights: []float64{1, -1}}, "weights[1]", ">= 0"},
	}
	for _, c := range bad {
		err := c.d.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%v: got %v, want a FieldError at %q", c.d, err, c.key)
			continue
		}
		if fe.Key != c.key || !strings.Contains(fe.Msg, c.msg) {
			t.Errorf("%v: got {%q, %q}, want key %q and a message with %q", c.d, fe.Key, fe.Msg, c.key, c.msg)
		}
	}
}

func TestDistMeanValue(t *testing.T) {
	// Lognormal from median and p95: mean = median·exp(σ²/2) with
	// σ = ln(p95/median)/Φ⁻¹(0.95); check against gonum's LogNormal.
	mu := math.Log(1200)
	sigma := (math.Log(4000) - mu) / distuv.UnitNormal.Quantile(0.95)
	want := distuv.LogNormal{Mu: mu, Sigma: sigma}.Mean()
	cases := []struct {
		d    Dist
		want float64
	}{
		{Fixed(3), 3},
		{Dist{Kind: "uniform", Min: 100, Max: 300}, 200},
		{Dist{Kind: "exponential", Mean: 30}, 30},
		{Dist{Kind: "lognormal", Median: 1200, P95: 4000}, want},
		{Dist{Kind: "lognormal", Mean: 2, CV: 0.5}, 2},
		{Dist{Kind: "gamma", Mean: 5, CV: 2}, 5},
		{Dist{Kind: "empirical", Values: []float64{100, 200, 400}, Weights: []float64{0.5, 0.3, 0.2}}, 190},
		{Dist{Kind: "empirical", Values: []float64{100, 200, 600}}, 300},
		{Dist{}, 0},
	}
	for _, c := range cases {
		if got := c.d.MeanValue(); math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("%v: MeanValue = %v, want %v", c.d, got, c.want)
		}
	}
	// Lognormal given mean and cv really has that mean and cv: check the
	// (mu, sigma) the parameterisation produces with gonum.
	mu, sigma = Dist{Kind: "lognormal", Mean: 2, CV: 0.5}.logNormalParams()
	ln := distuv.LogNormal{Mu: mu, Sigma: sigma}
	if math.Abs(ln.Mean()-2) > 1e-12 || math.Abs(ln.StdDev()/ln.Mean()-0.5) > 1e-12 {
		t.Errorf("lognormal(mean=2, cv=0.5) has mean %v and cv %v", ln.Mean(), ln.StdDev()/ln.Mean())
	}
	// And given median and p95 really has those quantiles.
	mu, sigma = Dist{Kind: "lognormal", Median: 1200, P95: 4000}.logNormalParams()
	ln = distuv.LogNormal{Mu: mu, Sigma: sigma}
	if math.Abs(ln.Quantile(0.5)-1200) > 1e-6 || math.Abs(ln.Quantile(0.95)-4000) > 1e-6 {
		t.Errorf("lognormal(median=1200, p95=4000) has quantiles %v and %v", ln.Quantile(0.5), ln.Quantile(0.95))
	}
}

func TestDistString(t *testing.T) {
	for _, c := range []struct {
		d    Dist
		want string
	}{
		{Dist{}, "unset"},
		{Fixed(3), "fixed(3)"},
		{Dist{Kind: "uniform", Min: 100, Max: 300}, "uniform(100..300)"},
		{Dist{Kind: "exponential", Mean: 30}, "exponential(mean=30)"},
		{Dist{Kind: "lognormal", Median: 1200, P95: 4000}, "lognormal(median=1200, p95=4000)"},
		{Dist{Kind: "lognormal", Mean: 2, CV: 0.5}, "lognormal(mean=2, cv=0.5)"},
		{Dist{Kind: "gamma", Mean: 5, CV: 2}, "gamma(mean=5, cv=2)"},
		{Dist{Kind: "empirical", Values: []float64{1, 2}, Weights: []float64{3, 1}}, "empirical(1:3, 2:1)"},
		{Dist{Kind: "empirical", Values: []float64{1, 2, 3, 4, 5, 6}}, "empirical(1, 2, 3, 4, … 6 values)"},
	} {
		if got := c.d.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
}
