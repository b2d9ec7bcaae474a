package shard

import (
	"bytes"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/report"
)

// roundTrip writes parts and reads them back, as merge does.
func roundTrip(t testing.TB, parts []*Part) []*Part {
	t.Helper()
	var out []*Part
	for _, p := range parts {
		var b bytes.Buffer
		if err := p.Write(&b); err != nil {
			t.Fatal(err)
		}
		back, err := ReadPart(&b, "part")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, back)
	}
	return out
}

// Parts that no shard could have written are refused, naming what is
// wrong, before their numbers size anything: no panic, no huge
// allocation.
func TestMergeRefusesHostileParts(t *testing.T) {
	for _, c := range []struct {
		name   string
		mutate func(ps []*Part)
		want   string
	}{
		{"2^62 replications, 0 items", func(ps []*Part) {
			for _, p := range ps {
				p.Header.Plan.Replications, p.Header.Items = 4611686018427387904, 0
			}
		}, "4611686018427387904 replications, must be from 1 to 100000"},
		{"a trillion replications", func(ps []*Part) {
			for _, p := range ps {
				p.Header.Plan.Replications = 1e12
			}
		}, "1000000000000 replications"},
		{"a billion shards", func(ps []*Part) {
			for _, p := range ps {
				p.Header.Shards = 1e9
			}
		}, "1000000000 shards, must be from 1 to 100000"},
		{"many missing shards", func(ps []*Part) {
			for _, p := range ps {
				p.Header.Shards = MaxShards
			}
		}, "missing shard 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 99988 more of 100000"},
		{"a negative count", func(ps []*Part) { ps[1].Items[0].Results.Summary.Attempts.Total = -5 }, "results.summary.attempts.total is -5"},
		{"requests that do not add up", func(ps []*Part) { ps[1].Items[0].Results.Summary.Requests.Completed-- }, "is not"},
		{"interval_s = 0", func(ps []*Part) { ps[0].Items[1].Results.IntervalS = 0 }, "interval_s 0"},
		{"a truncated series", func(ps []*Part) { ps[0].Items[0].Results.Series.Offered = nil }, "series.offered has 0 values, want one per interval: 1"},
		{"a variant renamed in an item", func(ps []*Part) { ps[0].Items[1].Variant = "w" }, `says point 0, variant "w"`},
		{"a replication of another variant", func(ps []*Part) { ps[1].Items[0].Results.Variant = "x" }, `variant "x"; its first replication of "s", ""`},
		{"another horizon", func(ps []*Part) {
			ps[1].Items[2].Results = report.Trim(ps[1].Items[2].Results)
			ps[1].Items[2].Results.DurationS = 120
		}, "simulated 120s"},
		{"a number beyond any measure", func(ps []*Part) { ps[0].Items[0].Results.Summary.Cost.Total = 1e300 }, "results.summary.cost_usd.total is 1e+300"},
		{"a variant named twice", func(ps []*Part) {
			for _, p := range ps {
				p.Header.Plan.Variants = []string{"v", "v"}
			}
		}, `variant "v" named twice`},
		{"a grid without parameters", func(ps []*Part) {
			for _, p := range ps {
				p.Header.Plan.Grid = &report.GridPlan{Points: []report.GridPoint{{}}}
			}
		}, "a grid without parameters"},
	} {
		_, _, parts := batch(t, 2, Hash([]byte("a")))
		c.mutate(parts)
		_, _, err := Merge(roundTrip(t, parts), names(2))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// FuzzMergePart: any part file, merged on its own and assembled, gives an
// error or a document that writes, never a panic.
func FuzzMergePart(f *testing.F) {
	_, _, parts := batch(f, 1, Hash([]byte("a")))
	var b bytes.Buffer
	if err := parts[0].Write(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte(`{"schema":"headroom/part/v1","header":{"shards":1,"items":0,"plan":{"replications":4611686018427387904,"variants":["base"]}},"items":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ReadPart(bytes.NewReader(data), "part.json")
		if err != nil {
			return
		}
		plan, results, err := Merge([]*Part{p}, []string{"part.json"})
		if err != nil {
			return
		}
		out, err := report.Assemble(plan, results)
		if err != nil {
			return
		}
		var w bytes.Buffer
		if err := out.WriteJSON(&w); err != nil {
			t.Fatalf("an assembled merge does not write: %v", err)
		}
		if out.Sweep == nil {
			if err := report.WriteSummaryTerminal(&w, out.Document); err != nil && out.Document.Summary != nil {
				t.Fatalf("terminal: %v", err)
			}
			_ = report.WriteTerminal(&w, out.Document)
			_ = report.WriteSummaryCSV(&w, out.Document)
		}
	})
}
