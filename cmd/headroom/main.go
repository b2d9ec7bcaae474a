// Command headroom is a discrete-event capacity planner for LLM traffic.
// It is a thin shell over the scenarios, model and report packages: it
// parses flags, reads and writes files and talks to the terminal.
package main

import (
	"fmt"
	"io"
	"os"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit statuses.
const (
	exitOK       = 0
	exitRunError = 1
	exitBadInput = 2
)

// usageError marks a problem with the command line or the input files.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func badInput(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

const topUsage = `headroom — will your LLM system hold at the 9 a.m. peak, and what will it cost?

Usage:
  headroom run [FILE|EXAMPLE] [flags]   simulate a scenario (default: the embedded "morning-peak")
  headroom compare A.toml B.toml ...    simulate several scenarios side by side, with paired differences
  headroom sweep [FILE|EXAMPLE] [flags]  step-load levels or a grid of --param values: throughput and latency per point, knee marked
  headroom merge PART.json... [flags]   combine the part files of a sharded run, compare or sweep
  headroom calibrate FILE [flags]       fit a GPU step-time model to measurements; prints TOML to paste
  headroom fit TRACE... [flags]         fit a scenario to request logs: rate curve, burstiness, tokens, prefixes
  headroom catalogue                    list the built-in GPUs and models a cluster can name
  headroom validate FILE...             check scenario files without running them
  headroom examples [NAME]              list the embedded example scenarios, or print one
  headroom version                      print the version

Examples:
  headroom run                                   # the default scenario, summary in the terminal
  headroom run batch-job --json out.json         # an embedded example, with JSON results
  headroom run my.toml --set provider.sonnet.limits.rpm=8000 --csv out/
  headroom run my.toml --replications 20        # means with 95% confidence intervals
  headroom examples salespeople-peak > mine.toml # start your own from an example

Run "headroom COMMAND --help" for a command's flags.
Exit status: 0 success, 1 the run failed or was interrupted, 2 bad input.
`

const versionUsage = `Usage: headroom version

Prints the version of headroom.

Examples:
  headroom version
  headroom --version

`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches a command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		args = []string{"run"}
	}
	var err error
	switch args[0] {
	case "run":
		err = cmdRun(args[1:], stdout, stderr)
	case "validate":
		err = cmdValidate(args[1:], stdout, stderr)
	case "compare":
		err = cmdCompare(args[1:], stdout, stderr)
	case "sweep":
		err = cmdSweep(args[1:], stdout, stderr)
	case "merge":
		err = cmdMerge(args[1:], stdout, stderr)
	case "calibrate":
		err = cmdCalibrate(args[1:], stdout, stderr)
	case "fit":
		err = cmdFit(args[1:], stdout, stderr)
	case "examples":
		err = cmdExamples(args[1:], stdout, stderr)
	case "catalogue", "catalog":
		err = cmdCatalogue(args[1:], stdout, stderr)
	case "version", "--version":
		if len(args) > 1 && (args[1] == "-h" || args[1] == "--help") {
			fmt.Fprint(stdout, versionUsage)
			break
		}
		fmt.Fprintf(stdout, "headroom %s\n", version)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, topUsage)
	default:
		fmt.Fprintf(stderr, "headroom: unknown command %q\n\n%s", args[0], topUsage)
		return exitBadInput
	}
	return exitStatus(err, stderr)
}

func exitStatus(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	if err == errHelp {
		return exitOK
	}
	fmt.Fprintf(stderr, "headroom: %v\n", err)
	if isBadInput(err) {
		return exitBadInput
	}
	return exitRunError
}
