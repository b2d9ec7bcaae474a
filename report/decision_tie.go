package report

import (
	"fmt"
	"math"
	"strings"
)

// tieNote says, when another candidate that holds costs the same as the
// winner (within a cent) and the winner's overflow routes sent nothing
// past their first target, that the two are the same setup here: the
// search breaks a cost tie by the knobs' order, so the winner may name
// an overflow backend that took no request (hybrid = self-hosted). It is
// "" otherwise.
func tieNote(d *Decision) string {
	if d.Winner == nil || d.WinnerResults == nil || len(d.WinnerResults.Variants) == 0 {
		return ""
	}
	w := d.Candidates[*d.Winner]
	var idle []string
	for _, rt := range d.WinnerResults.Variants[0].Routes {
		if rt.Strategy != "overflow" || len(rt.Targets) < 2 || rt.Overflows > 0 {
			continue
		}
		var unused []string
		for _, t := range rt.Targets[1:] {
			if t.Sent > 0 {
				unused = nil
				break
			}
			unused = append(unused, t.Name)
		}
		if len(unused) > 0 {
			idle = append(idle, fmt.Sprintf("route %s sent nothing to %s", rt.Name, strings.Join(unused, ", ")))
		}
	}
	if len(idle) == 0 {
		return ""
	}
	for i, c := range d.Candidates {
		if i == *d.Winner || c.Status != "holds" || math.Abs(c.CostUSD.Mean-w.CostUSD.Mean) >= 0.01 {
			continue
		}
		var mine, theirs []string
		for k := range c.Values {
			if k < len(w.Values) && k < len(d.Knobs) && c.Values[k] != w.Values[k] {
				mine = append(mine, d.Knobs[k].Name+"="+w.Values[k])
				theirs = append(theirs, d.Knobs[k].Name+"="+c.Values[k])
			}
		}
		if len(mine) == 0 {
			continue
		}
		return fmt.Sprintf(" (%s = %s here: no request overflowed, as %s, so both cost %s; a cost tie goes to the value listed first)",
			strings.Join(mine, ", "), strings.Join(theirs, ", "), strings.Join(idle, "; "), USD(w.CostUSD.Mean))
	}
	return ""
}
