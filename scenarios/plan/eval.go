package plan

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"sync"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/scenarios"
	"github.com/headroom-sim/headroom/sim"
)

// cand is one candidate (a point at a demand factor) and what its
// replications measured so far.
type cand struct {
	p       point
	factor  float64
	sets    []scenarios.Override
	fixed   float64
	cfg     model.Config
	work    model.Work // what one simulation of cfg is estimated to cost
	invalid string     // why the configuration could not be built
	samples []sample
	// screened is set when the first replication failed by more than the
	// screen allows; the candidate gets no more.
	screened bool
	// A candidate with an overloaded replication (overload) gets no more
	// either: it fails every constraint.
	verdicts []verdict
	holds    bool
	cost     float64
	minScore float64 // the smallest constraint score
}

// evaluator runs candidates on the simulator, each replication of each
// configuration once, and remembers what they measured and their summaries
// (not their full results, so memory stays bounded by the candidates
// evaluated), and the full first replication of a few that hold (fulls),
// for the winner's report.
type evaluator struct {
	pr          *Problem
	ctx         context.Context
	workers     int
	progress    func(sims int)
	maxEvents   float64 // the bound on the events of the simulations started; 0: none
	maxInFlight int64   // model.RunOptions.MaxInFlight
	// onSim, when not nil, is called before each simulation (tests count
	// them with it).
	onSim func(c *cand, replication int)
	// noReuse makes every request for a candidate's full results simulate
	// it again, as the evaluator did before it reused them (tests compare).
	noReuse bool

	mu    sync.Mutex
	memo  map[string]*cand
	order []*cand // in the order first evaluated
	noted map[*cand]bool
	// byFloor lists the candidates built, by lower bound, to find those
	// with the same configuration.
	byFloor map[float64][]*cand
	// asked maps every candidate the search evaluated, by index, to what
	// ran for it (another candidate with the same configuration, maybe).
	asked map[int]*cand
	sims  int
	// events is the estimated events of the simulations started.
	events float64
	fulls  fullCache
}

func newEvaluator(ctx context.Context, pr *Problem, o Options) *evaluator {
	return &evaluator{pr: pr, ctx: ctx, workers: max(o.Workers, 1), progress: o.Progress, maxEvents: o.MaxEvents, maxInFlight: o.MaxInFlight, onSim: o.onSim, noReuse: o.noReuse,
		memo: map[string]*cand{}, noted: map[*cand]bool{}, byFloor: map[float64][]*cand{}, asked: map[int]*cand{},
		fulls: fullCache{size: keptFull, m: map[*cand]*model.Results{}, pinned: map[*cand]bool{}}}
}

// get returns the candidate for p at factor, building its configuration
// the first time.
func (ev *evaluator) get(p point, factor float64) *cand {
	key := fmt.Sprint(p, math.Float64bits(factor))
	ev.mu.Lock()
	c := ev.memo[key]
	ev.mu.Unlock()
	if c != nil {
		return c
	}
	c = ev.build(p, factor)
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if old := ev.memo[key]; old != nil {
		return old
	}
	// Knob settings or demand factors that give the same configuration (a
	// replica count on a cluster an option switches off; factors that round
	// to the same number of users) share one candidate, the first, and so
	// its simulations: the configuration itself is the key, compared whole
	// among those of the same price floor.
	if c.invalid == "" {
		lb := gpuFloor(c.cfg) + c.fixed
		for _, t := range ev.byFloor[lb] {
			if t.fixed == c.fixed && reflect.DeepEqual(t.cfg, c.cfg) {
				ev.memo[key] = t
				return t
			}
		}
		ev.byFloor[lb] = append(ev.byFloor[lb], c)
	}
	ev.memo[key] = c
	return c
}

// build makes a candidate's configuration: the command-line overrides,
// then each knob's value in knob order, then (factor ≠ 1) the demand.
func (ev *evaluator) build(p point, factor float64) *cand {
	pr := ev.pr
	c := &cand{p: append(point(nil), p...), factor: factor}
	sets := append([]scenarios.Override(nil), pr.sets...)
	for i, v := range p {
		sets = append(sets, pr.Knobs[i].Sets[v]...)
		c.fixed += pr.Knobs[i].Fixed[v]
	}
	c.sets = sets[len(pr.sets):]
	cfg, err := pr.sc.Config(sets)
	if err == nil && factor != 1 {
		var ds []scenarios.Override
		if ds, err = demandOverrides(cfg, factor); err == nil {
			cfg, err = pr.sc.Config(append(sets, ds...))
		}
	}
	if err != nil {
		c.invalid = errMsg(err)
		return c
	}
	cfg.Window = pr.Settings.WindowS
	c.cfg = cfg
	c.work = model.EstimateWork(cfg)
	return c
}

// demandOverrides multiply every workload's demand by factor: open-loop
// rates and curves, closed-loop users and job counts (rounded, at least 1).
func demandOverrides(cfg model.Config, factor float64) ([]scenarios.Override, error) {
	var out []scenarios.Override
	for i, w := range cfg.Workloads {
		d := w.Demand
		at := fmt.Sprintf("workload[%d].demand.", i)
		scale := func(vs []float64) []any {
			out := make([]any, len(vs))
			for j, v := range vs {
				out[j] = v * factor
			}
			return out
		}
		switch {
		case d.Users > 0:
			out = append(out, scenarios.Override{Path: at + "users", Value: int64(math.Max(1, math.Round(float64(d.Users)*factor)))})
		case d.Count > 0:
			out = append(out, scenarios.Override{Path: at + "count", Value: int64(math.Max(1, math.Round(float64(d.Count)*factor)))})
		case len(d.Hourly) > 0:
			out = append(out, scenarios.Override{Path: at + "hourly", Value: scale(d.Hourly)})
		case len(d.Curve) > 0:
			out = append(out, scenarios.Override{Path: at + "curve", Value: scale(d.Curve)})
		case d.Rate > 0:
			out = append(out, scenarios.Override{Path: at + "rate", Value: d.Rate * factor})
		default:
			return nil, fmt.Errorf("workload %q: its demand cannot be scaled", w.Name)
		}
	}
	return out, nil
}

// lowerBound is what a candidate costs at least: its fixed prices and the
// GPUs it provisions for the whole horizon (the fewest a schedule ever
// gives, all of them when reserved). Token costs only add to it.
func (ev *evaluator) lowerBound(p point) float64 {
	c := ev.get(p, 1)
	if c.invalid != "" {
		return c.fixed
	}
	return c.fixed + gpuFloor(c.cfg)
}

// gpuFloor is the GPU cost a configuration cannot avoid, with its hosted
// tiers' commitments ([provider.price] commitment), which every run pays.
func gpuFloor(cfg model.Config) float64 {
	total := 0.0
	for _, p := range cfg.Providers {
		total += model.CommitmentCost(p.Price.Commitment, p.Price.CommitmentPer, cfg.Duration, cfg.Duration)
	}
	for _, cl := range cfg.Clusters {
		n := cl.Replicas
		for _, e := range cl.Schedule {
			switch {
			case cl.Price.Billing == "reserved":
				n = max(n, e.Replicas)
			case e.Replicas > 0:
				n = min(n, e.Replicas)
			}
		}
		total += float64(n*max(cl.TensorParallel, 1)) * cl.Price.PerGPUHour * cfg.Duration / 3600
	}
	return total
}

// run evaluates candidates to reps replications each, the first
// replication alone first when screening, and judges them. Simulations of
// one call run in parallel; the outcome does not depend on how.
func (ev *evaluator) run(cs []*cand, reps int) error {
	st := ev.pr.Settings
	if st.Screen > 0 {
		var first []*cand
		for _, c := range cs {
			if c.invalid == "" && len(c.samples) == 0 {
				first = append(first, c)
			}
		}
		if err := ev.simulate(first, 1); err != nil {
			return err
		}
		for _, c := range first {
			ev.judge(c)
			for _, v := range c.verdicts {
				if v.measured && v.score < -math.Log1p(st.Screen) {
					c.screened = true
				}
			}
		}
	}
	var rest []*cand
	for _, c := range cs {
		if c.invalid == "" && !c.screened && c.overload() == nil && len(c.samples) < reps {
			rest = append(rest, c)
		}
	}
	if err := ev.simulate(rest, reps); err != nil {
		return err
	}
	for _, c := range cs {
		ev.judge(c)
	}
	ev.fulls.settle()
	return nil
}

// simulate brings every candidate to reps replications, each replication
// it has not run yet once.
func (ev *evaluator) simulate(cs []*cand, reps int) error {
	var cfgs []model.Config
	var owner []*cand
	for _, c := range cs {
		for r := len(c.samples); r < reps; r++ {
			cfg := c.cfg
			cfg.Replication = r
			cfgs = append(cfgs, cfg)
			owner = append(owner, c)
		}
	}
	if len(cfgs) == 0 {
		return nil
	}
	if err := ev.spend(owner); err != nil {
		return err
	}
	var firsts []*cand
	for i, c := range owner {
		if cfgs[i].Replication == 0 {
			firsts = append(firsts, c)
		}
	}
	keep := ev.fulls.choose(firsts, ev.lowerBound)
	samples := make([]sample, len(cfgs))
	err := ev.pool(cfgs, owner, func(i int, r *model.Results) {
		samples[i] = ev.pr.measure(r, owner[i].fixed)
		if r.Replication == 0 {
			samples[i].bottleneck = report.Bottleneck(r)
			if keep[owner[i]] {
				ev.fulls.put(owner[i], r)
			}
		}
	}, func(i int, r *model.Results, e *model.TooManyInFlight) {
		samples[i] = overloadedSample(r, e)
	})
	if err != nil {
		return err
	}
	for i, sm := range samples {
		owner[i].samples = append(owner[i].samples, sm)
	}
	ev.mu.Lock()
	ev.sims += len(cfgs)
	n := ev.sims
	ev.mu.Unlock()
	if ev.progress != nil {
		ev.progress(n)
	}
	return nil
}

// WorkBound is the error of a plan stopped because the simulations it
// would start next would take its estimated events past the bound.
type WorkBound struct {
	Bound, Events float64 // the bound, and the events of the simulations started
	Simulations   int     // simulations run
}

func (e *WorkBound) Error() string {
	return fmt.Sprintf("the plan's simulations would handle more than %.3g events (%.3g in the %d run)", e.Bound, e.Events, e.Simulations)
}

// spend accounts the estimated events of the simulations about to start,
// one per owner, and refuses them past the bound.
func (ev *evaluator) spend(owner []*cand) error {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	e := ev.events
	for _, c := range owner {
		e += c.work.Events
	}
	if ev.maxEvents > 0 && e > ev.maxEvents {
		return &WorkBound{Bound: ev.maxEvents, Events: ev.events, Simulations: ev.sims}
	}
	ev.events = e
	return nil
}

// overloadedSample is what a replication stopped by its in-flight bound
// measured: nothing whole, only why and when it stopped, and what ran out
// by then.
func overloadedSample(r *model.Results, e *model.TooManyInFlight) sample {
	s := sample{overload: e}
	if r.Replication == 0 {
		s.bottleneck = report.Bottleneck(r)
	}
	return s
}

// overload is why the candidate's first overloaded replication (in
// replication order) stopped, or nil.
func (c *cand) overload() *model.TooManyInFlight {
	for _, s := range c.samples {
		if s.overload != nil {
			return s.overload
		}
	}
	return nil
}

// judge checks every constraint over the candidate's replications. A
// candidate with an overloaded replication fails every constraint at the
// worst score (its backlog outgrew the memory set aside: it is far short
// of the demand), and costs what it costs at least.
func (ev *evaluator) judge(c *cand) {
	pr := ev.pr
	if c.invalid != "" {
		c.holds, c.minScore, c.cost = false, -math.Inf(1), c.fixed
		return
	}
	if c.overload() != nil {
		c.verdicts = make([]verdict, len(pr.Cons))
		for i := range c.verdicts {
			c.verdicts[i] = verdict{margin: -1, score: -scoreCap, at: -1}
		}
		c.holds, c.minScore, c.cost = false, -scoreCap, c.fixed+gpuFloor(c.cfg)
		return
	}
	c.verdicts = make([]verdict, len(pr.Cons))
	vals := make([]float64, len(c.samples))
	ats := make([]float64, len(c.samples))
	c.holds, c.minScore = true, math.Inf(1)
	for i, con := range pr.Cons {
		for j, s := range c.samples {
			vals[j], ats[j] = s.vals[i], s.at[i]
		}
		v := pr.judge(con, vals, ats)
		c.verdicts[i] = v
		c.holds = c.holds && v.met
		c.minScore = math.Min(c.minScore, v.score)
	}
	c.holds = c.holds && !c.screened
	cost := 0.0
	for _, s := range c.samples {
		cost += s.cost
	}
	c.cost = cost / float64(len(c.samples))
	if c.screened {
		c.holds = false
	}
}

// eval is the search's oracle: the round's candidates at factor 1 with
// the search's replications.
func (ev *evaluator) eval(pts []point) ([]outcome, error) {
	cs := make([]*cand, len(pts))
	for i, p := range pts {
		cs[i] = ev.get(p, 1)
		ev.note(cs[i])
		ev.mu.Lock()
		ev.asked[ev.pr.space().index(p)] = cs[i]
		ev.mu.Unlock()
	}
	if err := ev.run(cs, ev.pr.Settings.Replications); err != nil {
		return nil, err
	}
	out := make([]outcome, len(cs))
	for i, c := range cs {
		out[i] = outcome{holds: c.holds, cost: c.cost}
	}
	return out, nil
}

// note records a candidate the search evaluated, once.
func (ev *evaluator) note(c *cand) {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if !ev.noted[c] {
		ev.noted[c] = true
		ev.order = append(ev.order, c)
	}
}

// simulations is how many simulations ran so far.
func (ev *evaluator) simulations() int {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	return ev.sims
}

// full returns a candidate's replications 0..reps-1, simulating those it
// has not run yet: the first with its full results, for the report; the
// others with their summaries only (all the report's summary reads). The
// first's full results come from fulls when kept there, else from running
// it again.
//
// It returns nil when a replication overloaded (judge fails the candidate).
func (ev *evaluator) full(c *cand, reps int) ([]*model.Results, error) {
	if c.overload() != nil {
		return nil, nil
	}
	if ev.noReuse {
		return ev.fullAgain(c, reps)
	}
	if err := ev.simulate([]*cand{c}, reps); err != nil {
		return nil, err
	}
	if c.overload() != nil {
		return nil, nil
	}
	first := ev.fulls.get(c)
	if first == nil {
		cfg := c.cfg
		cfg.Replication = 0
		if err := ev.spend([]*cand{c}); err != nil {
			return nil, err
		}
		if err := ev.pool([]model.Config{cfg}, []*cand{c}, func(_ int, r *model.Results) { first = r }, nil); err != nil {
			return nil, err
		}
		ev.mu.Lock()
		ev.sims++
		ev.mu.Unlock()
	}
	res := make([]*model.Results, reps)
	res[0] = first
	for r := 1; r < reps; r++ {
		res[r] = &model.Results{Scenario: first.Scenario, Variant: first.Variant, Seed: first.Seed, Replication: r,
			DurationS: first.DurationS, IntervalS: first.IntervalS, StartClock: first.StartClock, Summary: *c.samples[r].summary}
	}
	return res, nil
}

// fullAgain is full without reuse: it runs replications 0..reps-1 again
// and measures the candidate from them (the evaluator's way before it
// reused what it had run; tests compare the two).
func (ev *evaluator) fullAgain(c *cand, reps int) ([]*model.Results, error) {
	cfgs := make([]model.Config, reps)
	owner := make([]*cand, reps)
	for r := range cfgs {
		cfgs[r], owner[r] = c.cfg, c
		cfgs[r].Replication = r
	}
	if err := ev.spend(owner); err != nil {
		return nil, err
	}
	res := make([]*model.Results, reps)
	over := make([]*model.TooManyInFlight, reps)
	if err := ev.pool(cfgs, owner, func(i int, r *model.Results) { res[i] = r },
		func(i int, r *model.Results, e *model.TooManyInFlight) { res[i], over[i] = r, e }); err != nil {
		return nil, err
	}
	ev.mu.Lock()
	ev.sims += reps
	ev.mu.Unlock()
	c.samples = c.samples[:0]
	for i, r := range res {
		if over[i] != nil {
			c.samples = append(c.samples, overloadedSample(r, over[i]))
			continue
		}
		s := ev.pr.measure(r, c.fixed)
		if r.Replication == 0 {
			s.bottleneck = report.Bottleneck(r)
		}
		c.samples = append(c.samples, s)
	}
	if c.overload() != nil {
		return nil, nil
	}
	return res, nil
}

// pool runs the configurations on ev.workers goroutines, each built when a
// worker takes it and dropped once done (use sees its results), so memory
// holds only the simulations in flight. use is called once per
// configuration; calls are serialised. owner[i] is the candidate cfgs[i]
// belongs to. A run stopped by the in-flight bound goes to overloaded,
// with its partial results, in place of use (nil: it stops the pool with
// its *model.TooManyInFlight); with no bound (--force) none is.
func (ev *evaluator) pool(cfgs []model.Config, owner []*cand, use func(i int, r *model.Results), overloaded func(i int, r *model.Results, e *model.TooManyInFlight)) error {
	if ev.onSim != nil {
		for i, c := range cfgs {
			ev.onSim(owner[i], c.Replication)
		}
	}
	o := model.RunOptions{Workers: ev.workers, MaxInFlight: ev.maxInFlight}
	if overloaded != nil {
		o.Overloaded = func(i int, r *model.Results, e *model.TooManyInFlight) error {
			if ev.ctx.Err() != nil {
				return sim.ErrInterrupted
			}
			overloaded(i, r, e)
			return nil
		}
	}
	err := model.RunEach(ev.ctx, len(cfgs), func(i int) model.Config { return cfgs[i] }, o,
		func(i int, r *model.Results) error {
			if r.Interrupted {
				return sim.ErrInterrupted
			}
			use(i, r)
			return nil
		})
	if err == nil && ev.ctx.Err() != nil {
		err = sim.ErrInterrupted
	}
	return err
}
