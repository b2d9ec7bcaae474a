package scenarios

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/headroom-sim/headroom/model"
)

// MaxGridPoints bounds the points of one sweep grid (the product of its
// parameters' value counts).
const MaxGridPoints = 10_000

// Param is one swept parameter of a grid sweep: a scenario key path, as for
// --set and [[variant]] set, and its values; or a step-load level, Key
// SweepConcurrency or SweepRate, whose values are numbers.
type Param struct {
	Key    string
	Raw    []string // the values as written
	Values []any    // the values as TOML values (float64 for a load level)
}

// IsLoad reports whether the parameter is a step-load level.
func (p Param) IsLoad() bool { return p.Key == SweepConcurrency || p.Key == SweepRate }

// Numbers returns the values as float64 when every value is a number.
func (p Param) Numbers() ([]float64, bool) {
	out := make([]float64, len(p.Values))
	for i, v := range p.Values {
		switch x := v.(type) {
		case int64:
			out[i] = float64(x)
		case float64:
			out[i] = x
		default:
			return nil, false
		}
	}
	return out, true
}

// LoadParam is the parameter of a step-load sweep (--concurrency or --rate
// LEVELS).
func LoadParam(kind string, levels []float64) Param {
	p := Param{Key: kind}
	for _, v := range levels {
		p.Raw = append(p.Raw, FormatLevel(v))
		p.Values = append(p.Values, v)
	}
	return p
}

// ParseParam parses a sweep parameter "KEY=V1,V2,...". KEY is a key path as
// for --set, or "concurrency" or "rate" for a step-load level. Each value is
// TOML as in --set (a bare word is a string); commas inside brackets,
// braces or quotes do not split. A value may also be a numeric range as in
// ParseLevels ("1000..8000x2", "10..100+10"), which expands to its levels.
func ParseParam(spec string) (Param, error) {
	key, list, ok := strings.Cut(spec, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return Param{}, fmt.Errorf("invalid --param %q: expected KEY=V1,V2,... (e.g. provider.sonnet.limits.rpm=4000,8000)", spec)
	}
	items, err := splitTopLevel(list)
	if err != nil {
		return Param{}, fmt.Errorf("invalid --param %q: %v", spec, err)
	}
	p := Param{Key: key}
	if p.IsLoad() {
		levels, err := ParseLevels(list)
		if err != nil {
			return Param{}, fmt.Errorf("--param %s: %v", key, err)
		}
		return LoadParam(key, levels), nil
	}
	if _, err := parsePath(key); err != nil {
		return Param{}, fmt.Errorf("invalid --param %q: %v", spec, err)
	}
	seen := map[string]bool{}
	for _, item := range items {
		if item == "" {
			return Param{}, fmt.Errorf("invalid --param %q: empty value (write \"\" for an empty string)", spec)
		}
		if isRange(item) {
			levels, err := ParseLevels(item)
			if err != nil {
				return Param{}, fmt.Errorf("--param %s: %v", key, err)
			}
			for _, v := range levels {
				var val any = v
				if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
					val = int64(v)
				}
				p.Raw, p.Values = append(p.Raw, FormatLevel(v)), append(p.Values, val)
			}
			continue
		}
		_, v, err := ParseSet(key + "=" + item)
		if err != nil {
			return Param{}, fmt.Errorf("--param %s: value %q: %v", key, item, err)
		}
		p.Raw, p.Values = append(p.Raw, item), append(p.Values, v)
	}
	for _, r := range p.Raw {
		if seen[r] {
			return Param{}, fmt.Errorf("--param %s: value %s given twice", key, r)
		}
		seen[r] = true
	}
	return p, nil
}

// isRange reports whether a value is a numeric range such as 1..64x2.
func isRange(s string) bool {
	return strings.Contains(s, "..") && !strings.ContainsAny(s[:1], "\"'[{")
}

// splitTopLevel splits s at commas outside quotes, brackets and braces,
// trimming each item.
func splitTopLevel(s string) ([]string, error) {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '"' && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	if quote != 0 || depth != 0 {
		return nil, errors.New("unbalanced quotes, brackets or braces")
	}
	return append(out, strings.TrimSpace(s[start:])), nil
}

// Grid is the cartesian product of sweep parameters' values. Point i
// combines one value of each parameter; the first parameter varies slowest
// and the last fastest, so the points of "a=1,2 b=x,y" are (1,x), (1,y),
// (2,x), (2,y).
type Grid struct {
	Params []Param
}

// NewGrid checks the parameters: at least one, each with values, no key
// twice, at most one load level, and at most MaxGridPoints points.
func NewGrid(params []Param) (Grid, error) {
	if len(params) == 0 {
		return Grid{}, errors.New("a sweep needs --param KEY=V1,V2,... or --concurrency/--rate LEVELS")
	}
	keys := map[string]bool{}
	loads := 0
	size := 1
	for _, p := range params {
		if len(p.Values) == 0 || len(p.Values) != len(p.Raw) {
			return Grid{}, fmt.Errorf("--param %s: no values", p.Key)
		}
		if keys[p.Key] {
			return Grid{}, fmt.Errorf("--param %s: swept twice; give all its values in one --param", p.Key)
		}
		keys[p.Key] = true
		if p.IsLoad() {
			loads++
		}
		size *= len(p.Values)
		if size > MaxGridPoints {
			return Grid{}, fmt.Errorf("the grid has more than %d points; sweep fewer values", MaxGridPoints)
		}
	}
	if loads > 1 {
		return Grid{}, errors.New("a sweep takes one load level (concurrency or rate), not both")
	}
	return Grid{Params: params}, nil
}

// Size is the number of grid points.
func (g Grid) Size() int {
	n := 1
	for _, p := range g.Params {
		n *= len(p.Values)
	}
	return n
}

// Indices returns, for grid point i, the index of each parameter's value.
func (g Grid) Indices(i int) []int {
	out := make([]int, len(g.Params))
	for j := len(g.Params) - 1; j >= 0; j-- {
		n := len(g.Params[j].Values)
		out[j] = i % n
		i /= n
	}
	return out
}

// Values returns each parameter's value at point i, as written.
func (g Grid) Values(i int) []string {
	idx := g.Indices(i)
	out := make([]string, len(idx))
	for j, k := range idx {
		out[j] = g.Params[j].Raw[k]
	}
	return out
}

// Label names point i: "concurrency 8", "rpm=4000, max_concurrency=32". A
// key is shortened to its last segment when no other parameter shares it.
func (g Grid) Label(i int) string {
	idx := g.Indices(i)
	parts := make([]string, len(idx))
	for j, k := range idx {
		p := g.Params[j]
		if p.IsLoad() {
			v, _ := p.Values[k].(float64)
			parts[j] = SweepLevel{Kind: p.Key, Value: v}.Label()
			continue
		}
		parts[j] = g.shortKey(j) + "=" + p.Raw[k]
	}
	return strings.Join(parts, ", ")
}

// shortKey is parameter j's key, or its last segment when that is unique.
func (g Grid) shortKey(j int) string {
	last := func(k string) string {
		steps, err := parsePath(k)
		if err != nil || len(steps) == 0 || steps[len(steps)-1].isIdx {
			return k
		}
		return steps[len(steps)-1].key
	}
	s := last(g.Params[j].Key)
	for i, p := range g.Params {
		if i != j && last(p.Key) == s {
			return g.Params[j].Key
		}
	}
	return s
}

// VariantNames names the variants GridConfigs builds at every point: "base",
// then each [[variant]]'s name when withVariants.
func (s *Scenario) VariantNames(withVariants bool) []string {
	out := []string{"base"}
	if withVariants {
		for i := range s.Variants {
			out = append(out, s.variantName(i))
		}
	}
	return out
}

func (s *Scenario) variantName(i int) string {
	if n := s.Variants[i].Name; n != "" {
		return n
	}
	return fmt.Sprintf("variant %d", i+1)
}

// GridConfigs returns, for every point of the grid in order, the base
// configuration and, when withVariants, one per [[variant]]. Each is built
// as: a load level (the sweep's workload, "" for the first, becomes a
// closed or open loop as in SweepConfigs), then overrides (--set), then the
// variant's set, then the point's parameter values, so the swept value is
// what runs. A configuration's Variant is the point's label (see
// Grid.Label), prefixed by "NAME · " for a [[variant]].
//
// A key that does not exist, or a value that does not fit it, is an error
// at "--param KEY=VALUE" saying what is allowed.
func (s *Scenario) GridConfigs(g Grid, workload string, withVariants bool, overrides []Override) ([][]model.Config, error) {
	load := -1
	for j, p := range g.Params {
		if p.IsLoad() {
			load = j
		}
	}
	wl := -1
	if load >= 0 {
		var err error
		if wl, err = s.sweepWorkload(workload); err != nil {
			return nil, err
		}
	}
	nv := 1
	if withVariants {
		nv += len(s.Variants)
	}
	for _, p := range g.Params {
		if strings.HasPrefix(p.Key, "variant") {
			return nil, &Error{File: s.file, Key: "--param " + p.Key, Msg: "variants cannot be swept; sweep the keys they set"}
		}
	}
	sets := setEdits(overrides)
	out := make([][]model.Config, g.Size())
	for i := range out {
		idx := g.Indices(i)
		var head, params []edit
		for j, p := range g.Params {
			if j == load {
				v, _ := p.Values[idx[j]].(float64)
				lv := SweepLevel{Kind: p.Key, Value: v}
				if err := lv.check(); err != nil {
					return nil, err
				}
				head = append(head, s.levelEdit(wl, lv))
				continue
			}
			params = append(params, edit{path: p.Key, value: p.Values[idx[j]], key: "--param " + p.Key + "=" + p.Raw[idx[j]]})
		}
		head = append(head, sets...)
		label := g.Label(i)
		for v := 0; v < nv; v++ {
			edits, name := slices.Clip(head), label
			if v > 0 {
				edits = append(edits, s.variantEdits(v-1)...)
				name = s.variantName(v-1) + " · " + label
			}
			c, _, err := s.derive(name, append(slices.Clip(edits), params...))
			if err != nil {
				return nil, err
			}
			out[i] = append(out[i], c)
		}
	}
	return out, nil
}
