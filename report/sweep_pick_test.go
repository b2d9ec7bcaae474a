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
