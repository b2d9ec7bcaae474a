package report

import (
	"encoding/json"
	"io"

	"github.com/headroom-sim/headroom/model"
)

// Schema names the JSON layout; it changes when a field changes meaning or
// goes away (adding fields keeps it).
const Schema = "headroom/results/v1"

// Document is everything one command produced: the scenario it ran and one
// Results per variant (the base first).
type Document struct {
	Schema    string           `json:"schema"`
	Generator string           `json:"generator"`
	Scenario  ScenarioInfo     `json:"scenario"`
	Variants  []*model.Results `json:"variants"`
	// Replications is how many independent replications each variant ran
	// (0 or 1: one). Variants hold the first replication's full results;
	// Summary holds every variant's key figures over all of them.
	Replications int              `json:"replications,omitempty"`
	Summary      []VariantSummary `json:"summary,omitempty"`
	// Warnings are what the scenario left to a default that changes the
	// answer (a provider without a price costs nothing); omitted when none.
	Warnings []Warning `json:"warnings,omitempty"`
}

// Warning is one default that changes the answer: the scenario key path
// it concerns and what it means.
type Warning struct {
	Key     string `json:"key"`
	Message string `json:"message"`
}

// Text is the warning as one line: "KEY: MESSAGE", or the message alone
// without a key.
func (w Warning) Text() string {
	if w.Key == "" {
		return w.Message
	}
	return w.Key + ": " + w.Message
}

// ScenarioInfo identifies the scenario that was run.
type ScenarioInfo struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	File        string   `json:"file"`
	Overrides   []string `json:"overrides,omitempty"`
}

// NewDocument wraps results in the current schema, and gives each
// variant without a verdict its verdict in words (Verdict).
func NewDocument(generator string, info ScenarioInfo, variants []*model.Results) *Document {
	for _, r := range variants {
		if r != nil && len(r.Verdict) == 0 {
			r.Verdict = Verdict(r)
		}
	}
	return &Document{Schema: Schema, Generator: generator, Scenario: info, Variants: variants}
}

// WriteJSON writes the document as indented JSON. The output is a pure
// function of the document: map keys are sorted and no clock time is
// included, so the same scenario and seed give byte-identical files.
func WriteJSON(w io.Writer, d *Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// ReadJSON reads a document written by WriteJSON.
func ReadJSON(r io.Reader) (*Document, error) {
	var d Document
	if err := json.NewDecoder(r).Decode(&d); err != nil {
		return nil, err
	}
	return &d, nil
}
