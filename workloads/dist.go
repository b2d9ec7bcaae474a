package workloads

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/headroom-sim/headroom/scenarios/schema"
	"gonum.org/v1/gonum/stat/distuv"
)

// Distribution kinds accepted in Dist.Kind.
const (
	KindFixed       = "fixed"
	KindUniform     = "uniform"
	KindExponential = "exponential"
	KindLogNormal   = "lognormal"
	KindGamma       = "gamma"
	KindEmpirical   = "empirical"
)

// z95 is the standard normal 95th percentile, Φ⁻¹(0.95).
const z95 = 1.6448536269514722

// maxEmpiricalValues bounds an empirical histogram's length.
const maxEmpiricalValues = 1_000_000

// distKinds lists the kinds for error messages.
const distKinds = "fixed, uniform, exponential, lognormal, gamma, empirical"

// Dist is a distribution of a non-negative quantity (token counts or
// seconds). Kind selects which of the other fields apply:
//
//	fixed        Value
//	uniform      Min, Max
//	exponential  Mean
//	lognormal    Median and P95, or Mean and CV
//	gamma        Mean, CV
//	empirical    Values, optional Weights (default equal)
//
// The zero Dist (Kind "") means "not set". In TOML a Dist is a number, a
// duration string ("30s", in seconds) or a table such as
// { dist = "lognormal", median = 1200, p95 = 4000 }; every number in the
// table may also be a duration string. The key that holds a Dist gives the
// unit and range of its numbers (see schema.Ranged).
type Dist struct {
	Kind    string    `toml:"dist" enum:"fixed|uniform|exponential|lognormal|gamma|empirical" noun:"distribution" doc:"the family; the other keys are its parameters"`
	Value   float64   `toml:"value" accept:"duration" range:"[0,inf)" doc:"fixed: the value"`
	Min     float64   `toml:"min" accept:"duration" range:"[0,inf)" doc:"uniform: the lower end"`
	Max     float64   `toml:"max" accept:"duration" range:"[0,inf)" doc:"uniform: the upper end, >= min"`
	Mean    float64   `toml:"mean" accept:"duration" range:"[0,inf)" doc:"exponential, gamma, lognormal (with cv): the mean"`
	CV      float64   `toml:"cv" accept:"duration" range:"[0,inf)" doc:"lognormal (with mean), gamma: the coefficient of variation"`
	Median  float64   `toml:"median" accept:"duration" range:"[0,inf)" doc:"lognormal (with p95): the median"`
	P95     float64   `toml:"p95" accept:"duration" range:"[0,inf)" doc:"lognormal (with median): the 95th percentile, > median"`
	Values  []float64 `toml:"values" accept:"duration" range:"[0,inf)" doc:"empirical: the values, at most 1,000,000"`
	Weights []float64 `toml:"weights" accept:"duration" range:"[0,inf)" doc:"empirical: one relative weight per value (default: all equal)"`
}

// DecodeScalar reads a distribution written as a number or a duration
// string: fixed at that value (seconds, for a duration).
func (d *Dist) DecodeScalar(v any) error {
	switch x := v.(type) {
	case int64:
		*d = Fixed(float64(x))
		return nil
	case float64:
		*d = Fixed(x)
		return nil
	case string:
		f, err := ParseDuration(strings.TrimSpace(x))
		if err != nil {
			return &FieldError{Msg: "expected a number, a duration string or a distribution table: " + err.Error()}
		}
		*d = Fixed(float64(f))
		return nil
	}
	return &FieldError{Msg: fmt.Sprintf("expected a number, a duration string or a distribution table such as { dist = \"lognormal\", median = 1200, p95 = 4000 }, got %s", describe(v))}
}

// EachNumber yields the distribution's numbers that are in the unit of the
// key holding it (not cv or weights), so that key's range applies to them.
func (d *Dist) EachNumber(f func(key string, v float64)) {
	for _, p := range [...]struct {
		k string
		v float64
	}{{"value", d.Value}, {"min", d.Min}, {"max", d.Max}, {"mean", d.Mean}, {"median", d.Median}, {"p95", d.P95}} {
		if p.v != 0 {
			f(p.k, p.v)
		}
	}
	for i, v := range d.Values {
		f("values["+strconv.Itoa(i)+"]", v)
	}
}

// Fixed returns the distribution that is always v.
func Fixed(v float64) Dist { return Dist{Kind: KindFixed, Value: v} }

// IsZero reports whether the distribution is not set: no kind and no
// parameter (a table of parameters without dist is set, and invalid).
func (d Dist) IsZero() bool {
	return d.Kind == "" && d.Value == 0 && d.Min == 0 && d.Max == 0 && d.Mean == 0 && d.CV == 0 && d.Median == 0 && d.P95 == 0 &&
		len(d.Values) == 0 && len(d.Weights) == 0
}

// kindKeys returns the keys a kind takes, for "does not apply" checks.
func kindKeys(kind string) []string {
	switch kind {
	case KindFixed:
		return []string{"value"}
	case KindUniform:
		return []string{"min", "max"}
	case KindExponential:
		return []string{"mean"}
	case KindLogNormal:
		return []string{"median", "p95", "mean", "cv"}
	case KindGamma:
		return []string{"mean", "cv"}
	case KindEmpirical:
		return []string{"values", "weights"}
	}
	return nil
}

// kindTakes describes what a kind takes, for error messages.
func kindTakes(kind string) string {
	switch kind {
	case KindFixed:
		return "fixed takes value"
	case KindUniform:
		return "uniform takes min and max"
	case KindExponential:
		return "exponential takes mean"
	case KindLogNormal:
		return "lognormal takes median and p95, or mean and cv"
	case KindGamma:
		return "gamma takes mean and cv"
	case KindEmpirical:
		return "empirical takes values and optional weights"
	}
	return "dist must be one of " + distKinds
}

// Validate checks that the distribution is fully and consistently given.
// Errors are *FieldError values keyed by the TOML key at fault ("p95",
// "weights[2]"); an unset Dist is reported with an empty key.
func (d Dist) Validate() error {
	if d.Kind == "" {
		if d.Value != 0 || d.Min != 0 || d.Max != 0 || d.Mean != 0 || d.CV != 0 || d.Median != 0 || d.P95 != 0 || len(d.Values) > 0 || len(d.Weights) > 0 {
			return fieldErrorf("dist", "missing; a distribution table needs dist = one of %s", distKinds)
		}
		return &FieldError{Msg: "distribution not set; give a number, a duration, or a table with dist = one of " + distKinds}
	}
	if err := schema.Check(&d); err != nil {
		return err
	}
	keys := kindKeys(d.Kind)
	// Fields that do not belong to this kind must be unset, so that a
	// stray cv on an exponential is not silently ignored.
	for _, f := range [...]struct {
		k   string
		set bool
	}{{"value", d.Value != 0}, {"min", d.Min != 0}, {"max", d.Max != 0}, {"mean", d.Mean != 0}, {"cv", d.CV != 0},
		{"median", d.Median != 0}, {"p95", d.P95 != 0}, {"values", len(d.Values) > 0}, {"weights", len(d.Weights) > 0}} {
		if f.set && !slices.Contains(keys, f.k) {
			return fieldErrorf(f.k, "does not apply to the %s distribution (%s)", d.Kind, kindTakes(d.Kind))
		}
	}
	switch d.Kind {
	case KindUniform:
		if d.Max < d.Min {
			return fieldErrorf("max", "must be >= min (%v), got %v", d.Min, d.Max)
		}
	case KindExponential:
		if d.Mean <= 0 {
			return fieldErrorf("mean", "must be > 0, got %v (exponential takes mean)", d.Mean)
		}
	case KindLogNormal:
		byMedian := d.Median != 0 || d.P95 != 0
		byMean := d.Mean != 0 || d.CV != 0
		switch {
		case byMedian && byMean:
			key := "mean"
			if d.Mean == 0 {
				key = "cv"
			}
			return fieldErrorf(key, "cannot be combined with median/p95; lognormal takes median and p95, or mean and cv")
		case byMedian:
			if d.Median <= 0 {
				return fieldErrorf("median", "must be > 0, got %v (lognormal takes median and p95)", d.Median)
			}
			if d.P95 <= d.Median {
				return fieldErrorf("p95", "must be > median (%v), got %v (lognormal takes median and p95)", d.Median, d.P95)
			}
		case byMean:
			if err := positiveMeanCV(d, "lognormal"); err != nil {
				return err
			}
		default:
			return fieldErrorf("median", "missing; lognormal takes median and p95, or mean and cv")
		}
		if !(d.MeanValue() < math.MaxFloat64) {
			return &FieldError{Msg: "lognormal is too wide: its mean overflows"}
		}
	case KindGamma:
		if err := positiveMeanCV(d, "gamma"); err != nil {
			return err
		}
		// Shape 1/cv² must stay a normal positive number for the sampler.
		if k := 1 / (d.CV * d.CV); !(k >= 1e-300 && k <= 1e300) || !(d.Mean*d.CV*d.CV < math.MaxFloat64) {
			return fieldErrorf("cv", "is out of range, got %v", d.CV)
		}
	case KindEmpirical:
		if len(d.Values) == 0 {
			return fieldErrorf("values", "missing; empirical takes values and optional weights")
		}
		if len(d.Values) > maxEmpiricalValues {
			return fieldErrorf("values", "has %d entries; at most %d allowed", len(d.Values), maxEmpiricalValues)
		}
		if len(d.Weights) == 0 {
			break
		}
		if len(d.Weights) != len(d.Values) {
			return fieldErrorf("weights", "has %d entries but values has %d; give one weight per value or none", len(d.Weights), len(d.Values))
		}
		total := 0.0
		for _, w := range d.Weights {
			total += w
		}
		if total <= 0 {
			return fieldErrorf("weights", "are all zero; at least one must be > 0")
		}
		if math.IsInf(total, 0) {
			return fieldErrorf("weights", "sum overflows")
		}
	}
	return nil
}

// positiveMeanCV checks the mean and cv of a lognormal or gamma.
func positiveMeanCV(d Dist, kind string) error {
	if d.Mean <= 0 {
		return fieldErrorf("mean", "must be > 0, got %v (%s)", d.Mean, kindTakes(kind))
	}
	if d.CV <= 0 {
		return fieldErrorf("cv", "must be > 0, got %v (%s)", d.CV, kindTakes(kind))
	}
	return nil
}

// logNormalParams returns (mu, sigma) of the underlying normal: from median
// and p95, mu = ln median and sigma = (ln p95 − mu)/Φ⁻¹(0.95); from mean and
// cv, sigma² = ln(1+cv²) and mu = ln mean − sigma²/2.
func (d Dist) logNormalParams() (mu, sigma float64) {
	if d.Median != 0 || d.P95 != 0 {
		mu = math.Log(d.Median)
		return mu, (math.Log(d.P95) - mu) / z95
	}
	s2 := math.Log1p(d.CV * d.CV)
	return math.Log(d.Mean) - s2/2, math.Sqrt(s2)
}

// MeanValue returns the distribution's analytic mean (0 for an unset or
// unknown kind).
func (d Dist) MeanValue() float64 {
	switch d.Kind {
	case KindFixed:
		return d.Value
	case KindUniform:
		return d.Min + (d.Max-d.Min)/2
	case KindExponential, KindGamma:
		return d.Mean
	case KindLogNormal:
		if d.Median == 0 && d.P95 == 0 {
			return d.Mean
		}
		mu, sigma := d.logNormalParams()
		return math.Exp(mu + sigma*sigma/2)
	case KindEmpirical:
		if len(d.Values) == 0 {
			return 0
		}
		if len(d.Weights) != len(d.Values) {
			sum := 0.0
			for _, v := range d.Values {
				sum += v
			}
			return sum / float64(len(d.Values))
		}
		sum, total := 0.0, 0.0
		for i, v := range d.Values {
			sum += v * d.Weights[i]
			total += d.Weights[i]
		}
		if total <= 0 {
			return 0
		}
		return sum / total
	}
	return 0
}

// MedianValue returns the distribution's median before rounding and
// clamping, and false for an unset or unknown kind or a degenerate one (a
// gamma without a positive mean and cv, an empirical list without weight).
// An empirical list's median is its lower weighted median.
func (d Dist) MedianValue() (float64, bool) {
	switch d.Kind {
	case KindFixed:
		return d.Value, true
	case KindUniform:
		return (d.Min + d.Max) / 2, true
	case KindExponential:
		return d.Mean * math.Ln2, true
	case KindLogNormal:
		if d.Median != 0 {
			return d.Median, true
		}
		return d.Mean / math.Sqrt(1+d.CV*d.CV), true
	case KindGamma:
		if !(d.CV > 0) || !(d.Mean > 0) {
			return 0, false
		}
		k := 1 / (d.CV * d.CV)
		return distuv.Gamma{Alpha: k, Beta: k / d.Mean}.Quantile(0.5), true
	case KindEmpirical:
		return empiricalMedian(d.Values, d.Weights)
	}
	return 0, false
}

// empiricalMedian is the lower weighted median of values (equal weights
// when none are given).
func empiricalMedian(values, weights []float64) (float64, bool) {
	if len(values) == 0 {
		return 0, false
	}
	w := func(i int) float64 {
		if i < len(weights) {
			return weights[i]
		}
		return 1
	}
	idx := make([]int, len(values))
	total := 0.0
	for i := range idx {
		idx[i] = i
		total += w(i)
	}
	if !(total > 0) {
		return 0, false
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(values[a], values[b]) })
	acc := 0.0
	for _, i := range idx {
		if acc += w(i); acc >= total/2 {
			return values[i], true
		}
	}
	return values[idx[len(idx)-1]], true
}

// Sample draws one value using only r. It does not allocate. It assumes
// Validate passed; on an invalid Dist it returns some value rather than
// panicking (0 for an unset or unknown kind).
//
// Lognormal and gamma variates come from gonum's distuv, which accepts a
// math/rand/v2 source (a *rand.Rand is one) and samples without
// allocating. Its gamma sampler uses Marsaglia–Tsang for shape >= 0.2 and
// Liu–Martin–Syring below, which stays accurate for the very small shapes
// (cv > 2.2) that bursty workloads produce.
//
// Empirical sampling scans the weights linearly (two passes when weights
// are given, O(1) when they are equal), so nothing is precomputed and a
// Dist stays a plain value.
func (d *Dist) Sample(r *rand.Rand) float64 {
	switch d.Kind {
	case KindFixed:
		return d.Value
	case KindUniform:
		return d.Min + (d.Max-d.Min)*r.Float64()
	case KindExponential:
		return d.Mean * r.ExpFloat64()
	case KindLogNormal:
		mu, sigma := d.logNormalParams()
		if !(sigma >= 0) {
			return d.MeanValue()
		}
		return distuv.LogNormal{Mu: mu, Sigma: sigma, Src: r}.Rand()
	case KindGamma:
		k := 1 / (d.CV * d.CV)
		rate := k / d.Mean // 1/scale, scale = mean·cv²
		if !(k > 0) || !(rate > 0) || math.IsInf(k, 1) {
			return math.Max(d.Mean, 0)
		}
		return distuv.Gamma{Alpha: k, Beta: rate, Src: r}.Rand()
	case KindEmpirical:
		return d.sampleEmpirical(r)
	}
	return 0
}

// Sampler draws from a Dist like Dist.Sample, with the parameters a
// log-normal derives from its median and p95 (or mean and cv) computed
// once instead of on every draw: two logarithms a draw on a hot path. The
// draws are identical to Dist.Sample's. The Dist must not change while
// the Sampler is in use.
type Sampler struct {
	d         *Dist
	mu, sigma float64
	// how is how count draws: sampleLogNormal (a log-normal with sigma >=
	// 0), sampleFixed (no draw: the count n), or sampleOther (Sample);
	// decided once, not by comparing d.Kind's string on every draw.
	how uint8
	n   int
}

// How a Sampler's count draws.
const (
	sampleOther uint8 = iota
	sampleLogNormal
	sampleFixed
)

// Sampler returns a Sampler of d.
func (d *Dist) Sampler() Sampler {
	s := Sampler{d: d}
	switch d.Kind {
	case KindLogNormal:
		s.mu, s.sigma = d.logNormalParams()
		if s.sigma >= 0 {
			s.how = sampleLogNormal
		}
	case KindFixed:
		s.how, s.n = sampleFixed, roundCount(d.Value)
	}
	return s
}

// Sample draws one value, exactly as Dist.Sample would.
func (s *Sampler) Sample(r *rand.Rand) float64 {
	if s.d.Kind == KindLogNormal {
		if !(s.sigma >= 0) {
			return s.d.MeanValue()
		}
		// distuv.LogNormal's Rand, without its wrapping r in a second
		// rand.Rand: the same NormFloat64 of the same source, so the same
		// draw, about 17 ns sooner.
		return math.Exp(r.NormFloat64()*s.sigma + s.mu)
	}
	return s.d.Sample(r)
}

// count draws one value and rounds it as a token count, exactly as
// roundCount(s.Sample(r)) would; a log-normal's count skips math.Exp where
// it cannot change the count (expCount).
func (s *Sampler) count(r *rand.Rand) int {
	switch s.how {
	case sampleLogNormal:
		return expCount(r.NormFloat64()*s.sigma + s.mu)
	case sampleFixed:
		return s.n // a fixed value draws nothing
	}
	return roundCount(s.Sample(r))
}

// sampleEmpirical picks a value with probability proportional to its
// weight: the first index whose running weight sum exceeds u·total.
func (d *Dist) sampleEmpirical(r *rand.Rand) float64 {
	n := len(d.Values)
	if n == 0 {
		return 0
	}
	if len(d.Weights) != n {
		return d.Values[r.IntN(n)]
	}
	total := 0.0
	for _, w := range d.Weights {
		total += w
	}
	if !(total > 0) {
		return d.Values[r.IntN(n)]
	}
	x := r.Float64() * total
	sum := 0.0
	last := 0
	for i, w := range d.Weights {
		if w <= 0 {
			continue
		}
		sum += w
		last = i
		if x < sum {
			return d.Values[i]
		}
	}
	// Only reachable through rounding (x within an ulp of total).
	return d.Values[last]
}

// String describes the distribution briefly, e.g. "lognormal(median=1200,
// p95=4000)" or "fixed(3)".
func (d Dist) String() string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch d.Kind {
	case "":
		return "unset"
	case KindFixed:
		return "fixed(" + g(d.Value) + ")"
	case KindUniform:
		return "uniform(" + g(d.Min) + ".." + g(d.Max) + ")"
	case KindExponential:
		return "exponential(mean=" + g(d.Mean) + ")"
	case KindLogNormal:
		if d.Median != 0 || d.P95 != 0 {
			return "lognormal(median=" + g(d.Median) + ", p95=" + g(d.P95) + ")"
		}
		return "lognormal(mean=" + g(d.Mean) + ", cv=" + g(d.CV) + ")"
	case KindGamma:
		return "gamma(mean=" + g(d.Mean) + ", cv=" + g(d.CV) + ")"
	case KindEmpirical:
		var b strings.Builder
		b.WriteString("empirical(")
		const show = 4
		for i, v := range d.Values {
			if i == show {
				fmt.Fprintf(&b, ", … %d values", len(d.Values))
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(g(v))
			if len(d.Weights) == len(d.Values) {
				b.WriteString(":" + g(d.Weights[i]))
			}
		}
		b.WriteString(")")
		return b.String()
	}
	return "unknown(" + strconv.Quote(d.Kind) + ")"
}

// KeyType names the type in the scenario reference.
func (Dist) KeyType() string { return "distribution" }

// ScalarSchema is the JSON Schema of a distribution's short form: a number
// or a duration string, fixed at that value.
func (Dist) ScalarSchema() map[string]any { return Duration(0).ScalarSchema() }
