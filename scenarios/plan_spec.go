package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

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
// what must hold (the constraints) and what may change (the knobs).
type PlanSpec struct {
	// Objective is "min_cost" (default), "max_load", or both as a list.
	Objective Objectives `toml:"objective"`
	// Attainment is the share of each workload's requests that must meet
	// its [workload.slo] (default 0.99; 0 leaves the SLOs out).
	Attainment *float64 `toml:"attainment"`
	// Window is the length of the windows every constraint must also
	// hold in: a duration ("1h", the default), "interval" for the
	// scenario's reporting interval, or "none" for the whole run only.
	Window string `toml:"window"`
	// WindowRequests is how many requests a window needs before shares and
	// percentiles are checked in it (default 20): fewer measure nothing.
	WindowRequests int `toml:"window_requests"`
	// Replications per candidate (default 5).
	Replications int `toml:"replications"`
	// Confidence of the bound a constraint is checked with (default 0.95).
	Confidence float64 `toml:"confidence"`
	// Bound is "mean" (default: the one-sided confidence bound of the mean
	// over the replications) or "quantile" (the confidence quantile of the
	// replications' values).
	Bound string `toml:"bound"`
	// Recheck is the replications the winner is checked again with
	// (default four times Replications).
	Recheck int `toml:"recheck"`
	// Screen rejects a candidate after its first replication when that
	// replication misses a constraint by more than this share (latency
	// 50% above its limit, 50% more misses or failures than allowed; the
	// default 0.5). 0 gives every candidate every replication.
	Screen *float64 `toml:"screen"`
	// MaxFailed is the largest share of requests that may fail.
	MaxFailed *float64 `toml:"max_failed"`
	// Max429 is the largest share of attempts that may be refused with 429.
	Max429 *float64 `toml:"max_429"`
	// Budget is the most the horizon may cost, USD (0: none).
	Budget float64 `toml:"budget"`
	// MaxFactor bounds the demand factors max_load tries (default 100).
	MaxFactor float64 `toml:"max_factor"`
	// Precision is how tight max_load brackets the factor (default 0.01).
	Precision float64 `toml:"precision"`
	// Targets are percentile targets.
	Targets []PlanTarget `toml:"target"`
	// Knobs are what a min_cost plan may change.
	Knobs []PlanKnob `toml:"knob"`
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
				return &workloads.FieldError{Key: fmt.Sprintf("[%d]", i), Msg: fmt.Sprintf("expected %q or %q", ObjectiveMinCost, ObjectiveMaxLoad)}
			}
			out = append(out, s)
		}
		*o = out
		return nil
	}
	return &workloads.FieldError{Msg: fmt.Sprintf(`expected "min_cost", "max_load" or a list of both, got %T`, v)}
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

// PlanTarget is a latency target: Percentile (or, with Mean, the mean) of
// Metric of Workload's requests (every workload when empty) at most Max.
type PlanTarget struct {
	Workload   string             `toml:"workload"`
	Metric     string             `toml:"metric"`     // ttft | e2e | tpot | queue_wait
	Percentile float64            `toml:"percentile"` // 50, 90, 95 (default) or 99
	Mean       bool               `toml:"mean"`       // the mean instead of a percentile
	Max        workloads.Duration `toml:"max"`
}

// PlanKnob is something a plan may change, with its candidate values in
// the order a monotone search walks them:
//
//   - key with range ("1..64", "0..16+2") or values ([2, 4, 8]): one key;
//   - scale (keys) with range or values: factors applied to each key's
//     value in the scenario ("tier ×k" scales rpm, itpm and otpm);
//   - option: named choices, each setting several keys at a fixed price.
type PlanKnob struct {
	Name   string     `toml:"name"`
	Key    string     `toml:"key"`
	Scale  []string   `toml:"scale"`
	Range  string     `toml:"range"`
	Values KnobValues `toml:"values"`
	// Prices are fixed prices per value (of range or values), charged as
	// Per says; an option carries its own.
	Prices  []float64    `toml:"prices"`
	Per     string       `toml:"per"`
	Options []PlanOption `toml:"option"`
	// Monotone says a later value never makes a constraint worse
	// (default: true for replicas, rate limits and scale, else false).
	Monotone *bool `toml:"monotone"`
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
		return &workloads.FieldError{Msg: fmt.Sprintf("expected an array of values, got %T", v)}
	}
	return nil
}

// PlanOption is one named choice of a knob: the keys it sets and its
// fixed price.
type PlanOption struct {
	Name  string         `toml:"name"`
	Price float64        `toml:"price"`
	Per   string         `toml:"per"` // month (default), day, hour, year or horizon
	Set   map[string]any `toml:"set"`
}

// PricePeriods are the seconds of each period a fixed price may be quoted
// per; a month is 730 hours, as cloud price lists count it. "horizon" is
// the simulated horizon itself.
var PricePeriods = map[string]float64{"hour": 3600, "day": 86400, "month": 730 * 3600, "year": 8760 * 3600, "horizon": 0}

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
		s = strings.TrimSpace(s)
		if v, ok := ParseNumber(s); ok {
			return toFloat(v), nil
		}
		_, v, err := ParseSet("x=" + s)
		if err == nil {
			switch x := v.(type) {
			case int64:
				return float64(x), nil
			case float64:
				if !math.IsNaN(x) && !math.IsInf(x, 0) {
					return x, nil
				}
			}
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
		return nil, fmt.Errorf("range %q is empty: end %s is below start %s", spec, FormatNumber(b), FormatNumber(a))
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
	share := func(key string, v *float64, what string) error {
		if v != nil && !(*v >= 0 && *v <= 1) {
			return loc(key, fmt.Sprintf("%s, a share from 0 to 1 (0.99 is 99%%), got %v", what, *v))
		}
		return nil
	}
	if err := share("plan.attainment", p.Attainment, "the share of each workload's requests that must meet its [workload.slo]"); err != nil {
		return err
	}
	if err := share("plan.max_failed", p.MaxFailed, "the largest share of requests that may fail"); err != nil {
		return err
	}
	if err := share("plan.max_429", p.Max429, "the largest share of attempts that may be refused with 429"); err != nil {
		return err
	}
	if p.Screen != nil && !(*p.Screen >= 0 && *p.Screen <= 100) {
		return loc("plan.screen", fmt.Sprintf("must be a share from 0 (off) to 100, such as 0.5, got %v", *p.Screen))
	}
	if p.Window != "" && p.Window != "interval" && p.Window != "none" {
		d, err := workloads.ParseDuration(p.Window)
		if err != nil || d <= 0 {
			return loc("plan.window", fmt.Sprintf(`must be a duration > 0 such as "1h", "interval" for the scenario's interval, or "none" (the whole run only); got %q`, p.Window))
		}
	}
	checks := []struct {
		key     string
		ok      bool
		allowed string
		got     any
	}{
		{"plan.window_requests", p.WindowRequests >= 0 && p.WindowRequests <= 1_000_000, "a whole number from 0 to 1000000 (0 for the default, 20)", p.WindowRequests},
		{"plan.replications", p.Replications >= 0 && p.Replications <= maxPlanReplications, fmt.Sprintf("a whole number from 1 to %d", maxPlanReplications), p.Replications},
		{"plan.confidence", p.Confidence == 0 || (p.Confidence >= 0.5 && p.Confidence < 1), "a level from 0.5 to below 1, such as 0.95", p.Confidence},
		{"plan.bound", p.Bound == "" || p.Bound == "mean" || p.Bound == "quantile", `"mean" (the one-sided confidence bound of the mean) or "quantile" (the confidence quantile of the replications)`, p.Bound},
		{"plan.recheck", p.Recheck >= 0 && p.Recheck <= 100*maxPlanReplications, fmt.Sprintf("a whole number of replications up to %d", 100*maxPlanReplications), p.Recheck},
		{"plan.budget", p.Budget >= 0 && !math.IsInf(p.Budget, 0) && !math.IsNaN(p.Budget), "a finite number of USD >= 0 (0 for none)", p.Budget},
		{"plan.max_factor", p.MaxFactor == 0 || (p.MaxFactor > 1 && p.MaxFactor <= 1e6), "a factor above 1 and at most 1000000", p.MaxFactor},
		{"plan.precision", p.Precision == 0 || (p.Precision >= 1e-4 && p.Precision <= 0.5), "a relative precision from 0.0001 to 0.5, such as 0.01", p.Precision},
	}
	for _, c := range checks {
		if !c.ok {
			return loc(c.key, fmt.Sprintf("must be %s, got %v", c.allowed, c.got))
		}
	}
	if p.Recheck > 0 && p.Recheck < p.replications() {
		return loc("plan.recheck", fmt.Sprintf("re-checks the winner with more replications than the search's %d, got %d", p.replications(), p.Recheck))
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
		case !oneOfStrings(t.Metric, "ttft", "e2e", "tpot", "queue_wait"):
			return loc(at+".metric", fmt.Sprintf("must be ttft, e2e, tpot or queue_wait, got %q", t.Metric))
		case !(t.Percentile == 0 || t.Percentile == 50 || t.Percentile == 90 || t.Percentile == 95 || t.Percentile == 99):
			return loc(at+".percentile", fmt.Sprintf("must be 50, 90, 95 or 99 (the percentiles results carry), got %v", t.Percentile))
		case t.Mean && t.Percentile != 0:
			return loc(at+".mean", "a target is a percentile or the mean, not both; leave out percentile or mean")
		case !(t.Max > 0):
			return loc(at+".max", fmt.Sprintf("must be a duration > 0 such as \"2s\", got %v", float64(t.Max)))
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

func (p *PlanSpec) replications() int {
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
			case !(o.Price >= 0) || math.IsInf(o.Price, 0):
				return 0, loc(oat+".price", fmt.Sprintf("must be a finite number of USD >= 0, got %v", o.Price))
			}
			if _, ok := PricePeriods[o.Per]; !ok && o.Per != "" {
				return 0, loc(oat+".per", fmt.Sprintf("must be hour, day, month (default, 730 hours), year or horizon, got %q", o.Per))
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
	for j, p := range k.Prices {
		if !(p >= 0) || math.IsInf(p, 0) {
			return 0, loc(fmt.Sprintf("%s.prices[%d]", at, j), fmt.Sprintf("must be a finite number of USD >= 0, got %v", p))
		}
	}
	if _, ok := PricePeriods[k.Per]; !ok && k.Per != "" {
		return 0, loc(at+".per", fmt.Sprintf("must be hour, day, month (default, 730 hours), year or horizon, got %q", k.Per))
	}
	return len(vals), nil
}

func oneOfStrings(s string, allowed ...string) bool {
	for _, a := range allowed {
		if s == a {
			return true
		}
	}
	return false
}

// optionKeys lists an option's keys in order.
func optionKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
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
