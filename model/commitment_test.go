package model

import (
	"math"
	"testing"

	"github.com/headroom-sim/headroom/workloads"
)

// TestCommitmentProrated: a tier's fixed price is prorated to the horizon
// (a month is 730 hours) and is in every cost figure: the summary, its
// parts, the provider's, the series, and the workloads' shares by their
// tokens there; a provider no workload reaches is billed in the total.
func TestCommitmentProrated(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for _, c := range []struct {
		per  string
		usd  float64
		want float64 // over a 2-hour run
	}{
		{"", 730, 2},          // a month by default: $1 an hour
		{"month", 1460, 4},    // $2 an hour
		{"hour", 10, 20},      // $10 an hour
		{"day", 24, 2},        // $1 an hour
		{"year", 8760, 2},     // $1 an hour
		{"horizon", 123, 123}, // the whole run
	} {
		cfg := mmcConfig(2, 4, 4, 7200, 1)
		cfg.Workloads = append(cfg.Workloads, cfg.Workloads[0])
		cfg.Workloads[1].Name = "more"
		cfg.Workloads[1].Demand.Rate = 6 // three times the tokens of "jobs"
		cfg.Providers[0].Price = PriceSpec{Input: 1, Output: 1, Commitment: c.usd, CommitmentPer: c.per}
		cfg.Providers = append(cfg.Providers, ProviderSpec{Name: "idle", Price: PriceSpec{Commitment: 730}})
		r := mustRun(t, cfg)
		cost := r.Summary.Cost
		idle := 2.0 // $1 an hour, reached by no workload
		if !near(cost.Commitment, c.want+idle) {
			t.Fatalf("per %q: commitment %v, want %v", c.per, cost.Commitment, c.want+idle)
		}
		tokens := cost.Input + cost.Output
		if !near(cost.Total, tokens+c.want+idle) {
			t.Errorf("per %q: total %v, want tokens %v + commitments %v", c.per, cost.Total, tokens, c.want+idle)
		}
		if b := r.Backends[0].Cost; !near(b.Commitment, c.want) || !near(b.Total, b.Input+b.Output+c.want) {
			t.Errorf("per %q: provider cost %+v", c.per, b)
		}
		if b := r.Backends[1].Cost; !near(b.Commitment, idle) || !near(b.Total, idle) {
			t.Errorf("per %q: idle provider cost %+v", c.per, b)
		}
		var series float64
		for _, v := range r.Series.CostUSD {
			series += v
		}
		if !near(series, cost.Total) {
			t.Errorf("per %q: series %v, total %v", c.per, series, cost.Total)
		}
		// Shares by tokens: "more" sent about three times the tokens.
		jobs, more := r.Workloads[0].Summary.Cost.Commitment, r.Workloads[1].Summary.Cost.Commitment
		if !near(jobs+more, c.want) || math.Abs(more/jobs-3) > 0.2 {
			t.Errorf("per %q: shares %v and %v of %v, want about 1:3", c.per, jobs, more, c.want)
		}
	}
}

// TestCommitmentCost: a fixed price is prorated by time; an interrupted
// run is charged for the time it ran, "horizon" included.
func TestCommitmentCost(t *testing.T) {
	for _, c := range []struct {
		usd               float64
		per               string
		horizon, duration float64
		want              float64
	}{
		{730, "month", 3600, 7200, 1},
		{100, "horizon", 3600, 7200, 50},
		{100, "horizon", 7200, 7200, 100},
		{0, "hour", 3600, 3600, 0},
		{5, "hour", 0, 3600, 0},
	} {
		if got := CommitmentCost(c.usd, c.per, c.horizon, c.duration); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("CommitmentCost(%v, %q, %v, %v) = %v, want %v", c.usd, c.per, c.horizon, c.duration, got, c.want)
		}
	}
}

func TestCommitmentPerNeedsCommitment(t *testing.T) {
	p := ProviderSpec{Name: "api", Price: PriceSpec{Input: 1, CommitmentPer: "hour"}}
	p.applyDefaults()
	err := p.Validate()
	fe, ok := err.(*workloads.FieldError)
	if !ok || fe.Key != "price.commitment_per" {
		t.Fatalf("commitment_per without commitment: %v", err)
	}
}
