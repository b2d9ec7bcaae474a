package scenarios

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/scenarios/schema"
)

// MaxGridPoints bounds the points of one sweep grid (the product of its
// parameters' value counts).
const MaxGridPoints = 10_000

// Param is one swept parameter of a grid sweep: a scenario key path, as for
// --set and [[variant]] set, and its values; or a step-load level, Key
// SweepConcurrency or SweepRate, whose values are numbers. A linked
// parameter also steps the keys in Linked, each with as many values: value
// i of every key goes with value i of the others (one axis, not a
// cross-product), as "tier ×k" sets rpm, itpm and otpm together.
type Param struct {
	Key    string
	Raw    []string // the values as written (numbers as the summary prints them)
	Values []any    // the values as TOML values (float64 for a load level)
	Linked []Param  // keys stepped with this one, by the same index
}

// IsLoad reports whether the parameter is a step-load level.
func (p Param) IsLoad() bool { return p.Key == SweepConcurrency || p.Key == SweepRate }

// Keys lists the parameter's key and its linked keys, in order.
func (p Param) Keys() []string {
	out := []string{p.Key}
	for _, l := range p.Linked {
		out = append(out, l.Key)
	}
	return out
}

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
// braces or quotes do not split. A number may carry a magnitude suffix
// ("2M", "1.5k", see schema.ParseNumber). A value may also be a numeric range as
// in ParseLevels ("1k..8kx2", "10..100+10"), which expands to its levels.
//
// Several keys separated by ";" make one linked parameter, stepped by one
// index over equal-length value lists:
// "provider.api.limits.rpm=1k,2k; provider.api.limits.itpm=400k,800k".
func ParseParam(spec string) (Param, error) {
	parts, err := splitTopLevelOn(spec, ';')
	if err != nil {
		return Param{}, fmt.Errorf("invalid --param %q: %w", spec, err)
	}
	p, err := parseOneParam(parts[0])
	if err != nil || len(parts) == 1 {
		return p, err
	}
	if p.IsLoad() {
		return Param{}, fmt.Errorf("--param %s: a load level cannot be linked with other keys; link scenario keys only", p.Key)
	}
	seen := map[string]bool{p.Key: true}
	for _, part := range parts[1:] {
		l, err := parseOneParam(part)
		if err != nil {
			return Param{}, err
		}
		switch {
		case l.IsLoad():
			return Param{}, fmt.Errorf("--param %s: a load level cannot be linked with other keys; link scenario keys only", l.Key)
		case seen[l.Key]:
			return Param{}, fmt.Errorf("--param %s: key linked twice", l.Key)
		case len(l.Values) != len(p.Values):
			return Param{}, fmt.Errorf("--param %q: linked keys step together, so each needs as many values: %s has %d, %s has %d", spec, p.Key, len(p.Values), l.Key, len(l.Values))
		}
		seen[l.Key] = true
		p.Linked = append(p.Linked, l)
	}
	return p, nil
}

// parseOneParam parses one "KEY=V1,V2,..." (see ParseParam).
func parseOneParam(spec string) (Param, error) {
	key, list, ok := strings.Cut(spec, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return Param{}, fmt.Errorf("invalid --param %q: expected KEY=V1,V2,... (e.g. provider.sonnet.limits.rpm=4000,8000)", strings.TrimSpace(spec))
	}
	items, err := splitTopLevel(list)
	if err != nil {
		return Param{}, fmt.Errorf("invalid --param %q: %w", spec, err)
	}
	p := Param{Key: key}
	if p.IsLoad() {
		levels, err := ParseLevels(list)
		if err != nil {
			return Param{}, fmt.Errorf("--param %s: %w", key, err)
		}
		return LoadParam(key, levels), nil
	}
	if _, err := parsePath(key); err != nil {
		return Param{}, fmt.Errorf("invalid --param %q: %w", spec, err)
	}
	seen := map[string]bool{}
	for _, item := range items {
		if item == "" {
			return Param{}, fmt.Errorf("invalid --param %q: empty value (write \"\" for an empty string)", spec)
		}
		if isRange(item) {
			levels, err := ParseLevels(item)
			if err != nil {
				return Param{}, fmt.Errorf("--param %s: %w", key, err)
			}
			for _, v := range levels {
				p.Raw, p.Values = append(p.Raw, schema.FormatNumber(v)), append(p.Values, numberValue(v))
			}
			continue
		}
		_, v, err := ParseSet(key + "=" + item)
		if err != nil {
			return Param{}, fmt.Errorf("--param %s: value %q: %w", key, item, err)
		}
		raw := item
		switch x := v.(type) {
		case int64:
			raw = schema.FormatNumber(float64(x))
		case float64:
			raw = schema.FormatNumber(x)
		}
		p.Raw, p.Values = append(p.Raw, raw), append(p.Values, v)
	}
	for _, r := range p.Raw {
		if seen[r] {
			return Param{}, fmt.Errorf("--param %s: value %s given twice", key, r)
		}
		seen[r] = true
	}
	return p, nil
}

// numberValue is v as a TOML value: an int64 when whole, else a float64.
func numberValue(v float64) any {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return int64(v)
	}
	return v
}

// isRange reports whether a value is a numeric range such as 1..64x2.
func isRange(s string) bool {
	return strings.Contains(s, "..") && !strings.ContainsAny(s[:1], "\"'[{")
}

// splitTopLevel splits s at commas outside quotes, brackets and braces,
// trimming each item.
func splitTopLevel(s string) ([]string, error) { return splitTopLevelOn(s, ',') }

// splitTopLevelOn splits s at sep outside quotes, brackets and braces,
// trimming each item.
func splitTopLevelOn(s string, sep byte) ([]string, error) {
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
		case c == sep && depth == 0:
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
		for _, k := range p.Keys() {
			if keys[k] {
				return Grid{}, fmt.Errorf("--param %s: swept twice; give all its values in one --param", k)
			}
			keys[k] = true
		}
		for _, l := range p.Linked {
			if len(l.Values) != len(p.Values) || len(l.Raw) != len(l.Values) {
				return Grid{}, fmt.Errorf("--param %s: linked to %s with %d values for %d", l.Key, p.Key, len(l.Values), len(p.Values))
			}
		}
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

// Keys lists every swept key in order, each linked key after the key it
// is linked to.
func (g Grid) Keys() []string {
	var out []string
	for _, p := range g.Params {
		out = append(out, p.Keys()...)
	}
	return out
}

// Values returns each key's value at point i, as written, in the order of
// Keys.
func (g Grid) Values(i int) []string {
	idx := g.Indices(i)
	var out []string
	for j, k := range idx {
		out = append(out, g.Params[j].Raw[k])
		for _, l := range g.Params[j].Linked {
			out = append(out, l.Raw[k])
		}
	}
	return out
}

// Label names point i: "concurrency 8", "rpm=4k, max_concurrency=32". A
// key is shortened to its last segment when no other key shares it.
func (g Grid) Label(i int) string {
	idx := g.Indices(i)
	keys := g.Keys()
	vals := g.Values(i)
	var parts []string
	at := 0
	for j, k := range idx {
		p := g.Params[j]
		if p.IsLoad() {
			v, _ := p.Values[k].(float64)
			parts = append(parts, SweepLevel{Kind: p.Key, Value: v}.Label())
			at++
			continue
		}
		for range p.Keys() {
			parts = append(parts, shortKey(keys, at)+"="+vals[at])
			at++
		}
	}
	return strings.Join(parts, ", ")
}

// shortKey is keys[j], or its last segment when no other key shares it.
func shortKey(keys []string, j int) string {
	last := func(k string) string {
		steps, err := parsePath(k)
		if err != nil || len(steps) == 0 || steps[len(steps)-1].isIdx {
			return k
		}
		return steps[len(steps)-1].key
	}
	s := last(keys[j])
	for i, k := range keys {
		if i != j && last(k) == s {
			return keys[j]
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
			for _, l := range p.Linked {
				params = append(params, edit{path: l.Key, value: l.Values[idx[j]], key: "--param " + l.Key + "=" + l.Raw[idx[j]]})
			}
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
