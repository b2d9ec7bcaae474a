package workloads

import (
	"math"
	"math/rand/v2"

	"github.com/headroom-sim/headroom/scenarios/schema"
)

// maxTokens bounds every sampled token count, so a heavy lognormal tail
// cannot overflow an int or a KV-cache budget. It is far above any real
// context window, and it is the range of every token key (tag range), so
// configured counts never reach it.
const maxTokens = 1 << 30

// TokenSpec is a workload's token profile.
type TokenSpec struct {
	Input        Dist `toml:"input" unit:"tokens" range:"[0,1073741824]" doc:"prompt length, shared prefix included; each draw is rounded and raised to at least shared_prefix and 1"`
	Output       Dist `toml:"output" unit:"tokens" range:"[0,1073741824]" doc:"tokens the model would generate if not cut off; each draw is rounded and clamped to [1, max_tokens]"`
	MaxTokens    int  `toml:"max_tokens" unit:"tokens" range:"[0,1073741824]" default:"0: none given (the provider's max_output applies)" doc:"the output cap the client sends; also what reserve = \"max_tokens\" and a gateway charge at admission"`
	SharedPrefix int  `toml:"shared_prefix" unit:"tokens" range:"[0,1073741824]" default:"0" doc:"leading prompt tokens identical across requests (the system prompt), which a provider or prefix cache may reuse"`
	Prefixes     int  `toml:"prefixes" range:"[0,16777216]" default:"1" doc:"number of distinct shared prefixes; each request picks one uniformly (> 1 needs shared_prefix)"`
	// PrefixGroup names the shared prefixes: workloads naming the same
	// group send the same ones (one application through several keys or
	// routes), so prompt and prefix caches share their entries.
	PrefixGroup string `toml:"prefix_group" default:"the workload's own prefixes" doc:"workloads naming the same group send the same shared prefixes, so caches share their entries across them (providers scope caches to the organization, not the key)"`
}

// Validate checks both distributions and the integer settings. Errors are
// *FieldError values keyed by TOML key ("input.p95", "max_tokens").
func (t *TokenSpec) Validate() error {
	if err := schema.Check(t); err != nil {
		return err
	}
	if t.Input.IsZero() {
		return fieldErrorf("input", "missing; give the prompt token distribution, e.g. input = { dist = \"lognormal\", median = 1200, p95 = 4000 }")
	}
	if err := t.Input.Validate(); err != nil {
		return Prefix("input", err)
	}
	if t.Output.IsZero() {
		return fieldErrorf("output", "missing; give the output token distribution, e.g. output = { dist = \"lognormal\", median = 250, p95 = 900 }")
	}
	if err := t.Output.Validate(); err != nil {
		return Prefix("output", err)
	}
	if t.PrefixGroup != "" && t.SharedPrefix == 0 {
		return fieldErrorf("prefix_group", "names the shared prefixes, but shared_prefix is 0; set shared_prefix to their length")
	}
	if t.Prefixes > 1 && t.SharedPrefix == 0 {
		return fieldErrorf("prefixes", "is %d but shared_prefix is 0; set shared_prefix to the prefix length", t.Prefixes)
	}
	return nil
}

// Sample draws one request: input = max(round(Input), SharedPrefix, 1),
// output = round(Output) clamped to [1, MaxTokens] (no upper clamp when
// MaxTokens is 0), and the index of its shared prefix, uniform in
// [0, Prefixes). Counts are also capped at 2³⁰. It does not allocate.
func (t *TokenSpec) Sample(r *rand.Rand) (input, output, prefix int) {
	input = max(roundCount(t.Input.Sample(r)), t.SharedPrefix, 1)
	input = min(input, maxTokens)
	output = max(roundCount(t.Output.Sample(r)), 1)
	if t.MaxTokens > 0 {
		output = min(output, t.MaxTokens)
	}
	if t.Prefixes > 1 {
		prefix = r.IntN(t.Prefixes)
	}
	return input, output, prefix
}

// TokenSampler draws like TokenSpec.Sample with its distributions'
// parameters computed once (see Sampler); the draws are identical.
type TokenSampler struct {
	t       *TokenSpec
	in, out Sampler
	// Fill's settings, derived once: the least prompt, the output cap
	// (maxTokens when there is none), a fixed output's clamped count
	// (fixOut), the number of prefixes and, when it is a power of two,
	// the mask of a prefix index. Fill reads them from here at their use
	// rather than hold them in registers, which the compiler would reload
	// after every call of the loop.
	floor, capOut, out0 int
	fixOut              bool
	nPre                int
	mask                uint64
}

// Sampler returns a TokenSampler of t, which must not change while it is
// in use.
func (t *TokenSpec) Sampler() TokenSampler {
	s := TokenSampler{t: t, in: t.Input.Sampler(), out: t.Output.Sampler()}
	s.floor, s.capOut, s.nPre = max(t.SharedPrefix, 1), t.MaxTokens, t.Prefixes
	if s.capOut <= 0 {
		s.capOut = maxTokens // no cap: counts are at most maxTokens anyway
	}
	// A fixed output draws nothing: its count, clamped, is the same for
	// every request.
	s.fixOut = s.out.how == sampleFixed
	s.out0 = min(max(s.out.n, 1), s.capOut)
	// r.IntN(n) of a power of two n is r.Uint64() masked (math/rand/v2's
	// uint64n on a 64-bit platform): the same draw without two calls.
	// TestTokenFillDrawsLikeSample holds the two to each other.
	if n := s.nPre; n > 1 && n&(n-1) == 0 && !is32bit {
		s.mask = uint64(n - 1)
	}
	return s
}

// Sample draws a request's prompt and output lengths and prefix index,
// exactly as TokenSpec.Sample would.
func (s *TokenSampler) Sample(r *rand.Rand) (input, output, prefix int) {
	t := s.t
	input = max(s.in.count(r), t.SharedPrefix, 1)
	input = min(input, maxTokens)
	output = max(s.out.count(r), 1)
	if t.MaxTokens > 0 {
		output = min(output, t.MaxTokens)
	}
	if t.Prefixes > 1 {
		prefix = r.IntN(t.Prefixes)
	}
	return input, output, prefix
}

// TokenDraw is one request's drawn prompt length, output length and
// prefix index (TokenSampler.Fill).
type TokenDraw struct{ In, Out, Prefix int32 }

// Fill draws the next len(dst) requests into dst, in order: exactly what
// as many calls of Sample would draw, from the same stream in the same
// order, without a call per request.
func (s *TokenSampler) Fill(r *rand.Rand, dst []TokenDraw) {
	for i := range dst {
		// count, with its common cases written in (a call less each).
		var input int
		switch s.in.how {
		case sampleLogNormal:
			// expCount, its common case written in: a call less, and a
			// call less after which the loop's values are reloaded.
			x := r.NormFloat64()*s.in.sigma + s.in.mu
			input = -1
			if x > -40 && x < 22 {
				y := tableExp(x)
				if n := float64(int64(y*(1+expSlack) + 0.5)); y*(1-expSlack) >= n-0.5 && n < maxTokens {
					input = int(n)
				}
			}
			if input < 0 {
				input = expCountSlow(x)
			}
		case sampleFixed:
			input = s.in.n
		default:
			input = s.in.count(r)
		}
		d := &dst[i]
		d.In = int32(min(max(input, s.floor), maxTokens))
		if s.fixOut {
			d.Out = int32(s.out0)
		} else {
			output := 0
			if s.out.how == sampleLogNormal {
				output = expCount(r.NormFloat64()*s.out.sigma + s.out.mu)
			} else {
				output = s.out.count(r)
			}
			d.Out = int32(min(max(output, 1), s.capOut))
		}
		d.Prefix = 0
		switch {
		case s.mask != 0:
			d.Prefix = int32(r.Uint64() & s.mask)
		case s.nPre > 1:
			d.Prefix = int32(r.IntN(s.nPre))
		}
	}
}

// is32bit is set on a platform whose int has 32 bits, where math/rand/v2
// draws IntN differently.
const is32bit = ^uint(0)>>32 == 0

// roundCount rounds x to the nearest integer in [0, maxTokens]; NaN gives 0.
func roundCount(x float64) int {
	switch {
	case !(x > 0):
		return 0
	case x >= maxTokens:
		return maxTokens
	}
	return int(math.Round(x))
}

// MeanInput approximates the mean prompt length as max(mean of Input,
// SharedPrefix, 1). It ignores rounding and the per-request clamping in
// Sample, so it is exact only when the clamps never bind.
func (t *TokenSpec) MeanInput() float64 {
	return math.Max(math.Max(t.Input.MeanValue(), float64(t.SharedPrefix)), 1)
}

// MeanOutput approximates the mean output length as the mean of Output
// clamped to [1, MaxTokens]. It ignores rounding and the per-request
// clamping in Sample (a cap lowers the true mean more than clamping the
// mean does), so it is exact only when the clamps never bind.
func (t *TokenSpec) MeanOutput() float64 {
	m := math.Max(t.Output.MeanValue(), 1)
	if t.MaxTokens > 0 {
		m = math.Min(m, float64(t.MaxTokens))
	}
	return m
}
