package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/workloads"
)

// MaxFileSize bounds a scenario file.
const MaxFileSize = 8 << 20

// Scenario is one TOML scenario file: the base system plus its variants.
type Scenario struct {
	Name        string               `toml:"name"`
	Description string               `toml:"description"`
	Seed        uint64               `toml:"seed"`
	Duration    workloads.Duration   `toml:"duration"`
	Interval    workloads.Duration   `toml:"interval"`
	Start       string               `toml:"start"`
	Workloads   []model.WorkloadSpec `toml:"workload"`
	Providers   []model.ProviderSpec `toml:"provider"`
	Clusters    []model.ClusterSpec  `toml:"cluster"`
	Routes      []model.RouteSpec    `toml:"route"`
	Gateway     model.GatewaySpec    `toml:"gateway"`
	Variants    []Variant            `toml:"variant"`

	file string
	src  []byte
	ix   *LineIndex
}

// Variant is a named set of overrides of the base scenario, addressed by key
// path: set = { "provider.sonnet.limits.rpm" = 8000 }.
type Variant struct {
	Name        string         `toml:"name"`
	Description string         `toml:"description"`
	Set         map[string]any `toml:"set"`
}

// Override is one key-path assignment (from --set or a variant).
type Override struct {
	Path  string
	Value any
}

// File is the name the scenario was loaded from.
func (s *Scenario) File() string { return s.file }

// Source is the scenario's TOML text.
func (s *Scenario) Source() []byte { return s.src }

// Load reads, decodes strictly and validates a scenario. name is used in
// error messages (a file path or "example:NAME").
func Load(r io.Reader, name string) (*Scenario, error) {
	src, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(src) > MaxFileSize {
		return nil, &Error{File: name, Msg: fmt.Sprintf("file larger than %d MiB", MaxFileSize>>20)}
	}
	s, err := decode(name, src)
	if err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	for i, v := range s.Variants {
		if _, err := s.variantConfig(i, nil); err != nil {
			return nil, err
		}
		_ = v
	}
	return s, nil
}

func decode(name string, src []byte) (*Scenario, error) {
	s := &Scenario{}
	ix, err := DecodeStrict(name, src, s)
	if err != nil {
		return nil, err
	}
	s.file, s.src, s.ix = name, src, ix
	return s, nil
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
	c, err := s.clone()
	if err != nil {
		return model.Config{}, err
	}
	if err := c.apply(overrides, -1); err != nil {
		return model.Config{}, err
	}
	if err := c.validate(); err != nil {
		return model.Config{}, c.overrideError(err, -1, nil, overrides)
	}
	return c.config(""), nil
}

// Configs returns the base configuration followed by one per variant, each
// with the command-line overrides applied first and the variant's after.
func (s *Scenario) Configs(overrides []Override) ([]model.Config, error) {
	base, err := s.Config(overrides)
	if err != nil {
		return nil, err
	}
	out := []model.Config{base}
	for i := range s.Variants {
		c, err := s.variantConfig(i, overrides)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func (s *Scenario) variantConfig(i int, overrides []Override) (model.Config, error) {
	v := s.Variants[i]
	c, err := s.clone()
	if err != nil {
		return model.Config{}, err
	}
	if err := c.apply(overrides, -1); err != nil {
		return model.Config{}, err
	}
	var ov []Override
	for _, k := range variantKeys(v.Set) {
		ov = append(ov, Override{Path: k, Value: v.Set[k]})
	}
	if err := c.apply(ov, i); err != nil {
		return model.Config{}, err
	}
	name := v.Name
	if name == "" {
		name = fmt.Sprintf("variant %d", i+1)
	}
	if err := c.validate(); err != nil {
		return model.Config{}, c.overrideError(err, i, ov, overrides)
	}
	return c.config(name), nil
}

// clone re-decodes the source so overrides never touch the original.
func (s *Scenario) clone() (*Scenario, error) {
	return decode(s.file, s.src)
}

// apply assigns overrides; errors point at where the override came from:
// variant[i].set when variant >= 0, the command line (--set) otherwise.
func (s *Scenario) apply(ov []Override, variant int) error {
	for _, o := range ov {
		key, line := s.overrideSource(variant, o.Path)
		if strings.HasPrefix(o.Path, "variant") {
			return &Error{File: s.file, Line: line, Key: key, Msg: "variants cannot be overridden"}
		}
		if err := Set(s, o.Path, o.Value); err != nil {
			msg := err.Error()
			var e *Error
			if errors.As(err, &e) {
				msg = e.Msg
			}
			return &Error{File: s.file, Line: line, Key: key, Msg: msg}
		}
	}
	return nil
}

// overrideSource names where an override of path came from, as an error key
// (`variant "tier 4" sets provider.sonnet.limits.rpm` or
// `--set provider.sonnet.limits.rpm`), and its line in the file (0 for
// --set).
func (s *Scenario) overrideSource(variant int, path string) (key string, line int) {
	if variant < 0 {
		return "--set " + path, 0
	}
	at := fmt.Sprintf("variant[%d].set", variant)
	return DisplayKey(fmt.Sprintf("variant[%d]", variant), NamesFrom(s)) + " sets " + path, s.ix.Line(at + "." + formatKey(path))
}

// overrideError re-locates a validation problem of the overridden scenario
// s: when an override (ov from variant i, or else one of sets from the
// command line) set the key at fault or a table above it, the problem is
// reported at that override, since the line of the base value it replaced
// would mislead. A problem of a variant no override explains is reported at
// the variant.
func (s *Scenario) overrideError(err error, variant int, ov, sets []Override) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	names := NamesFrom(s)
	try := func(list []Override, from int) *Error {
		for j := len(list) - 1; j >= 0; j-- { // the last assignment wins
			canon, cerr := CanonicalPath(s, list[j].Path)
			if cerr != nil {
				continue
			}
			k := DisplayKey(canon, names)
			if e.Key != k && !strings.HasPrefix(e.Key, k+".") && !strings.HasPrefix(e.Key, k+"[") {
				continue
			}
			key, line := s.overrideSource(from, list[j].Path)
			msg := e.Msg
			if e.Key != k {
				msg = e.Key + ": " + msg
			}
			return &Error{File: s.file, Line: line, Key: key, Msg: msg}
		}
		return nil
	}
	if variant >= 0 {
		if out := try(ov, variant); out != nil {
			return out
		}
	}
	if out := try(sets, -1); out != nil {
		return out
	}
	if variant >= 0 {
		key := DisplayKey(fmt.Sprintf("variant[%d]", variant), names)
		msg := e.Msg
		if e.Key != "" {
			msg = e.Key + ": " + msg
		}
		return &Error{File: s.file, Line: s.ix.Line(fmt.Sprintf("variant[%d].set", variant)), Key: key, Msg: msg}
	}
	return err
}

// config builds a Config from the (overridden and validated) scenario.
func (s *Scenario) config(variant string) model.Config {
	s.resolveTraces()
	c := model.Config{Name: s.Name, Variant: variant, Seed: s.Seed, Duration: float64(s.Duration), Interval: float64(s.Interval),
		Workloads: s.Workloads, Providers: s.Providers, Clusters: s.Clusters, Routes: s.Routes}
	c.Gateway = s.gateway()
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
	if s.Start != "" {
		c.StartClock, _ = workloads.ParseClock(s.Start)
	}
	c.ApplyDefaults()
	return c
}

// validate checks the scenario and reports the first problem located in
// the file.
func (s *Scenario) validate() error {
	s.resolveTraces()
	if s.Start != "" {
		if _, err := workloads.ParseClock(s.Start); err != nil {
			return s.locate("start", err.Error())
		}
	}
	c := model.Config{Duration: float64(s.Duration), Interval: float64(s.Interval), Workloads: s.Workloads, Providers: s.Providers, Clusters: s.Clusters, Routes: s.Routes}
	if c.Duration == 0 {
		c.Duration = defaultDuration
	}
	if c.Interval == 0 {
		c.Interval = defaultInterval
	}
	names := map[string]bool{}
	for i, v := range s.Variants {
		if v.Name != "" && names[v.Name] {
			return s.locate(fmt.Sprintf("variant[%d].name", i), fmt.Sprintf("duplicate variant name %q", v.Name))
		}
		names[v.Name] = true
	}
	// Validate on a copy with defaults applied, as the model will see it.
	c.Workloads = append([]model.WorkloadSpec(nil), c.Workloads...)
	c.Providers = append([]model.ProviderSpec(nil), c.Providers...)
	c.Clusters = append([]model.ClusterSpec(nil), c.Clusters...)
	c.Routes = append([]model.RouteSpec(nil), c.Routes...)
	c.Gateway = s.gateway()
	c.ApplyDefaults()
	if err := c.Validate(); err != nil {
		var fe *workloads.FieldError
		if errors.As(err, &fe) {
			return s.locate(fe.Key, fe.Msg)
		}
		return &Error{File: s.file, Msg: err.Error()}
	}
	return nil
}

func (s *Scenario) locate(path, msg string) error {
	return Locate(s.file, s.ix, s, path, msg)
}

func variantKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// LoadBytes is Load for an in-memory source.
func LoadBytes(src []byte, name string) (*Scenario, error) {
	return Load(bytes.NewReader(src), name)
}

// gateway is a copy of the scenario's gateway for a Config, or nil when it
// has none: a [gateway] table without tenants is an error, not a silent
// pass-through.
func (s *Scenario) gateway() *model.GatewaySpec {
	if s.Gateway.IsZero() {
		return nil
	}
	g := model.CloneGateway(s.Gateway)
	return &g
}

// resolveTraces makes trace files relative to the scenario file's folder
// (an embedded example's, to the working directory).
func (s *Scenario) resolveTraces() {
	dir := ""
	if !strings.HasPrefix(s.file, "example:") {
		dir = filepath.Dir(s.file)
	}
	for i := range s.Workloads {
		if t := s.Workloads[i].Demand.Trace; t != nil {
			t.Dir = dir
		}
	}
}
