package serve

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// twoEndpoints has a roomy endpoint and one whose RPM bucket holds two,
// refilled one every 2 s (0.5 s of wall time at 4x).
const twoEndpoints = `
name = "node"
duration = "1h"
[[workload]]
name = "chat"
route = "sonnet"
tokens = { input = 100, output = 100 }
demand = { rate = 1 }

[[provider]]
name = "sonnet"
latency = { ttft = { base = "0.1s" }, tpot = { base = "2ms" } }
batch = { turnaround = "2s" }

[[provider]]
name = "tight"
limits = { rpm = 30, burst = "4s" }
latency = { ttft = { base = "0.1s" }, tpot = { base = "1ms" } }
`

// TestNodeSDKs runs the official Node SDKs (openai, @anthropic-ai/sdk)
// against the server: testdata/node/check.mjs. It skips when node or the
// packages are absent (make node-sdks installs them).
func TestNodeSDKs(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	dir := filepath.Join("testdata", "node")
	for _, p := range []string{"openai", filepath.Join("@anthropic-ai", "sdk")} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", p, "package.json")); err != nil {
			t.Skipf("the Node SDKs are not installed in %s (run make node-sdks)", dir)
		}
	}
	s := start(t, twoEndpoints, Options{Speed: 4})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "check.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BASE_URL="+s.URL)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("node check.mjs: %v\n%s%s", err, out, stderr)
	}
	var got struct {
		Chat, ChatStream, Responses, Messages string
		RetryAfter, Remaining                 string
		Retried                               map[string]struct{ Attempts, WaitedMs, RetryAfterMs float64 }
		Notes                                 []string
		Batches                               int
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	for _, n := range got.Notes {
		t.Log(n)
	}
	if textTokens(got.Chat) != 8 || textTokens(got.ChatStream) != 12 || got.Messages == "" || got.Batches != 3 {
		t.Fatalf("answers %+v", got)
	}
	// check.mjs checked that each SDK, called on an emptied bucket, was
	// refused and retried no sooner than the Retry-After said.
	for _, sdk := range []string{"openai", "anthropic"} {
		r, ok := got.Retried[sdk]
		if !ok || r.Attempts < 2 {
			t.Fatalf("%s: %+v: want a 429 and a retry", sdk, r)
		}
		t.Logf("%s: %v attempts, waited %v ms for a retry-after-ms of %v", sdk, r.Attempts, r.WaitedMs, r.RetryAfterMs)
	}
	if r := s.scrape(t)["headroom_client_retries_total"].sum(); r < 2 {
		t.Fatalf("%v retries seen, want at least one per SDK", r)
	}
}
