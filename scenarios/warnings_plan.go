package scenarios

import (
	"fmt"

	"github.com/headroom-sim/headroom/scenarios/schema"
)

// knobDurations is editDurations for the [plan] knobs' candidate values:
// a knob over a duration key whose values (or range) are bare numbers is
// read in seconds, values = [0.5, 1] is half a second and a second. One
// warning per knob names its first bare value (a range's values are all
// bare or none); an option's set table warns key by key, as a variant's.
func (s *Scenario) knobDurations(p *PlanSpec) []Warning {
	if p == nil {
		return nil
	}
	var out []Warning
	for i, k := range p.Knobs {
		at := fmt.Sprintf("plan.knob[%d]", i)
		if k.Key != "" {
			values, field := []any(k.Values), "values"
			if k.Range != "" {
				values, field = nil, "range"
				if vs, err := ParseKnobRange(k.Range); err == nil && len(vs) > 0 {
					values = vs[:1]
				}
			}
			for _, v := range values {
				ws, _ := s.editDurations([]edit{{path: k.Key, value: v, key: displayKey(at+"."+field, s.tree), line: s.ix.Line(at + "." + field)}})
				if len(ws) > 0 {
					out = append(out, ws[0])
					break
				}
			}
		}
		for j, o := range k.Options {
			oat := fmt.Sprintf("%s.option[%d]", at, j)
			name := displayKey(oat, s.tree)
			var edits []edit
			for _, key := range sortedKeys(o.Set) {
				edits = append(edits, edit{path: key, value: o.Set[key], key: name + " sets " + key, line: s.ix.Line(oat + ".set." + schema.FormatKey(key))})
			}
			ws, _ := s.editDurations(edits)
			out = append(out, ws...)
		}
	}
	return out
}
