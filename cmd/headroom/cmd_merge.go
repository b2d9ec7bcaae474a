package main

import (
	"io"
	"os"

	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/report/shard"
)

const mergeUsage = `Usage: headroom merge PART.json... [--json FILE] [--csv PATH] [--html FILE] [flags]

Combines the part files that the shards of one run, compare or sweep
wrote (--shard I/N --part FILE) into the document a single process would
have written, byte for byte, and prints its summary. The parts of a
sharded plan merge into its decision: every shard's candidates ranked
together, the cheapest of the shards' re-checked winners the winner
(--write writes its scenario). Every shard must be
given exactly once, and all parts must come from the same scenario, seed,
flags and shard count; otherwise merge says which and exits 2.

--csv means what it meant for the command the parts came from: a
directory for run and compare, a file for sweep. The HTML report goes
beside the --json file (FILE.html) unless --html names another file or
--no-html is given.

Examples:
  headroom merge out/part-*.json --json out/sweep.json     # and out/sweep.html
  headroom merge part-0.json part-1.json part-2.json --json cmp.json --csv out/cmp

Flags:
`

func cmdMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge", mergeUsage, stdout, stderr)
	var o outputOptions
	var htmlPath string
	var noHTML bool
	fs.StringVar(&o.jsonPath, "json", "", "write the merged results as JSON to `FILE`")
	fs.StringVar(&o.csvPath, "csv", "", "write CSV to `PATH` (a directory for run and compare, a file for sweep)")
	fs.StringVar(&htmlPath, "html", "", "write the merged report as HTML to `FILE` (default with --json: beside it, .html)")
	fs.BoolVar(&noHTML, "no-html", false, "do not write the HTML report beside the JSON")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "print nothing but errors")
	var writePath string
	fs.StringVar(&writePath, "write", "", "for the parts of a plan: write the winning scenario as TOML to `FILE`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var err error
	if o.htmlPath, err = htmlTarget(htmlPath, o.jsonPath, noHTML); err != nil {
		return err
	}
	if err := checkOutputs([]string{o.jsonPath, o.htmlPath}, nil); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return badInput("merge needs the part files, e.g. headroom merge out/part-*.json --json out.json")
	}
	if isPlanPart(fs.Arg(0)) {
		return mergePlanParts(fs.Args(), planOutputs{jsonPath: o.jsonPath, htmlPath: o.htmlPath, writePath: writePath, quiet: o.quiet}, o.csvPath, stdout)
	}
	if writePath != "" {
		return badInput("--write is for the parts of a plan; these are not")
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
