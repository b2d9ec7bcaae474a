package htmlreport

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/headroom-sim/headroom/report"
)

// WriteDecision writes headroom plan's outcome as one HTML page: the
// answer, every simulated candidate's cost against the main latency figure
// with the feasible frontier, the winner's constraint margins, the growth
// search, the ranked candidates, and the winner's full report (its
// verdict, key figures and charts) on the same page. The bytes are a pure
// function of the decision and the options.
func WriteDecision(w io.Writer, d *report.Decision, o Options) error {
	doc := d.WinnerResults
	if doc == nil {
		doc = report.NewDocument(d.Generator, d.Scenario, nil)
	}
	p, err := newPage(doc, o)
	if err != nil {
		return err
	}
	p.Schema = report.DecisionSchema
	p.Title = "plan"
	if d.Scenario.Name != "" {
		p.Title = d.Scenario.Name + " · plan"
	}
	p.Description = d.Scenario.Description
	p.Overrides = d.Scenario.Overrides
	p.Meta = decisionMeta(d)
	p.Headline = []string{report.DecisionAnswer(d), searchLine(d)}
	p.Headline = append(p.Headline, d.Notes...)
	p.OpenVerdicts = true
	// The verdict is the first replication's; say so beside the key
	// figures, which are over every replication.
	reps := ""
	if doc.Replications > 1 {
		reps = fmt.Sprintf(" (its replication 0, all workloads together; the key figures below are over all %d replications, and the answer and the candidate table give each constraint's workload at the confidence bound)", doc.Replications)
	}
	if d.Winner != nil && len(doc.Variants) > 0 {
		lines := doc.Variants[0].Verdict
		if note := report.WinnerCostNote(d); note != "" {
			lines = append(slices.Clip(lines), note)
		}
		p.Verdicts = []variantVerdict{{Name: "The winner, " + d.Candidates[*d.Winner].Label + reps, Lines: lines}}
	} else if len(doc.Variants) > 0 {
		p.Verdicts = []variantVerdict{{Name: "The scenario as written" + reps, Lines: doc.Variants[0].Verdict}}
	}
	p.TableTitle = "Candidates simulated, cheapest that holds first"
	ct := candidateTable(d)
	p.Table = &ct
	if len(doc.Variants) > 0 {
		kt := keyTable(doc)
		kt.Note = "The winner's key figures. " + kt.Note
		p.Extra = append(p.Extra, titledTable{Title: "The winner's key figures", Table: kt})
		p.Gateway = gatewayTable(doc.Variants)
	}
	for _, x := range d.Warnings {
		p.Warnings = append(p.Warnings, x.Text())
	}
	var charts []chartView
	if len(d.Candidates) > 0 && hasMinCost(d) {
		c, err := frontierChart(d)
		if err != nil {
			return err
		}
		charts = append(charts, c)
	}
	if d.Winner != nil && len(d.Constraints) > 0 {
		c, err := marginChart(d, d.Candidates[*d.Winner])
		if err != nil {
			return err
		}
		charts = append(charts, c)
	}
	if g := d.Growth; g != nil && len(g.Points) > 0 {
		c, err := growthChart(d)
		if err != nil {
			return err
		}
		charts = append(charts, c)
	}
	p.Sections = []section{{Title: "The search", Intro: searchIntro(d), Charts: charts}}
	if len(doc.Variants) > 0 {
		slos := o.SLOs
		if slos == nil {
			slos = d.SLOs
		}
		run, err := runSections(newTimeline(doc.Variants), doc.Variants, slos)
		if err != nil {
			return err
		}
		prefix := "The winner: "
		if d.Winner == nil {
			prefix = "As written: "
		}
		for i := range run {
			run[i].Title = prefix + strings.ToLower(run[i].Title[:1]) + run[i].Title[1:]
		}
		p.Sections = append(p.Sections, run...)
	}
	return render(w, p)
}

func hasMinCost(d *report.Decision) bool {
	for _, o := range d.Objectives {
		if o == "min_cost" {
			return true
		}
	}
	return false
}

// decisionMeta is the line under the title.
func decisionMeta(d *report.Decision) string {
	st := d.Settings
	s := fmt.Sprintf("%s · %d replications per candidate, re-checked at %d · %s confidence (%s) · worst %s · horizon %s · seed %d",
		strings.Join(d.Objectives, " and "), st.Replications, st.Recheck, report.Percent(st.Confidence), st.Bound,
		report.WindowWords(st.WindowS), report.Seconds(st.HorizonS), st.Seed)
	if d.Scenario.File != "" {
		s += " · " + d.Scenario.File
	}
	return s
}

// searchLine says what the search cost.
func searchLine(d *report.Decision) string {
	s := d.Search
	if !hasMinCost(d) {
		return fmt.Sprintf("The search ran %s simulations in %s.", report.Count(int64(s.Simulations+s.GrowthSimulations)), report.Seconds(s.ElapsedS))
	}
	out := fmt.Sprintf("The search simulated %s of %s candidates in %s simulations", report.Count(int64(s.Evaluated)), report.Count(int64(s.Candidates)), report.Count(int64(s.Simulations)))
	if s.Exhaustive > 0 {
		out += fmt.Sprintf(" (%s of the %s an exhaustive search runs)", report.Percent(math.Round(1000*float64(s.Simulations)/float64(s.Exhaustive))/1000), report.Count(int64(s.Exhaustive)))
	}
	if s.GrowthSimulations > 0 {
		out += fmt.Sprintf(", and the growth search %s", report.Count(int64(s.GrowthSimulations)))
	}
	return out + fmt.Sprintf(", in %s.", report.Seconds(s.ElapsedS))
}

func searchIntro(d *report.Decision) string {
	var parts []string
	for _, k := range d.Knobs {
		mono := ""
		if k.Monotone {
			mono = ", monotone"
		}
		parts = append(parts, fmt.Sprintf("%s (%d values%s)", k.Name, len(k.Values), mono))
	}
	s := ""
	if len(parts) > 0 {
		s = "Knobs: " + strings.Join(parts, ", ") + ". "
	}
	var cons []string
	for _, c := range d.Constraints {
		cons = append(cons, report.ConstraintText(c, d.Settings.WindowS))
	}
	return s + "Constraints: " + strings.Join(cons, "; ") + "."
}

// candidateTable has a row per candidate: cost, each constraint's value
// (the worse scope) with its margin, and the status.
func candidateTable(d *report.Decision) table {
	t := table{Note: "Values are the bound each constraint was checked with (the confidence bound over the replications), in the scope with the least margin; the margin is the share of the allowed amount left (negative: short). Costs are over the horizon, with the knobs' fixed prices prorated."}
	// The status comes first after the label, so that both stay in view
	// while the figures scroll in the table's own box (Wide).
	t.Head = append(t.Head, "status", "cost", "cost per day")
	t.Wide = true
	groups := report.ConstraintGroups(d)
	for _, g := range groups {
		t.Head = append(t.Head, report.ConstraintName(d.Constraints[g[0]]))
	}
	costs := report.CandidateCosts(d.Candidates)
	perDay := make([]float64, len(d.Candidates))
	for i, c := range d.Candidates {
		perDay[i] = c.CostPerDay
	}
	perDayText := report.USDColumn(perDay) // one style per column
	for i, c := range d.Candidates {
		row := tableRow{Label: c.Label, Knee: c.Status == "winner"}
		status := c.Status
		if c.Status == "fails" || c.Status == "invalid" || c.Status == "failed re-check" {
			status += ": " + report.FailReason(d, c)
		}
		row.Cells = append(row.Cells, tableCell{Value: status})
		switch {
		case c.Invalid != "":
			row.Cells = append(row.Cells, tableCell{Value: "—"}, tableCell{Value: "—"})
		case c.Overloaded != nil:
			row.Cells = append(row.Cells, tableCell{Value: costs[i], Interval: "at least: fixed prices and GPUs"}, tableCell{Value: "≥ " + perDayText[i]})
		default:
			row.Cells = append(row.Cells, tableCell{Value: costs[i], Interval: intervalText(c.CostUSD.Lo, c.CostUSD.Hi, "usd", "")},
				tableCell{Value: perDayText[i]})
		}
		for _, g := range groups {
			if c.Invalid != "" || len(c.Checks) == 0 {
				row.Cells = append(row.Cells, tableCell{Value: "—"})
				continue
			}
			i := g[0]
			for _, j := range g[1:] {
				if c.Checks[j].Measured && (!c.Checks[i].Measured || c.Checks[j].Margin < c.Checks[i].Margin) {
					i = j
				}
			}
			ch, con := c.Checks[i], d.Constraints[i]
			if !ch.Measured {
				row.Cells = append(row.Cells, tableCell{Value: "n/a"})
				continue
			}
			where := "run"
			if con.Window {
				where = "worst " + report.WindowWords(d.Settings.WindowS)
				if ch.WorstClock != "" {
					where += " " + ch.WorstClock
				}
			}
			row.Cells = append(row.Cells, tableCell{Value: report.CheckValue(con, ch.Value), Interval: fmt.Sprintf("%s margin, %s", signedShare(ch.Margin), where), Clear: !ch.Met})
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func signedShare(m float64) string {
	if m < -1 {
		return fmt.Sprintf("×%s the allowance", number(1-m))
	}
	if m >= 0 {
		return fmt.Sprintf("+%.0f%%", 100*m)
	}
	return fmt.Sprintf("−%.0f%%", -100*m)
}

// frontierChart plots every simulated candidate's cost against the main
// latency figure: those that hold, those that fail, the winner, and the
// feasible frontier (the candidates that hold and that no cheaper one
// beats on latency).
func frontierChart(d *report.Decision) (chartView, error) {
	name := "latency"
	for _, c := range d.Candidates {
		if c.Latency.Name != "" {
			name = c.Latency.Name
			break
		}
	}
	perDay := d.Settings.HorizonS != 86400
	xName := "cost over the horizon, USD"
	if !perDay {
		xName = "cost per day, USD"
	}
	sc := charts.NewScatter()
	sc.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{ChartID: "chart-plan-frontier", Height: fmt.Sprintf("%dpx", chartHeight), Width: "100%"}),
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: "Cost against " + name, Subtitle: "every candidate simulated; the line is the feasible frontier", Left: "center"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "plain", Bottom: "0"}),
		charts.WithGridOpts(opts.Grid{Top: "72", Bottom: "78", Left: "64", Right: "72", ContainLabel: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Name: xName, Type: "value", NameLocation: "middle", NameGap: 26, Scale: opts.Bool(true)}),
		charts.WithYAxisOpts(opts.YAxis{Name: "seconds (log scale)", Type: "log"}),
		charts.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(false)}),
	)
	var holds, fails, win []opts.ScatterData
	type pt struct{ x, y float64 }
	var feasible []pt
	for _, c := range d.Candidates {
		if c.Invalid != "" || c.Overloaded != nil { // no latency measured
			continue
		}
		y := math.Max(round4(c.Latency.Value), 1e-3)
		x := round4(c.CostUSD.Mean)
		item := opts.ScatterData{Name: c.Label, Value: []any{x, y}}
		switch c.Status {
		case "winner":
			item.SymbolSize = 18
			item.Symbol = "diamond"
			win = append(win, item)
			feasible = append(feasible, pt{x, y})
		case "holds":
			item.SymbolSize = 10
			holds = append(holds, item)
			feasible = append(feasible, pt{x, y})
		default:
			item.SymbolSize = 8
			fails = append(fails, item)
		}
	}
	sc.AddSeries("fails", fails, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#c23531"}))
	sc.AddSeries("holds", holds, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#2f9e44"}))
	sc.AddSeries("winner", win, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#1c7ed6"}))
	sort.Slice(feasible, func(i, j int) bool {
		if feasible[i].x != feasible[j].x {
			return feasible[i].x < feasible[j].x
		}
		return feasible[i].y < feasible[j].y
	})
	var front []opts.LineData
	bestY := math.Inf(1)
	for _, p := range feasible {
		if p.y < bestY {
			bestY = p.y
			front = append(front, opts.LineData{Value: []any{p.x, p.y}})
		}
	}
	if len(front) > 0 {
		l := charts.NewLine()
		l.AddSeries("feasible frontier", front, charts.WithLineChartOpts(opts.LineChart{Step: "end", ShowSymbol: opts.Bool(false)}),
			charts.WithLineStyleOpts(opts.LineStyle{Width: 1.5, Type: "dashed", Color: "#2f9e44"}))
		sc.Overlap(l)
	}
	return newView("chart-plan-frontier", sc, "", fmt.Sprintf("Each dot is a candidate, at its mean cost and its mean %s over the replications (log scale). Green dots hold every constraint, red ones fail one; the diamond is the winner. Moving left along the frontier buys nothing cheaper that still holds.", name))
}

// marginChart shows the winner's margin on every constraint and scope.
func marginChart(d *report.Decision, w report.CandidateResult) (chartView, error) {
	var names []string
	var data []opts.BarData
	for i, c := range d.Constraints {
		if i >= len(w.Checks) || !w.Checks[i].Measured {
			continue
		}
		scope := "run"
		if c.Window {
			scope = "worst " + report.WindowWords(d.Settings.WindowS)
		}
		names = append(names, report.ConstraintName(c)+" ("+scope+")")
		data = append(data, opts.BarData{Value: round4(100 * w.Checks[i].Margin)})
	}
	b := axisChart{id: "chart-plan-margins", title: "The winner's margins", subtitle: "share of each constraint's allowance left, %", yName: "%"}.newBar()
	b.SetXAxis(names)
	b.AddSeries("margin", data)
	return newView("chart-plan-margins", b, "%", "How much room the winner has on each constraint: 100% is nothing used (no misses, no failures), 0% exactly at the limit. The smallest bar is the constraint to watch.")
}

// growthChart shows the max_load search: the smallest margin at every
// demand factor tried.
func growthChart(d *report.Decision) (chartView, error) {
	g := d.Growth
	pts := append([]report.GrowthPoint(nil), g.Points...)
	sort.Slice(pts, func(i, j int) bool { return pts[i].Factor < pts[j].Factor })
	var xs []string
	var data []opts.LineData
	for _, p := range pts {
		xs = append(xs, fmt.Sprintf("%.3g×", p.Factor))
		data = append(data, opts.LineData{Value: round4(100 * math.Max(p.Margin, -1))})
	}
	c := axisChart{id: "chart-plan-growth", title: "Growth: the smallest margin against the demand factor", subtitle: g.Of, xName: "demand factor", yName: "smallest margin, %"}.newLine()
	c.SetXAxis(xs)
	c.AddSeries("smallest margin", data, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)}))
	return newView("chart-plan-growth", c, "%", "Every factor the max_load search tried, in order of the factor: above 0 every constraint holds. Margins below −100% are drawn at −100%.")
}
