package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/headroom-sim/headroom/model"
)

// maxTerminalCandidates and maxTerminalReasons bound the terminal's lists
// (the JSON and HTML have every candidate).
const (
	maxTerminalCandidates = 20
	maxTerminalReasons    = 10
)

// WindowWords names a window length: "hour", "5-minute window".
func WindowWords(s float64) string {
	switch s {
	case 3600:
		return "hour"
	case 86400:
		return "day"
	case 60:
		return "minute"
	}
	switch {
	case s > 0 && math.Mod(s, 3600) == 0:
		return fmt.Sprintf("%.0f-hour window", s/3600)
	case s > 0 && s < 3600 && math.Mod(s, 60) == 0:
		return fmt.Sprintf("%.0f-minute window", s/60)
	}
	return Seconds(s) + " window"
}

// ConstraintName is a constraint's short name: "chat SLO attainment",
// "chat p95 TTFT", "failed share", "429 share", "cost".
func ConstraintName(c ConstraintInfo) string {
	switch c.Kind {
	case "slo":
		return c.Workload + " SLO attainment"
	case "percentile":
		return fmt.Sprintf("%s %s %s", c.Workload, statWords(c), latencyMetricWords(c.Metric))
	case "failed":
		return "failed share"
	case "429":
		return "429 share"
	}
	return "cost"
}

// ConstraintText states a constraint whole: "chat: TTFT ≤ 2s for at
// least 99% of requests, over the run".
func ConstraintText(c ConstraintInfo, windowS float64) string {
	var s string
	switch c.Kind {
	case "slo":
		s = fmt.Sprintf("%s: %s for at least %s of requests", c.Workload, c.SLO, Percent(c.Limit))
	case "percentile":
		s = fmt.Sprintf("%s: %s %s ≤ %s", c.Workload, statWords(c), latencyMetricWords(c.Metric), Seconds(c.Limit))
	case "failed":
		s = fmt.Sprintf("at most %s of requests fail", Percent(c.Limit))
	case "429":
		s = fmt.Sprintf("at most %s of attempts refused with 429", Percent(c.Limit))
	default:
		return fmt.Sprintf("cost at most %s over the horizon", USD(c.Limit))
	}
	return s + ", " + scopeWords(c, windowS)
}

func scopeWords(c ConstraintInfo, windowS float64) string {
	if c.Window {
		return "in the worst " + WindowWords(windowS)
	}
	return "over the run"
}

// latencyMetricWords names a plan target's metric.
func latencyMetricWords(m string) string {
	switch m {
	case "ttft":
		return "TTFT"
	case "e2e":
		return "E2E"
	case "tpot":
		return "TPOT"
	}
	return "queue wait"
}

// statWords is "p95" or "mean".
func statWords(c ConstraintInfo) string {
	if c.Mean {
		return "mean"
	}
	return "p" + trimNum(c.Percentile)
}

func trimNum(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%g", v), ".0") }

// Percent prints a share: 99%, 99.5%, 0.12%.
func Percent(v float64) string {
	p := 100 * v
	switch {
	case p > 99 && p < 100:
		return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", math.Min(p, 99.99)), "0"), ".") + "%"
	case p == math.Trunc(p):
		return fmt.Sprintf("%.0f%%", p)
	case math.Abs(p) >= 10:
		return fmt.Sprintf("%.1f%%", p)
	case math.Abs(p) >= 1:
		return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", p), "0"), ".") + "%"
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", p), "0"), ".") + "%"
}

// CheckValue prints a constraint's value in its unit.
func CheckValue(c ConstraintInfo, v float64) string {
	switch c.Unit {
	case "s":
		return Seconds(v)
	case "usd":
		return USD(v)
	}
	return Percent(v)
}

// signedPercent prints a margin: +76%, −12%; a shortfall of more than
// the whole allowance as the multiple of it used: ×3.2.
func signedPercent(m float64) string {
	if m < -1 {
		return "×" + multiple(1-m)
	}
	if m >= 0 {
		return "+" + fmt.Sprintf("%.0f%%", 100*m)
	}
	return "−" + fmt.Sprintf("%.0f%%", -100*m)
}

// costText prints a candidate's cost per day, or over the horizon when
// the horizon is not a day (and per day when it is longer: a shorter one,
// a launch hour, says nothing of a day).
func costText(d *Decision, c CandidateResult) string {
	switch h := d.Settings.HorizonS; {
	case h == 86400:
		return USD(c.CostUSD.Mean) + "/day"
	case h < 86400:
		return fmt.Sprintf("%s over the %s simulated", USD(c.CostUSD.Mean), Seconds(h))
	}
	return fmt.Sprintf("%s over %s (%s/day)", USD(c.CostUSD.Mean), Seconds(d.Settings.HorizonS), USD(c.CostPerDay))
}

// ConstraintGroups pairs each constraint's run and window scopes: the
// indices of d.Constraints, grouped by constraint (the terminal's and the
// HTML page's candidate tables both show them so).
func ConstraintGroups(d *Decision) [][]int {
	var out [][]int
	at := map[string]int{}
	for i, c := range d.Constraints {
		id := strings.TrimSuffix(strings.TrimSuffix(c.ID, "/run"), "/window")
		if j, ok := at[id]; ok {
			out[j] = append(out[j], i)
			continue
		}
		at[id] = len(out)
		out = append(out, []int{i})
	}
	return out
}

// worstOf is the scope of a group with the least margin.
func worstOf(c CandidateResult, group []int) int {
	w := group[0]
	for _, i := range group[1:] {
		if i < len(c.Checks) && c.Checks[i].Measured && (!c.Checks[w].Measured || c.Checks[i].Margin < c.Checks[w].Margin) {
			w = i
		}
	}
	return w
}

// FailReason says why a candidate failed: its constraint with the least
// margin, its value against the limit, and where.
func FailReason(d *Decision, c CandidateResult) string {
	if c.Invalid != "" {
		return "cannot be built: " + c.Invalid
	}
	if o := c.Overloaded; o != nil {
		return OverloadReason(o)
	}
	wi := -1
	for i, ch := range c.Checks {
		if !ch.Met && (wi < 0 || ch.Margin < c.Checks[wi].Margin) {
			wi = i
		}
	}
	if wi < 0 {
		return "failed its re-check"
	}
	con, ch := d.Constraints[wi], c.Checks[wi]
	where := scopeWords(con, d.Settings.WindowS)
	if ch.WorstClock != "" {
		where += " (" + ch.WorstClock + ")"
	}
	cmp := "above"
	if con.AtLeast {
		cmp = "below"
	}
	s := fmt.Sprintf("%s %s is %s, %s %s", ConstraintName(con), where, CheckValue(con, ch.Value), cmp, CheckValue(con, con.Limit))
	if c.Screened {
		s += " (after one replication)"
	}
	return s
}

// OverloadReason says why an overloaded candidate fails: "its backlog
// passed 10,000,000 requests in flight at 01:23:20: far short of the
// demand".
func OverloadReason(o *Overload) string {
	return fmt.Sprintf("its backlog passed %s requests in flight at %s: far short of the demand", Count(o.LimitRequests), o.Clock)
}

// CandidateCost is a candidate's cost over the horizon, in words: "—" when
// it could not be built, "≥ $1,234" (what it costs at least) when it
// overloaded.
func CandidateCost(c CandidateResult) string {
	switch {
	case c.Invalid != "":
		return "—"
	case c.Overloaded != nil:
		return "≥ " + USD(c.CostUSD.Mean)
	}
	return USD(c.CostUSD.Mean)
}

// CandidateCosts is CandidateCost for a column of candidates, every cost
// in one style (USDColumn).
func CandidateCosts(cs []CandidateResult) []string {
	vs := make([]float64, 0, len(cs))
	for _, c := range cs {
		if c.Invalid == "" {
			vs = append(vs, c.CostUSD.Mean)
		}
	}
	col := USDColumn(vs)
	out := make([]string, len(cs))
	for i, c := range cs {
		switch {
		case c.Invalid != "":
			out[i] = "—"
			continue
		case c.Overloaded != nil:
			out[i] = "≥ "
		}
		out[i] += col[0]
		col = col[1:]
	}
	return out
}

// Hardware describes the GPUs of each cluster that served in a run:
// "6 replicas × TP8 = 48 H100-SXM".
func Hardware(r *model.Results) []string {
	var out []string
	for _, b := range r.Backends {
		c := b.Cluster
		if c == nil || c.Replicas == 0 || b.Attempts == 0 {
			continue
		}
		tp := 1
		if c.Replicas > 0 {
			tp = c.GPUs / c.Replicas
		}
		s := fmt.Sprintf("%d × %s", c.GPUs, c.GPU)
		if tp > 1 {
			rep := "replicas"
			if c.Replicas == 1 {
				rep = "replica"
			}
			s = fmt.Sprintf("%d %s × TP%d = %d %s", c.Replicas, rep, tp, c.GPUs, c.GPU)
		}
		out = append(out, b.Name+": "+s)
	}
	return out
}

// Bottleneck says what ran out in a run: the limit that refused first, a
// cluster's KV memory (preemptions), its batch slots or its GPU time, or
// the gateway.
func Bottleneck(r *model.Results) string {
	type cand struct {
		at   float64
		text string
	}
	var first *cand
	for _, b := range r.Backends {
		for _, l := range b.Limits {
			if l.Rejected > 0 && (first == nil || l.FirstRejectS < first.at) {
				first = &cand{l.FirstRejectS, fmt.Sprintf("%s's %s limit of %s refuses requests", b.Name, strings.ToUpper(l.Dimension), LimitValue(l.Limit))}
			}
		}
	}
	if first != nil {
		return first.text
	}
	var best string
	bestUse := 0.0
	for _, b := range r.Backends {
		c := b.Cluster
		if c == nil || b.Attempts == 0 {
			continue
		}
		peakUtil := 0.0
		for _, u := range c.Series.Utilization {
			peakUtil = math.Max(peakUtil, u)
		}
		peakKV := 0.0
		for _, u := range c.Series.KVUse {
			peakKV = math.Max(peakKV, u)
		}
		switch {
		case c.Preemptions > 0:
			return fmt.Sprintf("%s's KV-cache memory runs out: %s, KV up to %s full", b.Name, Plural(c.Preemptions, "preemption", "preemptions"), Percent(math.Round(peakKV*100)/100))
		case c.MaxNumSeqs > 0 && c.PeakBatch >= float64(c.MaxNumSeqs):
			return fmt.Sprintf("%s's batches are full: max_num_seqs %d running per replica", b.Name, c.MaxNumSeqs)
		case peakUtil > bestUse:
			bestUse = peakUtil
			best = fmt.Sprintf("%s's GPUs are busy %s of the peak interval", b.Name, Percent(math.Round(peakUtil*100)/100))
		}
	}
	if best != "" {
		return best
	}
	if g := r.Gateway; g != nil {
		for _, t := range g.Tenants {
			for k, v := range t.Rejected {
				if v > 0 {
					return fmt.Sprintf("the gateway refuses tenant %s (%s)", t.Name, k)
				}
			}
		}
	}
	return "requests wait in the clients' queues (no backend refused one)"
}

// headlineCheck picks the constraint the answer quotes: the first
// percentile target in its worst window, else the first SLO's worst
// window, else the first constraint.
func headlineCheck(d *Decision) int {
	for _, kind := range []string{"percentile", "slo"} {
		for i, c := range d.Constraints {
			if c.Kind == kind && c.Window {
				return i
			}
		}
	}
	return 0
}

// lastOverloaded is the overloaded candidate whose backlog passed the bound
// latest (the first such in rank order), or -1.
func lastOverloaded(d *Decision) int {
	at := -1
	for i, c := range d.Candidates {
		if c.Overloaded != nil && (at < 0 || c.Overloaded.AtS > d.Candidates[at].Overloaded.AtS) {
			at = i
		}
	}
	return at
}

// DecisionAnswer is the one-sentence answer.
func DecisionAnswer(d *Decision) string {
	g := d.Growth
	if d.Winner == nil && hasObjective(d, "min_cost") {
		if d.Nearest == nil {
			if len(d.Candidates) == 0 {
				return "Nothing holds: no candidate could be simulated."
			}
			if o := lastOverloaded(d); o >= 0 {
				c := d.Candidates[o]
				return fmt.Sprintf("Nothing holds: none of the %s candidates simulated kept up with the demand; the one that lasted longest, %s, failed because %s.",
					Count(int64(len(d.Candidates))), c.Label, OverloadReason(c.Overloaded))
			}
			return fmt.Sprintf("Nothing holds: none of the %s candidates simulated could be built (%s).", Count(int64(len(d.Candidates))), d.Candidates[0].Invalid)
		}
		n := d.Nearest
		c := d.Candidates[n.Candidate]
		con := d.Constraints[n.Constraint]
		return fmt.Sprintf("Nothing holds: of %s candidates simulated, the nearest is %s, where %s %s is %s against %s (%s short).",
			Count(int64(len(d.Candidates))), c.Label, ConstraintName(con), scopeWords(con, d.Settings.WindowS), CheckValue(con, n.Value), CheckValue(con, n.Limit), shortfall(n.Margin))
	}
	var b strings.Builder
	if d.Winner != nil {
		w := d.Candidates[*d.Winner]
		b.WriteString("Cheapest that holds: " + w.Label)
		if d.WinnerResults != nil && len(d.WinnerResults.Variants) > 0 {
			if hw := Hardware(d.WinnerResults.Variants[0]); len(hw) > 0 {
				b.WriteString(" (" + strings.Join(hw, "; ") + ")")
			}
		}
		b.WriteString(", " + costText(d, w) + tieNote(d))
		if len(d.Constraints) > 0 {
			i := headlineCheck(d)
			con, ch := d.Constraints[i], w.Checks[i]
			if ch.Measured {
				fmt.Fprintf(&b, "; %s %s %s%s", ConstraintName(con), CheckValue(con, ch.Value), scopeWordsShort(con, d.Settings.WindowS), boundWords(d, w))
			}
		}
	} else if g != nil {
		b.WriteString("The scenario as written")
		if !g.Holds {
			return fmt.Sprintf("The scenario as written fails even at %s of its demand%s.", factorText(g.Factor), breakText(d, g))
		}
		if g.Factor < 1 {
			return fmt.Sprintf("The scenario as written fails at its own demand: it holds up to %s of it%s.", factorText(g.Factor), breakText(d, g))
		}
		fmt.Fprintf(&b, " holds")
	}
	if g != nil && g.Holds {
		switch {
		case g.Capped:
			fmt.Fprintf(&b, ", more than %s growth left (the most tried)", factorText(g.Factor))
		case d.Winner != nil:
			fmt.Fprintf(&b, ", %s growth left%s", factorText(g.Factor), breakText(d, g))
		default:
			fmt.Fprintf(&b, " up to %s its demand%s", factorText(g.Factor), breakText(d, g))
		}
	}
	b.WriteString(".")
	return b.String()
}

// boundWords says which value a checked figure is when it comes from
// several replications: " (the bound over 12 replications)", the value
// the constraint was checked with, not one replication's.
func boundWords(d *Decision, c CandidateResult) string {
	if c.Replications <= 1 {
		return ""
	}
	if d.Settings.Bound == "quantile" {
		return fmt.Sprintf(" (the %s quantile over %d replications)", Percent(d.Settings.Confidence), c.Replications)
	}
	return fmt.Sprintf(" (the %s bound over %d replications)", Percent(d.Settings.Confidence), c.Replications)
}

func scopeWordsShort(c ConstraintInfo, windowS float64) string {
	if c.Window {
		return "in its worst " + WindowWords(windowS)
	}
	return "over the run"
}

// breakText is "; first to break beyond it: chat p95 TTFT at 09:00 (h100
// KV-cache memory …)".
func breakText(d *Decision, g *Growth) string {
	if g.FirstToBreak == nil {
		return ""
	}
	con := d.Constraints[*g.FirstToBreak]
	s := "; first to break beyond it: " + ConstraintName(con)
	if g.BreakClock != "" {
		s += " at " + g.BreakClock
	}
	if g.Bottleneck != "" {
		s += ", where " + g.Bottleneck
	}
	return s
}

func factorText(f float64) string {
	if f >= 10 {
		return fmt.Sprintf("%.0f×", f)
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".") + "×"
}

// multiple prints how many times the allowance a value used: 3.2, 47,
// 11,300.
func multiple(x float64) string {
	switch {
	case x >= 1000:
		return Count(int64(math.Round(x/100) * 100))
	case x >= 10:
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.2g", x)
}

func shortfall(m float64) string { return fmt.Sprintf("%.0f%%", -100*m) }

// Failed says why a plan failed, or "": with min_cost, no candidate
// meets every constraint; with max_load alone, the scenario as written
// does not hold at its own demand.
func (d *Decision) Failed() string {
	if d.Winner != nil {
		return ""
	}
	if hasObjective(d, "min_cost") {
		return "no candidate meets every constraint"
	}
	if g := d.Growth; g != nil && (!g.Holds || g.Factor < 1) {
		return "the scenario as written does not meet every constraint at its own demand"
	}
	return ""
}

func hasObjective(d *Decision, o string) bool {
	for _, x := range d.Objectives {
		if x == o {
			return true
		}
	}
	return false
}

// WriteDecisionTerminal writes the plan's outcome for the terminal: the
// answer first, then the constraints, the ranked candidates with each
// constraint's value and margin, why the others failed, and what the
// search cost.
func WriteDecisionTerminal(w io.Writer, d *Decision) error {
	fmt.Fprintf(w, "Headroom plan · %s", d.Scenario.Name)
	if d.Scenario.Description != "" {
		fmt.Fprintf(w, " — %s", d.Scenario.Description)
	}
	fmt.Fprintln(w)
	st := d.Settings
	bound := fmt.Sprintf("the %s one-sided bound of the mean", Percent(st.Confidence))
	if st.Bound == "quantile" {
		bound = fmt.Sprintf("the %s quantile of the replications", Percent(st.Confidence))
	}
	if hasObjective(d, "min_cost") {
		var ks []string
		for _, k := range d.Knobs {
			ks = append(ks, fmt.Sprintf("%s (%s)", k.Name, knobRange(k)))
		}
		fmt.Fprintf(w, "min_cost over %s: %s candidates", strings.Join(ks, " × "), Count(int64(d.Search.Candidates)))
		if hasObjective(d, "max_load") {
			fmt.Fprint(w, ", then max_load of the winner")
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, "max_load of the scenario as written")
	}
	fmt.Fprintf(w, "%d replications per candidate (common random numbers, seed %d), checked at %s; the winner re-checked at %d\n",
		st.Replications, st.Seed, bound, st.Recheck)
	for _, o := range d.Scenario.Overrides {
		fmt.Fprintf(w, "  --set %s\n", o)
	}
	if d.Search.Shard != "" {
		fmt.Fprintf(w, "shard %s: these candidates only; headroom merge combines the shards\n", d.Search.Shard)
	}
	fmt.Fprintf(w, "\n%s\n", DecisionAnswer(d))

	if st.WindowS > 0 {
		fmt.Fprintf(w, "\nConstraints, each over the whole run and in the worst %s:\n", WindowWords(st.WindowS))
	} else {
		fmt.Fprintln(w, "\nConstraints, over the whole run:")
	}
	for _, g := range ConstraintGroups(d) {
		c := d.Constraints[g[0]]
		fmt.Fprintf(w, "  %s\n", strings.TrimSuffix(ConstraintText(c, st.WindowS), ", "+scopeWords(c, st.WindowS)))
	}
	if len(d.Candidates) > 0 {
		writeCandidates(w, d)
	}
	if g := d.Growth; g != nil {
		fmt.Fprintln(w)
		switch {
		case g.Capped:
			fmt.Fprintf(w, "Growth (%s): holds at %s the demand, the most tried (plan.max_factor); %d evaluations.\n", g.Of, factorText(g.Factor), g.Evaluations)
		case !g.Holds:
			fmt.Fprintf(w, "Growth (%s): fails even at %s the demand; %d evaluations%s.\n", g.Of, factorText(g.Factor), g.Evaluations, breakText(d, g))
		default:
			fmt.Fprintf(w, "Growth (%s): every workload's demand can grow %s (holds at %.4g×, fails at %.4g×); %d evaluations%s.\n",
				g.Of, factorText(g.Factor), g.Factor, g.Upper, g.Evaluations, breakText(d, g))
		}
	}
	s := d.Search
	fmt.Fprintln(w)
	if hasObjective(d, "min_cost") {
		fmt.Fprintf(w, "Search: %s simulations for %s of %s candidates", Count(int64(s.Simulations)), Count(int64(s.Evaluated)), Count(int64(s.Candidates)))
		if s.Exhaustive > 0 {
			fmt.Fprintf(w, " (an exhaustive search runs %s: this is %s)", Count(int64(s.Exhaustive)), Percent(math.Round(1000*float64(s.Simulations)/float64(s.Exhaustive))/1000))
		}
		fmt.Fprintf(w, "; not simulated: %s implied to fail by a monotone knob, %s ruled out by fixed and GPU cost alone", Count(int64(s.ImpliedFail)), Count(int64(s.PrunedCost)))
		if s.SameConfig > 0 {
			fmt.Fprintf(w, ", %s the same configuration as one simulated", Count(int64(s.SameConfig)))
		}
		if s.GrowthSimulations > 0 {
			fmt.Fprintf(w, "; growth: %s simulations", Count(int64(s.GrowthSimulations)))
		}
	} else {
		fmt.Fprintf(w, "Search: %s simulations", Count(int64(s.Simulations+s.GrowthSimulations)))
	}
	fmt.Fprintf(w, "; %s.\n", Seconds(s.ElapsedS))
	for _, n := range d.Notes {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
	return writeWarnings(w, d.Warnings)
}

// knobRange describes a knob's values: "1..64", "H100, A100, L40S".
func knobRange(k KnobInfo) string {
	if len(k.Values) > 4 && (k.Kind == "range" || k.Kind == "scale") {
		return k.Values[0] + ".." + k.Values[len(k.Values)-1]
	}
	return strings.Join(k.Values, ", ")
}

// writeCandidates writes the ranked table and the reasons for failing.
func writeCandidates(w io.Writer, d *Decision) {
	groups := ConstraintGroups(d)
	fmt.Fprintf(w, "\nCandidates simulated, cheapest that holds first (value checked in the worse scope, and its margin):\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "  ")
	for _, k := range d.Knobs {
		fmt.Fprintf(tw, "%s\t", k.Name)
	}
	fmt.Fprint(tw, "cost\t")
	for _, g := range groups {
		fmt.Fprintf(tw, "%s\t", ConstraintName(d.Constraints[g[0]]))
	}
	fmt.Fprintln(tw, "status")
	shown := 0
	costs := CandidateCosts(d.Candidates[:min(len(d.Candidates), maxTerminalCandidates)])
	for _, c := range d.Candidates {
		if shown == maxTerminalCandidates {
			break
		}
		fmt.Fprint(tw, "  ")
		for _, v := range c.Values {
			fmt.Fprintf(tw, "%s\t", v)
		}
		fmt.Fprintf(tw, "%s\t", costs[shown])
		shown++
		for _, g := range groups {
			if c.Invalid != "" || len(c.Checks) == 0 {
				fmt.Fprint(tw, "—\t")
				continue
			}
			i := worstOf(c, g)
			ch, con := c.Checks[i], d.Constraints[i]
			if !ch.Measured {
				fmt.Fprint(tw, "n/a\t")
				continue
			}
			fmt.Fprintf(tw, "%s %s\t", CheckValue(con, ch.Value), signedPercent(ch.Margin))
		}
		status := c.Status
		switch {
		case c.Status == "winner":
			status = fmt.Sprintf("winner (re-checked at %d replications)", c.Replications)
		case c.Screened:
			status = "fails (after one replication)"
		case c.Overloaded != nil && c.Status == "fails":
			status = "fails (overloaded)"
		}
		fmt.Fprintln(tw, status)
	}
	tw.Flush()
	if rest := len(d.Candidates) - shown; rest > 0 {
		fmt.Fprintf(w, "  … %s more in the JSON and HTML\n", Count(int64(rest)))
	}
	fmt.Fprintln(w, "  (margin: the share of the constraint's allowance left, or −N% short of it; ×N: N times the allowance. An SLO's allowance is the share of requests that may miss it)")
	var reasons []string
	for _, c := range d.Candidates {
		if c.Status == "fails" || c.Status == "invalid" || c.Status == "failed re-check" {
			reasons = append(reasons, fmt.Sprintf("  %s: %s", c.Label, FailReason(d, c)))
		}
	}
	if len(reasons) > 0 {
		fmt.Fprintln(w, "\nWhy the others failed (the constraint with the least margin):")
		for i, r := range reasons {
			if i == maxTerminalReasons {
				fmt.Fprintf(w, "  … %d more\n", len(reasons)-i)
				break
			}
			fmt.Fprintln(w, r)
		}
	}
}

// WinnerCostNote says how the winner's cost in the plan relates to the
// cost its run reports: the plan adds the knobs' fixed prices (a tier's
// commitment, a per-server price), prorated to the horizon, and averages
// over the replications. It is "" without a winner or fixed prices.
func WinnerCostNote(d *Decision) string {
	if d.Winner == nil {
		return ""
	}
	c := d.Candidates[*d.Winner]
	if c.FixedUSD <= 0 {
		return ""
	}
	return fmt.Sprintf("The plan's cost for it, %s, is its runs' cost (mean over %d replications) plus %s of the knobs' fixed prices, prorated to the horizon.",
		Cents(c.CostUSD.Mean), c.Replications, Cents(c.FixedUSD))
}
