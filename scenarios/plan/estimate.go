package plan

import (
	"context"
	"math"

	"github.com/headroom-sim/headroom/model"
)

// Estimate is what a plan is expected to cost, before it runs.
type Estimate struct {
	// PerRun is one simulation of the dearest candidate probed: the
	// scenario as written, every knob at its first and at its last value,
	// and each value of each knob that is not monotone with the others as
	// written. (Its Bytes are one simulation's peak.)
	PerRun model.Work
	// Simulations is how many simulations the plan is expected to run, at
	// most: per combination of the knobs that are not monotone (of this
	// shard's) and of the monotone ones but the largest, a gallop and a
	// bisection over the largest (2⌈log₂ n⌉ + 2 evaluations, at most n),
	// each at every replication, at most Exhaustive; then the winner's
	// re-check, and the growth's evaluations (GrowthSimulations).
	Simulations int
	// GrowthSimulations is the max_load search's share of Simulations:
	// growthEvaluations evaluations at every replication.
	GrowthSimulations int
	// Exhaustive is every candidate (of this shard) at every replication.
	Exhaustive int
	// Events is the events of Simulations: PerRun's each, the growth's at
	// GrowthFactor times the demand.
	Events float64
	// Bytes is the peak memory: a simulation per worker, the full results
	// kept for the winner's report and every simulation's summary.
	Bytes float64
	// Workers is the simulations run at once.
	Workers int
	// Busiest names the workload issuing the most requests in one
	// simulation, and Requests is how many.
	Busiest  string
	Requests float64
}

const (
	// growthEvaluations and GrowthFactor are what the estimate assumes of
	// the max_load search: evaluations, and the mean factor of the demand
	// they run at (the search gallops from 1 by 4 and narrows to 1%).
	growthEvaluations = 10
	// GrowthFactor is the mean factor of the demand the estimate assumes
	// the growth's evaluations run at.
	GrowthFactor = 2
	// sampleBytes is what the evaluator keeps of one simulation: its
	// measures and its summary.
	sampleBytes = 4096
)

// Estimate estimates the plan's work before it runs (o.Workers and the
// shard are read from o).
func (pr *Problem) Estimate(o Options) Estimate {
	ev := newEvaluator(context.Background(), pr, Options{Workers: 1})
	sp := pr.space()
	e := Estimate{Workers: max(o.Workers, 1)}
	probe := func(p point) {
		c := ev.build(p, 1)
		if c.invalid != "" {
			return
		}
		w := c.work
		if w.Events > e.PerRun.Events {
			e.PerRun.Requests, e.PerRun.Events = w.Requests, w.Events
		}
		e.PerRun.InFlight = math.Max(e.PerRun.InFlight, w.InFlight)
		e.PerRun.Bytes = math.Max(e.PerRun.Bytes, w.Bytes)
		for i := range c.cfg.Workloads {
			one := c.cfg
			one.Workloads = c.cfg.Workloads[i : i+1]
			if r := model.EstimateWork(one).Requests; r > e.Requests {
				e.Requests, e.Busiest = r, c.cfg.Workloads[i].Name
			}
		}
	}
	base := make(point, len(sp.sizes))
	probe(base)
	top := make(point, len(sp.sizes))
	for i, n := range sp.sizes {
		top[i] = n - 1
	}
	probe(top)
	for i, n := range sp.sizes {
		for v := 1; v < n; v++ {
			if sp.mono[i] && v < n-1 {
				continue
			}
			p := append(point(nil), base...)
			p[i] = v
			probe(p)
		}
	}

	reps := pr.Settings.Replications
	shards := max(o.Shards, 1)
	if pr.MinCost {
		lanes, combos, big := 1, 1, 1
		for i, n := range sp.sizes {
			switch {
			case !sp.mono[i]:
				lanes *= n
			case n > big:
				combos *= big
				big = n
			default:
				combos *= n
			}
		}
		lanes = (lanes + shards - 1) / shards
		perCombo := big
		if big > 1 {
			perCombo = min(big, 2*int(math.Ceil(math.Log2(float64(big))))+2)
		}
		e.Exhaustive = (pr.Candidates() + shards - 1) / shards * reps
		e.Simulations = min(e.Exhaustive, lanes*combos*perCombo*reps) + max(0, pr.Settings.Recheck-reps)
	}
	if pr.MaxLoad && (pr.MinCost || o.Shard == 0) {
		e.GrowthSimulations = growthEvaluations * reps
	}
	e.Events = float64(e.Simulations)*e.PerRun.Events + float64(e.GrowthSimulations)*GrowthFactor*e.PerRun.Events
	e.Simulations += e.GrowthSimulations
	intervals := 1.0
	if b := pr.base; b.Interval > 0 {
		intervals = math.Ceil(b.Duration / b.Interval)
	}
	e.Bytes = float64(min(e.Workers, max(e.Simulations, 1)))*e.PerRun.Bytes +
		float64(keptFull+1)*intervals*model.BytesPerInterval +
		float64(e.Simulations)*sampleBytes
	return e
}
