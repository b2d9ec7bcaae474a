package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// gridColumns are the key figures a sweep table shows, after the
// parameters.
var gridColumns = []string{"requests_per_s", "output_tokens_per_s", "ttft_p50_s", "ttft_p95_s", "tpot_p50_s", "e2e_p95_s", "refused_attempts", "slo_attainment_pct", "cost_usd"}

// WriteGridTerminal writes a sweep with points (SweepInfo.Points): one
// table per variant, a row per grid point with the parameters' values and
// the key figures (mean ± the 95% interval's half-width with several
// replications), each curve's knee marked "◀ knee". title says what was
// swept.
func WriteGridTerminal(w io.Writer, title string, d *SweepDocument) error {
	d = terminalDoc(d)
	fmt.Fprintf(w, "Headroom sweep · %s\n", terminalLines(title))
	if d.Replications > 1 {
		fmt.Fprintf(w, "%d replications per point; ± is the 95%% interval's half-width\n", d.Replications)
	}
	s := &d.Sweep
	if len(s.Points) == 0 {
		_, err := fmt.Fprintln(w, "\nno points")
		return err
	}
	variants := []string{}
	seen := map[string]bool{}
	for _, p := range s.Points {
		if !seen[p.Variant] {
			seen[p.Variant] = true
			variants = append(variants, p.Variant)
		}
	}
	for _, v := range variants {
		fmt.Fprintln(w)
		if len(variants) > 1 {
			fmt.Fprintf(w, "%s:\n", v)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		for _, p := range s.Params {
			fmt.Fprintf(tw, "%s\t", paramHead(p.Key))
		}
		for _, name := range gridColumns {
			f, _ := d.Summary[0].Figure(name)
			fmt.Fprintf(tw, "%s\t", f.Label)
		}
		fmt.Fprintln(tw)
		without := noSLO(d.Variants)
		for i, p := range s.Points {
			if p.Variant != v {
				continue
			}
			for j, val := range p.Values {
				fmt.Fprintf(tw, "%s\t", sweepValue(s, j, val))
			}
			for _, name := range gridColumns {
				f, _ := d.Summary[i].Figure(name)
				if without && sloFigure(name) {
					fmt.Fprint(tw, "—\t")
					continue
				}
				cell := estimateText(f.Unit, f.Estimate, false)
				if p, ok := d.Summary[i].Figure("refused_attempts_pct"); ok && name == "refused_attempts" && f.Estimate.Mean != 0 {
					cell += " (" + valueText("%", p.Estimate.Mean, false) + ")"
				}
				fmt.Fprintf(tw, "%s\t", cell)
			}
			switch {
			case p.Knee:
				fmt.Fprint(tw, "  ◀ knee")
			case p.Pick && !s.Load():
				fmt.Fprint(tw, "  ◀ pick: the cheapest that holds")
			case p.Pick:
				fmt.Fprint(tw, "  ◀ pick: holds the SLOs")
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if !s.Load() {
		fmt.Fprintln(w)
		for _, line := range CheapestAdvice(d) {
			fmt.Fprintln(w, line)
		}
	} else if len(s.Params) == 1 && len(s.Curves) > 0 {
		c := s.Curves[0]
		key := s.Params[0].Key
		slos := s.PickRule != ""
		switch {
		case c.Knee != nil && (!slos || c.Pick != nil && *c.Pick == *c.Knee):
			fmt.Fprintf(w, "\nThroughput flattens after %s = %s (%s); pick it for interactive traffic", key, c.XLabels[*c.Knee], c.Variant)
			if slos {
				fmt.Fprint(w, ": it holds the SLOs")
			}
			fmt.Fprintln(w, ".")
		case c.Knee != nil && c.Pick != nil:
			fmt.Fprintf(w, "\nThroughput flattens after %s = %s (%s), but it misses the SLOs; pick %s, the highest value below it that holds them.\n",
				key, c.XLabels[*c.Knee], c.Variant, c.XLabels[*c.Pick])
		case c.Knee != nil:
			fmt.Fprintf(w, "\nThroughput flattens after %s = %s (%s), but no value up to it holds the SLOs (%s).\n", key, c.XLabels[*c.Knee], c.Variant, HoldRule)
		case c.X != nil:
			fmt.Fprintln(w, "\nNo knee: throughput did not flatten while TTFT p50 (or 429/5xx) climbed within these values.")
			if slos && c.Pick != nil {
				fmt.Fprintf(w, "The highest value that holds the SLOs is %s = %s.\n", key, c.XLabels[*c.Pick])
			} else if slos {
				fmt.Fprintf(w, "No value holds the SLOs (%s).\n", HoldRule)
			}
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

// paramHead is a parameter's column head: its key's last segment.
func paramHead(key string) string {
	if i := strings.LastIndexByte(key, '.'); i >= 0 && !strings.ContainsAny(key, `"'`) {
		return key[i+1:]
	}
	return key
}

// CheapestAdvice says, per variant, which point of a sweep of scenario
// keys to pick (SweepPoint.Pick: the cheapest that holds, CheapestRule)
// and at what cost, how many points hold and how many of those cost the
// same; or, when none holds, which comes nearest.
func CheapestAdvice(d *SweepDocument) []string {
	s := &d.Sweep
	what, whats := "point", "points"
	if len(s.Params) == 1 || len(s.Params) > 1 && s.Params[1].Linked && allLinked(s.Params) {
		what, whats = "value", "values"
	}
	var variants []string
	for _, p := range s.Points {
		if !slices.Contains(variants, p.Variant) {
			variants = append(variants, p.Variant)
		}
	}
	fig := func(i int, name string) float64 {
		if i >= len(d.Summary) {
			return 0
		}
		f, _ := d.Summary[i].Figure(name)
		return f.Mean
	}
	failed := func(i int) float64 {
		return percent(fig(i, "requests_failed"), fig(i, "requests_offered"))
	}
	met := func(i int) string {
		return fmt.Sprintf("SLOs met by %.1f%%, %.1f%% failed", fig(i, "slo_attainment_pct"), failed(i))
	}
	holds := func(i int) bool {
		return failed(i) <= 100*HoldMaxFailed && fig(i, "slo_attainment_pct") >= 100*HoldMinSLO && fig(i, "requests_offered") > 0
	}
	var out []string
	for _, v := range variants {
		prefix := ""
		if len(variants) > 1 {
			prefix = v + ": "
		}
		pick, best, n, holding, same := -1, -1, 0, 0, 0
		for i, p := range s.Points {
			if p.Variant != v {
				continue
			}
			n++
			if p.Pick {
				pick = i
			}
			if holds(i) {
				holding++
			}
			if best < 0 || fig(i, "slo_attainment_pct") > fig(best, "slo_attainment_pct") {
				best = i
			}
		}
		if pick < 0 {
			out = append(out, fmt.Sprintf("%sNo %s holds (%s). The best goodput is at %s: %s, at %s.",
				prefix, what, HoldRule, pointText(s, best), met(best), USD(fig(best, "cost_usd"))))
			continue
		}
		for i, p := range s.Points {
			if p.Variant == v && i != pick && holds(i) && sameCost(fig(i, "cost_usd"), fig(pick, "cost_usd")) {
				same++
			}
		}
		verb := "hold"
		if holding == 1 {
			verb = "holds"
		}
		line := fmt.Sprintf("%sCheapest that holds: %s, at %s (%s); %d of %d %s %s",
			prefix, pointText(s, pick), USD(fig(pick, "cost_usd")), met(pick), holding, n, whats, verb)
		if same > 0 {
			line += fmt.Sprintf(", %d more at the same cost: the smallest is picked", same)
		}
		out = append(out, line+".")
	}
	return append(out, "  (Pick: "+CheapestRule+".)")
}

// allLinked reports whether every parameter after the first steps with
// it (one axis).
func allLinked(ps []SweepParam) bool {
	for _, p := range ps[1:] {
		if !p.Linked {
			return false
		}
	}
	return true
}

// pointText names a sweep point by its keys and values: "provider.api.limits.rpm = 2k".
func pointText(s *SweepInfo, i int) string {
	p := s.Points[i]
	parts := make([]string, 0, len(p.Values))
	for j, v := range p.Values {
		if j < len(s.Params) {
			parts = append(parts, s.Params[j].Key+" = "+sweepValue(s, j, v))
		}
	}
	if len(parts) == 0 {
		return p.Label
	}
	return strings.Join(parts, ", ")
}

// sweepValue is value v of parameter j as the sweep's table prints it:
// numeric values of one parameter in one style (ColumnValues).
func sweepValue(s *SweepInfo, j int, v string) string {
	if j >= len(s.Params) || s.Params[j].Numbers == nil || len(s.Params[j].Numbers) != len(s.Params[j].Values) {
		return v
	}
	p := s.Params[j]
	if k := slices.Index(p.Values, v); k >= 0 {
		return ColumnValues(p.Numbers)[k]
	}
	return v
}
