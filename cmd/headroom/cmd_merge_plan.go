package main

import (
	"io"
	"os"

	"github.com/headroom-sim/headroom/report/shard"
)

// isPlanPart reports whether the file at name is a part of a sharded plan
// (its schema, the document's first field, says so).
func isPlanPart(name string) bool {
	return shard.PeekSchema(fileHead(name)) == shard.DecisionPartSchema
}

// mergePlanParts merges the parts of a sharded plan and writes what one
// process would have: the terminal answer, JSON, HTML and the winning
// scenario.
func mergePlanParts(names []string, o planOutputs, csvPath string, stdout io.Writer) error {
	if csvPath != "" {
		return badInput("a plan has no CSV; give --json and --html")
	}
	parts := make([]*shard.DecisionPart, len(names))
	for i, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return usageError{err}
		}
		p, err := shard.ReadDecisionPart(f, name)
		f.Close()
		if err != nil {
			return usageError{err}
		}
		parts[i] = p
	}
	d, err := shard.MergeDecisions(parts, names)
	if err != nil {
		return badInput("merge: %v", err)
	}
	return emitDecision(d, o, stdout)
}
