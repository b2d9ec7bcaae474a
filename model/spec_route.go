package model

import (
	"fmt"

	"github.com/headroom-sim/headroom/scenarios/schema"
	"github.com/headroom-sim/headroom/workloads"
)

// Routing strategies.
const (
	StrategyFallback = "fallback" // an ordered chain: the next target when one refuses
	StrategyWeighted = "weighted" // a random split by weight, per attempt
	StrategyOverflow = "overflow" // the first target whose queue is below a threshold
)

// RouteSpec sends a workload's requests to one of several backends
// (providers or clusters): self-hosted first and a hosted API for the
// excess, two API keys or models, and so on. A workload's route names
// either a backend or a route.
type RouteSpec struct {
	Name     string    `toml:"name" default:"required" doc:"what workloads route to; unique among providers, clusters and routes"`
	Strategy string    `toml:"strategy" enum:"fallback|weighted|overflow" noun:"strategy" default:"fallback" doc:"fallback: the first target not cooling down; weighted: a random split by weights, per attempt; overflow: the first target whose queue is below overflow_waiting"`
	Targets  []string  `toml:"targets" default:"required" doc:"1 to 64 providers, clusters or \"provider:key\" (one API key of a provider), in order, no repeats; routes do not nest"`
	Weights  []float64 `toml:"weights" range:"(0,1e15]" doc:"weighted: one number > 0 per target"`
	// OverflowWaiting is, for overflow, how many waiting requests make a
	// target full: a cluster's least-loaded accepting replica, or a
	// provider's concurrency queue (default 1: any wait overflows).
	OverflowWaiting int `toml:"overflow_waiting" unit:"requests" range:"[1,100000000]" default:"1" doc:"overflow: a target is full when this many requests wait at it"`
	// Fallback moves a refused attempt (429 or 5xx) on to the next target
	// at once, before the client sees it (default true for fallback,
	// false otherwise).
	Fallback *bool `toml:"fallback" default:"true for fallback, else false" doc:"a refused attempt (429 or 5xx) moves on to the next target at once, without spending a client attempt; a 400 does not"`
	// Cooldown skips a target for this long after it refused (LiteLLM's
	// cooldown_time is 5 s); 0 = no cooldown.
	Cooldown workloads.Duration `toml:"cooldown" range:"[0s,1d]" default:"0: none" doc:"after a target refuses, it is skipped for this long"`
}

func (r *RouteSpec) applyDefaults() {
	if r.Strategy == "" {
		r.Strategy = StrategyFallback
	}
	if r.OverflowWaiting == 0 {
		r.OverflowWaiting = 1
	}
	if r.Fallback == nil {
		f := r.Strategy == StrategyFallback
		r.Fallback = &f
	}
}

// Validate checks the route on its own; its targets are checked by
// Config.Validate.
func (r *RouteSpec) Validate() error {
	fe := func(k, f string, a ...any) error { return &workloads.FieldError{Key: k, Msg: fmt.Sprintf(f, a...)} }
	if r.Name == "" {
		return fe("name", "must be set")
	}
	if err := schema.Check(r); err != nil {
		return err
	}
	if len(r.Targets) < 1 || len(r.Targets) > 64 {
		return fe("targets", "must name 1 to 64 providers or clusters, got %d", len(r.Targets))
	}
	seen := map[string]bool{}
	for i, t := range r.Targets {
		if seen[t] {
			return fe(fmt.Sprintf("targets[%d]", i), "%q is listed twice", t)
		}
		seen[t] = true
	}
	if r.Strategy == StrategyWeighted {
		if len(r.Weights) != len(r.Targets) {
			return fe("weights", "a weighted route needs one weight per target: %d targets, %d weights", len(r.Targets), len(r.Weights))
		}
	} else if len(r.Weights) > 0 {
		return fe("weights", "weights apply to strategy = \"weighted\" only")
	}
	return nil
}

// splitTarget splits a route target "provider:key" (one API key of a
// provider) into its parts; a plain name has no key.
func splitTarget(t string) (backend, key string) {
	for i := len(t) - 1; i >= 0; i-- {
		if t[i] == ':' {
			return t[:i], t[i+1:]
		}
	}
	return t, ""
}
