package plan

import (
	"context"
	"math"
	"testing"

	"github.com/headroom-sim/headroom/scenarios"
)

// TestTierOptionsUseTheProviderCommitment: a knob whose options pick tiers
// sets each tier's limits and its commitment in the provider's own
// [provider.price] commitment, with no option price: the plan's cost is
// the run's, commitment included, so the cheapest tier that holds wins and
// a dearer one is dearer by exactly the difference in commitments.
func TestTierOptionsUseTheProviderCommitment(t *testing.T) {
	src := `name = "tiers"
seed = 5
duration = "1h"
interval = "5m"

[[workload]]
name = "chat"
route = "api"
tokens = { input = 500, output = 50, max_tokens = 100 }
demand = { unit = "requests/min", rate = 600 }
client = { retry = "none" }
slo = { ttft = "5s" }

[[provider]]
name = "api"
  [provider.limits]
  rpm = 300
  [provider.latency]
  ttft = { base = "400ms" }
  tpot = { mean = "10ms" }
  [provider.price]
  input = 1.0
  output = 5.0

[plan]
replications = 1
recheck = 1
window = "none"
max_failed = 0.001

[[plan.knob]]
name = "tier"
  [[plan.knob.option]]
  name = "tier 1"
  set = { "provider.api.limits.rpm" = 300 }
  [[plan.knob.option]]
  name = "tier 2"
  set = { "provider.api.limits.rpm" = 2000, "provider.api.price.commitment" = 730 }
  [[plan.knob.option]]
  name = "tier 3"
  set = { "provider.api.limits.rpm" = 4000, "provider.api.price.commitment" = 2920 }
`
	sc, err := scenarios.LoadBytes([]byte(src), "tiers.toml")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Compile(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Run(context.Background(), pr, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if d.Winner == nil {
		t.Fatal("nothing holds")
	}
	w := d.Candidates[*d.Winner]
	if w.Values[0] != "tier 2" {
		t.Fatalf("winner %q, want tier 2 (tier 1 refuses half the requests, tier 3 costs more)", w.Label)
	}
	seen := false
	for _, c := range d.Candidates {
		if c.Values[0] == "tier 3" && c.Status != "skipped" {
			seen = true
			// The same requests complete at both tiers: only the
			// commitment differs, $4 against $1 for the hour.
			if diff := c.CostUSD.Mean - w.CostUSD.Mean; math.Abs(diff-3) > 1e-6 {
				t.Errorf("tier 3 costs %v more than tier 2, want the commitments' difference, $3", diff)
			}
		}
	}
	if !seen {
		t.Error("tier 3 was not simulated")
	}
	// The lower bound a candidate is pruned by counts the commitment.
	cfg, err := sc.Config([]scenarios.Override{{Path: "provider.api.price.commitment", Value: 2920.0}})
	if err != nil {
		t.Fatal(err)
	}
	if got := gpuFloor(cfg); math.Abs(got-4) > 1e-9 {
		t.Errorf("floor %v, want the hour's commitment, $4", got)
	}
}
