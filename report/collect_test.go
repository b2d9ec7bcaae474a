package report_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/scenarios"
)

// A Collector fed the results in any order, with every replication but
// the first trimmed to its summary, assembles the bytes Assemble does from
// the full results in order: for a run and for a grid sweep.
func TestCollectorKeepsOnlyKeyFigures(t *testing.T) {
	sc, err := scenarios.LoadBytes([]byte(limited), "test.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfgs, err := sc.Configs(nil)
	if err != nil {
		t.Fatal(err)
	}
	g := &report.GridPlan{Kind: "grid", Params: []report.SweepParam{{Key: "seed", Values: []string{"1", "2"}, Numbers: []float64{1, 2}}},
		Points: []report.GridPoint{{Label: "seed=1", Values: []string{"1"}}, {Label: "seed=2", Values: []string{"2"}}}}
	for _, grid := range []*report.GridPlan{nil, g} {
		plan := &report.Plan{Command: "run", Generator: "test", Replications: 3, Summarize: true, Grid: grid}
		for _, c := range cfgs {
			plan.Variants = append(plan.Variants, report.VariantName(&model.Results{Variant: c.Variant}))
		}
		list := make([]model.Config, plan.NumItems())
		for k := range list {
			p, v, r := plan.Item(k)
			list[k] = cfgs[v]
			list[k].Seed += uint64(p)
			list[k].Replication = r
		}
		res, err := model.RunAll(context.Background(), list, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := report.Assemble(plan, res)
		if err != nil {
			t.Fatal(err)
		}
		c, err := report.NewCollector(plan)
		if err != nil {
			t.Fatal(err)
		}
		for k := len(res) - 1; k >= 0; k-- {
			r := res[k]
			if _, _, rep := plan.Item(k); rep > 0 {
				r = report.Trim(r)
			}
			if err := c.Add(k, r); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Add(0, res[0]); err == nil || !strings.Contains(err.Error(), "given twice") {
			t.Errorf("an item added twice: %v", err)
		}
		got, err := c.Output()
		if err != nil {
			t.Fatal(err)
		}
		var a, b bytes.Buffer
		if err := want.WriteJSON(&a); err != nil {
			t.Fatal(err)
		}
		if err := got.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("grid %v: the collector's document differs from Assemble's", grid != nil)
		}
	}
	c, _ := report.NewCollector(&report.Plan{Variants: []string{"base"}, Replications: 2})
	if _, err := c.Output(); err == nil || !strings.Contains(err.Error(), "no result for work item 0") {
		t.Errorf("missing items: %v", err)
	}
}
