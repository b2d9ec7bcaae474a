package model

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/headroom-sim/headroom/scenarios/schema"
	"github.com/headroom-sim/headroom/workloads"
)

// RetrySpec is a client retry policy. In TOML it is either the name of a
// preset (`retry = "anthropic-python"`) or a table; a table may start from a
// preset and override some fields
// (`retry = { preset = "openai-python", max_attempts = 5 }`).
type RetrySpec struct {
	Preset        string             `toml:"preset" enum:"anthropic-go|anthropic-python|anthropic-typescript|google-genai|google-genai-retry|none|openai-go|openai-node|openai-python" noun:"retry preset" doc:"start from this SDK's default policy; the other keys override it"`
	Policy        string             `toml:"policy" enum:"none|fixed|exponential" noun:"policy" doc:"none never retries; fixed waits base; exponential waits base × multiplier^n"`
	Base          workloads.Duration `toml:"base" range:"[0s,1d]" doc:"first backoff (> 0 for a retrying policy)"`
	Max           workloads.Duration `toml:"max" range:"[0s,1d]" default:"the preset's; max(base, 60s) without one" doc:"backoff cap, applied before jitter"`
	Multiplier    float64            `toml:"multiplier" range:"[1,1000]" default:"the preset's; 2 without one" doc:"growth per retry (exponential)"`
	Jitter        string             `toml:"jitter" enum:"none|full|equal|decorrelated|sdk|additive|up" noun:"jitter" default:"the preset's; none without one" doc:"randomisation of each backoff"`
	JitterAmount  float64            `toml:"jitter_amount" range:"[0,1000]" default:"the preset's; 0 without one (0.5 for up)" doc:"additive: seconds added (U(0, a)); up: a factor (× U(1, 1 + a))"`
	MaxAttempts   int                `toml:"max_attempts" range:"[1,1000]" default:"the preset's; 3 without one (1 for policy none)" doc:"attempts including the first; after this many refusals the request fails with the last refusal's reason"`
	RetryAfter    string             `toml:"retry_after" enum:"honor|ignore" noun:"Retry-After handling" default:"the preset's; honor without one" doc:"whether to wait for the server's Retry-After"`
	RetryAfterCap workloads.Duration `toml:"retry_after_cap" range:"[0s,1d]" default:"the preset's; 0 (uncapped) without one" doc:"the longest Retry-After honoured"`
	OverCap       string             `toml:"over_cap" enum:"backoff|give-up|clamp" noun:"over-cap action" default:"the preset's; backoff without one" doc:"when Retry-After exceeds the cap: use the backoff instead, fail the request (retry_after_too_long), or wait exactly the cap"`
	JitterHeader  bool               `toml:"jitter_retry_after" doc:"apply the jitter to an honoured Retry-After too"`
	// Statuses says which refusals the client retries, by their HTTP
	// status (see httpStatus).
	Statuses string `toml:"statuses" enum:"any|sdk|google-genai" noun:"retried statuses" default:"the preset's; any without one" doc:"which refusals are retried: any (every retryable reason), sdk (408, 409, 429, ≥ 500 and timeouts; x-should-retry obeyed) or google-genai (408, 429, 500, 502, 503, 504; timeouts and x-should-retry not)"`
}

// DecodeScalar reads the short form, a preset's name: retry =
// "openai-python".
func (r *RetrySpec) DecodeScalar(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("expected a preset name (%s) or a table, got %s", strings.Join(RetryPresetNames(), ", "), schema.TypeWords(v))
	}
	*r = RetrySpec{Preset: s}
	return nil
}

// RetryPresets are the official SDKs' default retry behaviours, read from
// their source (see research notes, table a2). Numbers are data: override
// any field in the scenario.
var retryPresets = map[string]RetrySpec{
	// openai-python 3.3.x: 2 retries, min(0.5*2^n, 8) * (1 - 0.25U);
	// Retry-After honoured up to 120 s, longer means give up.
	"openai-python": {Policy: "exponential", Base: 0.5, Max: 8, Multiplier: 2, Jitter: "sdk", MaxAttempts: 3, RetryAfter: "honor", RetryAfterCap: 120, OverCap: "give-up", Statuses: "sdk"},
	// anthropic-sdk-python: same backoff; Retry-After honoured up to 60 s,
	// longer falls back to backoff; 529 is retried.
	"anthropic-python": {Policy: "exponential", Base: 0.5, Max: 8, Multiplier: 2, Jitter: "sdk", MaxAttempts: 3, RetryAfter: "honor", RetryAfterCap: 60, OverCap: "backoff", Statuses: "sdk"},
	// openai (Node, src/client.ts retryRequest): retry-after-ms, then
	// Retry-After (seconds or a date), honoured without a cap; otherwise
	// min(0.5·2^n, 8) × (1 − 0.25U); 2 retries; shouldRetry: x-should-retry,
	// then 408, 409, 429, ≥ 500.
	"openai-node": {Policy: "exponential", Base: 0.5, Max: 8, Multiplier: 2, Jitter: "sdk", MaxAttempts: 3, RetryAfter: "honor", OverCap: "backoff", Statuses: "sdk"},
	// @anthropic-ai/sdk (src/client.ts): the same client as openai-node.
	"anthropic-typescript": {Policy: "exponential", Base: 0.5, Max: 8, Multiplier: 2, Jitter: "sdk", MaxAttempts: 3, RetryAfter: "honor", OverCap: "backoff", Statuses: "sdk"},
	// openai-go v3 (internal/requestconfig): backoff capped at 8 s
	// (DefaultMaxServerDelay); Retry-After honoured up to 2 minutes
	// (defaultMaxRetryAfterDelay), longer means no retry: the 429 is
	// returned. Checked against the SDK by model/serve's closed-loop test.
	"openai-go": {Policy: "exponential", Base: 0.5, Max: 8, Multiplier: 2, Jitter: "sdk", MaxAttempts: 3, RetryAfter: "honor", RetryAfterCap: 120, OverCap: "give-up", Statuses: "sdk"},
	// anthropic-sdk-go: Retry-After honoured uncapped.
	"anthropic-go": {Policy: "exponential", Base: 0.5, Max: 8, Multiplier: 2, Jitter: "sdk", MaxAttempts: 3, RetryAfter: "honor", OverCap: "backoff", Statuses: "sdk"},
	// google-genai (python): no retries by default.
	"google-genai": {Policy: "none", MaxAttempts: 1, RetryAfter: "ignore", OverCap: "backoff"},
	// google-genai with HttpRetryOptions() (_api_client.py retry_args): 5
	// attempts, wait_exponential_jitter(initial=1, max=60, exp_base=2,
	// jitter=1); only APIErrors with 408, 429, 500, 502, 503 or 504 are
	// retried (not 529, not 409, not timeouts); headers ignored.
	"google-genai-retry": {Policy: "exponential", Base: 1, Max: 60, Multiplier: 2, Jitter: "additive", JitterAmount: 1, MaxAttempts: 5, RetryAfter: "ignore", OverCap: "backoff", Statuses: "google-genai"},
	// none: a client that never retries.
	"none": {Policy: "none", MaxAttempts: 1, RetryAfter: "ignore", OverCap: "backoff"},
}

// RetryPresetNames lists the presets, sorted.
func RetryPresetNames() []string { return slices.Sorted(maps.Keys(retryPresets)) }

// applyDefaults fills the fields left zero from the preset (default
// "anthropic-python" when nothing at all is given).
func (r *RetrySpec) applyDefaults() {
	if r.Preset == "" && r.Policy == "" {
		r.Preset = "anthropic-python"
	}
	if p, ok := retryPresets[r.Preset]; ok {
		if r.Policy == "" {
			r.Policy = p.Policy
		}
		if r.Base == 0 {
			r.Base = p.Base
		}
		if r.Max == 0 {
			r.Max = p.Max
		}
		if r.Multiplier == 0 {
			r.Multiplier = p.Multiplier
		}
		if r.Jitter == "" {
			r.Jitter = p.Jitter
		}
		if r.JitterAmount == 0 {
			r.JitterAmount = p.JitterAmount
		}
		if r.MaxAttempts == 0 {
			r.MaxAttempts = p.MaxAttempts
		}
		if r.RetryAfter == "" {
			r.RetryAfter = p.RetryAfter
		}
		if r.RetryAfterCap == 0 {
			r.RetryAfterCap = p.RetryAfterCap
		}
		if r.OverCap == "" {
			r.OverCap = p.OverCap
		}
		if r.Statuses == "" {
			r.Statuses = p.Statuses
		}
	}
	if r.Statuses == "" {
		r.Statuses = "any"
	}
	if r.Multiplier == 0 {
		r.Multiplier = 2
	}
	if r.Jitter == "" {
		r.Jitter = "none"
	}
	if r.RetryAfter == "" {
		r.RetryAfter = "honor"
	}
	if r.OverCap == "" {
		r.OverCap = "backoff"
	}
	if r.MaxAttempts == 0 {
		if r.Policy == "none" {
			r.MaxAttempts = 1
		} else {
			r.MaxAttempts = 3
		}
	}
	if r.Max == 0 {
		r.Max = workloads.Duration(math.Max(float64(r.Base), 60))
	}
	if r.Jitter == "up" && r.JitterAmount == 0 {
		r.JitterAmount = 0.5
	}
}

// Validate checks the policy after defaults.
func (r *RetrySpec) Validate() error {
	c := *r
	c.applyDefaults()
	if err := schema.Check(&c); err != nil {
		return err
	}
	if c.Policy != "none" && c.Base <= 0 {
		return &workloads.FieldError{Key: "base", Msg: "must be > 0 for a retrying policy"}
	}
	return nil
}

// retryPolicy is a RetrySpec compiled for the hot path.
type retryPolicy struct {
	attempts   int
	kind       uint8 // 0 none, 1 fixed, 2 exponential
	base, max  float64
	mult       float64
	jitter     uint8
	jitterAmt  float64
	honorRA    bool
	raCap      float64
	overCap    uint8 // 0 backoff, 1 give-up, 2 clamp
	jitterHead bool
	statuses   uint8 // stAny, stSDK, stGoogle
}

// Which refusals a client retries (RetrySpec.Statuses).
const (
	stAny    uint8 = iota // every reason marked retryable
	stSDK                 // the Stainless SDKs: x-should-retry, then 408, 409, 429, ≥ 500; timeouts
	stGoogle              // google-genai: 408, 429, 500, 502, 503, 504
)

// retries reports whether the client retries an attempt refused for
// reason. The SDKs decide on the response's HTTP status and headers
// (httpStatus); a reason that is no response (a lost request, an expired
// batch job) is never retried, and a client timeout only by the SDKs that
// retry connection errors.
func (p *retryPolicy) retries(reason int) bool {
	if p.statuses == stAny {
		return retryable(reason)
	}
	status, shouldRetry := httpStatus(reason)
	if status == 0 {
		return reason == rsTimeout && p.statuses == stSDK
	}
	if p.statuses == stSDK {
		if shouldRetry != 0 {
			return shouldRetry > 0
		}
		return status == 408 || status == 409 || status == 429 || status >= 500
	}
	switch status {
	case 408, 429, 500, 502, 503, 504:
		return true
	}
	return false
}

// httpStatus is the HTTP status a client sees for a refusal, 0 when it
// sees none (its own timeout, a lost request, an expired batch job, its
// own decision), and the x-should-retry header sent with it: -1 false, +1
// true, 0 none. Backends say false on refusals that can never succeed.
func httpStatus(reason int) (status int, shouldRetry int) {
	switch {
	case reason < rsConcurrency: // org and key rate limits
		return 429, 0
	}
	switch reason {
	case rsConcurrency, rsBatchQueue, rsGwUnits, rsGwKeyUnits, rsGwStreams, rsGwKeyStreams:
		return 429, 0
	case rsSpendCap:
		return 429, -1
	case rsTooLarge, rsGwTooLarge:
		return 400, -1
	case rsQueueFull, rsUnavailable, rsReplicaFailure, rsGwShed, rsGwStoreDown:
		return 503, 0
	case rsOverloaded:
		return 529, 0
	case rsServerError:
		return 500, 0
	case rsGwCrash:
		return 502, 0
	}
	return 0, 0 // rsTimeout, rsReplicaLost, rsBatchExpired, rsRetryAfterCap
}

const (
	jitNone = iota
	jitFull
	jitEqual
	jitDecorrelated
	jitSDK
	jitAdditive
	jitUp
)

func compileRetry(r RetrySpec) retryPolicy {
	r.applyDefaults()
	p := retryPolicy{attempts: r.MaxAttempts, base: float64(r.Base), max: float64(r.Max), mult: r.Multiplier,
		jitterAmt: r.JitterAmount, honorRA: r.RetryAfter == "honor", raCap: float64(r.RetryAfterCap), jitterHead: r.JitterHeader}
	switch r.Policy {
	case "fixed":
		p.kind = 1
	case "exponential":
		p.kind = 2
	}
	switch r.Jitter {
	case "full":
		p.jitter = jitFull
	case "equal":
		p.jitter = jitEqual
	case "decorrelated":
		p.jitter = jitDecorrelated
	case "sdk":
		p.jitter = jitSDK
	case "additive":
		p.jitter = jitAdditive
	case "up":
		p.jitter = jitUp
	}
	switch r.OverCap {
	case "give-up":
		p.overCap = 1
	case "clamp":
		p.overCap = 2
	}
	switch r.Statuses {
	case "sdk":
		p.statuses = stSDK
	case "google-genai":
		p.statuses = stGoogle
	}
	return p
}

// delay returns how long to wait before retry number n+1 (n = retries
// already taken, 0-based) given the server's Retry-After (seconds; <= 0 when
// absent) and the previous delay (for decorrelated jitter). ok is false when
// the client gives up.
func (p *retryPolicy) delay(n int, retryAfter, prev float64, r *rand.Rand) (d float64, ok bool) {
	if p.kind == 0 || n+1 >= p.attempts {
		return 0, false
	}
	if p.honorRA && retryAfter > 0 {
		if p.raCap <= 0 || retryAfter <= p.raCap {
			d = retryAfter
			if p.jitterHead {
				d = p.jitterOf(d, prev, r)
			}
			return d, true
		}
		switch p.overCap {
		case 1:
			return 0, false
		case 2:
			return p.raCap, true
		}
	}
	b := p.base
	if p.kind == 2 {
		b = p.base * math.Pow(p.mult, float64(n))
	}
	if b > p.max {
		b = p.max
	}
	return p.jitterOf(b, prev, r), true
}

func (p *retryPolicy) jitterOf(b, prev float64, r *rand.Rand) float64 {
	switch p.jitter {
	case jitFull:
		return b * r.Float64()
	case jitEqual:
		return b/2 + b/2*r.Float64()
	case jitDecorrelated:
		if prev < p.base {
			prev = p.base
		}
		d := p.base + (3*prev-p.base)*r.Float64()
		return math.Min(p.max, d)
	case jitSDK:
		return b * (1 - 0.25*r.Float64())
	case jitAdditive:
		return math.Min(p.max, b+p.jitterAmt*r.Float64())
	case jitUp:
		return b * (1 + p.jitterAmt*r.Float64())
	}
	return b
}

// KeyType names the type in the scenario reference.
func (RetrySpec) KeyType() string { return "preset name or table" }

// ScalarSchema is the JSON Schema of a retry policy given by a preset's
// name.
func (RetrySpec) ScalarSchema() map[string]any {
	names := []any{}
	for _, n := range RetryPresetNames() {
		names = append(names, n)
	}
	return map[string]any{"type": "string", "enum": names}
}
