package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/scenarios/schema"
	"github.com/headroom-sim/headroom/workloads"
)

// MaxFileSize bounds a scenario file.
const MaxFileSize = 8 << 20

// Scenario is one TOML scenario file: the base system plus its variants.
// Its struct tags, and those of the spec types it holds, are the format's
// definitions (see package schema): decoding, checking, the reference
// document, the JSON Schema and `headroom explain` all read them.
type Scenario struct {
	Name        string               `toml:"name" default:"the file name without .toml" effect:"a label in reports" doc:"scenario name, shown in reports"`
	Description string               `toml:"description" effect:"free text in reports" doc:"one line, shown in reports and headroom examples"`
	Seed        uint64               `toml:"seed" range:"[0,inf)" default:"1" doc:"seed of every random stream (0 means 1); --seed overrides it"`
	Duration    workloads.Duration   `toml:"duration" range:"(0s,366d]" msg:"must be > 0 and at most 366 days" default:"24h" doc:"simulated horizon"`
	Interval    workloads.Duration   `toml:"interval" range:"(0s,366d]" default:"1m" doc:"width of the reported time series; at most 1,000,000 intervals over the duration"`
	Start       workloads.Clock      `toml:"start" default:"00:00" doc:"clock time of t = 0, so hourly curves, outages and daily resets line up with the day"`
	Workloads   []model.WorkloadSpec `toml:"workload" doc:"task classes: what arrives, with which tokens, through which client, to which backend (1 to 10,000)"`
	Providers   []model.ProviderSpec `toml:"provider" doc:"hosted API endpoints (up to 10,000)"`
	Clusters    []model.ClusterSpec  `toml:"cluster" doc:"self-hosted GPU clusters, routable like providers"`
	Routes      []model.RouteSpec    `toml:"route" doc:"routes across providers and clusters: fallback, weighted, overflow"`
	Gateway     model.GatewaySpec    `toml:"gateway" default:"none" doc:"a gateway between clients and backends: tenants, weighted admission, fair queue, response cache"`
	Variants    []Variant            `toml:"variant" doc:"named overrides, simulated side by side with the base"`
	Plan        *PlanSpec            `toml:"plan" effect:"read by headroom plan only" doc:"what headroom plan decides: objectives, constraints and knobs"`

	file     string
	src      []byte
	ix       *LineIndex
	tree     map[string]any        // the file, parsed once; overrides apply to copies
	configs  []model.Config        // the base and each variant, built and validated by Load
	warnings []Warning             // the defaults that change their answers
	traces   *workloads.TraceCache // parsed trace datasets, shared by every configuration
}

// Variant is a named set of overrides of the base scenario, addressed by key
// path: set = { "provider.sonnet.limits.rpm" = 8000 }.
type Variant struct {
	Name        string         `toml:"name" default:"variant N" effect:"a label in results" doc:"unique; names the column, the CSV file and the JSON entry"`
	Description string         `toml:"description" effect:"free text" doc:"free text"`
	Set         map[string]any `toml:"set" doc:"the overrides: a table of \"key path\" = value, applied after the command line's --set, in sorted key order"`
}

// Override is one key-path assignment (from --set or a variant). A Value
// of type workloads.Duration is seconds a flag already parsed (sweep's
// --duration 10m), so no warning calls it a bare number.
type Override struct {
	Path  string
	Value any
}

// File is the name the scenario was loaded from.
func (s *Scenario) File() string { return s.file }

// Source is the scenario's TOML text.
func (s *Scenario) Source() []byte { return s.src }

// Load reads, decodes strictly and validates a scenario with its variants.
// name is used in error messages (a file path or "example:NAME"). The text
// is parsed once; each configuration (the base, each variant) is decoded
// from the parsed tree and validated once, here.
func Load(r io.Reader, name string) (*Scenario, error) {
	src, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(src) > MaxFileSize {
		return nil, &Error{File: name, Msg: fmt.Sprintf("file larger than %d MiB", MaxFileSize>>20)}
	}
	if line, msg := checkDepth(src); line > 0 {
		return nil, &Error{File: name, Line: line, Msg: "invalid TOML: " + msg}
	}
	s := &Scenario{file: name, src: src, ix: IndexLines(src), traces: workloads.NewTraceCache()}
	if _, err := toml.Decode(string(src), &s.tree); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{File: name, Line: pe.Position.Line, Msg: "invalid TOML: " + pe.Message}
		}
		return nil, &Error{File: name, Msg: "invalid TOML: " + err.Error()}
	}
	if s.tree == nil {
		s.tree = map[string]any{}
	}
	base, d, err := s.derive("", nil)
	if err != nil {
		return nil, err
	}
	s.Name, s.Description, s.Seed, s.Duration, s.Interval, s.Start = d.Name, d.Description, d.Seed, d.Duration, d.Interval, d.Start
	s.Workloads, s.Providers, s.Clusters, s.Routes, s.Gateway = d.Workloads, d.Providers, d.Clusters, d.Routes, d.Gateway
	variants := map[string]any{}
	if v, ok := s.tree["variant"]; ok {
		variants["variant"] = v
	}
	if errs := schema.Decode(variants, s); len(errs) > 0 {
		var es Errors
		for _, fe := range errs {
			es = append(es, s.locate(fe.Key, fe.Msg, s.tree, nil))
		}
		es.Sort()
		return nil, es
	}
	s.Plan = d.Plan
	if err := s.validatePlan(func(path, msg string) error { return s.locate(path, msg, s.tree, nil) }); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, v := range s.Variants {
		if v.Name != "" && seen[v.Name] {
			return nil, s.locate(fmt.Sprintf("variant[%d].name", i), fmt.Sprintf("duplicate variant name %q", v.Name), s.tree, nil)
		}
		seen[v.Name] = true
	}
	s.configs = []model.Config{base}
	s.warnings = append(s.warningsOf(d, base), s.bareDurations(nil)...)
	s.warnings = append(s.warnings, s.knobDurations(s.Plan)...)
	for i := range s.Variants {
		c, dv, err := s.derive(s.variantName(i), s.variantEdits(i))
		if err != nil {
			return nil, err
		}
		s.configs = append(s.configs, c)
		s.warnings = s.addVariant(s.warnings, i, s.warningsOf(dv, c))
		bare, _ := s.editDurations(s.variantEdits(i))
		s.warnings = append(s.warnings, bare...)
	}
	return s, nil
}

// LoadBytes is Load for an in-memory source.
func LoadBytes(src []byte, name string) (*Scenario, error) {
	return Load(bytes.NewReader(src), name)
}

// defaults for the scenario's top-level keys.
const (
	defaultSeed     = 1
	defaultDuration = 86400
	defaultInterval = 60
)

// Config turns the scenario (with overrides applied in order) into a
// complete model configuration for the base system.
func (s *Scenario) Config(overrides []Override) (model.Config, error) {
	if len(overrides) == 0 {
		return s.configs[0], nil
	}
	c, _, err := s.derive("", setEdits(overrides))
	return c, err
}

// Configs returns the base configuration followed by one per variant, each
// with the command-line overrides applied first and the variant's after.
// Without overrides they are the configurations Load built.
func (s *Scenario) Configs(overrides []Override) ([]model.Config, error) {
	if len(overrides) == 0 {
		return slices.Clone(s.configs), nil
	}
	sets := setEdits(overrides)
	base, _, err := s.derive("", sets)
	if err != nil {
		return nil, err
	}
	out := []model.Config{base}
	for i := range s.Variants {
		c, _, err := s.derive(s.variantName(i), append(slices.Clip(sets), s.variantEdits(i)...))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// edit is one override of the file's tree, and where it came from.
type edit struct {
	path    string // key path, as for --set; "" for a place that only catches problems
	value   any
	replace bool   // replace a plain table instead of updating the keys given
	key     string // where it came from, as an error key: "--set PATH", `variant "x" sets PATH`
	line    int    // its line in the file; 0 for the command line
	noVar   string // the message when path names a variant
	catch   bool   // problems no edit explains are reported here (a variant, a sweep level)
	canon   string // the canonical path it set, once applied
	exact   bool   // the value is in the key's unit already (a flag's), not a bare number typed
}

// setEdits are the command line's --set overrides.
func setEdits(overrides []Override) []edit {
	out := make([]edit, len(overrides))
	for i, o := range overrides {
		out[i] = edit{path: o.Path, value: o.Value, key: "--set " + o.Path, noVar: "variants cannot be overridden", exact: exactValue(o.Value)}
	}
	return out
}

// variantEdits are variant i's set, in sorted key order, then the variant
// itself, which reports the problems no key of its set explains.
func (s *Scenario) variantEdits(i int) []edit {
	at := fmt.Sprintf("variant[%d]", i)
	name := displayKey(at, s.tree)
	set := s.Variants[i].Set
	var out []edit
	for _, k := range sortedKeys(set) {
		out = append(out, edit{path: k, value: set[k], key: name + " sets " + k, line: s.ix.Line(at + ".set." + schema.FormatKey(k)),
			noVar: "variants cannot be overridden"})
	}
	return append(out, edit{key: name, line: s.ix.Line(at + ".set"), catch: true})
}

// derive applies edits to the file's tree, decodes the result strictly,
// and builds and validates the configuration called variant. Every problem
// is located: at the edit that explains it, else in the file.
func (s *Scenario) derive(variant string, edits []edit) (model.Config, *Scenario, error) {
	tree := s.tree
	edits = slices.Clone(edits)
	for i := range edits {
		e := &edits[i]
		if e.path == "" {
			continue
		}
		if strings.HasPrefix(e.path, "variant") {
			return model.Config{}, nil, &Error{File: s.file, Line: e.line, Key: e.key, Msg: e.noVar}
		}
		t, canon, msg := setPath(tree, e.path, e.value, e.replace)
		if msg != "" {
			return model.Config{}, nil, &Error{File: s.file, Line: e.line, Key: e.key, Msg: msg}
		}
		tree, e.canon = t, canon
	}
	// The variants are decoded once, by Load, not with every configuration.
	body := make(map[string]any, len(tree))
	for k, v := range tree {
		if k != "variant" {
			body[k] = v
		}
	}
	d := &Scenario{file: s.file, src: s.src, ix: s.ix, tree: tree, traces: s.traces}
	if errs := schema.Decode(body, d); len(errs) > 0 {
		var es Errors
		for _, fe := range errs {
			es = append(es, s.locate(fe.Key, fe.Msg, tree, edits))
		}
		es.Sort()
		return model.Config{}, nil, es
	}
	c := d.config(variant)
	if err := c.Validate(); err != nil {
		var fe *workloads.FieldError
		if errors.As(err, &fe) {
			if e, ok := s.demandSwitch(fe.Key, fe.Msg, tree, edits); ok {
				return model.Config{}, nil, e
			}
			return model.Config{}, nil, s.locate(fe.Key, fe.Msg, tree, edits)
		}
		return model.Config{}, nil, &Error{File: s.file, Msg: err.Error()}
	}
	return c, d, nil
}

// locate places a problem at canonical key path key: at the last edit that
// set the key or a table above it (the line of the base value it replaced
// would mislead), else at an edit that catches problems, else at the key's
// line in the file. A problem inside a distribution is shown at the
// distribution's key, the key within it leading the message.
func (s *Scenario) locate(key, msg string, tree map[string]any, edits []edit) *Error {
	for j := len(edits) - 1; j >= 0; j-- {
		e := edits[j]
		if e.canon != "" && (key == e.canon || strings.HasPrefix(key, e.canon+".") || strings.HasPrefix(key, e.canon+"[")) {
			if key != e.canon {
				msg = displayKey(key, tree) + ": " + msg
			}
			return &Error{File: s.file, Line: e.line, Key: e.key, Msg: msg}
		}
	}
	for j := len(edits) - 1; j >= 0; j-- {
		if e := edits[j]; e.catch {
			if key != "" {
				msg = displayKey(key, tree) + ": " + msg
			}
			return &Error{File: s.file, Line: e.line, Key: e.key, Msg: msg}
		}
	}
	steps, err := parsePath(key)
	if err != nil {
		return &Error{File: s.file, Key: key, Msg: msg}
	}
	outer, inner := splitValue(steps)
	if len(inner) > 0 && !strings.HasPrefix(msg, "unknown key") {
		msg = formatPath(inner) + ": " + msg
	}
	return &Error{File: s.file, Line: s.ix.lineOf(steps), Key: displaySteps(outer, tree), Msg: msg}
}

// splitValue splits a path at a value whose numbers take the unit of the
// key holding it (a distribution): the holder's path and the rest.
func splitValue(steps []step) (outer, inner []step) {
	t := reflect.TypeFor[Scenario]()
	for i, st := range steps {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if i > 0 && schema.IsRanged(t) {
			return steps[:i], steps[i:]
		}
		switch {
		case st.isIdx && t.Kind() == reflect.Slice:
			t = t.Elem()
		case !st.isIdx && t.Kind() == reflect.Struct:
			fields, _ := schema.Fields(t)
			j := slices.IndexFunc(fields, func(f schema.Field) bool { return f.Key == st.key })
			if j < 0 {
				return steps, nil
			}
			t = fields[j].Type
		default:
			return steps, nil
		}
	}
	return steps, nil
}

// config builds a Config from the decoded scenario, with defaults.
func (s *Scenario) config(variant string) model.Config {
	s.resolveTraces()
	c := model.Config{Name: s.Name, Variant: variant, Seed: s.Seed, Duration: float64(s.Duration), Interval: float64(s.Interval),
		StartClock: s.Start.Seconds(), Workloads: s.Workloads, Providers: s.Providers, Clusters: s.Clusters, Routes: s.Routes}
	if _, ok := s.tree["gateway"]; ok {
		g := s.Gateway
		c.Gateway = &g
	}
	if c.Name == "" {
		c.Name = strings.TrimSuffix(filepath.Base(s.file), ".toml")
	}
	if c.Seed == 0 {
		c.Seed = defaultSeed
	}
	if c.Duration == 0 {
		c.Duration = defaultDuration
	}
	if c.Interval == 0 {
		c.Interval = defaultInterval
	}
	c.ApplyDefaults()
	return c
}

// resolveTraces makes trace files relative to the scenario file's folder
// (an embedded example's, to the working directory), and gives them the
// scenario's cache of parsed datasets.
func (s *Scenario) resolveTraces() {
	dir := ""
	if !strings.HasPrefix(s.file, "example:") {
		dir = filepath.Dir(s.file)
	}
	for i := range s.Workloads {
		if t := s.Workloads[i].Demand.Trace; t != nil {
			t.Dir, t.Cache = dir, s.traces
		}
	}
}
