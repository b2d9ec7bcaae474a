package shard

import (
	_ "embed"

	"github.com/headroom-sim/headroom/report"
)

// PartSchemaFile is where the schema of part files is kept in the
// repository, beside the types it is written from (relative to this
// package).
const PartSchemaFile = "part.schema.json"

//go:embed part.schema.json
var partSchema []byte

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
