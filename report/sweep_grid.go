package report

import "math"

// SweepPoint is one simulated point of a sweep: a grid point for one
// variant. Sweep points, Document.Variants and Document.Summary are in the
// same order (grid point major, then variant), so entry i of each describes
// the same simulations.
type SweepPoint struct {
	Label   string   `json:"label"`
	Values  []string `json:"values"`
	Variant string   `json:"variant"`
	// Knee marks the knee of its curve (see SweepCurve.Knee).
	Knee bool `json:"knee,omitempty"`
	// Pick marks the point to pick on its curve (see SweepCurve.Pick).
	Pick bool `json:"pick,omitempty"`
}

// SweepCurve is one line to chart: every key figure against the first
// swept parameter, for one variant, with the other parameters held at
// Fixed. A one-parameter sweep has one curve per variant.
type SweepCurve struct {
	Variant string   `json:"variant"`
	Param   string   `json:"param"`
	Fixed   []string `json:"fixed,omitempty"` // "KEY=VALUE" of the other parameters
	// X holds the parameter's values as numbers when they all are; XLabels
	// always holds them as written.
	X       []float64 `json:"x,omitempty"`
	XLabels []string  `json:"x_labels"`
	// Points indexes Sweep.Points (and Document.Variants and Summary).
	Points []int `json:"points"`
	// Figures maps a key figure's name ("requests_per_s",
	// "output_tokens_per_s", "ttft_p50_s", "ttft_p95_s", …) to one
	// estimate per X.
	Figures map[string][]Estimate `json:"figures"`
	// Knee is the index in X of the knee (KneeRule), for numeric
	// increasing X; null when there is none or X is not numeric.
	Knee *int `json:"knee"`
	// Pick is the index in X of the point to pick (PickIndex: the knee,
	// or with SLOs the highest point at or below it that holds them);
	// null when there is none or X is not numeric.
	Pick *int `json:"pick"`
}

// sweepInfo builds the sweep section of an assembled plan (see Assemble).
func sweepInfo(p *Plan, rows []SweepRow, summary []VariantSummary) SweepInfo {
	g := p.Grid
	nv := len(p.Variants)
	info := SweepInfo{Kind: g.Kind, Workload: g.Workload, KneeRule: KneeRule}
	ruleKind := ""
	if len(g.Params) > 0 && (g.Params[0].Key == "rate" || g.Params[0].Key == "concurrency") {
		ruleKind = g.Params[0].Key
	}
	if len(g.Params) == 1 && g.Params[0].Numbers != nil {
		info.Levels = g.Params[0].Numbers
		for pt, x := range info.Levels {
			r := rows[pt*nv]
			r.Level = x
			info.Rows = append(info.Rows, r)
		}
		if k := MarkKnee(ruleKind, info.Rows); k >= 0 {
			v := info.Rows[k].Level
			info.KneeLevel = &v
		}
		if k := MarkPick(info.Rows, len(p.SLOs) > 0); k >= 0 {
			v := info.Rows[k].Level
			info.PickLevel = &v
		}
	}
	if len(p.SLOs) > 0 {
		info.PickRule = PickRule
	}
	if !p.Summarize {
		return info
	}
	info.Params = g.Params
	for i := range rows {
		gp := g.Points[i/nv]
		info.Points = append(info.Points, SweepPoint{Label: gp.Label, Values: gp.Values, Variant: p.Variants[i%nv]})
	}
	info.Curves = curves(p, rows, summary, info.Points, ruleKind, len(p.SLOs) > 0)
	return info
}

// curves cuts the sweep into lines along its first parameter (see
// SweepCurve), marking each numeric line's knee on its points.
func curves(p *Plan, rows []SweepRow, summary []VariantSummary, points []SweepPoint, ruleKind string, slos bool) []SweepCurve {
	g := p.Grid
	nv := len(p.Variants)
	first := g.Params[0]
	stride := len(g.Points) / len(first.Values)
	increasing := first.Numbers != nil
	for i := 1; increasing && i < len(first.Numbers); i++ {
		increasing = first.Numbers[i] > first.Numbers[i-1]
	}
	var out []SweepCurve
	for rest := 0; rest < stride; rest++ {
		var fixed []string
		along := true // keys linked to the first step along the line
		for j, par := range g.Params[1:] {
			if along = along && par.Linked; along {
				continue
			}
			fixed = append(fixed, par.Key+"="+g.Points[rest].Values[j+1])
		}
		for v := 0; v < nv; v++ {
			c := SweepCurve{Variant: p.Variants[v], Param: first.Key, Fixed: fixed, X: first.Numbers,
				XLabels: first.Values, Figures: map[string][]Estimate{}}
			var line []SweepRow
			for j := range first.Values {
				i := (j*stride+rest)*nv + v
				c.Points = append(c.Points, i)
				for _, f := range summary[i].Figures {
					c.Figures[f.Name] = append(c.Figures[f.Name], f.Estimate)
				}
				r := rows[i]
				if increasing {
					r.Level = first.Numbers[j]
				}
				line = append(line, r)
			}
			if increasing {
				if k := MarkKnee(ruleKind, line); k >= 0 {
					c.Knee = &k
					points[c.Points[k]].Knee = true
				}
				if k := MarkPick(line, slos); k >= 0 {
					c.Pick = &k
					points[c.Points[k]].Pick = true
				}
			}
			out = append(out, c)
		}
	}
	return out
}

// meanRow is the sweep row of one point averaged over its replications'
// rows (refused attempts rounded to a whole number); the row itself with
// one.
func meanRow(rows []SweepRow) SweepRow {
	if len(rows) == 1 {
		rows[0].Knee = false
		return rows[0]
	}
	var m SweepRow
	var rejected float64
	for _, r := range rows {
		m.RequestsPerS += r.RequestsPerS
		m.OutputTokensPerS += r.OutputTokensPerS
		m.TTFTP50 += r.TTFTP50
		m.TTFTP95 += r.TTFTP95
		m.TPOTP50 += r.TPOTP50
		m.E2EP95 += r.E2EP95
		m.CostUSD += r.CostUSD
		m.SLOAttainment += r.SLOAttainment
		m.FailedShare += r.FailedShare
		rejected += float64(r.Rejected)
	}
	n := float64(len(rows))
	m.RequestsPerS /= n
	m.OutputTokensPerS /= n
	m.TTFTP50 /= n
	m.TTFTP95 /= n
	m.TPOTP50 /= n
	m.E2EP95 /= n
	m.CostUSD /= n
	m.SLOAttainment /= n
	m.FailedShare /= n
	m.Rejected = int64(math.Round(rejected / n))
	return m
}
