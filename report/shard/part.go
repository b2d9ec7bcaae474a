package shard

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// PartSchema names the part file layout.
const PartSchema = "headroom/part/v1"

// Part is what one shard writes: a header that ties it to its batch, and
// the full results of the work items it ran.
type Part struct {
	Schema string `json:"schema"`
	Header Header `json:"header"`
	Items  []Item `json:"items"`
}

// Header identifies the batch a part belongs to. Every part of one batch
// has the same header but for Shard.
type Header struct {
	// ScenarioSHA256 hashes the scenario source(s) (see Hash).
	ScenarioSHA256 string `json:"scenario_sha256"`
	// Seed is the base configuration's seed.
	Seed   uint64 `json:"seed"`
	Shard  int    `json:"shard"`
	Shards int    `json:"shards"`
	// Items is the batch's total number of work items.
	Items int `json:"items"`
	// Plan is the batch: grid, variants, replications, and what the
	// merged document says.
	Plan report.Plan `json:"plan"`
}

// Item is one work item a shard ran.
type Item struct {
	Index       int            `json:"index"`
	Point       int            `json:"point"`
	Variant     string         `json:"variant"`
	Replication int            `json:"replication"`
	Results     *model.Results `json:"results"`
}

// Hash is the hex SHA-256 of scenario sources, each length-prefixed so
// that two files never hash like their concatenation.
func Hash(sources ...[]byte) string {
	h := sha256.New()
	var n [8]byte
	for _, s := range sources {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write(s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// NewPart wraps the results of shard s's items of plan p (results[i] ran
// item s.Items(p.NumItems())[i]).
func NewPart(p *report.Plan, s Shard, scenarioSHA256 string, seed uint64, results []*model.Results) (*Part, error) {
	items := s.Items(p.NumItems())
	if len(items) != len(results) {
		return nil, fmt.Errorf("shard %s: %d results for %d work items", s, len(results), len(items))
	}
	part := &Part{Schema: PartSchema, Header: Header{ScenarioSHA256: scenarioSHA256, Seed: seed, Shard: s.Index, Shards: s.Count,
		Items: p.NumItems(), Plan: *p}}
	for i, k := range items {
		pt, v, r := p.Item(k)
		part.Items = append(part.Items, Item{Index: k, Point: pt, Variant: p.Variants[v], Replication: r, Results: results[i]})
	}
	return part, nil
}

// Write writes the part as JSON.
func (p *Part) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(p)
}

// ReadPart reads a part file; name is used in errors.
func ReadPart(r io.Reader, name string) (*Part, error) {
	var p Part
	dec := json.NewDecoder(r)
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: not a part file: %w", name, err)
	}
	if p.Schema != PartSchema {
		return nil, fmt.Errorf("%s: not a part file (schema %q, want %q); parts are written by --shard I/N --part FILE", name, p.Schema, PartSchema)
	}
	return &p, nil
}
