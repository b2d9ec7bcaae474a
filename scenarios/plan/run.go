package plan

import (
	"context"
	"fmt"
	"github.com/headroom-sim/headroom/workloads"
	"math"
	"strings"
	"time"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/scenarios"
)

// maxRechecks bounds how many winners in a row may fail their re-check
// before the search gives up on re-checking.
const maxRechecks = 20

// Options are how a plan runs.
type Options struct {
	// Workers is how many simulations run at once (at least 1). The
	// answer does not depend on it.
	Workers int
	// Shard and Shards split a min_cost search: this process searches the
	// combinations of the non-monotone knobs whose index mod Shards is
	// Shard. Shards 0 or 1 searches them all.
	Shard, Shards int
	// Generator and Info identify the run in the output.
	Generator string
	Info      report.ScenarioInfo
	// Progress, when not nil, is called with the simulations run so far.
	Progress func(sims int)
	// MaxEvents bounds the estimated events of the simulations the plan
	// starts (model.EstimateWork of each): past it the plan stops with a
	// *WorkBound. 0: no bound.
	MaxEvents float64
	// MaxInFlight bounds the requests each simulation holds at once (see
	// model.RunOptions): 0 is the default bound, negative none.
	MaxInFlight int64

	// For tests: onSim is called before each simulation; noReuse runs a
	// candidate's replications again for its full results instead of
	// reusing what the search ran.
	onSim   func(c *cand, replication int)
	noReuse bool
}

// Run answers the plan: the cheapest candidate that holds (min_cost),
// re-checked at more replications, and the growth left in it or in the
// scenario as written (max_load).
func Run(ctx context.Context, pr *Problem, o Options) (*report.Decision, error) {
	start := time.Now()
	ev := newEvaluator(ctx, pr, o)
	d := pr.decisionHead(o)
	sp := pr.space()
	var winner *cand
	var winnerRes []*model.Results
	var rejected []*cand // winners that failed their re-check
	var rounds int
	if pr.MinCost {
		var exclude []point
		for try := 0; ; try++ {
			res, err := searchShard(sp, ev, exclude, o.Shard, o.Shards)
			if err != nil {
				return nil, err
			}
			rounds += res.rounds
			if res.best == nil {
				break
			}
			c := ev.get(res.best, 1)
			if try >= maxRechecks {
				d.Notes = append(d.Notes, fmt.Sprintf("%d winners in a row failed their re-check at %d replications; the last is reported without one", maxRechecks, pr.Settings.Recheck))
				winner = c
				break
			}
			rs, err := ev.recheck(c)
			if err != nil {
				return nil, err
			}
			if c.holds {
				winner, winnerRes = c, rs
				break
			}
			rejected = append(rejected, c)
			exclude = append(exclude, res.best)
		}
	}
	d.Search.Simulations = ev.simulations()
	d.Search.Rounds = rounds
	pr.fillCandidates(d, ev, winner, rejected, pr.inShard(o.Shard, o.Shards))

	// Growth: of the winner, or of the scenario as written.
	var of *cand
	switch {
	case pr.MaxLoad && pr.MinCost && winner != nil:
		of = winner
	case pr.MaxLoad && !pr.MinCost && o.Shard == 0: // one shard measures the scenario as written
		of = ev.get(make(point, len(pr.Knobs)), 1)
		if of.invalid != "" {
			return nil, fmt.Errorf("the scenario as written cannot run: %s", of.invalid)
		}
		ev.fulls.pin(of) // its report reuses its first replication
		if err := ev.run([]*cand{of}, pr.Settings.Replications); err != nil {
			return nil, err
		}
		rs, err := ev.full(of, pr.Settings.Replications)
		if err != nil {
			return nil, err
		}
		winnerRes = rs
	}
	if of != nil {
		g, err := pr.growth(ev, of)
		if err != nil {
			return nil, err
		}
		d.Growth = g
		if of == winner {
			d.Growth.Of = d.Candidates[*d.Winner].Label
		}
		// Everything since the min_cost search: the scenario as written's
		// runs too, when it is what grows.
		d.Search.GrowthSimulations = ev.simulations() - d.Search.Simulations
	}
	if winnerRes != nil {
		doc := report.NewDocument(o.Generator, o.Info, []*model.Results{winnerRes[0]})
		if len(winnerRes) > 1 {
			doc.Replications = len(winnerRes)
			vs := report.SummarizeVariant(report.VariantName(winnerRes[0]), winnerRes, nil)
			// The busiest hour's figures over the same replications, beside
			// the key figures (the verdict is the first replication's).
			if of := winnerOf(winner, of); of != nil && len(of.samples) >= len(winnerRes) {
				peaks := make([]*model.PeakWindow, len(winnerRes))
				for i := range peaks {
					peaks[i] = of.samples[i].peak
				}
				vs.Figures = append(vs.Figures, report.PeakFigures(peaks)...)
			}
			doc.Summary = []report.VariantSummary{vs}
		}
		d.WinnerResults = doc
	}
	if winner != nil {
		toml, err := pr.WinnerTOML(winner.sets, d.Candidates[*d.Winner].Label)
		if err != nil {
			return nil, err
		}
		d.WinnerTOML = toml
	}
	d.Search.ElapsedS = math.Round(time.Since(start).Seconds()*100) / 100
	return d, nil
}

// winnerOf is the candidate whose results the decision reports: the
// winner, else the scenario as written.
func winnerOf(winner, asWritten *cand) *cand {
	if winner != nil {
		return winner
	}
	return asWritten
}

// inShard reports whether a candidate belongs to the shard: its lane
// (the combination of its non-monotone knobs' values, in canonical order)
// mod shards is shard.
func (pr *Problem) inShard(shard, shards int) func(point) bool {
	sp := pr.space()
	return func(p point) bool {
		if shards <= 1 {
			return true
		}
		lane := 0
		for i, v := range p {
			if !sp.mono[i] {
				lane = lane*sp.sizes[i] + v
			}
		}
		return lane%shards == shard
	}
}

// searchShard runs the search over the lanes of one shard.
func searchShard(sp space, ev *evaluator, exclude []point, shard, shards int) (*searchResult, error) {
	if shards <= 1 {
		return search(sp, ev, exclude)
	}
	return searchLanes(sp, ev, exclude, func(lane int) bool { return lane%shards == shard })
}

// recheck brings the winner to replications 0..Recheck-1, running only
// those the search did not (the same configuration and seeds measure the
// same), and judges it on all of them. It returns their results for the
// report: the first in full, the others' summaries.
func (ev *evaluator) recheck(c *cand) ([]*model.Results, error) {
	rs, err := ev.full(c, ev.pr.Settings.Recheck)
	if err != nil {
		return nil, err
	}
	c.screened = false
	ev.judge(c)
	return rs, nil
}

// space is the problem's candidate space.
func (pr *Problem) space() space {
	sp := space{unimodal: true}
	for _, k := range pr.Knobs {
		sp.sizes = append(sp.sizes, len(k.Labels))
		sp.mono = append(sp.mono, k.Monotone)
	}
	return sp
}

// decisionHead fills what the decision says before any simulation.
func (pr *Problem) decisionHead(o Options) *report.Decision {
	d := &report.Decision{Schema: report.DecisionSchema, Generator: o.Generator, Scenario: o.Info, Settings: pr.Settings, SLOs: report.SLOsOf(pr.base)}
	if pr.MinCost {
		d.Objectives = append(d.Objectives, scenarios.ObjectiveMinCost)
	}
	if pr.MaxLoad {
		d.Objectives = append(d.Objectives, scenarios.ObjectiveMaxLoad)
	}
	for _, k := range pr.Knobs {
		ki := report.KnobInfo{Name: k.Name, Kind: k.Kind, Keys: k.Keys, Values: k.Labels, Monotone: k.Monotone}
		for _, f := range k.Fixed {
			if f != 0 {
				ki.PricesUSD = k.Fixed
				break
			}
		}
		d.Knobs = append(d.Knobs, ki)
	}
	for _, c := range pr.Cons {
		d.Constraints = append(d.Constraints, c.ConstraintInfo)
	}
	d.Search.Candidates = pr.Candidates()
	if pr.MinCost {
		d.Search.Exhaustive = d.Search.Candidates * pr.Settings.Replications
	}
	if o.Shards > 1 {
		d.Search.Shard = fmt.Sprintf("%d/%d", o.Shard, o.Shards)
	}
	return d
}

// fillCandidates lists the evaluated candidates, ranked, with the winner
// and, without one, the constraint nearest to holding.
func (pr *Problem) fillCandidates(d *report.Decision, ev *evaluator, winner *cand, rejected []*cand, inShard func(point) bool) {
	sp := pr.space()
	failedRecheck := map[*cand]bool{}
	for _, c := range rejected {
		failedRecheck[c] = true
	}
	for _, c := range ev.order {
		cr := pr.candidateResult(c)
		cr.Index = sp.index(c.p)
		switch {
		case c == winner:
			cr.Status = "winner"
		case failedRecheck[c]:
			cr.Status = "failed re-check"
		case c.holds:
			cr.Status = "holds"
		case c.invalid != "":
			cr.Status = "invalid"
		default:
			cr.Status = "fails"
		}
		d.Candidates = append(d.Candidates, cr)
	}
	report.RankCandidates(d)
	d.Search.Evaluated = len(ev.order)
	pr.countSkipped(d, ev, sp, inShard)
	d.Notes = append(d.Notes, pr.monotoneNotes(ev, sp)...)
}

// candidateResult describes one candidate.
func (pr *Problem) candidateResult(c *cand) report.CandidateResult {
	cr := report.CandidateResult{Invalid: c.invalid, Replications: len(c.samples), Screened: c.screened, FixedUSD: c.fixed}
	var parts []string
	for i, v := range c.p {
		cr.Values = append(cr.Values, pr.Knobs[i].Labels[v])
		parts = append(parts, pr.Knobs[i].Name+"="+pr.Knobs[i].Labels[v])
	}
	cr.Label = strings.Join(parts, ", ")
	for _, o := range c.sets {
		cr.Sets = append(cr.Sets, o.Path+"="+valueLabel(o.Value))
	}
	var costs, mains []float64
	for _, s := range c.samples {
		costs = append(costs, s.cost)
		mains = append(mains, s.main)
	}
	cr.CostUSD = report.NewEstimate(costs)
	if len(costs) == 0 {
		cr.CostUSD = report.Estimate{Mean: c.fixed, Lo: c.fixed, Hi: c.fixed}
	}
	if o := c.overload(); o != nil {
		// Nothing was measured whole: what it costs at least, no checks.
		for r, s := range c.samples {
			if s.overload == o {
				cr.Overloaded = &report.Overload{Replication: r, LimitRequests: o.Limit, AtS: o.At, Clock: workloads.ClockHMS(pr.base.StartClock + o.At)}
				break
			}
		}
		cr.CostUSD = report.Estimate{Mean: c.cost, Lo: c.cost, Hi: c.cost}
		if h := pr.Settings.HorizonS; h > 0 {
			cr.CostPerDay = c.cost * 86400 / h
		}
		cr.Latency = report.HeadlineFigure{Name: pr.MainLatencyName(), Unit: "s"}
		return cr
	}
	if h := pr.Settings.HorizonS; h > 0 {
		cr.CostPerDay = cr.CostUSD.Mean * 86400 / h
	}
	cr.Latency = report.HeadlineFigure{Name: pr.MainLatencyName(), Unit: "s"}
	if len(mains) > 0 {
		cr.Latency.Value = report.NewEstimate(mains).Mean
	}
	for i, v := range c.verdicts {
		ch := report.CheckResult{Value: v.value, Mean: v.mean, Measured: v.measured, Margin: v.margin, Met: v.met, WorstAtS: v.at}
		if !v.measured {
			ch.Value, ch.Mean, ch.WorstAtS = 0, 0, -1
		}
		if pr.Cons[i].Window && v.at >= 0 {
			ch.WorstClock = clockAt(pr.base.StartClock, v.at)
		}
		cr.Checks = append(cr.Checks, ch)
	}
	return cr
}

// clockAt is the clock time of t seconds into a run starting at start
// seconds after midnight: "09:00".
func clockAt(start, t float64) string {
	s := int(math.Mod(start+t, 86400))
	return fmt.Sprintf("%02d:%02d", s/3600, s%3600/60)
}

// countSkipped classifies the candidates never simulated: those with less
// of every monotone knob than one that failed (implied to fail), and the
// rest (ruled out by their fixed and GPU cost). Spaces of more than a
// million candidates are not classified.
func (pr *Problem) countSkipped(d *report.Decision, ev *evaluator, sp space, inShard func(point) bool) {
	n := sp.size()
	if n > 1_000_000 {
		return
	}
	var failed []point
	seen := map[int]bool{}
	for i, c := range ev.asked {
		seen[i] = true
		if sp.index(c.p) != i {
			d.Search.SameConfig++
		}
	}
	for _, c := range ev.order {
		if !c.holds {
			failed = append(failed, c.p)
		}
	}
	implied, mine := 0, 0
	p := make(point, len(sp.sizes))
	for i := 0; i < n; i++ {
		k := i
		for j := len(p) - 1; j >= 0; j-- {
			p[j] = k % sp.sizes[j]
			k /= sp.sizes[j]
		}
		if seen[i] || !inShard(p) {
			continue
		}
		mine++
		for _, f := range failed {
			if dominatedBy(sp, p, f) {
				implied++
				break
			}
		}
	}
	d.Search.ImpliedFail = implied
	d.Search.PrunedCost = mine - implied
}

// dominatedBy reports whether p has the same non-monotone values as q and
// no more of any monotone knob.
func dominatedBy(sp space, p, q point) bool {
	for i := range p {
		if sp.mono[i] && p[i] > q[i] || !sp.mono[i] && p[i] != q[i] {
			return false
		}
	}
	return true
}

// monotoneNotes reports candidates that broke a knob's monotonicity: one
// that failed although a candidate with less of every monotone knob (and
// the same other values) held.
func (pr *Problem) monotoneNotes(ev *evaluator, sp space) []string {
	var out []string
	for _, a := range ev.order {
		if a.holds || a.invalid != "" {
			continue
		}
		for _, b := range ev.order {
			if b.holds && b != a && dominatedBy(sp, b.p, a.p) {
				out = append(out, fmt.Sprintf("not monotone: %s failed although %s held", pr.label(a.p), pr.label(b.p)))
				break
			}
		}
		if len(out) >= 5 {
			break
		}
	}
	return out
}

func (pr *Problem) label(p point) string {
	var parts []string
	for i, v := range p {
		parts = append(parts, pr.Knobs[i].Name+"="+pr.Knobs[i].Labels[v])
	}
	return strings.Join(parts, ", ")
}

// growth runs the max_load search on a candidate.
func (pr *Problem) growth(ev *evaluator, of *cand) (*report.Growth, error) {
	probe := func(k float64) (bool, float64, error) {
		c := of
		if k != 1 {
			c = ev.get(of.p, k)
		}
		if c.invalid != "" {
			return false, -scoreCap, nil
		}
		if err := ev.run([]*cand{c}, pr.Settings.Replications); err != nil {
			return false, 0, err
		}
		return c.holds, c.minScore, nil
	}
	r, err := growth(probe, pr.Settings.MaxFactor, pr.Settings.Precision)
	if err != nil {
		return nil, err
	}
	g := &report.Growth{Of: "the scenario as written", Factor: r.lo, Upper: r.hi, Holds: r.holds, Capped: r.capped, Evaluations: len(r.steps)}
	for _, s := range r.steps {
		m := math.Inf(1)
		if c := ev.get(of.p, s.factor); c.invalid == "" {
			for _, v := range c.verdicts {
				m = math.Min(m, v.margin)
			}
		}
		if math.IsInf(m, 0) {
			m = 0
		}
		g.Points = append(g.Points, report.GrowthPoint{Factor: s.factor, Holds: s.holds, Margin: m})
	}
	if r.capped {
		return g, nil
	}
	// What breaks first beyond the factor: the constraint with the least
	// margin at the smallest factor that failed, and what ran out there.
	brk := ev.get(of.p, r.hi)
	if !r.holds {
		brk = ev.get(of.p, r.lo)
	}
	if brk.invalid == "" && len(brk.verdicts) > 0 {
		wi, worst := -1, math.Inf(1)
		for i, v := range brk.verdicts {
			if v.measured && v.margin < worst {
				wi, worst = i, v.margin
			}
		}
		if wi >= 0 {
			g.FirstToBreak = &wi
			if at := brk.verdicts[wi].at; pr.Cons[wi].Window && at >= 0 {
				g.BreakClock = clockAt(pr.base.StartClock, at)
			}
		}
		if len(brk.samples) == 0 || ev.noReuse {
			rs, err := ev.full(brk, 1)
			if err != nil {
				return nil, err
			}
			if rs != nil {
				g.Bottleneck = report.Bottleneck(rs[0])
			} else if len(brk.samples) > 0 {
				g.Bottleneck = brk.samples[0].bottleneck
			}
		} else {
			g.Bottleneck = brk.samples[0].bottleneck
		}
	}
	return g, nil
}
