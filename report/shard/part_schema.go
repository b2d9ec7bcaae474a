package shard

import (
	_ "embed"

	"github.com/headroom-sim/headroom/report"
)

// PartSchemaFile and DecisionPartSchemaFile are where the schemas of part
// files and of a plan's part files are kept in the repository, beside the
// types they are written from (relative to this package).
const (
	PartSchemaFile         = "part.schema.json"
	DecisionPartSchemaFile = "plan-part.schema.json"
)

//go:embed part.schema.json
var partSchema []byte

//go:embed plan-part.schema.json
var decisionPartSchema []byte

// PartSchemaJSON returns the JSON Schema (draft 2020-12) of the part files
// that run, compare and sweep write with --shard I/N --part FILE (schema
// "headroom/part/v1"): the checked-in part.schema.json, kept equal to what
// GeneratePartSchema writes by a test in package report (run go test
// ./report -run TestResultsSchemaInStep -update after changing a type).
func PartSchemaJSON() []byte { return partSchema }

// GeneratePartSchema writes the part files' schema from Part and the types
// it holds (the batch's report.Plan and each item's model.Results), as
// report.GenerateResultsSchema does for results files.
func GeneratePartSchema(comments map[string]string) ([]byte, error) {
	return report.GenerateSchema(&Part{}, "shard.Part", PartSchema,
		"A part file of Headroom ("+PartSchema+"): one shard's share of a batch, as headroom run, compare and sweep write it with --shard I/N --part FILE, "+
			"and headroom merge reads it. Generated from the Go types by shard.GeneratePartSchema; documented in cmd/headroom/COMMANDS.md.", comments)
}

// DecisionPartSchemaJSON returns the JSON Schema (draft 2020-12) of the
// part files headroom plan writes with --shard I/N --part FILE (schema
// "headroom/plan-part/v1"), kept equal to GenerateDecisionPartSchema's as
// PartSchemaJSON is.
func DecisionPartSchemaJSON() []byte { return decisionPartSchema }

// GenerateDecisionPartSchema writes the schema of a plan's part files from
// DecisionPart and the types it holds (the shard's report.Decision).
func GenerateDecisionPartSchema(comments map[string]string) ([]byte, error) {
	return report.GenerateSchema(&DecisionPart{}, "shard.DecisionPart", DecisionPartSchema,
		"A plan part file of Headroom ("+DecisionPartSchema+"): one shard's decision over its share of a plan's candidates, as headroom plan writes it with --shard I/N --part FILE, "+
			"and headroom merge reads it. Generated from the Go types by shard.GenerateDecisionPartSchema; documented in cmd/headroom/COMMANDS.md.", comments)
}
