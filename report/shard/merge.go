package shard

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// Merge checks that parts (read from the files names, for messages) are
// the shards of one batch, each exactly once, and returns the batch's plan
// and every work item's results in canonical order, for report.Assemble.
//
// Errors name the files: parts of different scenarios, seeds, shard counts
// or settings; a shard given twice; missing shards; a part whose items are
// not its shard's.
func Merge(parts []*Part, names []string) (*report.Plan, []*model.Results, error) {
	if len(parts) == 0 {
		return nil, nil, fmt.Errorf("no part files given")
	}
	if len(names) != len(parts) {
		return nil, nil, fmt.Errorf("%d part files, %d names", len(parts), len(names))
	}
	// Every number of the headers is checked before it sizes anything.
	first := parts[0].Header
	byShard := map[int]int{}
	for i, p := range parts {
		h := p.Header
		if h.Shards < 1 || h.Shards > MaxShards {
			return nil, nil, fmt.Errorf("%s: %d shards, must be from 1 to %d", names[i], h.Shards, MaxShards)
		}
		if err := sameBatch(first, h, names[0], names[i]); err != nil {
			return nil, nil, err
		}
		if h.Shard < 0 || h.Shard >= h.Shards {
			return nil, nil, fmt.Errorf("%s: shard %d of %d is out of range", names[i], h.Shard, h.Shards)
		}
		if j, dup := byShard[h.Shard]; dup {
			return nil, nil, fmt.Errorf("shard %d/%d given twice: %s and %s", h.Shard, h.Shards, names[j], names[i])
		}
		byShard[h.Shard] = i
	}
	if len(byShard) < first.Shards {
		var missing []string
		for s := 0; s < first.Shards && len(missing) < 10; s++ {
			if _, ok := byShard[s]; !ok {
				missing = append(missing, fmt.Sprint(s))
			}
		}
		list := strings.Join(missing, ", ")
		if n := first.Shards - len(byShard); n > len(missing) {
			list += fmt.Sprintf(" and %d more", n-len(missing))
		}
		return nil, nil, fmt.Errorf("missing shard %s of %d (have %d part files); run the missing shards, or merge all %d parts",
			list, first.Shards, len(parts), first.Shards)
	}
	plan := first.Plan
	if err := checkPlan(&plan); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", names[0], err)
	}
	if plan.NumItems() != first.Items {
		return nil, nil, fmt.Errorf("%s: the header says %d work items, its plan has %d", names[0], first.Items, plan.NumItems())
	}
	// The parts must hold every work item once: their items add up to the
	// plan's before the plan's count sizes the results.
	for i, p := range parts {
		s := Shard{Index: p.Header.Shard, Count: p.Header.Shards}
		if want := s.Len(first.Items); len(p.Items) != want {
			return nil, nil, fmt.Errorf("%s: shard %s has %d work items, want %d", names[i], s, len(p.Items), want)
		}
	}
	results := make([]*model.Results, first.Items)
	from := make([]string, first.Items) // the file each result came from
	for i, p := range parts {
		s := Shard{Index: p.Header.Shard, Count: p.Header.Shards}
		for j, it := range p.Items {
			k := s.Index + j*s.Count
			if it.Index != k || it.Results == nil {
				return nil, nil, fmt.Errorf("%s: item %d is work item %d (results present: %v), want work item %d of shard %s",
					names[i], j, it.Index, it.Results != nil, k, s)
			}
			pt, v, rep := plan.Item(k)
			if it.Point != pt || it.Variant != plan.Variants[v] || it.Replication != rep || it.Results.Replication != rep {
				return nil, nil, fmt.Errorf("%s: work item %d says point %d, variant %q, replication %d (results: replication %d); the plan puts it at point %d, variant %q, replication %d",
					names[i], k, it.Point, it.Variant, it.Replication, it.Results.Replication, pt, plan.Variants[v], rep)
			}
			if err := checkResults(it.Results, rep == 0); err != nil {
				return nil, nil, fmt.Errorf("%s: work item %d (point %d, variant %q, replication %d): %w", names[i], k, pt, plan.Variants[v], rep, err)
			}
			results[k], from[k] = it.Results, names[i]
		}
	}
	// The replications of a variant are of one scenario and variant, and
	// every simulation of the batch has the same horizon and intervals.
	r0 := results[0]
	for k, r := range results {
		pt, v, rep := plan.Item(k)
		f := results[plan.Index(pt, v, 0)]
		if r.DurationS != r0.DurationS || r.IntervalS != r0.IntervalS || r.StartClock != r0.StartClock {
			return nil, nil, fmt.Errorf("%s: work item %d (point %d, variant %q, replication %d) simulated %vs in intervals of %vs from %s, but %s: work item 0 %vs in %vs from %s",
				from[k], k, pt, plan.Variants[v], rep, r.DurationS, r.IntervalS, r.StartClock, from[0], r0.DurationS, r0.IntervalS, r0.StartClock)
		}
		if r.Scenario != f.Scenario || r.Variant != f.Variant {
			return nil, nil, fmt.Errorf("%s: work item %d (point %d, variant %q, replication %d) is of scenario %q, variant %q; its first replication of %q, %q (in %s)",
				from[k], k, pt, plan.Variants[v], rep, r.Scenario, r.Variant, f.Scenario, f.Variant, from[plan.Index(pt, v, 0)])
		}
	}
	return &plan, results, nil
}

// sameBatch reports how header b (from file nb) differs from a (from na).
func sameBatch(a, b Header, na, nb string) error {
	switch {
	case a.ScenarioSHA256 != b.ScenarioSHA256:
		return fmt.Errorf("parts from different scenarios: %s has scenario sha256 %.12s…, %s has %.12s…", na, a.ScenarioSHA256, nb, b.ScenarioSHA256)
	case a.Seed != b.Seed:
		return fmt.Errorf("parts from different seeds: %s has seed %d, %s has %d", na, a.Seed, nb, b.Seed)
	case a.Shards != b.Shards:
		return fmt.Errorf("parts split different ways: %s is one of %d shards, %s one of %d", na, a.Shards, nb, b.Shards)
	case a.Items != b.Items || !reflect.DeepEqual(a.Plan, b.Plan):
		return fmt.Errorf("parts from different runs of the scenario: %s and %s differ in %s", na, nb, planDiff(a.Plan, b.Plan))
	}
	return nil
}

// planDiff names the top-level plan fields that differ.
func planDiff(a, b report.Plan) string {
	ma, mb := fields(a), fields(b)
	var diff []string
	for k := range mb {
		if _, ok := ma[k]; !ok {
			ma[k] = nil
		}
	}
	for k := range ma {
		if string(ma[k]) != string(mb[k]) {
			diff = append(diff, k)
		}
	}
	sort.Strings(diff)
	if len(diff) == 0 {
		return "their work items"
	}
	return strings.Join(diff, ", ")
}

func fields(p report.Plan) map[string]json.RawMessage {
	data, _ := json.Marshal(p)
	var m map[string]json.RawMessage
	_ = json.Unmarshal(data, &m)
	return m
}
