package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/report/shard"
	"github.com/headroom-sim/headroom/scenarios"
)

const explainUsage = `Usage: headroom explain [KEY]

Prints what a key of the scenario format means, its type, unit, default
and what it allows, from the same definitions that check scenario files;
for a table, its keys. KEY is a key path as in a file or in --set; elements
of arrays of tables may be named, numbered or left out. Without KEY, the
top level's keys. "distribution" explains a distribution table.

Examples:
  headroom explain provider.limits.rpm
  headroom explain workload.chat.client.retry
  headroom explain distribution

`

func cmdExplain(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("explain", explainUsage, stdout, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return badInput("explain takes one KEY, got %d", fs.NArg())
	}
	text, err := scenarios.Explain(fs.Arg(0))
	if err != nil {
		return badInput("explain: %v", err)
	}
	fmt.Fprint(stdout, text)
	return nil
}

const schemaUsage = `Usage: headroom schema [--results | --plan | --part | --plan-part]

Prints a JSON Schema (draft-07) of the scenario format, written from the
same definitions that check scenario files, for editors that check TOML
against a schema: Taplo and the Even Better TOML extension for VS Code
complete keys, show their meaning and flag unknown keys, wrong types and
numbers out of range as you type. Save it and point the editor at it, with
a first line in the scenario:

  #:schema ./headroom.schema.json

or in .taplo.toml beside your scenarios:

  [[rule]]
  include = ["scenarios/*.toml"]
  schema = { path = "./headroom.schema.json" }

What a schema cannot say (one demand mode, p95 above the median, routes to
backends that exist) is checked by headroom validate.

With --results it prints instead the JSON Schema (draft 2020-12) of the
results files that run, compare, sweep and merge write with --json
(schema ` + report.Schema + `), written from the results' Go types; the fields
are explained in report/RESULTS.md. With --plan, the JSON Schema of the
plans headroom plan writes with --json (schema ` + report.DecisionSchema + `). With --part, the
JSON Schema of the part files run, compare and sweep write with --shard
I/N --part FILE (schema ` + shard.PartSchema + `), which headroom merge reads; with
--plan-part, that of the part files of headroom plan --shard I/N (schema
` + shard.DecisionPartSchema + `).

Examples:
  headroom schema > headroom.schema.json
  headroom schema --results > headroom-results.schema.json
  headroom schema --plan > headroom-plan.schema.json
  headroom schema --part > headroom-part.schema.json
  headroom schema --plan-part > headroom-plan-part.schema.json

`

func cmdSchema(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("schema", schemaUsage, stdout, stderr)
	results := fs.Bool("results", false, "print the schema of results files ("+report.Schema+") instead of the scenario format's")
	plan := fs.Bool("plan", false, "print the schema of plans ("+report.DecisionSchema+") instead of the scenario format's")
	part := fs.Bool("part", false, "print the schema of part files ("+shard.PartSchema+") instead of the scenario format's")
	planPart := fs.Bool("plan-part", false, "print the schema of a plan's part files ("+shard.DecisionPartSchema+") instead of the scenario format's")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return badInput("schema takes no arguments, got %d", fs.NArg())
	}
	var given []string
	for _, f := range []struct {
		name string
		on   bool
	}{{"--results", *results}, {"--plan", *plan}, {"--part", *part}, {"--plan-part", *planPart}} {
		if f.on {
			given = append(given, f.name)
		}
	}
	switch {
	case len(given) > 1:
		return badInput("schema: %s are different schemas; give one of --results, --plan, --part or --plan-part", strings.Join(given, " and "))
	case *planPart:
		_, err := stdout.Write(shard.DecisionPartSchemaJSON())
		return err
	case *part:
		_, err := stdout.Write(shard.PartSchemaJSON())
		return err
	case *results:
		_, err := stdout.Write(report.ResultsSchema())
		return err
	case *plan:
		_, err := stdout.Write(report.PlanSchema())
		return err
	}
	b, err := scenarios.JSONSchema()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}
