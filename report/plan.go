package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/headroom-sim/headroom/model"
)

// Plan is a batch of simulations in a fixed canonical order, and what the
// document built from their results says. A batch is grid points × variants
// × replications; work item k runs grid point p, variant v and replication r
// where
//
//	k = (p·V + v)·R + r
//
// with V variants and R replications (a run or a compare has one grid
// point). The plan is all a document needs besides the results, so a batch
// split into shards and merged gives the same bytes as one process.
type Plan struct {
	// Command is "run", "compare", "sweep" or "serve" (a live session).
	Command   string       `json:"command"`
	Generator string       `json:"generator"`
	Scenario  ScenarioInfo `json:"scenario"`
	// Variants names the variants at every grid point, the base first
	// ("base" for a scenario's base; a compare names its files).
	Variants []string `json:"variants"`
	// Replications per variant and grid point, at least 1.
	Replications int `json:"replications"`
	// Summarize adds Replications and the key figures' Summary to the
	// document (a sweep also gets its points and curves). A plain run
	// leaves it false, so its JSON stays as it was before replications.
	Summarize bool `json:"summarize"`
	// Grid is the swept grid of a sweep; nil otherwise.
	Grid *GridPlan `json:"grid,omitempty"`
	// SLOs are the workloads' latency objectives, which Results do not
	// carry; the HTML report draws them. They are not in the document.
	SLOs []SLO `json:"slos,omitempty"`
	// Warnings go into the document as they are (Document.Warnings).
	Warnings []Warning `json:"warnings,omitempty"`
}

// SLO is one workload's latency objectives, in seconds (0: none).
type SLO struct {
	Workload string  `json:"workload"`
	TTFTS    float64 `json:"ttft_s,omitempty"`
	TPOTS    float64 `json:"tpot_s,omitempty"`
	E2ES     float64 `json:"e2e_s,omitempty"`
}

// SLOsOf returns the latency objectives of the configurations' workloads
// (those that set any), each distinct one once, in order.
func SLOsOf(cfgs ...model.Config) []SLO {
	var out []SLO
	seen := map[SLO]bool{}
	for _, c := range cfgs {
		for _, w := range c.Workloads {
			if w.SLO.TTFT > 0 || w.SLO.TPOT > 0 || w.SLO.E2E > 0 {
				s := SLO{Workload: w.Name, TTFTS: float64(w.SLO.TTFT), TPOTS: float64(w.SLO.TPOT), E2ES: float64(w.SLO.E2E)}
				if !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// GridPlan is the grid of a sweep: the cartesian product of its
// parameters' values, the first parameter varying slowest.
type GridPlan struct {
	// Kind is "concurrency" or "rate" for a step-load sweep of one load
	// parameter, else "grid".
	Kind string `json:"kind"`
	// Workload is the workload a load parameter varies ("" without one).
	Workload string       `json:"workload,omitempty"`
	Params   []SweepParam `json:"params"`
	Points   []GridPoint  `json:"points"`
}

// SweepParam is one swept parameter: a scenario key path (or "concurrency"
// or "rate" for a step-load level) and its values.
type SweepParam struct {
	Key string `json:"key"`
	// Values are as written on the command line.
	Values []string `json:"values"`
	// Numbers are the values as numbers, when every value is one.
	Numbers []float64 `json:"numbers,omitempty"`
	// Linked marks a key stepped together with the parameter before it
	// (a linked --param: one index over both value lists), not a further
	// axis of the grid.
	Linked bool `json:"linked,omitempty"`
}

// GridPoint is one combination of parameter values.
type GridPoint struct {
	// Label names the point, "concurrency 8" or "rpm=4000, max_concurrency=32".
	Label string `json:"label"`
	// Values holds each parameter's value at this point, in Params order.
	Values []string `json:"values"`
}

// NumPoints is the number of grid points (1 without a grid).
func (p *Plan) NumPoints() int {
	if p.Grid == nil {
		return 1
	}
	return len(p.Grid.Points)
}

// NumItems is the number of work items: points × variants × replications.
func (p *Plan) NumItems() int { return p.NumPoints() * len(p.Variants) * p.Replications }

// Item returns the grid point, variant and replication of work item k.
func (p *Plan) Item(k int) (point, variant, rep int) {
	r := k % p.Replications
	k /= p.Replications
	return k / len(p.Variants), k % len(p.Variants), r
}

// Index is the work item of grid point, variant and replication.
func (p *Plan) Index(point, variant, rep int) int {
	return (point*len(p.Variants)+variant)*p.Replications + rep
}

// Check reports a plan that cannot be assembled.
func (p *Plan) Check() error {
	switch {
	case p.Replications < 1:
		return fmt.Errorf("plan: %d replications, need at least 1", p.Replications)
	case len(p.Variants) == 0:
		return fmt.Errorf("plan: no variants")
	case p.Grid != nil && len(p.Grid.Points) == 0:
		return fmt.Errorf("plan: a grid without points")
	}
	if p.Grid != nil {
		for i, pt := range p.Grid.Points {
			if len(pt.Values) != len(p.Grid.Params) {
				return fmt.Errorf("plan: grid point %d has %d values for %d parameters", i, len(pt.Values), len(p.Grid.Params))
			}
		}
	}
	return nil
}

// Output is an assembled document: a Document for run and compare, a
// SweepDocument for sweep.
type Output struct {
	Document *Document      // never nil
	Sweep    *SweepDocument // nil unless the plan has a grid
}

// WriteJSON writes the document as indented JSON.
func (o *Output) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if o.Sweep != nil {
		return enc.Encode(o.Sweep)
	}
	return enc.Encode(o.Document)
}

// Assemble builds the document of a plan from the results of all its work
// items, results[k] being item k's. Variants holds each variant's first
// replication (for a sweep: each grid point's, point-major); with
// Summarize, Summary holds every variant's key figures over all
// replications, each non-base variant paired by replication with the base
// at the same grid point.
func Assemble(p *Plan, results []*model.Results) (*Output, error) {
	c, err := NewCollector(p)
	if err != nil {
		return nil, err
	}
	if len(results) != p.NumItems() {
		return nil, fmt.Errorf("assemble: %d results for %d work items", len(results), p.NumItems())
	}
	for k, r := range results {
		if r == nil {
			pt, v, rep := p.Item(k)
			return nil, fmt.Errorf("assemble: no result for work item %d (point %d, variant %q, replication %d)", k, pt, p.Variants[v], rep)
		}
		if err := c.Add(k, r); err != nil {
			return nil, err
		}
	}
	return c.Output()
}
