package shard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strings"

	"github.com/headroom-sim/headroom/report"
)

// DecisionPartSchema names the layout of one shard's part of a plan.
const DecisionPartSchema = "headroom/plan-part/v1"

// DecisionPart is what one shard of headroom plan writes: a header that
// ties it to its plan, and the shard's decision over its share of the
// candidates (with its own re-checked winner and that winner's growth).
type DecisionPart struct {
	Schema   string           `json:"schema"`
	Header   DecisionHeader   `json:"header"`
	Decision *report.Decision `json:"decision"`
	// WinnerTOML is the shard winner's scenario (Decision leaves it out of
	// its JSON).
	WinnerTOML string `json:"winner_toml,omitempty"`
}

// DecisionHeader identifies the plan a part belongs to.
type DecisionHeader struct {
	ScenarioSHA256 string   `json:"scenario_sha256"`
	Seed           uint64   `json:"seed"`
	Shard          int      `json:"shard"`
	Shards         int      `json:"shards"`
	Overrides      []string `json:"overrides,omitempty"`
}

// NewDecisionPart wraps shard s's decision.
func NewDecisionPart(d *report.Decision, s Shard, scenarioSHA256 string, seed uint64, overrides []string) *DecisionPart {
	return &DecisionPart{Schema: DecisionPartSchema, Decision: d, WinnerTOML: string(d.WinnerTOML),
		Header: DecisionHeader{ScenarioSHA256: scenarioSHA256, Seed: seed, Shard: s.Index, Shards: s.Count, Overrides: overrides}}
}

// Write writes the part as JSON.
func (p *DecisionPart) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(p)
}

// ReadDecisionPart reads a plan's part file; name is used in errors.
func ReadDecisionPart(r io.Reader, name string) (*DecisionPart, error) {
	var p DecisionPart
	if err := json.NewDecoder(r).Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: not a plan part file: %w", name, err)
	}
	if p.Schema != DecisionPartSchema || p.Decision == nil {
		return nil, fmt.Errorf("%s: not a plan part file (schema %q, want %q)", name, p.Schema, DecisionPartSchema)
	}
	p.Decision.WinnerTOML = []byte(p.WinnerTOML)
	return &p, nil
}

// PeekSchema reads the "schema" of a JSON document from its start (data
// may be cut short after that field); "" when it has none.
func PeekSchema(data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return ""
		}
		if k == "schema" {
			v, _ := dec.Token()
			s, _ := v.(string)
			return s
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return ""
		}
	}
	return ""
}

// MergeDecisions checks that parts (read from the files names) are every
// shard of one plan, once each, and combines them into the plan one
// process would have answered: every shard's candidates ranked together,
// the cheapest of the shards' re-checked winners as the winner (with its
// growth, results and scenario), and the search's counts summed.
func MergeDecisions(parts []*DecisionPart, names []string) (*report.Decision, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("no part files given")
	}
	first := parts[0]
	byShard := map[int]int{}
	for i, p := range parts {
		h, f := p.Header, first.Header
		switch {
		case h.ScenarioSHA256 != f.ScenarioSHA256:
			return nil, fmt.Errorf("parts from different scenarios: %s and %s", names[0], names[i])
		case h.Seed != f.Seed:
			return nil, fmt.Errorf("parts from different seeds: %s has seed %d, %s has %d", names[0], f.Seed, names[i], h.Seed)
		case h.Shards != f.Shards:
			return nil, fmt.Errorf("parts split different ways: %s is one of %d shards, %s one of %d", names[0], f.Shards, names[i], h.Shards)
		case !reflect.DeepEqual(h.Overrides, f.Overrides) || !reflect.DeepEqual(p.Decision.Settings, first.Decision.Settings) ||
			!reflect.DeepEqual(p.Decision.Knobs, first.Decision.Knobs) || !reflect.DeepEqual(p.Decision.Constraints, first.Decision.Constraints):
			return nil, fmt.Errorf("parts from different plans of the scenario: %s and %s differ in their overrides, settings, knobs or constraints", names[0], names[i])
		case h.Shard < 0 || h.Shard >= h.Shards:
			return nil, fmt.Errorf("%s: shard %d of %d is out of range", names[i], h.Shard, h.Shards)
		}
		if j, dup := byShard[h.Shard]; dup {
			return nil, fmt.Errorf("shard %d/%d given twice: %s and %s", h.Shard, h.Shards, names[j], names[i])
		}
		byShard[h.Shard] = i
	}
	var missing []string
	for s := 0; s < first.Header.Shards; s++ {
		if _, ok := byShard[s]; !ok {
			missing = append(missing, fmt.Sprint(s))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing shard %s of %d (have %d part files); run the missing shards, or merge all %d parts",
			strings.Join(missing, ", "), first.Header.Shards, len(parts), first.Header.Shards)
	}
	order := make([]*DecisionPart, first.Header.Shards)
	for s, i := range byShard {
		order[s] = parts[i]
	}
	f := first.Decision
	out := &report.Decision{Schema: f.Schema, Generator: f.Generator, Scenario: f.Scenario, Objectives: f.Objectives, Settings: f.Settings,
		Knobs: f.Knobs, Constraints: f.Constraints, Warnings: f.Warnings}
	out.Search.Candidates, out.Search.Exhaustive = f.Search.Candidates, f.Search.Exhaustive
	var win *report.Decision
	notes := map[string]bool{}
	for _, p := range order {
		d := p.Decision
		if d.Winner != nil {
			w := d.Candidates[*d.Winner]
			if win == nil || w.CostUSD.Mean < win.Candidates[*win.Winner].CostUSD.Mean ||
				(w.CostUSD.Mean == win.Candidates[*win.Winner].CostUSD.Mean && w.Index < win.Candidates[*win.Winner].Index) {
				win = d
			}
		}
		s := &out.Search
		s.Evaluated += d.Search.Evaluated
		s.Simulations += d.Search.Simulations
		s.GrowthSimulations += d.Search.GrowthSimulations
		s.ImpliedFail += d.Search.ImpliedFail
		s.PrunedCost += d.Search.PrunedCost
		s.SameConfig += d.Search.SameConfig
		s.Rounds = max(s.Rounds, d.Search.Rounds)
		s.ElapsedS = math.Max(s.ElapsedS, d.Search.ElapsedS)
		for _, n := range d.Notes {
			if !notes[n] {
				notes[n] = true
				out.Notes = append(out.Notes, n)
			}
		}
	}
	for _, p := range order {
		d := p.Decision
		for i, c := range d.Candidates {
			if c.Status == "winner" && (d != win || d.Winner == nil || *d.Winner != i) {
				c.Status = "holds" // another shard's winner is cheaper
			}
			out.Candidates = append(out.Candidates, c)
		}
	}
	sort.SliceStable(out.Candidates, func(i, j int) bool { return out.Candidates[i].Index < out.Candidates[j].Index })
	report.RankCandidates(out)
	if win != nil {
		out.Growth, out.WinnerResults, out.WinnerTOML = win.Growth, win.WinnerResults, win.WinnerTOML
	} else if !hasMinCost(out) && len(order) > 0 {
		out.Growth, out.WinnerResults = order[0].Decision.Growth, order[0].Decision.WinnerResults
	}
	return out, nil
}

func hasMinCost(d *report.Decision) bool {
	for _, o := range d.Objectives {
		if o == "min_cost" {
			return true
		}
	}
	return false
}
