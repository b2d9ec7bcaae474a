package main

import (
	"io"
	"os"

	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/report/shard"
)

const mergeUsage = `Usage: headroom merge PART.json... [--json FILE] [--csv PATH] [flags]

Combines the part files that the shards of one run, compare or sweep
wrote (--shard I/N --part FILE) into the document a single process would
have written, byte for byte, and prints its summary. Every shard must be
given exactly once, and all parts must come from the same scenario, seed,
flags and shard count; otherwise merge says which and exits 2.

--csv means what it meant for the command the parts came from: a
directory for run and compare, a file for sweep.

Examples:
  headroom merge out/part-*.json --json out/sweep.json
  headroom merge part-0.json part-1.json part-2.json --json cmp.json --csv out/cmp

Flags:
`

func cmdMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge", mergeUsage, stdout, stderr)
	var o outputOptions
	var htmlPath string
	fs.StringVar(&o.jsonPath, "json", "", "write the merged results as JSON to `FILE`")
	fs.StringVar(&o.csvPath, "csv", "", "write CSV to `PATH` (a directory for run and compare, a file for sweep)")
	fs.StringVar(&htmlPath, "html", "", "write the merged report as HTML to `FILE`")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "print nothing but errors")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return badInput("merge needs the part files, e.g. headroom merge out/part-*.json --json out.json")
	}
	parts := make([]*shard.Part, fs.NArg())
	for i, name := range fs.Args() {
		p, err := readPart(name)
		if err != nil {
			return err
		}
		parts[i] = p
	}
	plan, results, err := shard.Merge(parts, fs.Args())
	if err != nil {
		return badInput("merge: %v", err)
	}
	out, err := report.Assemble(plan, results)
	if err != nil {
		return badInput("merge: %v", err)
	}
	if htmlPath != "" {
		if err := writeMergedHTML(htmlPath, out); err != nil {
			return err
		}
	}
	return emit(out, plan, o, stdout)
}

// readPart reads one part file; any problem with it is bad input.
func readPart(name string) (*shard.Part, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, usageError{err}
	}
	defer f.Close()
	p, err := shard.ReadPart(f, name)
	if err != nil {
		return nil, usageError{err}
	}
	return p, nil
}

// writeMergedHTML is the hook for merge --html. HTML rendering lives in
// the report/html package, which is built on another branch: when it is
// merged, call its writer here the way run --html does (on out.Document,
// or out.Sweep for a sweep).
func writeMergedHTML(path string, out *report.Output) error {
	_ = out
	return badInput("--html %s: this build has no HTML report yet; write --json and render it once the HTML report is available", path)
}
