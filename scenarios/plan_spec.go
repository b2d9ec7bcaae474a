package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/scenarios/schema"
	"github.com/headroom-sim/headroom/workloads"
)

// Plan objectives.
const (
	// ObjectiveMinCost asks for the cheapest candidate that meets every
	// constraint.
	ObjectiveMinCost = "min_cost"
	// ObjectiveMaxLoad asks for the largest factor every workload's demand
	// can be multiplied by while the scenario still meets every constraint.
	ObjectiveMaxLoad = "max_load"
)

// Plan bounds and defaults.
const (
	DefaultPlanReplications = 5
	DefaultPlanConfidence   = 0.95
	DefaultPlanAttainment   = 0.99
	DefaultPlanWindow       = 3600
	DefaultPlanMaxFactor    = 100
	DefaultPlanPrecision    = 0.01
	DefaultWindowRequests   = 20
	DefaultPlanScreen       = 0.5
	MaxPlanKnobs            = 16
	MaxPlanCandidates       = 10_000_000
	MaxKnobValues           = 100_000
	maxPlanReplications     = 1000
)

// PlanSpec is a scenario's [plan] table: what to decide (the objective),
// what must hold (the constraints) and what may change (the knobs). Only
// headroom plan reads it; its keys are declared, decoded and checked like
// every other table's, and `headroom plan` uses or refuses each of them.
type PlanSpec struct {
	Objective      Objectives   `toml:"objective" enum:"min_cost|max_load" default:"min_cost" doc:"what to decide: min_cost, the cheapest candidate that holds every constraint; max_load, the largest factor every workload's demand can be multiplied by while the scenario as written still holds (it takes no knobs); or both as a list, the growth measured on the winner"`
	Attainment     *float64     `toml:"attainment" unit:"share" range:"[0,1]" default:"0.99" doc:"each workload's [workload.slo] must be met by at least this share of its requests (failures count against it); 0 leaves the SLOs out"`
	Window         PlanWindow   `toml:"window" range:"(0s,366d]" default:"1h" doc:"every constraint must also hold in its worst window of this length: a duration, \"interval\" (the scenario's interval) or \"none\" (the whole run only). Requests count in the window they arrived in, attempts in the window they were sent in"`
	WindowRequests int          `toml:"window_requests" unit:"requests" range:"[1,1000000]" default:"20" doc:"a window with fewer requests (completed and failed) is not checked: it measures nothing"`
	Replications   int          `toml:"replications" range:"[1,1000]" default:"5" doc:"replications per candidate, with the same seeds for every candidate (common random numbers)"`
	Confidence     float64      `toml:"confidence" range:"[0.5,1)" default:"0.95" doc:"the confidence level of the bound a constraint is checked with"`
	Bound          string       `toml:"bound" enum:"mean|quantile" noun:"bound" default:"mean" doc:"mean: the one-sided confidence bound of the mean over the replications (Student's t, n−1 degrees of freedom; one replication: its value); quantile: the confidence quantile of the replications' values (nearest rank). For an attainment level the lower bound, for every other constraint the upper"`
	Recheck        int          `toml:"recheck" range:"[1,10000]" default:"4 × replications" doc:"the winner is brought to this many replications (at least replications; those the search ran are reused) and must still hold; if it does not, it is dropped with every candidate it dominates and the search goes on"`
	Screen         *float64     `toml:"screen" range:"[0,100]" default:"0.5" doc:"a candidate whose first replication misses a constraint by more than this share (a latency 50% above its limit, 50% more misses or failures than allowed) is rejected after it; 0 gives every candidate every replication"`
	MaxFailed      *float64     `toml:"max_failed" unit:"share" range:"[0,1]" default:"none" doc:"the largest share of requests that may fail"`
	Max429         *float64     `toml:"max_429" unit:"share" range:"[0,1]" default:"none" doc:"the largest share of attempts that may be refused with a 429 (the 429 reasons of §16)"`
	Budget         float64      `toml:"budget" unit:"USD" range:"(0,1e15]" zero:"absent for no budget" default:"none" doc:"the most the horizon may cost: tokens, GPU-hours and the knobs' fixed prices"`
	MaxFactor      float64      `toml:"max_factor" range:"(1,1000000]" default:"100" doc:"max_load tries demand factors from 1/max_factor to max_factor"`
	Precision      float64      `toml:"precision" range:"[0.0001,0.5]" default:"0.01" doc:"max_load brackets the factor to this relative width"`
	Targets        []PlanTarget `toml:"target" doc:"latency targets: a percentile (or the mean) of a workload's TTFT, E2E, TPOT or queue wait at most a duration"`
	Knobs          []PlanKnob   `toml:"knob" doc:"what a min_cost plan may change, each with its candidate values (at most 16 knobs, 10,000,000 candidates)"`
}

// Objectives is one objective or a list of them.
type Objectives []string

// DecodeScalar takes "min_cost" or ["min_cost", "max_load"].
func (o *Objectives) DecodeScalar(v any) error {
	switch x := v.(type) {
	case string:
		*o = Objectives{x}
		return nil
	case []any:
		out := Objectives{}
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return &workloads.FieldError{Key: fmt.Sprintf("[%d]", i), Msg: fmt.Sprintf("expected %q or %q, got %s", ObjectiveMinCost, ObjectiveMaxLoad, schema.TypeWords(e))}
			}
			out = append(out, s)
		}
		*o = out
		return nil
	}
	return &workloads.FieldError{Msg: fmt.Sprintf(`expected "min_cost", "max_load" or a list of both, got %s`, schema.TypeWords(v))}
}

// KeyType names the type in the scenario reference.
func (Objectives) KeyType() string { return "string or array of strings" }

// ScalarSchema is the JSON Schema of an objective or a list of them.
func (Objectives) ScalarSchema() map[string]any {
	one := map[string]any{"type": "string", "enum": []string{ObjectiveMinCost, ObjectiveMaxLoad}}
	return map[string]any{"anyOf": []any{one, map[string]any{"type": "array", "items": one}}}
}

// Has reports whether o asks for objective (min_cost when o is empty).
func (o Objectives) Has(objective string) bool {
	if len(o) == 0 {
		return objective == ObjectiveMinCost
	}
	for _, x := range o {
		if x == objective {
			return true
		}
	}
	return false
}

// PlanWindow is the length of the windows a plan's constraints must also
// hold in: a duration, "interval" (the scenario's reporting interval) or
// "none" (the whole run only). Empty is the default, one hour.
type PlanWindow string

// DecodeScalar takes a duration string, a number of seconds, "interval"
// or "none".
func (w *PlanWindow) DecodeScalar(v any) error {
	bad := func(got string) error {
		return &workloads.FieldError{Msg: fmt.Sprintf(`must be a duration > 0 and at most 366 days such as "1h", "interval" for the scenario's interval, or "none" (the whole run only); got %s`, got)}
	}
	var d float64
	switch x := v.(type) {
	case string:
		if x == "interval" || x == "none" {
			*w = PlanWindow(x)
			return nil
		}
		p, err := workloads.ParseDuration(x)
		if err != nil {
			return bad(strconv.Quote(x))
		}
		d = float64(p)
	case int64:
		d = float64(x)
	case float64:
		d = x
	default:
		return bad(schema.TypeWords(v))
	}
	if !(d > 0 && d <= 366*86400) {
		return bad(schema.FormatSeconds(d))
	}
	*w = PlanWindow(schema.FormatSeconds(d))
	return nil
}

// Seconds is the window's length: interval for "interval", 0 for "none",
// the default for an empty window.
func (w PlanWindow) Seconds(interval float64) float64 {
	switch w {
	case "":
		return DefaultPlanWindow
	case "interval":
		return interval
	case "none":
		return 0
	}
	d, err := workloads.ParseDuration(string(w))
	if err != nil {
		return DefaultPlanWindow // DecodeScalar admits only durations
	}
	return float64(d)
}

// KeyType names the type in the scenario reference.
func (PlanWindow) KeyType() string { return `duration, "interval" or "none"` }

// ScalarSchema is the JSON Schema of a window: a duration or one of the
// two words.
func (PlanWindow) ScalarSchema() map[string]any {
	return map[string]any{"anyOf": append(workloads.Duration(0).ScalarSchema()["anyOf"].([]any),
		map[string]any{"type": "string", "enum": []string{"interval", "none"}})}
}

// PlanTarget is a latency target: Percentile (or, with Mean, the mean) of
// Metric of Workload's requests (every workload when empty) at most Max.
type PlanTarget struct {
	Workload   string             `toml:"workload" default:"every workload" doc:"the workload whose requests are measured"`
	Metric     string             `toml:"metric" enum:"ttft|e2e|tpot|queue_wait" noun:"metric" default:"(required)" doc:"what is measured: time to first token, end-to-end latency, time per output token, or the wait in the client's queue"`
	Percentile float64            `toml:"percentile" range:"50|90|95|99" msg:"must be 50, 90, 95 or 99 (the percentiles results carry)" default:"95" doc:"the percentile that must be at most max"`
	Mean       bool               `toml:"mean" doc:"the mean must be at most max, instead of a percentile"`
	Max        workloads.Duration `toml:"max" range:"(0s,366d]" default:"(required)" doc:"the largest value allowed"`
}

// PlanKnob is something a plan may change, with its candidate values in
// the order a monotone search walks them:
//
//   - key with range ("1..64", "0..16+2") or values ([2, 4, 8]): one key;
//   - scale (keys) with range or values: factors applied to each key's
//     value in the scenario ("tier ×k" scales rpm, itpm and otpm);
//   - option: named choices, each setting several keys at a fixed price.
type PlanKnob struct {
	Name   string     `toml:"name" default:"its key's last segment" doc:"the knob's name in results and in --set plan.knob.NAME"`
	Key    string     `toml:"key" doc:"the key path it sets, as for --set (cluster.llama.replicas)"`
	Scale  []string   `toml:"scale" doc:"key paths it multiplies by each value, from their values in the file: \"tier ×k\" scales rpm and tpm together"`
	Range  string     `toml:"range" doc:"the candidate values as a range: \"1..64\", \"0..16+2\" (a step), \"1k..8k+1k\" (numbers may carry k, M, G)"`
	Values KnobValues `toml:"values" doc:"the candidate values as a list: [4, 8], [\"H100-SXM\", \"L40S\"]; factors with scale"`
	// Prices are fixed prices per value (of range or values), charged as
	// Per says; an option carries its own.
	Prices  []float64    `toml:"prices" unit:"USD" range:"[0,1e15]" default:"0 for every value" doc:"a fixed price for each value of range or values, per per"`
	Per     string       `toml:"per" enum:"hour|day|month|year|horizon" noun:"period" default:"month" doc:"what prices are quoted per: a month is 730 hours, as cloud price lists count it; horizon, the simulated horizon itself. Fixed prices are prorated to the horizon"`
	Options []PlanOption `toml:"option" doc:"named choices, each setting several keys at its own fixed price (a GPU type with its price, a hosted tier with its limits)"`
	// Monotone says a later value never makes a constraint worse
	// (default: true for replicas, rate limits and scale, else false).
	Monotone *bool `toml:"monotone" default:"true for a cluster's replicas, rate limits and scale; else false" doc:"a later value never makes a constraint worse: the knob is searched (galloping and bisection), not scanned; its fixed and GPU cost must not fall along its values"`
}

// KnobValues are a knob's candidate values, any TOML values.
type KnobValues []any

// DecodeScalar takes an array of values.
func (k *KnobValues) DecodeScalar(v any) error {
	switch x := v.(type) {
	case []any:
		*k = append(KnobValues{}, x...)
	case []map[string]any:
		out := KnobValues{}
		for _, m := range x {
			out = append(out, m)
		}
		*k = out
	default:
		return &workloads.FieldError{Msg: fmt.Sprintf("expected an array of values, got %s", schema.TypeWords(v))}
	}
	return nil
}

// KeyType names the type in the scenario reference.
func (KnobValues) KeyType() string { return "array of values" }

// ScalarSchema is the JSON Schema of a knob's values: an array of any
// values the key takes.
func (KnobValues) ScalarSchema() map[string]any {
	items := []any{map[string]any{"type": "number"}, map[string]any{"type": "string"}, map[string]any{"type": "boolean"}, map[string]any{"type": "object"}}
	return map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"anyOf": items}}
}

// PlanOption is one named choice of a knob: the keys it sets and its
// fixed price.
type PlanOption struct {
	Name  string         `toml:"name" default:"(required)" doc:"the option's name, unique in its knob"`
	Price float64        `toml:"price" unit:"USD" range:"[0,1e15]" default:"0" doc:"its fixed price, per per"`
	Per   string         `toml:"per" enum:"hour|day|month|year|horizon" noun:"period" default:"month" doc:"what price is quoted per (as a knob's per)"`
	Set   map[string]any `toml:"set" doc:"the keys it sets: a table of \"key path\" = value, as a [[variant]]'s set"`
}

// PricePeriods are the seconds of each period a fixed price may be quoted
// per; a month is 730 hours, as cloud price lists count it. "horizon" is
// the simulated horizon itself.
var PricePeriods = model.PricePeriods // the periods of [provider.price] commitment_per

// HasPlan reports whether the scenario has a [plan] table.
func (s *Scenario) HasPlan() bool { return s.Plan != nil }

// PlanError locates a problem of the [plan] table at path, a canonical
// key path such as "plan.knob[0].range", by its line in the file.
func (s *Scenario) PlanError(path, msg string) error {
	return s.locate(path, msg, s.tree, nil)
}

// ParseKnobRange expands a knob's range "A..B" or "A..B+S" (numbers may
// carry a suffix, 1k..8k+1k) into its values, whole ones as int64.
func ParseKnobRange(spec string) ([]any, error) {
	lo, rest, ok := strings.Cut(strings.TrimSpace(spec), "..")
	if !ok {
		return nil, fmt.Errorf(`%q is not a range: write "1..64" or "0..16+2"`, spec)
	}
	hi, by, hasStep := strings.Cut(rest, "+")
	num := func(what, s string) (float64, error) {
		if v, ok := schema.ParseNumber(s); ok {
			return toFloat(v), nil
		}
		return 0, fmt.Errorf("range %q: %s %q is not a finite number", spec, what, s)
	}
	a, err := num("start", lo)
	if err != nil {
		return nil, err
	}
	b, err := num("end", hi)
	if err != nil {
		return nil, err
	}
	step := 1.0
	if hasStep {
		if step, err = num("step", by); err != nil {
			return nil, err
		}
		if step <= 0 {
			return nil, fmt.Errorf("range %q: the step must be > 0", spec)
		}
	}
	if b < a {
		return nil, fmt.Errorf("range %q is empty: end %s is below start %s", spec, schema.FormatNumber(b), schema.FormatNumber(a))
	}
	if (b-a)/step >= MaxKnobValues {
		return nil, fmt.Errorf("range %q gives more than %d values; use a coarser step", spec, MaxKnobValues)
	}
	var out []any
	for k := 0; ; k++ {
		v := tidy(a + float64(k)*step)
		if v > b*(1+1e-12)+1e-12 {
			break
		}
		out = append(out, numberValue(v))
	}
	return out, nil
}

// validatePlan checks the [plan] table's shape: objectives, numbers in
// range, targets, and each knob's kind and values. Whether knob keys exist
// and take their values is checked when the plan is compiled, against the
// scenario (scenarios/plan).
func (s *Scenario) validatePlan(loc func(path, msg string) error) error {
	p := s.Plan
	if p == nil {
		return nil
	}
	seen := map[string]bool{}
	for i, o := range p.Objective {
		at := "plan.objective"
		if len(p.Objective) > 1 {
			at = fmt.Sprintf("plan.objective[%d]", i)
		}
		if o != ObjectiveMinCost && o != ObjectiveMaxLoad {
			return loc(at, fmt.Sprintf("unknown objective %q; allowed: %s, %s", o, ObjectiveMinCost, ObjectiveMaxLoad))
		}
		if seen[o] {
			return loc(at, fmt.Sprintf("objective %q given twice", o))
		}
		seen[o] = true
	}
	if len(p.Objective) == 0 && p.Objective != nil {
		return loc("plan.objective", fmt.Sprintf("no objective; give %q, %q or both", ObjectiveMinCost, ObjectiveMaxLoad))
	}
	// Numbers, enumerated strings and the window were checked against
	// their definitions when the table was decoded; what is left are the
	// rules between keys.
	if p.Recheck > 0 && p.Recheck < p.ReplicationsOrDefault() {
		return loc("plan.recheck", fmt.Sprintf("re-checks the winner with more replications than the search's %d, got %d", p.ReplicationsOrDefault(), p.Recheck))
	}
	// A key that cannot change the answer where it stands is refused, as
	// every other key of the format is.
	// (Keys only one objective reads are refused with the objective's
	// other rules, when the plan is compiled.)
	if p.WindowRequests > 0 && p.Window == "none" {
		return loc("plan.window_requests", `applies to the windows, and window = "none" checks the whole run only; leave window_requests out, or give a window`)
	}
	if p.Attainment != nil && *p.Attainment > 0 {
		slo := false
		for _, w := range s.Workloads {
			slo = slo || w.SLO.TTFT > 0 || w.SLO.TPOT > 0 || w.SLO.E2E > 0
		}
		if !slo {
			return loc("plan.attainment", "is the share of requests that must meet their workload's [workload.slo], and no workload has one; give one a [workload.slo], or leave attainment out")
		}
	}
	wl := map[string]bool{}
	var names []string
	for _, w := range s.Workloads {
		wl[w.Name] = true
		names = append(names, w.Name)
	}
	for i, t := range p.Targets {
		at := fmt.Sprintf("plan.target[%d]", i)
		switch {
		case t.Workload != "" && !wl[t.Workload]:
			return loc(at+".workload", fmt.Sprintf("no workload named %q; have: %s", t.Workload, strings.Join(names, ", ")))
		case t.Metric == "":
			return loc(at, "needs metric: ttft, e2e, tpot or queue_wait")
		case t.Mean && t.Percentile != 0:
			return loc(at+".mean", "a target is a percentile or the mean, not both; leave out percentile or mean")
		case !(t.Max > 0):
			return loc(at, `needs max, the largest value allowed: a duration such as "2s"`)
		}
	}
	if len(p.Knobs) > MaxPlanKnobs {
		return loc("plan.knob", fmt.Sprintf("at most %d knobs, got %d", MaxPlanKnobs, len(p.Knobs)))
	}
	knobNames := map[string]bool{}
	total := 1.0
	for i := range p.Knobs {
		n, err := s.validateKnob(i, loc)
		if err != nil {
			return err
		}
		name := p.Knobs[i].DisplayName()
		if knobNames[name] {
			return loc(fmt.Sprintf("plan.knob[%d]", i), fmt.Sprintf("two knobs named %q; give each a name", name))
		}
		knobNames[name] = true
		if total *= float64(n); total > MaxPlanCandidates {
			return loc(fmt.Sprintf("plan.knob[%d]", i), fmt.Sprintf("the knobs give more than %d candidates; use coarser steps", MaxPlanCandidates))
		}
	}
	return nil
}

// ReplicationsOrDefault is plan.replications, or the default when it is
// not set.
func (p *PlanSpec) ReplicationsOrDefault() int {
	if p.Replications == 0 {
		return DefaultPlanReplications
	}
	return p.Replications
}

// DisplayName is the knob's name, or its key's last segment (for scale,
// the first key's, with ×).
func (k *PlanKnob) DisplayName() string {
	if k.Name != "" {
		return k.Name
	}
	key := k.Key
	if key == "" && len(k.Scale) > 0 {
		key = k.Scale[0]
	}
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		key = key[i+1:]
	}
	if len(k.Scale) > 0 {
		return key + " ×"
	}
	return key
}

// validateKnob checks knob i's shape and returns how many values it has.
func (s *Scenario) validateKnob(i int, loc func(path, msg string) error) (int, error) {
	k := &s.Plan.Knobs[i]
	at := fmt.Sprintf("plan.knob[%d]", i)
	kinds := 0
	for _, set := range []bool{k.Key != "", len(k.Scale) > 0, len(k.Options) > 0} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return 0, loc(at, "a knob has one of: key (with range or values), scale (keys, with range or values of factors), or [[plan.knob.option]] tables")
	}
	badKey := func(where, key string) error {
		for _, pre := range []string{"plan", "variant"} {
			if key == pre || strings.HasPrefix(key, pre+".") || strings.HasPrefix(key, pre+"[") {
				return loc(where, fmt.Sprintf("%q: a knob cannot change the %s tables", key, pre))
			}
		}
		if _, err := parsePath(key); err != nil {
			return loc(where, fmt.Sprintf("%q: %v", key, err))
		}
		return nil
	}
	if len(k.Options) > 0 {
		if k.Range != "" || k.Values != nil || k.Prices != nil || k.Per != "" {
			return 0, loc(at, "a knob with options takes no range, values, prices or per: each option sets its own keys and price")
		}
		names := map[string]bool{}
		for j, o := range k.Options {
			oat := fmt.Sprintf("%s.option[%d]", at, j)
			switch {
			case o.Name == "":
				return 0, loc(oat+".name", "every option needs a name")
			case names[o.Name]:
				return 0, loc(oat+".name", fmt.Sprintf("option %q given twice", o.Name))
			case o.Per != "" && o.Price == 0:
				return 0, loc(oat+".per", "says what price is quoted per, and the option has no price; give price or leave per out")
			}
			names[o.Name] = true
			for _, key := range optionKeys(o.Set) {
				if err := badKey(oat+".set", key); err != nil {
					return 0, err
				}
			}
		}
		return len(k.Options), nil
	}
	for j, key := range append([]string{k.Key}, k.Scale...) {
		if key == "" && j == 0 {
			continue
		}
		where := at + ".key"
		if j > 0 {
			where = fmt.Sprintf("%s.scale[%d]", at, j-1)
		}
		if err := badKey(where, key); err != nil {
			return 0, err
		}
	}
	var vals []any
	switch {
	case k.Range != "" && k.Values != nil:
		return 0, loc(at, "give range or values, not both")
	case k.Range != "":
		var err error
		if vals, err = ParseKnobRange(k.Range); err != nil {
			return 0, loc(at+".range", err.Error())
		}
	case k.Values != nil:
		vals = k.Values
		if len(vals) == 0 {
			return 0, loc(at+".values", "no values: list at least one")
		}
		if len(vals) > MaxKnobValues {
			return 0, loc(at+".values", fmt.Sprintf("at most %d values", MaxKnobValues))
		}
		seen := map[string]bool{}
		for j, v := range vals {
			t := fmt.Sprintf("%#v", v)
			if seen[t] {
				return 0, loc(fmt.Sprintf("%s.values[%d]", at, j), fmt.Sprintf("value %v given twice", v))
			}
			seen[t] = true
		}
	default:
		return 0, loc(at, "needs range = \"A..B\" or values = [...]")
	}
	if len(k.Scale) > 0 {
		for j, v := range vals {
			f := toFloat(v)
			if !(f > 0) || math.IsInf(f, 0) {
				return 0, loc(at, fmt.Sprintf("scale factors must be numbers > 0, value %d is %v", j+1, v))
			}
		}
	}
	if k.Prices != nil && len(k.Prices) != len(vals) {
		return 0, loc(at+".prices", fmt.Sprintf("one price per value: %d values, %d prices", len(vals), len(k.Prices)))
	}
	if k.Per != "" && k.Prices == nil {
		return 0, loc(at+".per", "says what prices are quoted per, and the knob has no prices; give prices = [...] (one per value) or leave per out")
	}
	return len(vals), nil
}

// optionKeys lists an option's keys in order.
func optionKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

// PlanWith returns the [plan] table with the overrides among overrides
// whose keys are under plan applied (--set plan.replications=10), checked
// as when the file was loaded; nil when the scenario has no [plan]. Other
// overrides are ignored here.
func (s *Scenario) PlanWith(overrides []Override) (*PlanSpec, error) {
	var ov []Override
	for _, o := range overrides {
		if o.Path == "plan" || strings.HasPrefix(o.Path, "plan.") || strings.HasPrefix(o.Path, "plan[") {
			ov = append(ov, o)
		}
	}
	if len(ov) == 0 {
		return s.Plan, nil
	}
	edits := setEdits(ov)
	_, d, err := s.derive("", edits)
	if err != nil {
		return nil, err
	}
	for i := range edits {
		_, edits[i].canon, _ = setPath(s.tree, edits[i].path, edits[i].value, false)
	}
	if err := d.validatePlan(func(path, msg string) error { return s.locate(path, msg, d.tree, edits) }); err != nil {
		return nil, err
	}
	return d.Plan, nil
}

// Resolve returns a key path's canonical form (element names resolved to
// indices: cluster.h100.replicas is cluster[0].replicas) and the value the
// file gives it (nil when the file leaves it to its default).
func (s *Scenario) Resolve(path string) (canon string, value any, err error) {
	steps, err := parsePath(path)
	if err != nil {
		return "", nil, err
	}
	var node any = s.tree
	var at []step
	for _, st := range steps {
		if elems, ok := arrayOf(node); ok {
			i, msg := pick(s.tree, elems, st, at, true)
			if msg != "" {
				return "", nil, errors.New(msg)
			}
			at, node = appendStep(at, idxStep(i)), elems[i]
			continue
		}
		if st.isIdx {
			return "", nil, fmt.Errorf("%s is not an array", displaySteps(at, s.tree))
		}
		at = appendStep(at, keyStep(st.key))
		if m, ok := node.(map[string]any); ok {
			node = m[st.key]
		} else {
			node = nil
		}
	}
	return formatPath(at), node, nil
}

// TOML writes the scenario with overrides applied, as a TOML document that
// loads and runs as it is, without the top-level tables named in drop. The
// file's comments and layout are not kept: the tree is encoded anew.
func (s *Scenario) TOML(overrides []Override, drop ...string) ([]byte, error) {
	tree := s.tree
	for _, o := range overrides {
		t, _, msg := setPath(tree, o.Path, o.Value, false)
		if msg != "" {
			return nil, &Error{File: s.file, Key: o.Path, Msg: msg}
		}
		tree = t
	}
	out := make(map[string]any, len(tree))
	for k, v := range tree {
		out[k] = v
	}
	for _, k := range drop {
		delete(out, k)
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(out); err != nil {
		return nil, fmt.Errorf("%s: encode: %w", s.file, err)
	}
	return b.Bytes(), nil
}
