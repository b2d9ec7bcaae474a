package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// gridColumns are the key figures a sweep table shows, after the
// parameters.
var gridColumns = []string{"requests_per_s", "output_tokens_per_s", "ttft_p50_s", "ttft_p95_s", "e2e_p95_s", "refused_attempts_pct", "slo_attainment_pct", "cost_usd"}

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
		for i, p := range s.Points {
			if p.Variant != v {
				continue
			}
			for _, val := range p.Values {
				fmt.Fprintf(tw, "%s\t", val)
			}
			for _, name := range gridColumns {
				f, _ := d.Summary[i].Figure(name)
				fmt.Fprintf(tw, "%s\t", estimateText(f.Unit, f.Estimate, false))
			}
			switch {
			case p.Knee:
				fmt.Fprint(tw, "  ◀ knee")
			case p.Pick:
				fmt.Fprint(tw, "  ◀ pick: holds the SLOs")
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(s.Params) == 1 && len(s.Curves) > 0 {
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
