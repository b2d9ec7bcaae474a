package model

import (
	"testing"

	"github.com/headroom-sim/headroom/workloads"
)

// Each preset retries what its SDK's source retries: the Stainless SDKs
// (openai-python, anthropic-python, openai-go, anthropic-go, openai-node,
// anthropic-typescript) x-should-retry first, then 408, 409, 429 and ≥ 500,
// and their own timeouts; google-genai only 408, 429, 500, 502, 503 and
// 504, headers unread, not its timeouts. A table without a preset retries
// every retryable reason.
func TestRetriedStatusesBySDK(t *testing.T) {
	sdk := []string{"openai-python", "anthropic-python", "openai-go", "anthropic-go", "openai-node", "anthropic-typescript"}
	for _, c := range []struct {
		reason         int
		sdk, google    bool
		customPolicies bool
	}{
		{dimRPM, true, true, true},
		{rsKeyBase + dimTPM, true, true, true},
		{rsOverloaded, true, false, true}, // 529: google-genai does not retry it
		{rsUnavailable, true, true, true},
		{rsServerError, true, true, true},
		{rsGwCrash, true, true, true},
		{rsTimeout, true, false, true},    // not an APIError for google-genai
		{rsSpendCap, false, true, false},  // 429 with x-should-retry: false; google reads no header
		{rsTooLarge, false, false, false}, // 400
		{rsReplicaLost, false, false, false},
		{rsBatchExpired, false, false, false},
	} {
		for _, name := range sdk {
			p := compileRetry(RetrySpec{Preset: name})
			if got := p.retries(c.reason); got != c.sdk {
				t.Errorf("%s retries %s: %v, want %v", name, reasonNames[c.reason], got, c.sdk)
			}
		}
		g, custom := compileRetry(RetrySpec{Preset: "google-genai-retry"}), compileRetry(RetrySpec{Policy: "fixed", Base: 1})
		if got := g.retries(c.reason); got != c.google {
			t.Errorf("google-genai-retry retries %s: %v, want %v", reasonNames[c.reason], got, c.google)
		}
		if got := custom.retries(c.reason); got != c.customPolicies {
			t.Errorf("a custom policy retries %s: %v, want %v", reasonNames[c.reason], got, c.customPolicies)
		}
	}
}

// Against a 529 outage, a google-genai client fails each request at once
// while an SDK client retries it; the Node SDKs wait out a Retry-After of
// any length, which openai-python (over 120 s) does not.
func TestPresetsInASimulation(t *testing.T) {
	run := func(preset string, outage bool, rpm float64) *Results {
		c := mmcConfig(1, 10, 0, 600, 1)
		c.Workloads[0].Client.Retry = RetrySpec{Preset: preset}
		if outage {
			c.Providers[0].Outages = []OutageSpec{{After: 100, Duration: 100, Status: 529}}
		}
		if rpm > 0 {
			c.Providers[0].Limits = LimitsSpec{RPD: rpm, Window: "fixed"}
			c.Duration = 3 * 86400
			c.Interval = 3600
			c.Workloads[0].Demand = workloads.DemandSpec{Count: 3}
		}
		return mustRun(t, c)
	}
	g, s := run("google-genai-retry", true, 0), run("anthropic-typescript", true, 0)
	if g.Summary.Attempts.Retries != 0 || g.Summary.Requests.FailedBy["overloaded_529"] == 0 {
		t.Errorf("google-genai: %d retries, failed %v; want no retries of 529s", g.Summary.Attempts.Retries, g.Summary.Requests.FailedBy)
	}
	if s.Summary.Attempts.Retries == 0 {
		t.Error("anthropic-typescript did not retry a 529")
	}
	// One request a day: the second and third wait about a day for the
	// window (Retry-After far over 120 s).
	node, py := run("openai-node", false, 1), run("openai-python", false, 1)
	if node.Summary.Requests.Completed != 3 {
		t.Errorf("openai-node completed %d of 3 behind a daily limit", node.Summary.Requests.Completed)
	}
	if py.Summary.Requests.FailedBy["retry_after_too_long"] != 2 {
		t.Errorf("openai-python failed %v, want 2 giving up on a Retry-After over 120 s", py.Summary.Requests.FailedBy)
	}
}
