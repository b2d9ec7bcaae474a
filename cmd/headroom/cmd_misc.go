package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/headroom-sim/headroom/scenarios"
)

const validateUsage = `Usage: headroom validate FILE...

Decodes and validates each scenario file, its variants included, without
running it. Every problem is reported with file, line and key path.

Example:
  headroom validate scenarios/*.toml

`

func cmdValidate(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, validateUsage) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return errHelp
		}
		return usageError{err}
	}
	if fs.NArg() == 0 {
		return badInput("validate needs at least one FILE")
	}
	bad := 0
	for _, path := range fs.Args() {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintf(stderr, "%v\n", err)
			bad++
			continue
		}
		sc, err := scenarios.Load(f, path)
		f.Close()
		if err == nil {
			_, err = sc.Configs(nil)
		}
		if err != nil {
			fmt.Fprintf(stderr, "%v\n", err)
			bad++
			continue
		}
		fmt.Fprintf(stdout, "ok  %s: %d workloads, %d providers, %d variants\n", path, len(sc.Workloads), len(sc.Providers), len(sc.Variants))
	}
	if bad > 0 {
		return badInput("%d of %d files have problems", bad, fs.NArg())
	}
	return nil
}

const examplesUsage = `Usage: headroom examples [NAME]

Without NAME, lists the embedded example scenarios. With NAME, prints that
scenario's TOML, to run as it is or to start your own from.

Examples:
  headroom examples
  headroom examples batch-job > batch.toml

`

func cmdExamples(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("examples", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, examplesUsage) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return errHelp
		}
		return usageError{err}
	}
	if fs.NArg() == 0 {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		for _, e := range scenarios.Examples() {
			def := ""
			if e.Name == scenarios.DefaultExample {
				def = " (default)"
			}
			fmt.Fprintf(tw, "%s%s\t%s\n", e.Name, def, e.Description)
		}
		return tw.Flush()
	}
	e, err := scenarios.LookupExample(fs.Arg(0))
	if err != nil {
		return usageError{err}
	}
	_, err = stdout.Write(e.Source)
	return err
}
