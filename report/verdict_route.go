package report

import (
	"fmt"
	"strings"

	"github.com/headroom-sim/headroom/model"
)

// routeLines says where each route sent its attempts, target by target,
// and why it moved past the first: the split of a hybrid ("overflow: 86%
// to the GPUs, 14% to the API"). A route that sent nothing (switched off
// in this variant) is left out.
func routeLines(r *model.Results) []string {
	var out []string
	for _, rt := range r.Routes {
		var sent int64
		for _, t := range rt.Targets {
			sent += t.Sent
		}
		if sent == 0 {
			continue
		}
		parts := make([]string, 0, len(rt.Targets))
		for _, t := range rt.Targets {
			p := fmt.Sprintf("%s to %s", shareText(t.Sent, sent), t.Name)
			if len(parts) == 0 {
				p = fmt.Sprintf("%s went to %s", shareText(t.Sent, sent), t.Name)
			}
			if t.Refused > 0 {
				p += fmt.Sprintf(" (%s refused)", Count(t.Refused))
			}
			parts = append(parts, p)
		}
		s := fmt.Sprintf("Route %s (%s): of %s attempts, %s", rt.Name, rt.Strategy, Count(sent), joinAnd(parts))
		var why []string
		if rt.Overflows > 0 {
			why = append(why, fmt.Sprintf("%s overflowed past %s when it was full", Count(rt.Overflows), rt.Targets[0].Name))
		}
		if rt.Fallbacks > 0 {
			why = append(why, fmt.Sprintf("%s refused attempts moved on to the next target", Count(rt.Fallbacks)))
		}
		if rt.CooldownSkips > 0 {
			why = append(why, fmt.Sprintf("%s times a target cooling down after a refusal was passed over", Count(rt.CooldownSkips)))
		}
		if len(why) > 0 {
			s += "; " + strings.Join(why, "; ")
		}
		out = append(out, s+".")
	}
	return out
}

// shareText is part of whole as a percentage: "86%", "<1%" for a part too
// small to round to 1%, "0%" for none.
func shareText(part, whole int64) string {
	p := percent(float64(part), float64(whole))
	switch {
	case part == 0:
		return "0%"
	case p < 0.5:
		return "<1%"
	case p > 99.5 && part < whole:
		return ">99%"
	}
	return fmt.Sprintf("%.0f%%", p)
}

// joinAnd joins items as a sentence does: "a", "a and b", "a, b and c".
func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
