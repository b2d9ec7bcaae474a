package workloads

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestTokenSpecValidate(t *testing.T) {
	in := Dist{Kind: "lognormal", Median: 1200, P95: 4000}
	out := Dist{Kind: "lognormal", Median: 250, P95: 900}
	ok := TokenSpec{Input: in, Output: out, MaxTokens: 4096, SharedPrefix: 800, Prefixes: 4}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid spec: %v", err)
	}
	cases := []struct {
		spec TokenSpec
		key  string
		msg  string
	}{
		{TokenSpec{Output: out}, "input", "missing"},
		{TokenSpec{Input: in}, "output", "missing"},
		{TokenSpec{Input: Dist{Kind: "lognormal", Median: 1200}, Output: out}, "input.p95", "> median"},
		{TokenSpec{Input: in, Output: Dist{Kind: "gamma", Mean: 5}}, "output.cv", "> 0"},
		{TokenSpec{Input: in, Output: out, MaxTokens: -1}, "max_tokens", "between 0"},
		{TokenSpec{Input: in, Output: out, SharedPrefix: -5}, "shared_prefix", "between 0"},
		{TokenSpec{Input: in, Output: out, Prefixes: -1}, "prefixes", "between 0"},
		{TokenSpec{Input: in, Output: out, Prefixes: 3}, "prefixes", "shared_prefix is 0"},
	}
	for _, c := range cases {
		err := c.spec.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Key != c.key || !strings.Contains(fe.Msg, c.msg) {
			t.Errorf("%+v: got %v, want key %q with %q", c.spec, err, c.key, c.msg)
		}
	}
}

func TestTokenSampleClamps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		spec := TokenSpec{
			Input:        Dist{Kind: "uniform", Min: 0, Max: rapid.Float64Range(0, 5000).Draw(t, "inmax")},
			Output:       Dist{Kind: "gamma", Mean: rapid.Float64Range(0.1, 2000).Draw(t, "outmean"), CV: rapid.Float64Range(0.1, 4).Draw(t, "outcv")},
			MaxTokens:    rapid.IntRange(0, 3000).Draw(t, "max"),
			SharedPrefix: rapid.IntRange(0, 3000).Draw(t, "prefix"),
		}
		if spec.SharedPrefix > 0 {
			spec.Prefixes = rapid.IntRange(0, 10).Draw(t, "prefixes")
		}
		if err := spec.Validate(); err != nil {
			t.Fatal(err)
		}
		r := testRand(rapid.Uint64().Draw(t, "seed"))
		for range 50 {
			in, out, p := spec.Sample(r)
			if in < 1 || in < spec.SharedPrefix || float64(in) > math.Max(math.Round(spec.Input.Max), float64(max(spec.SharedPrefix, 1))) {
				t.Fatalf("input %d outside [max(%d, 1), %v]", in, spec.SharedPrefix, spec.Input.Max)
			}
			if out < 1 || (spec.MaxTokens > 0 && out > spec.MaxTokens) {
				t.Fatalf("output %d outside [1, %d]", out, spec.MaxTokens)
			}
			if p < 0 || p >= max(spec.Prefixes, 1) {
				t.Fatalf("prefix %d outside [0, %d)", p, spec.Prefixes)
			}
		}
	})
}

func TestTokenSampleMeans(t *testing.T) {
	// With the clamps far from the mass, sample means match the
	// distributions' means, and prefixes are uniform.
	spec := TokenSpec{
		Input:        Dist{Kind: "lognormal", Median: 1200, P95: 4000},
		Output:       Dist{Kind: "gamma", Mean: 300, CV: 0.5},
		MaxTokens:    1 << 20,
		SharedPrefix: 10,
		Prefixes:     4,
	}
	r := testRand(31)
	ins, outs := make([]float64, nSamples), make([]float64, nSamples)
	var perPrefix [4]int
	for i := range ins {
		in, out, p := spec.Sample(r)
		ins[i], outs[i] = float64(in), float64(out)
		perPrefix[p]++
	}
	s := math.Log(4000.0/1200) / z95
	// Rounding to integers adds variance 1/12, negligible here.
	checkMean(t, "input", ins, spec.MeanInput(), spec.MeanInput()*math.Sqrt(math.Expm1(s*s)))
	checkMean(t, "output", outs, spec.MeanOutput(), 150)
	for p, n := range perPrefix {
		if se := math.Sqrt(nSamples * 0.25 * 0.75); math.Abs(float64(n)-nSamples/4) > 4*se {
			t.Errorf("prefix %d drawn %d times, want %v ± %.0f", p, n, nSamples/4, 4*se)
		}
	}
	// The approximations apply the clamps to the mean.
	capped := TokenSpec{Input: Fixed(5), Output: Fixed(900), MaxTokens: 512, SharedPrefix: 100}
	if capped.MeanInput() != 100 || capped.MeanOutput() != 512 {
		t.Errorf("MeanInput %v (want 100), MeanOutput %v (want 512)", capped.MeanInput(), capped.MeanOutput())
	}
	if in, out, p := capped.Sample(r); in != 100 || out != 512 || p != 0 {
		t.Errorf("capped sample = %d, %d, %d; want 100, 512, 0", in, out, p)
	}
}

func TestTokenSampleDoesNotAllocate(t *testing.T) {
	spec := TokenSpec{
		Input:        Dist{Kind: "lognormal", Median: 1200, P95: 4000},
		Output:       Dist{Kind: "empirical", Values: []float64{10, 100, 1000}, Weights: []float64{1, 2, 1}},
		MaxTokens:    512,
		SharedPrefix: 300,
		Prefixes:     8,
	}
	r := testRand(32)
	sink := 0
	if n := testing.AllocsPerRun(1000, func() {
		a, b, c := spec.Sample(r)
		sink += a + b + c
	}); n != 0 {
		t.Errorf("TokenSpec.Sample allocates %v times per call", n)
	}
	_ = sink
}

func TestTokenSpecTOML(t *testing.T) {
	src := `
input = { dist = "lognormal", median = 1200, p95 = 4000 }
output = 250
max_tokens = 1024
shared_prefix = 600
prefixes = 3
`
	var spec TokenSpec
	if err := decodeTOML(src, &spec); err != nil {
		t.Fatal(err)
	}
	if spec.Input.Kind != "lognormal" || !reflect.DeepEqual(spec.Output, Fixed(250)) || spec.MaxTokens != 1024 || spec.SharedPrefix != 600 || spec.Prefixes != 3 {
		t.Errorf("decoded %+v", spec)
	}
	if err := spec.Validate(); err != nil {
		t.Error(err)
	}
}
