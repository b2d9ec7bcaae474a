package shard

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// batch is a plan of 2 variants × 3 replications with distinguishable
// results, split into n parts that went through their JSON form.
func batch(t testing.TB, n int, hash string) (*report.Plan, []*model.Results, []*Part) {
	t.Helper()
	p := &report.Plan{Command: "run", Generator: "test", Scenario: report.ScenarioInfo{Name: "s", File: "s.toml"},
		Variants: []string{"base", "v"}, Replications: 3, Summarize: true}
	all := make([]*model.Results, p.NumItems())
	for k := range all {
		_, v, r := p.Item(k)
		all[k] = &model.Results{Scenario: "s", Seed: 1, Replication: r, Events: uint64(k)}
		if v == 1 {
			all[k].Variant = "v"
		}
		all[k].Summary.Requests.Offered = int64(100 + k)
		all[k].Summary.Requests.Completed = int64(100 + k)
		all[k].DurationS, all[k].IntervalS = 60, 60
		oneInterval(&all[k].Series)
	}
	var parts []*Part
	for i := 0; i < n; i++ {
		s := Shard{i, n}
		var mine []*model.Results
		for _, k := range s.Items(p.NumItems()) {
			mine = append(mine, all[k])
		}
		part, err := NewPart(p, s, hash, 1, mine)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := part.Write(&b); err != nil {
			t.Fatal(err)
		}
		back, err := ReadPart(&b, "part")
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, back)
	}
	return p, all, parts
}

// oneInterval gives every per-interval slice of s one value.
func oneInterval(s *model.Series) {
	v := reflect.ValueOf(s).Elem()
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() == reflect.Slice {
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		}
	}
}

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "part-" + string(rune('0'+i)) + ".json"
	}
	return out
}

func TestMergeGivesTheSingleDocument(t *testing.T) {
	p, all, parts := batch(t, 4, Hash([]byte("a")))
	single, err := report.Assemble(p, all)
	if err != nil {
		t.Fatal(err)
	}
	// Parts in any order.
	parts[0], parts[3] = parts[3], parts[0]
	plan, results, err := Merge(parts, names(4))
	if err != nil {
		t.Fatal(err)
	}
	merged, err := report.Assemble(plan, results)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := single.WriteJSON(&a); err != nil {
		t.Fatal(err)
	}
	if err := merged.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("merged document differs from the single one:\n%s\n---\n%s", a.String(), b.String())
	}
}

func TestMergeErrors(t *testing.T) {
	_, _, parts := batch(t, 3, Hash([]byte("a")))
	_, _, other := batch(t, 3, Hash([]byte("b")))
	_, _, four := batch(t, 4, Hash([]byte("a")))
	n3 := names(3)
	for _, c := range []struct {
		name  string
		parts []*Part
		names []string
		want  string
	}{
		{"none", nil, nil, "no part files"},
		{"missing", parts[:2], n3[:2], "missing shard 2 of 3"},
		{"duplicate", []*Part{parts[0], parts[1], parts[1]}, n3, "shard 1/3 given twice: part-1.json and part-2.json"},
		{"other scenario", []*Part{parts[0], other[1], parts[2]}, n3, "parts from different scenarios: part-0.json has scenario sha256"},
		{"other split", []*Part{parts[0], four[1], parts[2]}, n3, "parts split different ways"},
	} {
		_, _, err := Merge(c.parts, c.names)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// Different settings (here the replications) are named.
	_, _, p2 := batch(t, 3, Hash([]byte("a")))
	p2[1].Header.Plan.Summarize = false
	if _, _, err := Merge([]*Part{parts[0], p2[1], parts[2]}, n3); err == nil || !strings.Contains(err.Error(), "differ in summarize") {
		t.Errorf("different plans: %v", err)
	}
	// Parts that simulated different horizons, or different scenarios in
	// one variant, name both files.
	_, _, p3 := batch(t, 3, Hash([]byte("a")))
	p3[2].Items[0].Results.DurationS, p3[2].Items[0].Results.IntervalS = 120, 120
	if _, _, err := Merge(p3, n3); err == nil || !strings.HasPrefix(err.Error(), "part-2.json: work item 2 (point 0, variant \"base\", replication 2) simulated 120s") ||
		!strings.Contains(err.Error(), "but part-0.json: work item 0 60s") {
		t.Errorf("different horizons: %v", err)
	}
	_, _, p4 := batch(t, 3, Hash([]byte("a")))
	p4[1].Items[0].Results.Scenario = "t"
	if _, _, err := Merge(p4, n3); err == nil || !strings.HasPrefix(err.Error(), "part-1.json: work item 1 ") ||
		!strings.Contains(err.Error(), `its first replication of "s", "" (in part-0.json)`) {
		t.Errorf("different scenarios: %v", err)
	}
	if _, err := ReadPart(strings.NewReader(`{"schema": "headroom/results/v1"}`), "x.json"); err == nil || !strings.Contains(err.Error(), "x.json: not a part file") {
		t.Errorf("a results file read as a part: %v", err)
	}
}

func TestHashSeparatesFiles(t *testing.T) {
	if Hash([]byte("ab"), []byte("c")) == Hash([]byte("a"), []byte("bc")) {
		t.Error("Hash ignores where files end")
	}
}
