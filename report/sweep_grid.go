package report

import (
	"math"
	"slices"
)

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
	// Pick marks the point to pick: on a load sweep its curve's (see
	// SweepCurve.Pick); on a sweep of scenario keys the variant's cheapest
	// point that holds over the whole grid (CheapestRule), one per variant.
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
	// Pick is the index in X of the point to pick: on a load sweep
	// PickIndex (the knee, or with SLOs the highest point at or below it
	// that holds them), null when there is none or X is not numeric; on a
	// sweep of scenario keys the line's cheapest point that holds
	// (CheapestRule), null when none holds.
	Pick *int `json:"pick"`
}

// Load reports whether the sweep varies a load level (--concurrency or
// --rate, alone or first in a grid): its lines have knees, and the level to
// pick is the knee within the SLOs. Otherwise it sweeps scenario keys
// (capacity: a tier's limits, replicas), and the point to pick is the
// cheapest that holds (CheapestRule).
func (s *SweepInfo) Load() bool {
	if s.Kind == "concurrency" || s.Kind == "rate" {
		return true
	}
	return len(s.Params) > 0 && isLoadKey(s.Params[0].Key)
}

func isLoadKey(key string) bool { return key == "rate" || key == "concurrency" }

// sweepInfo builds the sweep section of an assembled plan (see Assemble).
func sweepInfo(p *Plan, rows []SweepRow, summary []VariantSummary) SweepInfo {
	g := p.Grid
	nv := len(p.Variants)
	info := SweepInfo{Kind: g.Kind, Workload: g.Workload}
	ruleKind := ""
	if len(g.Params) > 0 && isLoadKey(g.Params[0].Key) {
		ruleKind = g.Params[0].Key
	}
	load := ruleKind != "" || g.Kind == "concurrency" || g.Kind == "rate"
	slos := len(p.SLOs) > 0
	if load {
		info.KneeRule = KneeRule
		if slos {
			info.PickRule = PickRule
		}
	} else {
		info.PickRule = CheapestRule
	}
	if len(g.Params) == 1 && g.Params[0].Numbers != nil {
		info.Levels = g.Params[0].Numbers
		for pt, x := range info.Levels {
			r := rows[pt*nv]
			r.Level = x
			info.Rows = append(info.Rows, r)
		}
		var k int
		if load {
			if k = MarkKnee(ruleKind, info.Rows); k >= 0 {
				v := info.Rows[k].Level
				info.KneeLevel = &v
			}
			k = MarkPick(info.Rows, slos)
		} else {
			k = CheapestIndex(info.Rows, func(i, j int) bool { return info.Rows[i].Level < info.Rows[j].Level })
			for i := range info.Rows {
				info.Rows[i].Pick = i == k
			}
		}
		if k >= 0 {
			v := info.Rows[k].Level
			info.PickLevel = &v
		}
	}
	if !p.Summarize {
		return info
	}
	info.Params = g.Params
	for i := range rows {
		gp := g.Points[i/nv]
		info.Points = append(info.Points, SweepPoint{Label: gp.Label, Values: gp.Values, Variant: p.Variants[i%nv]})
	}
	info.Curves = curves(p, rows, summary, info.Points, ruleKind, load, slos)
	if !load {
		markCheapest(g, rows, info.Points, nv)
	}
	return info
}

// curves cuts the sweep into lines along its first parameter (see
// SweepCurve). On a load sweep it marks each numeric line's knee and pick
// on its points; on a sweep of scenario keys each line's Pick is its
// cheapest point that holds (markCheapest marks the points).
func curves(p *Plan, rows []SweepRow, summary []VariantSummary, points []SweepPoint, ruleKind string, load, slos bool) []SweepCurve {
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
			switch {
			case !load:
				if k := CheapestIndex(line, func(i, j int) bool { return valueLess(first, i, j) }); k >= 0 {
					c.Pick = &k
				}
			case increasing:
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

// markCheapest marks, for each variant of a sweep of scenario keys, the
// one point of the whole grid to pick: the cheapest that holds, at equal
// cost the smaller values (compared parameter by parameter, in the order
// the grid lists them).
func markCheapest(g *GridPlan, rows []SweepRow, points []SweepPoint, nv int) {
	idx := make([][]int, len(g.Points)) // each point's value index per parameter
	for pt, gp := range g.Points {
		idx[pt] = make([]int, len(g.Params))
		for j, par := range g.Params {
			idx[pt][j] = -1
			if j < len(gp.Values) {
				idx[pt][j] = slices.Index(par.Values, gp.Values[j])
			}
		}
	}
	for v := 0; v < nv; v++ {
		var line []SweepRow
		for pt := range g.Points {
			line = append(line, rows[pt*nv+v])
		}
		k := CheapestIndex(line, func(a, b int) bool {
			for j, par := range g.Params {
				if x, y := idx[a][j], idx[b][j]; x != y && x >= 0 && y >= 0 {
					return valueLess(par, x, y)
				}
			}
			return a < b
		})
		if k >= 0 {
			points[k*nv+v].Pick = true
		}
	}
}

// valueLess orders two values of a parameter by index: by number when the
// values are numeric, else as the parameter lists them.
func valueLess(p SweepParam, i, j int) bool {
	if p.Numbers != nil && i < len(p.Numbers) && j < len(p.Numbers) {
		return p.Numbers[i] < p.Numbers[j]
	}
	return i < j
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
	var rejected, attempts float64
	m.NoSLO = true
	for _, r := range rows {
		attempts += float64(r.Attempts)
		m.NoSLO = m.NoSLO && r.NoSLO
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
	m.Attempts = int64(math.Round(attempts / n))
	return m
}
