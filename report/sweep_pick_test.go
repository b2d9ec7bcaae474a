package report

import (
	"bytes"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/headroom-sim/headroom/model"
)

// sloRows is a sweep whose knee (level 8) misses the SLOs that level 4
// still holds.
func sloRows() []SweepRow {
	rows := []SweepRow{row(1, 100, 0.2), row(2, 200, 0.2), row(4, 390, 0.21), row(8, 700, 0.25), row(16, 735, 0.5), row(32, 740, 1.0)}
	for i, att := range []float64{1, 1, 0.995, 0.91, 0.4, 0.1} {
		rows[i].SLOAttainment = att
		rows[i].CostUSD = 10
	}
	MarkKnee("", rows)
	return rows
}

func TestPickRespectsTheSLOs(t *testing.T) {
	rows := sloRows()
	if k := PickIndex(rows, false); k != 3 {
		t.Errorf("without SLOs the pick is the knee (3), got %d", k)
	}
	if k := PickIndex(rows, true); k != 2 {
		t.Errorf("with SLOs the pick is level 4 (index 2), got %d", k)
	}
	// Failures count against holding too.
	rows[2].FailedShare = 0.01
	if k := PickIndex(rows, true); k != 1 {
		t.Errorf("level 4 fails 1%%: pick %d, want 1", k)
	}
	for i := range rows {
		rows[i].SLOAttainment = 0.5
	}
	if k := PickIndex(rows, true); k != -1 {
		t.Errorf("nothing holds: pick %d, want none", k)
	}
}

func TestSweepTerminalNeverRecommendsAMiss(t *testing.T) {
	rows := sloRows()
	MarkPick(rows, true)
	var b bytes.Buffer
	if err := WriteSweepTerminal(&b, "t", &SweepInfo{Kind: "concurrency", Rows: rows, PickRule: PickRule}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"SLO met", "cost", "91.0%", "$10.00", "◀ pick: holds the SLOs",
		"Throughput flattens after 8 concurrent requests, but 8 misses the SLOs (SLOs met by 91.0%, 0.0% failed); pick 4 concurrent requests, the highest level below it that holds them (SLOs met by 99.5%, 0.0% failed)."} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "pick 8") {
		t.Errorf("recommends the knee that misses the SLOs:\n%s", out)
	}
}

// TestPickProperty: whatever the rows, a pick with SLOs holds them and
// lies at or below the knee, and no higher level at or below the knee
// holds them.
func TestPickProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 12).Draw(t, "n")
		rows := make([]SweepRow, n)
		for i := range rows {
			rows[i] = row(float64(i+1), rapid.Float64Range(0, 1000).Draw(t, "tok"), rapid.Float64Range(0.01, 10).Draw(t, "ttft"))
			rows[i].SLOAttainment = rapid.Float64Range(0.9, 1).Draw(t, "att")
			rows[i].FailedShare = rapid.Float64Range(0, 0.002).Draw(t, "failed")
		}
		k := MarkKnee("", rows)
		p := PickIndex(rows, true)
		top := n - 1
		if k >= 0 {
			top = k
		}
		if p >= 0 && (!rows[p].Holds() || p > top) {
			t.Fatalf("pick %d (knee %d) does not hold or lies past the knee: %+v", p, k, rows[p])
		}
		for i := max(p+1, 0); i <= top; i++ {
			if rows[i].Holds() {
				t.Fatalf("level %d holds and is above the pick %d (knee %d)", i, p, k)
			}
		}
	})
}

// TestAssembledSweepPicksWithinTheSLOs: a concurrency sweep whose plan
// carries SLOs marks the highest level below the knee that holds them,
// in the rows, the curve and the grid table.
func TestAssembledSweepPicksWithinTheSLOs(t *testing.T) {
	levels := []float64{1, 2, 4, 8}
	tok := []float64{100, 200, 400, 410}
	ttft := []float64{0.1, 0.1, 0.2, 2}
	att := []float64{1, 0.995, 0.9, 0.2}
	for _, summarize := range []bool{false, true} {
		g := &GridPlan{Kind: "concurrency", Workload: "chat", Params: []SweepParam{{Key: "concurrency", Values: []string{"1", "2", "4", "8"}, Numbers: levels}}}
		for _, l := range g.Params[0].Values {
			g.Points = append(g.Points, GridPoint{Label: "concurrency " + l, Values: []string{l}})
		}
		p := &Plan{Command: "sweep", Variants: []string{"base"}, Replications: 1, Summarize: summarize, Grid: g,
			SLOs: []SLO{{Workload: "chat", TTFTS: 1}}}
		rs := make([]*model.Results, 4)
		for i := range rs {
			rs[i] = &model.Results{Scenario: "s", DurationS: 60}
			s := &rs[i].Summary
			s.Requests.Offered, s.Requests.Completed = 100, 100
			s.Throughput.OutputTokensPerS, s.Latency.TTFT.P50 = tok[i], ttft[i]
			s.Goodput.SLOAttainment = att[i]
		}
		out, err := Assemble(p, rs)
		if err != nil {
			t.Fatal(err)
		}
		s := out.Sweep.Sweep
		if s.KneeLevel == nil || *s.KneeLevel != 4 || s.PickLevel == nil || *s.PickLevel != 2 || !s.Rows[1].Pick || s.Rows[2].Pick || s.PickRule == "" {
			t.Fatalf("summarize %v: knee %v, pick %v, rows %+v", summarize, s.KneeLevel, s.PickLevel, s.Rows)
		}
		if !summarize {
			continue
		}
		if c := s.Curves[0]; c.Pick == nil || *c.Pick != 1 || !s.Points[1].Pick {
			t.Fatalf("curve %+v, points %+v", c, s.Points)
		}
		var b bytes.Buffer
		if err := WriteGridTerminal(&b, "t", out.Sweep); err != nil {
			t.Fatal(err)
		}
		if want := "but it misses the SLOs; pick 2, the highest value below it that holds them."; !strings.Contains(b.String(), want) {
			t.Errorf("grid terminal lacks %q:\n%s", want, b.String())
		}
	}
}

// capacitySweep assembles a sweep of one scenario key (no load level)
// whose points have the given costs, SLO attainments and failures (of 1,000
// offered requests), with or without SLOs.
func capacitySweep(t *testing.T, key string, values []string, numbers []float64, costs, att []float64, failed []int64, slos bool) *Output {
	t.Helper()
	g := &GridPlan{Kind: "grid", Params: []SweepParam{{Key: key, Values: values, Numbers: numbers}}}
	for _, v := range values {
		g.Points = append(g.Points, GridPoint{Label: key + "=" + v, Values: []string{v}})
	}
	p := &Plan{Command: "sweep", Variants: []string{"base"}, Replications: 1, Summarize: true, Grid: g}
	if slos {
		p.SLOs = []SLO{{Workload: "chat", TTFTS: 2}}
	}
	rs := make([]*model.Results, len(values))
	for i := range rs {
		rs[i] = &model.Results{Scenario: "s", DurationS: 3600}
		s := &rs[i].Summary
		s.Requests.Offered, s.Requests.Failed = 1000, failed[i]
		s.Requests.Completed = 1000 - failed[i]
		// Throughput flattens and TTFT climbs at the third point: a load
		// sweep would see a knee there; a capacity sweep must not.
		s.Throughput.OutputTokensPerS = []float64{100, 200, 205, 206, 207, 208, 209}[i%7]
		s.Latency.TTFT.P50 = []float64{0.1, 0.1, 1, 2, 3, 4, 5}[i%7]
		s.Goodput.SLOAttainment = att[i]
		s.Cost.Total = costs[i]
	}
	out, err := Assemble(p, rs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func gridText(t *testing.T, d *SweepDocument) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteGridTerminal(&b, "t", d); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestCapacitySweepPicksTheCheapestThatHolds: a sweep over a tier's rpm
// (or a cluster's replicas) picks the cheapest value that holds, not the
// highest, and at equal cost the smallest; it marks no knee and words its
// advice as a purchase, not as load.
func TestCapacitySweepPicksTheCheapestThatHolds(t *testing.T) {
	key := "provider.api.limits.rpm"
	vals := []string{"1k", "1250", "1.5k", "1750", "2k"}
	nums := []float64{1000, 1250, 1500, 1750, 2000}
	// A tier's commitment makes each step dearer; the first two fail requests.
	out := capacitySweep(t, key, vals, nums, []float64{580, 607, 640, 680, 720}, []float64{0.9, 0.96, 1, 1, 1}, []int64{280, 170, 0, 0, 0}, true)
	s := out.Sweep.Sweep
	if s.Load() || s.KneeLevel != nil || s.KneeRule != "" || s.PickRule != CheapestRule {
		t.Fatalf("knee %v, knee rule %q, pick rule %q", s.KneeLevel, s.KneeRule, s.PickRule)
	}
	if s.PickLevel == nil || *s.PickLevel != 1500 || !s.Rows[2].Pick || s.Rows[4].Pick {
		t.Fatalf("pick level %v, rows %+v", s.PickLevel, s.Rows)
	}
	for i, r := range s.Rows {
		if r.Knee || s.Points[i].Knee {
			t.Errorf("point %d marked as a knee", i)
		}
		if s.Points[i].Pick != (i == 2) {
			t.Errorf("point %d pick %v", i, s.Points[i].Pick)
		}
	}
	if c := s.Curves[0]; c.Knee != nil || c.Pick == nil || *c.Pick != 2 {
		t.Fatalf("curve knee %v pick %v", c.Knee, c.Pick)
	}
	text := gridText(t, out.Sweep)
	for _, want := range []string{
		"1.25k", // the column in one style: 1k, 1.25k, 1.5k
		"◀ pick: the cheapest that holds",
		"Cheapest that holds: provider.api.limits.rpm = 1.5k, at $640 (SLOs met by 100.0%, 0.0% failed); 3 of 5 values hold.",
		"(Pick: " + CheapestRule + ".)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("terminal lacks %q:\n%s", want, text)
		}
	}
	for _, bad := range []string{"knee", "No knee", "highest value", "1250"} {
		if strings.Contains(text, bad) {
			t.Errorf("terminal says %q:\n%s", bad, text)
		}
	}

	// Per-token prices only: every value that holds costs the same; the
	// smallest is picked, and the advice says the others cost as much.
	out = capacitySweep(t, key, vals, nums, []float64{580, 607, 632, 632, 632}, []float64{0.9, 0.96, 1, 1, 1}, []int64{280, 170, 0, 0, 0}, true)
	if p := out.Sweep.Sweep.PickLevel; p == nil || *p != 1500 {
		t.Fatalf("equal costs: pick %v, want 1500", p)
	}
	if want := "3 of 5 values hold, 2 more at the same cost: the smallest is picked."; !strings.Contains(gridText(t, out.Sweep), want) {
		t.Errorf("terminal lacks %q", want)
	}

	// Values listed largest first: at equal cost the smaller value still wins.
	out = capacitySweep(t, key, []string{"2k", "1.5k"}, []float64{2000, 1500}, []float64{632, 632}, []float64{1, 1}, []int64{0, 0}, false)
	if c := out.Sweep.Sweep.Curves[0]; c.Pick == nil || *c.Pick != 1 || !out.Sweep.Sweep.Points[1].Pick {
		t.Fatalf("listed 2k, 1.5k at equal cost: curve pick %v", c.Pick)
	}

	// Replicas: fewer GPUs than needed spill to a dearer API, so 3 replicas
	// holds for less than 4; 2 misses the SLOs. Without a [workload.slo] the
	// pick is still the cheapest that holds (no failures).
	rk := "cluster.gpu.replicas"
	out = capacitySweep(t, rk, []string{"2", "3", "4", "5"}, []float64{2, 3, 4, 5}, []float64{639, 624, 626, 650}, []float64{0.956, 0.995, 1, 1}, []int64{0, 0, 0, 0}, false)
	if p := out.Sweep.Sweep.PickLevel; p == nil || *p != 3 {
		t.Fatalf("replicas: pick %v, want 3", p)
	}
	if want := "Cheapest that holds: cluster.gpu.replicas = 3, at $624 (SLOs met by 99.5%, 0.0% failed); 3 of 4 values hold."; !strings.Contains(gridText(t, out.Sweep), want) {
		t.Errorf("terminal lacks %q:\n%s", want, gridText(t, out.Sweep))
	}

	// Nothing holds: no pick, and the advice names the nearest point.
	out = capacitySweep(t, rk, []string{"1", "2"}, []float64{1, 2}, []float64{100, 200}, []float64{0.5, 0.9}, []int64{300, 10}, true)
	if s := out.Sweep.Sweep; s.PickLevel != nil || s.Points[0].Pick || s.Points[1].Pick {
		t.Fatalf("nothing holds, yet pick %v", s.PickLevel)
	}
	if want := "No value holds (" + HoldRule + "). The best goodput is at cluster.gpu.replicas = 2: SLOs met by 90.0%, 1.0% failed, at $200."; !strings.Contains(gridText(t, out.Sweep), want) {
		t.Errorf("terminal lacks %q:\n%s", want, gridText(t, out.Sweep))
	}
}

// TestCapacityGridPicksOnePointPerVariant: a grid of two scenario keys
// marks, per variant, the one cheapest point that holds over the whole
// grid, ties going to the smaller values parameter by parameter.
func TestCapacityGridPicksOnePointPerVariant(t *testing.T) {
	g := &GridPlan{Kind: "grid", Params: []SweepParam{
		{Key: "cluster.gpu.replicas", Values: []string{"2", "4"}, Numbers: []float64{2, 4}},
		{Key: "route.fast.overflow_waiting", Values: []string{"16", "4"}, Numbers: []float64{16, 4}},
	}}
	for _, a := range g.Params[0].Values {
		for _, b := range g.Params[1].Values {
			g.Points = append(g.Points, GridPoint{Label: a + "," + b, Values: []string{a, b}})
		}
	}
	p := &Plan{Command: "sweep", Variants: []string{"base", "cheap api"}, Replications: 1, Summarize: true, Grid: g}
	// Points (replicas, waiting): (2,16) (2,4) (4,16) (4,4), two variants each.
	costs := []float64{638, 500, 639, 500, 626, 500, 627, 400}
	att := []float64{0.8, 1, 0.999, 1, 0.92, 1, 1, 0.5}
	rs := make([]*model.Results, len(costs))
	for i := range rs {
		rs[i] = &model.Results{Scenario: "s", Variant: p.Variants[i%2], DurationS: 3600}
		s := &rs[i].Summary
		s.Requests.Offered, s.Requests.Completed = 100, 100
		s.Goodput.SLOAttainment, s.Cost.Total = att[i], costs[i]
	}
	out, err := Assemble(p, rs)
	if err != nil {
		t.Fatal(err)
	}
	var picks []int
	for i, pt := range out.Sweep.Sweep.Points {
		if pt.Pick {
			picks = append(picks, i)
		}
	}
	// base: (4,4) at $627 beats (2,4) at $639; cheap api: (2,16), (2,4)
	// and (4,16) tie at $500, (4,4) misses: the smallest replicas, then the
	// smaller waiting, is (2,4).
	if len(picks) != 2 || picks[0] != 3 || picks[1] != 6 {
		t.Fatalf("picks %v, want [3 6]", picks)
	}
	text := gridText(t, out.Sweep)
	for _, want := range []string{
		"base: Cheapest that holds: cluster.gpu.replicas = 4, route.fast.overflow_waiting = 4, at $627",
		"cheap api: Cheapest that holds: cluster.gpu.replicas = 2, route.fast.overflow_waiting = 4, at $500",
		"3 of 4 points hold, 2 more at the same cost: the smallest is picked.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("terminal lacks %q:\n%s", want, text)
		}
	}
}

func TestColumnValues(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want string
	}{
		{[]float64{1000, 1250, 1500, 1750}, "1k 1.25k 1.5k 1.75k"},
		{[]float64{2e6, 1.5e6, 4e5 * 10}, "2M 1.5M 4M"},
		{[]float64{500, 1000, 2000}, "500 1,000 2,000"},
		{[]float64{2, 3, 8}, "2 3 8"},
		{[]float64{0, 4000, 8000}, "0 4k 8k"},
		{[]float64{0.25, 0.5}, "0.25 0.5"},
		{[]float64{1234, 2000}, "1,234 2,000"},
		{[]float64{8e5, 1.2e6, 2e6}, "800k 1.2M 2M"}, // a ladder of tiers, as it is written
		{[]float64{8e5, 1.2e6, 1234}, "800,000 1,200,000 1,234"},
	} {
		if got := strings.Join(ColumnValues(c.in), " "); got != c.want {
			t.Errorf("ColumnValues(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
