package plan

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/scenarios"
	"github.com/headroom-sim/headroom/scenarios/schema"
)

// Problem is a compiled [plan]: the scenario with its command-line
// overrides, the knobs' candidate values as overrides, the constraints,
// and the settings the search runs with.
type Problem struct {
	sc       *scenarios.Scenario
	spec     *scenarios.PlanSpec
	sets     []scenarios.Override
	MinCost  bool
	MaxLoad  bool
	Knobs    []Knob
	Cons     []Constraint
	Settings report.DecisionSettings
	base     model.Config
}

// Knob is one compiled knob: per candidate value, its label, the
// overrides it applies and its fixed price over the horizon.
type Knob struct {
	Name     string
	Kind     string // range, values, scale, options
	Keys     []string
	Labels   []string
	Sets     [][]scenarios.Override
	Fixed    []float64
	Monotone bool
	where    []string // each value's place in the file, for errors
}

// Constraint is one constraint in one scope (the whole run or the worst
// window).
type Constraint struct {
	report.ConstraintInfo
	wl  int // workload index, -1 for every workload
	slo [3]float64
}

// Scenario is the scenario the problem was compiled from.
func (p *Problem) Scenario() *scenarios.Scenario { return p.sc }

// Base is the scenario as written (with the command-line overrides).
func (p *Problem) Base() model.Config { return p.base }

// Candidates is the size of the candidate space.
func (p *Problem) Candidates() int {
	n := 1
	for _, k := range p.Knobs {
		n *= len(k.Labels)
	}
	return n
}

// Compile checks the scenario's [plan] against the scenario and compiles
// it. sets are command-line overrides, applied before every candidate's
// knob values. Every problem is a *scenarios.Error naming the file, the
// line and the key.
func Compile(sc *scenarios.Scenario, sets []scenarios.Override) (*Problem, error) {
	ps, err := sc.PlanWith(sets)
	if err != nil {
		return nil, err
	}
	if ps == nil {
		return nil, &scenarios.Error{File: sc.File(), Key: "plan", Msg: "no [plan] table: add one with an objective, constraints and [[plan.knob]] tables (see headroom plan --help; headroom examples fleet-70b prints a plan to start from)"}
	}
	base, err := sc.Config(sets)
	if err != nil {
		return nil, err
	}
	pr := &Problem{sc: sc, spec: ps, sets: sets, base: base, MinCost: ps.Objective.Has(scenarios.ObjectiveMinCost), MaxLoad: ps.Objective.Has(scenarios.ObjectiveMaxLoad)}
	st := &pr.Settings
	st.Replications = ps.ReplicationsOrDefault()
	st.Recheck = cmp.Or(ps.Recheck, 4*st.Replications)
	st.Confidence = cmp.Or(ps.Confidence, scenarios.DefaultPlanConfidence)
	st.Bound = ps.Bound
	if st.Bound == "" {
		st.Bound = "mean"
	}
	st.Screen = scenarios.DefaultPlanScreen
	if ps.Screen != nil {
		st.Screen = *ps.Screen
	}
	st.Attainment = scenarios.DefaultPlanAttainment
	if ps.Attainment != nil {
		st.Attainment = *ps.Attainment
	}
	st.HorizonS = base.Duration
	st.WindowS = ps.Window.Seconds(base.Interval)
	if st.WindowS > 0 {
		st.WindowS = math.Min(st.WindowS, base.Duration)
	}
	st.WindowRequests = cmp.Or(ps.WindowRequests, scenarios.DefaultWindowRequests)
	st.MaxFactor = cmp.Or(ps.MaxFactor, scenarios.DefaultPlanMaxFactor)
	st.Precision = cmp.Or(ps.Precision, scenarios.DefaultPlanPrecision)
	st.Seed = base.Seed

	for i := range ps.Knobs {
		k, err := pr.compileKnob(i)
		if err != nil {
			return nil, err
		}
		pr.Knobs = append(pr.Knobs, k)
	}
	if err := pr.checkValues(); err != nil {
		return nil, err
	}
	if err := pr.checkSwitchedOff(); err != nil {
		return nil, err
	}
	pr.compileConstraints()
	return pr, pr.checkObjective()
}

// checkObjective reports a plan its objectives cannot answer.
func (pr *Problem) checkObjective() error {
	sc := pr.sc
	var latency bool
	for _, c := range pr.Cons {
		if c.Kind != "budget" {
			latency = true
		}
	}
	switch {
	case len(pr.Cons) == 0:
		return sc.PlanError("plan", "nothing to hold: give the workloads a [workload.slo] (and plan.attainment above 0), or add a [[plan.target]], max_failed, max_429 or a budget")
	case pr.MinCost && !latency:
		return sc.PlanError("plan", "min_cost with only a budget: the cheapest candidate meets it trivially; add a [workload.slo], a [[plan.target]], max_failed or max_429")
	case pr.MinCost && len(pr.Knobs) == 0:
		return sc.PlanError("plan", "min_cost chooses among [[plan.knob]] values, and there are none; add a knob, or ask for objective = \"max_load\" alone")
	case !pr.MinCost && len(pr.Knobs) > 0:
		return sc.PlanError("plan.knob", "max_load measures the scenario as written and takes no knobs; for the growth left in the cheapest candidate write objective = [\"min_cost\", \"max_load\"]")
	// Keys the objectives asked for do not read.
	case pr.spec.Recheck > 0 && !pr.MinCost:
		return sc.PlanError("plan.recheck", `re-checks the winner of min_cost, and the objective is max_load alone; leave recheck out, or write objective = ["min_cost", "max_load"]`)
	case pr.spec.MaxFactor > 0 && !pr.MaxLoad:
		return sc.PlanError("plan.max_factor", `bounds the max_load search, and the objective is min_cost alone; leave max_factor out, or write objective = ["min_cost", "max_load"]`)
	case pr.spec.Precision > 0 && !pr.MaxLoad:
		return sc.PlanError("plan.precision", `is the max_load search's precision, and the objective is min_cost alone; leave precision out, or write objective = ["min_cost", "max_load"]`)
	}
	return nil
}

// compileKnob compiles knob i: its values as overrides, labels and fixed
// prices, and checks each value against the scenario.
func (pr *Problem) compileKnob(i int) (Knob, error) {
	sc := pr.sc
	spec := pr.spec.Knobs[i]
	at := fmt.Sprintf("plan.knob[%d]", i)
	k := Knob{Name: spec.DisplayName()}
	horizon := pr.Settings.HorizonS
	prorate := func(price float64, per string) float64 {
		if per == "" {
			per = "month"
		}
		period := scenarios.PricePeriods[per]
		if period == 0 {
			return price
		}
		return price * horizon / period
	}
	where := make([]string, 0) // the canonical key of each value, for errors
	switch {
	case len(spec.Options) > 0:
		k.Kind = "options"
		keys := map[string]bool{}
		for j, o := range spec.Options {
			var ov []scenarios.Override
			names := make([]string, 0, len(o.Set))
			for key := range o.Set {
				names = append(names, key)
			}
			sort.Strings(names)
			for _, key := range names {
				ov = append(ov, scenarios.Override{Path: key, Value: o.Set[key]})
				if !keys[key] {
					keys[key] = true
					k.Keys = append(k.Keys, key)
				}
			}
			k.Labels = append(k.Labels, o.Name)
			k.Sets = append(k.Sets, ov)
			k.Fixed = append(k.Fixed, prorate(o.Price, o.Per))
			where = append(where, fmt.Sprintf("%s.option[%d].set", at, j))
		}
		k.Monotone = spec.Monotone != nil && *spec.Monotone
	default:
		vals := spec.Values
		src := at + ".values"
		if spec.Range != "" {
			vals, _ = scenarios.ParseKnobRange(spec.Range) // checked when loaded
			src = at + ".range"
			k.Kind = "range"
		} else {
			k.Kind = "values"
		}
		keys := []string{spec.Key}
		var bases []float64
		if len(spec.Scale) > 0 {
			k.Kind = "scale"
			keys = spec.Scale
			for j, key := range keys {
				_, v, err := sc.Resolve(key)
				f, ok := number(v)
				switch {
				case err != nil:
					return k, sc.PlanError(fmt.Sprintf("%s.scale[%d]", at, j), fmt.Sprintf("%q: %s", key, errMsg(err)))
				case v == nil || ok && f == 0:
					return k, sc.PlanError(fmt.Sprintf("%s.scale[%d]", at, j), fmt.Sprintf("%q is not set in the scenario, so there is nothing to scale; set it, or make it a knob of its own", key))
				case !ok:
					return k, sc.PlanError(fmt.Sprintf("%s.scale[%d]", at, j), fmt.Sprintf("%q is not a number (%v), so it cannot be scaled", key, v))
				}
				bases = append(bases, f)
			}
		}
		k.Keys = keys
		for j, v := range vals {
			var ov []scenarios.Override
			if bases != nil {
				f, _ := number(v)
				for m, key := range keys {
					ov = append(ov, scenarios.Override{Path: key, Value: tidy(bases[m] * f)})
				}
				k.Labels = append(k.Labels, "×"+schema.FormatNumber(f))
			} else {
				ov = append(ov, scenarios.Override{Path: spec.Key, Value: v})
				k.Labels = append(k.Labels, valueLabel(v))
			}
			k.Sets = append(k.Sets, ov)
			price := 0.0
			if spec.Prices != nil {
				price = spec.Prices[j]
			}
			k.Fixed = append(k.Fixed, prorate(price, spec.Per))
			if spec.Range != "" {
				where = append(where, src)
			} else {
				where = append(where, fmt.Sprintf("%s[%d]", src, j))
			}
		}
		if spec.Monotone != nil {
			k.Monotone = *spec.Monotone
		} else {
			k.Monotone = len(spec.Scale) > 0 || knownMonotone(spec.Key)
		}
	}
	if k.Monotone {
		for j := 1; j < len(k.Fixed); j++ {
			if k.Fixed[j] < k.Fixed[j-1] {
				return k, sc.PlanError(at, fmt.Sprintf("is monotone (a later value never hurts) but its price falls from %s to %s; list the values from the least to the most capacity, or set monotone = false", k.Labels[j-1], k.Labels[j]))
			}
		}
	}
	k.where = where
	return k, nil
}

// checkValues checks that each knob value fits its keys: a key that does
// not exist or a value it cannot take is bad input. A value counts as bad
// only when it fails on its own, with every other knob at its first value
// and with every other knob at its last: problems that only some
// combinations of knobs cause (a route to a cluster another knob switches
// on) are left to the candidates, which report them.
func (pr *Problem) checkValues() error {
	sc := pr.sc
	contexts := [][]scenarios.Override{nil, nil, nil}
	for c := 1; c < 3; c++ {
		for _, k := range pr.Knobs {
			v := 0
			if c == 2 {
				v = len(k.Sets) - 1
			}
			contexts[c] = append(contexts[c], k.Sets[v]...)
		}
	}
	for i, k := range pr.Knobs {
		for _, j := range spread(len(k.Sets), 64) {
			var first error
			bad := true
			for _, ctx := range contexts {
				ov := append(append(append([]scenarios.Override(nil), pr.sets...), ctx...), k.Sets[j]...)
				_, err := sc.Config(ov)
				var e *scenarios.Error
				if err != nil && !errors.As(err, &e) {
					return err
				}
				hit := false
				if e != nil {
					for _, o := range k.Sets[j] {
						if e.Key == "--set "+o.Path {
							hit = true
							if first == nil {
								first = sc.PlanError(k.where[j], fmt.Sprintf("%s = %s: %s", o.Path, valueLabel(o.Value), e.Msg))
							}
						}
					}
				}
				if !hit {
					bad = false
					break
				}
			}
			_ = i
			if bad && first != nil {
				return first
			}
		}
	}
	return nil
}

// monotoneKey matches keys where more never hurts: a cluster's replicas
// and a provider's (or key's) rate limits.
var monotoneKey = regexp.MustCompile(`(^|\.)replicas$|(^|\.)limits\.(rpm|itpm|otpm|tpm|rpd|tpd)$`)

func knownMonotone(key string) bool { return monotoneKey.MatchString(key) }

// spread picks at most n indices of 0..size-1, evenly, the ends included.
func spread(size, n int) []int {
	if size <= n {
		out := make([]int, size)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, 0, n)
	for i := 0; i < n; i++ {
		j := int(math.Round(float64(i) * float64(size-1) / float64(n-1)))
		if len(out) == 0 || out[len(out)-1] != j {
			out = append(out, j)
		}
	}
	return out
}

// clusterKey matches a canonical path under a cluster.
var clusterKey = regexp.MustCompile(`^cluster\[(\d+)\]\.([a-z_]+)`)

// checkSwitchedOff reports a knob that changes a cluster that is switched
// off (replicas = 0) while no knob switches it on.
func (pr *Problem) checkSwitchedOff() error {
	sc := pr.sc
	on := map[int]bool{}
	for i, c := range pr.base.Clusters {
		if c.Replicas > 0 {
			on[i] = true
		}
		for _, e := range c.Schedule {
			if e.Replicas > 0 {
				on[i] = true
			}
		}
	}
	type use struct {
		knob    int
		cluster int
		key     string
	}
	var uses []use
	for i, k := range pr.Knobs {
		for _, set := range k.Sets {
			for _, o := range set {
				canon, _, err := sc.Resolve(o.Path)
				m := clusterKey.FindStringSubmatch(canon)
				if err != nil || m == nil {
					continue
				}
				var ci int
				fmt.Sscan(m[1], &ci)
				if m[2] == "replicas" {
					if f, ok := number(o.Value); ok && f > 0 {
						on[ci] = true
					}
					continue
				}
				uses = append(uses, use{i, ci, o.Path})
			}
		}
	}
	for _, u := range uses {
		if !on[u.cluster] {
			name := pr.base.Clusters[u.cluster].Name
			return sc.PlanError(fmt.Sprintf("plan.knob[%d]", u.knob), fmt.Sprintf("%s: cluster %q is switched off (replicas = 0) and no knob switches it on, so this knob changes nothing; add a knob on cluster.%s.replicas", u.key, name, name))
		}
	}
	return nil
}

// compileConstraints lists the constraints, each over the whole run and
// in the worst window.
func (pr *Problem) compileConstraints() {
	ps := pr.spec
	st := pr.Settings
	scopes := []bool{false, true}
	if st.WindowS == 0 {
		scopes = scopes[:1]
	}
	both := func(c Constraint, id string) {
		for _, w := range scopes {
			c.Window = w
			c.ID = id + "/run"
			if w {
				c.ID = id + "/window"
			}
			pr.Cons = append(pr.Cons, c)
		}
	}
	if st.Attainment > 0 {
		for i, w := range pr.base.Workloads {
			slo := [3]float64{float64(w.SLO.TTFT), float64(w.SLO.TPOT), float64(w.SLO.E2E)}
			if slo == [3]float64{} {
				continue
			}
			both(Constraint{ConstraintInfo: report.ConstraintInfo{Kind: "slo", Workload: w.Name, SLO: sloText(slo), Limit: st.Attainment, AtLeast: true, Unit: "share"}, wl: i, slo: slo}, "slo/"+w.Name)
		}
	}
	for _, t := range ps.Targets {
		pct := t.Percentile
		if pct == 0 && !t.Mean {
			pct = 95
		}
		stat := fmt.Sprintf("p%g", pct)
		if t.Mean {
			stat = "mean"
		}
		for i, w := range pr.base.Workloads {
			if t.Workload != "" && t.Workload != w.Name {
				continue
			}
			both(Constraint{ConstraintInfo: report.ConstraintInfo{Kind: "percentile", Workload: w.Name, Metric: t.Metric, Percentile: pct, Mean: t.Mean, Limit: float64(t.Max), Unit: "s"}, wl: i},
				fmt.Sprintf("%s-%s/%s", stat, t.Metric, w.Name))
		}
	}
	if ps.MaxFailed != nil {
		both(Constraint{ConstraintInfo: report.ConstraintInfo{Kind: "failed", Limit: *ps.MaxFailed, Unit: "share"}, wl: -1}, "failed")
	}
	if ps.Max429 != nil {
		both(Constraint{ConstraintInfo: report.ConstraintInfo{Kind: "429", Limit: *ps.Max429, Unit: "share"}, wl: -1}, "429")
	}
	if ps.Budget > 0 {
		pr.Cons = append(pr.Cons, Constraint{ConstraintInfo: report.ConstraintInfo{ID: "budget/run", Kind: "budget", Limit: ps.Budget, Unit: "usd"}, wl: -1})
	}
}

// sloText describes a workload's SLO: "TTFT ≤ 2s, TPOT ≤ 50ms".
func sloText(slo [3]float64) string {
	var parts []string
	for i, n := range []string{"TTFT", "TPOT", "E2E"} {
		if slo[i] > 0 {
			parts = append(parts, n+" ≤ "+report.Seconds(slo[i]))
		}
	}
	return strings.Join(parts, ", ")
}

// number is v as a float64 when it is a number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case int:
		return float64(x), true
	case float32:
		return float64(x), true
	case int32:
		return float64(x), true
	case uint64:
		return float64(x), true
	}
	return 0, false
}

// valueLabel prints a knob value: numbers as the summary prints them,
// strings bare, anything else as Go prints it.
func valueLabel(v any) string {
	if f, ok := number(v); ok {
		return schema.FormatNumber(f)
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// tidy rounds away floating-point dust, keeping whole numbers whole.
func tidy(v float64) any {
	r := math.Round(v*1e9) / 1e9
	if r == math.Trunc(r) && math.Abs(r) < 1<<53 {
		return int64(r)
	}
	return r
}

func errMsg(err error) string {
	var e *scenarios.Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return err.Error()
}
