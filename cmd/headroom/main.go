// Command headroom is a discrete-event capacity planner for LLM traffic.
// It is a thin shell over the scenarios, model and report packages: it
// parses flags, reads and writes files and talks to the terminal.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	// The IANA time zones of fit --tz, for machines without a zoneinfo
	// (minimal containers); about 450 kB.
	_ "time/tzdata"
)

// version is set at build time with -ldflags "-X main.version=..." (make
// does, from git describe); buildVersion falls back to Go's build
// information when it is left at devVersion.
var version = devVersion

// devVersion is the version of a build with neither -ldflags nor Go's
// VCS stamping.
const devVersion = "0.1.0-dev"

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
  headroom plan [FILE|EXAMPLE] [flags]  the cheapest setup that holds the [plan]'s constraints, and the growth left
  headroom serve [FILE|EXAMPLE] [flags] serve the scenario's tier as live OpenAI- and Anthropic-shaped endpoints
  headroom merge PART.json... [flags]   combine the part files of a sharded run, compare, sweep or plan
  headroom calibrate FILE... [flags]    fit a GPU step model or a hosted API's latency to measurements and load tests; prints TOML
  headroom fit TRACE... [flags]         fit a scenario to request logs: rate curve, burstiness, tokens, prefixes
  headroom catalogue                    list the built-in GPUs and models a cluster can name
  headroom validate FILE...             check scenario files without running them
  headroom explain [KEY]                what a scenario key means, its unit, default and allowed values
  headroom schema                       print a JSON Schema of the scenario format, for editors
  headroom examples [NAME]              list the embedded example scenarios, or print one
  headroom version                      print the version
  headroom completion bash|zsh|fish     print a shell completion script
  headroom help [COMMAND]               this help, or a command's

Examples:
  headroom run                                   # the default scenario, summary in the terminal
  headroom run batch-job --json out.json         # an embedded example, with JSON results
  headroom run my.toml --set provider.sonnet.limits.rpm=8000 --csv out/
  headroom run my.toml --replications 20        # means with 95% confidence intervals
  headroom examples salespeople-peak > mine.toml # start your own from an example

Run "headroom help COMMAND" (or "headroom COMMAND --help") for a command's flags.
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

// command is one subcommand: its name, its entry point, and what its
// positional arguments are, for shell completion.
type command struct {
	name string
	run  func(args []string, stdout, stderr io.Writer) error
	// args is what the command's arguments complete to: "scenario" (an
	// example name or a .toml file), "toml", "json", "csv", "example",
	// "shell" or "command"; "" for none.
	args string
}

// commandTable lists the subcommands in the order help gives them.
func commandTable() []command {
	return []command{
		{"run", cmdRun, "scenario"},
		{"compare", cmdCompare, "toml"},
		{"sweep", cmdSweep, "scenario"},
		{"plan", cmdPlan, "scenario"},
		{"serve", cmdServe, "scenario"},
		{"merge", cmdMerge, "json"},
		{"calibrate", cmdCalibrate, "csv"},
		{"fit", cmdFit, "csv"},
		{"catalogue", cmdCatalogue, ""},
		{"validate", cmdValidate, "scenario"},
		{"explain", cmdExplain, ""},
		{"schema", cmdSchema, ""},
		{"examples", cmdExamples, "example"},
		{"version", cmdVersion, ""},
		{"completion", cmdCompletion, "shell"},
		{"help", nil, "command"}, // run dispatches it (it needs the table)
	}
}

// lookup finds a command by name ("catalog" is "catalogue").
func lookup(name string) (command, bool) {
	if name == "catalog" {
		name = "catalogue"
	}
	for _, c := range commandTable() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// run dispatches a command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		args = []string{"run"}
	}
	var err error
	switch name := args[0]; name {
	case "--version":
		err = cmdVersion(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		err = cmdHelp(args[1:], stdout, stderr)
	default:
		c, ok := lookup(name)
		if !ok {
			fmt.Fprintf(stderr, "headroom: unknown command %q%s; headroom help lists the commands\n", name, didYouMean(name))
			return exitBadInput
		}
		err = c.run(args[1:], stdout, stderr)
	}
	return exitStatus(err, stderr)
}

// cmdHelp prints the general help, or with a command's name that
// command's help: "headroom help run" is "headroom run --help".
func cmdHelp(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" {
		fmt.Fprint(stdout, topUsage)
		return nil
	}
	if len(args) > 1 {
		return badInput("help takes one command, got %d: %s", len(args), strings.Join(args, " "))
	}
	c, ok := lookup(args[0])
	if !ok {
		return badInput("help: unknown command %q%s; the commands are %s", args[0], didYouMean(args[0]), strings.Join(commandNames(), ", "))
	}
	return c.run([]string{"--help"}, stdout, stderr)
}

// commandNames lists the commands' names.
func commandNames() []string {
	table := commandTable()
	out := make([]string, len(table))
	for i, c := range table {
		out[i] = c.name
	}
	return out
}

// didYouMean suggests the command nearest a mistyped one (" (did you mean
// \"run\"?)"), or "" when none is close.
func didYouMean(name string) string {
	best, dist := "", 3
	for _, c := range commandNames() {
		if d := editDistance(name, c); d < dist {
			best, dist = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// cmdVersion prints the version (see buildVersion).
func cmdVersion(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(stdout, versionUsage)
		return errHelp
	}
	if len(args) > 0 {
		return badInput("version takes no arguments, got %q", args[0])
	}
	fmt.Fprintf(stdout, "headroom %s\n", buildVersion())
	return nil
}

func exitStatus(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	if err == errHelp {
		return exitOK
	}
	// One problem a line, each marked as headroom's (a scenario's errors
	// come several at once); indented lines continue the one above.
	for _, line := range strings.Split(err.Error(), "\n") {
		if line != "" && line[0] != ' ' && line[0] != '\t' {
			line = "headroom: " + line
		}
		fmt.Fprintln(stderr, line)
	}
	if isBadInput(err) {
		return exitBadInput
	}
	return exitRunError
}
