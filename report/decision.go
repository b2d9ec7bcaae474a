package report

import (
	"encoding/json"
	"io"
	"math"
	"sort"
)

// DecisionSchema names the JSON layout of headroom plan's output. It
// changes when a field changes meaning or goes away.
const DecisionSchema = "headroom/plan/v1"

// Decision is what headroom plan found: the search it ran, every candidate
// it simulated, the winner with its full results, and the growth the
// winner (or the scenario as written) has left.
type Decision struct {
	Schema    string       `json:"schema"`
	Generator string       `json:"generator"`
	Scenario  ScenarioInfo `json:"scenario"`
	// Objectives are "min_cost", "max_load" or both, in that order.
	Objectives  []string         `json:"objectives"`
	Settings    DecisionSettings `json:"settings"`
	Knobs       []KnobInfo       `json:"knobs"`
	Constraints []ConstraintInfo `json:"constraints"`
	// Candidates are every candidate simulated, ranked: those that hold by
	// cost (cheapest first), then the rest by how near they came.
	Candidates []CandidateResult `json:"candidates"`
	// Winner indexes Candidates: the cheapest that holds, re-checked; nil
	// when none holds (or for max_load alone).
	Winner *int `json:"winner"`
	// Nearest is, when nothing holds, the constraint that came nearest to
	// holding, in the candidate that came nearest.
	Nearest *NearestConstraint `json:"nearest,omitempty"`
	// Growth is the max_load search: of the winner, or of the scenario as
	// written when max_load is the only objective.
	Growth *Growth       `json:"growth,omitempty"`
	Search SearchSummary `json:"search"`
	// Notes are remarks on the search (a monotone knob that was not,
	// windows with too few requests).
	Notes []string `json:"notes,omitempty"`
	// WinnerResults is the winner's full results, every re-check
	// replication summarised (as headroom run writes them); absent without
	// a winner. For max_load alone, the scenario as written at factor 1.
	WinnerResults *Document `json:"winner_results,omitempty"`
	// SLOs are the workloads' latency objectives, for the charts.
	SLOs []SLO `json:"slos,omitempty"`
	// Warnings are what the scenario left to a default that changes the
	// answer, as headroom run lists them (Document.Warnings): the same for
	// every candidate, as the knobs change none of them.
	Warnings []Warning `json:"warnings,omitempty"`
	// WinnerTOML is the winning scenario, ready to run (what --write
	// writes); not in the JSON.
	WinnerTOML []byte `json:"-"`
}

// DecisionSettings are the search's settings, as used.
type DecisionSettings struct {
	Replications int     `json:"replications"`
	Recheck      int     `json:"recheck"`
	Confidence   float64 `json:"confidence"`
	// Bound is "mean" or "quantile" (report/RESULTS.md, section 12).
	Bound string `json:"bound"`
	// Screen: a candidate whose first replication misses a constraint by
	// more than this share is rejected after it (0: every candidate gets
	// every replication).
	Screen float64 `json:"screen"`
	// WindowS is the window every constraint must also hold in.
	WindowS float64 `json:"window_s"`
	// WindowRequests is the fewest requests a window needs to be checked.
	WindowRequests int     `json:"window_requests"`
	Attainment     float64 `json:"attainment"`
	HorizonS       float64 `json:"horizon_s"`
	MaxFactor      float64 `json:"max_factor"`
	Precision      float64 `json:"precision"`
	Seed           uint64  `json:"seed"`
}

// KnobInfo is one knob and its candidate values.
type KnobInfo struct {
	Name string `json:"name"`
	// Kind is "range", "values", "scale" or "options".
	Kind string   `json:"kind"`
	Keys []string `json:"keys"`
	// Values label the candidate values, in search order.
	Values   []string `json:"values"`
	Monotone bool     `json:"monotone"`
	// PricesUSD are each value's fixed price over the horizon (absent when
	// all are 0).
	PricesUSD []float64 `json:"prices_usd,omitempty"`
}

// ConstraintInfo is one constraint in one scope.
type ConstraintInfo struct {
	// ID is stable: "slo/chat/run", "p95-ttft/chat/window", "failed/run",
	// "429/window", "budget/run".
	ID string `json:"id"`
	// Kind is "slo", "percentile", "failed", "429" or "budget".
	Kind     string `json:"kind"`
	Workload string `json:"workload,omitempty"`
	// Metric and Percentile describe a percentile target (ttft, e2e, tpot,
	// queue_wait at 50/90/95/99).
	Metric     string  `json:"metric,omitempty"`
	Percentile float64 `json:"percentile,omitempty"`
	// Mean is set for a target on the mean instead of a percentile.
	Mean bool `json:"mean,omitempty"`
	// SLO describes a workload's [workload.slo] ("TTFT ≤ 2s, TPOT ≤ 50ms").
	SLO string `json:"slo,omitempty"`
	// Window is true for the worst window, false for the whole run.
	Window bool `json:"window"`
	// Limit is the attainment level (AtLeast) or the largest value allowed:
	// seconds, a share, or USD.
	Limit   float64 `json:"limit"`
	AtLeast bool    `json:"at_least"`
	// Unit is "s", "share" or "usd".
	Unit string `json:"unit"`
}

// CandidateResult is one simulated candidate.
type CandidateResult struct {
	// Index is the candidate's place in the canonical order of the knobs'
	// values (the first knob varying slowest); it breaks cost ties.
	Index int `json:"index"`
	// Label names it by its knob values: "gpu=H100, replicas=6".
	Label string `json:"label"`
	// Values are its knob values, in Knobs order.
	Values []string `json:"values"`
	// Sets are the overrides it applies, "KEY=VALUE" (as --set).
	Sets []string `json:"sets"`
	// Status is "winner", "holds", "fails", "failed re-check" or
	// "invalid".
	Status string `json:"status"`
	// Invalid says why the configuration could not be built.
	Invalid      string `json:"invalid,omitempty"`
	Replications int    `json:"replications"`
	// Screened is true when it was rejected after its first replication.
	Screened bool `json:"screened,omitempty"`
	// Overloaded is set when one of its replications stopped because its
	// backlog passed the bound on requests in flight at once: it fails
	// every constraint, has no Checks (nothing was measured whole) and
	// gets no more replications.
	Overloaded *Overload `json:"overloaded,omitempty"`
	// CostUSD is the horizon's cost over the replications (tokens, GPU
	// time and FixedUSD), with its 95% interval. For an Overloaded
	// candidate it is what it costs at least: FixedUSD and the GPUs it
	// provisions for the whole horizon (tokens not counted).
	CostUSD Estimate `json:"cost_usd"`
	// FixedUSD is the knobs' fixed prices prorated to the horizon.
	FixedUSD   float64 `json:"fixed_usd"`
	CostPerDay float64 `json:"cost_per_day_usd"`
	// Checks hold each constraint's value, in Constraints order; null for
	// a candidate that could not be built or that overloaded.
	Checks []CheckResult `json:"checks"`
	// Latency is the main latency figure for the cost-latency chart.
	Latency HeadlineFigure `json:"latency"`
}

// Overload is when and why a candidate's replication stopped: more
// requests were in flight at once than the bound allows (the backends fall
// ever further behind the demand).
type Overload struct {
	// Replication is the first replication that stopped.
	Replication int `json:"replication"`
	// LimitRequests is the bound passed.
	LimitRequests int64 `json:"limit_requests"`
	// AtS is when it was passed, seconds into the run.
	AtS float64 `json:"at_s"`
	// Clock is AtS as the time of day ("01:23:20").
	Clock string `json:"clock"`
}

// CheckResult is one constraint's outcome for one candidate.
type CheckResult struct {
	// Value is the bound the constraint was checked with (the confidence
	// bound of the mean, or a quantile of the replications); Mean is the
	// plain mean. Both NaN-free: a constraint nothing measured (no window
	// had enough requests) has Measured false and counts as met.
	Value    float64 `json:"value"`
	Mean     float64 `json:"mean"`
	Measured bool    `json:"measured"`
	// Margin is the share of the allowed amount left: (limit − value) /
	// limit for an upper limit; for an attainment level, of the misses
	// allowed. Negative when the constraint fails.
	Margin float64 `json:"margin"`
	Met    bool    `json:"met"`
	// WorstAtS starts the worst window (window constraints; -1 otherwise),
	// WorstClock is its clock time.
	WorstAtS   float64 `json:"worst_at_s"`
	WorstClock string  `json:"worst_clock,omitempty"`
}

// HeadlineFigure is one named figure.
type HeadlineFigure struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// NearestConstraint is the constraint that came nearest to holding.
type NearestConstraint struct {
	Candidate  int     `json:"candidate"`
	Constraint int     `json:"constraint"`
	Value      float64 `json:"value"`
	Limit      float64 `json:"limit"`
	Margin     float64 `json:"margin"`
}

// Growth is a max_load search: the largest factor every workload's demand
// can be multiplied by while every constraint holds.
type Growth struct {
	// Of names what was scaled: the winner's label, or "the scenario as
	// written".
	Of string `json:"of"`
	// Factor is the largest factor found to hold (the bracket's low end);
	// Upper the smallest found to fail. Holds is false when even the
	// smallest factor tried failed.
	Factor float64 `json:"factor"`
	Upper  float64 `json:"upper"`
	Holds  bool    `json:"holds"`
	// Capped is true when the largest factor tried (max_factor) held.
	Capped bool `json:"capped"`
	// Evaluations is how many factors were simulated.
	Evaluations int           `json:"evaluations"`
	Points      []GrowthPoint `json:"points"`
	// FirstToBreak is the constraint that fails first beyond Factor (at
	// Upper), and Bottleneck what ran out there.
	FirstToBreak *int   `json:"first_to_break,omitempty"`
	BreakClock   string `json:"break_clock,omitempty"`
	Bottleneck   string `json:"bottleneck,omitempty"`
}

// GrowthPoint is one factor tried.
type GrowthPoint struct {
	Factor float64 `json:"factor"`
	Holds  bool    `json:"holds"`
	// Margin is the smallest constraint margin at this factor.
	Margin float64 `json:"margin"`
}

// SearchSummary counts what the search did.
type SearchSummary struct {
	// Candidates is the size of the candidate space; Exhaustive the
	// simulations an exhaustive search would run at Replications each.
	Candidates int `json:"candidates"`
	Exhaustive int `json:"exhaustive_simulations"`
	// Evaluated candidates, and the simulations the min_cost search ran
	// (screening, replications and re-checks); GrowthSimulations the
	// max_load search's.
	Evaluated         int `json:"evaluated"`
	Simulations       int `json:"simulations"`
	GrowthSimulations int `json:"growth_simulations"`
	// Not simulated: implied to fail by a monotone knob (a larger value
	// failed), dearer in fixed and GPU cost alone than a candidate that
	// holds, or not buildable.
	ImpliedFail int `json:"implied_fail"`
	PrunedCost  int `json:"pruned_by_cost"`
	// SameConfig counts knob settings the search asked for that give the
	// configuration of a candidate already simulated (a replica count on a
	// cluster an option switches off): they share its results.
	SameConfig int `json:"same_config,omitempty"`
	Rounds     int `json:"rounds"`
	// ElapsedS is the wall-clock time of the search (the only field that
	// changes between identical runs).
	ElapsedS float64 `json:"elapsed_s"`
	// Shard is "I/N" for one shard's part of a sharded plan.
	Shard string `json:"shard,omitempty"`
}

// WriteDecisionJSON writes the decision as indented JSON.
func WriteDecisionJSON(w io.Writer, d *Decision) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// statusRank orders statuses: the winner, those that hold, those that
// fail, those that could not be built.
func statusRank(s string) int {
	switch s {
	case "winner":
		return 0
	case "holds":
		return 1
	case "invalid":
		return 3
	}
	return 2
}

// MinMargin is a candidate's smallest constraint margin: how near it came
// (−Inf when it could not be built or overloaded).
func (c CandidateResult) MinMargin() float64 {
	if c.Invalid != "" || c.Overloaded != nil {
		return math.Inf(-1)
	}
	m := math.Inf(1)
	for _, ch := range c.Checks {
		if ch.Measured {
			m = math.Min(m, ch.Margin)
		}
	}
	return m
}

// RankCandidates orders the candidates: the winner; those that hold,
// cheapest first; those that fail, nearest first; those that could not be
// built. Ties go to the canonical index. It sets d.Winner and, without a
// winner, d.Nearest.
func RankCandidates(d *Decision) {
	cs := d.Candidates
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		ra, rb := statusRank(a.Status), statusRank(b.Status)
		switch {
		case ra != rb:
			return ra < rb
		case ra == 1 && a.CostUSD.Mean != b.CostUSD.Mean:
			return a.CostUSD.Mean < b.CostUSD.Mean
		case ra == 2 && a.MinMargin() != b.MinMargin():
			return a.MinMargin() > b.MinMargin()
		}
		return a.Index < b.Index
	})
	d.Winner, d.Nearest = nil, nil
	if len(cs) > 0 && cs[0].Status == "winner" {
		w := 0
		d.Winner = &w
		return
	}
	d.Nearest = nearestConstraint(d)
}

// nearestConstraint finds, among candidates that failed, the constraint
// nearest to holding: the failed constraint with the least margin in the
// candidate whose worst constraint came nearest.
func nearestConstraint(d *Decision) *NearestConstraint {
	var out *NearestConstraint
	bestWorst := math.Inf(-1)
	for i, c := range d.Candidates {
		if c.Invalid != "" || len(c.Checks) == 0 {
			continue
		}
		worst, wi := math.Inf(1), -1
		for j, ch := range c.Checks {
			if !ch.Met && ch.Margin < worst {
				worst, wi = ch.Margin, j
			}
		}
		if wi < 0 || worst <= bestWorst {
			continue
		}
		bestWorst = worst
		ch := c.Checks[wi]
		out = &NearestConstraint{Candidate: i, Constraint: wi, Value: ch.Value, Limit: d.Constraints[wi].Limit, Margin: ch.Margin}
	}
	return out
}
