package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/headroom-sim/headroom/scenarios"
	"github.com/headroom-sim/headroom/scenarios/plan"
)

const validateUsage = `Usage: headroom validate FILE|EXAMPLE... [flags]

Decodes and validates each scenario file (or embedded example, by name),
its variants included, without running it. The first problem found in
each file is reported with file, line and key path; fix it and validate
again for the next. Defaults that change the answer (a provider without
prices, say) are warnings on stderr; --strict makes them problems.
--set applies an override to every file as run does, so it is checked
(and warned about) without running.

Examples:
  headroom validate my.toml
  headroom validate scenarios/*.toml
  headroom validate salespeople-peak
  headroom validate my.toml --set provider.sonnet.latency.tpot.mean=15ms --strict

Flags:
`

func cmdValidate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("validate", validateUsage, stdout, stderr)
	var strict bool
	var sets []string
	strictFlag(fs, &strict)
	setFlag(fs, &sets, "override a scenario value by key path, `KEY=VALUE` (repeatable; applied to every file, checked as run applies it)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return badInput("validate needs at least one FILE or EXAMPLE")
	}
	overrides, err := parseSets(sets)
	if err != nil {
		return err
	}
	with := ""
	if len(sets) > 0 {
		with = " with --set " + strings.Join(sets, " --set ")
	}
	var problems []error
	for _, path := range fs.Args() {
		sc, err := validateFile(path, overrides)
		if err == nil {
			_, err = scenarioWarnings(sc, overrides, strict, "", stderr)
		}
		if err != nil {
			problems = append(problems, err)
			continue
		}
		fmt.Fprintf(stdout, "ok  %s%s: %d workloads, %d providers, %d variants\n", path, with, len(sc.Workloads), len(sc.Providers), len(sc.Variants))
	}
	switch {
	case len(problems) == 0:
		return nil
	case fs.NArg() == 1:
		return problems[0] // printed once, by exitStatus
	}
	for _, err := range problems {
		fmt.Fprintf(stderr, "headroom: %v\n", err)
	}
	return badInput("%d of %d files have problems", len(problems), fs.NArg())
}

// validateFile loads the scenario at path (or the embedded example of that
// name, as run does) and builds every variant with the overrides.
func validateFile(path string, overrides []scenarios.Override) (*scenarios.Scenario, error) {
	if path == "" {
		return nil, badInput("validate: an empty FILE name")
	}
	sc, err := loadScenario(path)
	if err != nil {
		return nil, err
	}
	if _, err := sc.Configs(overrides); err != nil {
		return nil, err
	}
	if sc.HasPlan() { // its knobs against the scenario, as headroom plan checks them
		if _, err := plan.Compile(sc, overrides); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

const examplesUsage = `Usage: headroom examples [NAME]

Without NAME, lists the embedded example scenarios. With NAME, prints that
scenario's TOML, to run as it is or to start your own from.

Examples:
  headroom examples
  headroom examples batch-job > batch.toml

`

func cmdExamples(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("examples", examplesUsage, stdout, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
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
		return usageError{noExample(fs.Arg(0))}
	}
	_, err = stdout.Write(e.Source)
	return err
}

// buildVersion is the version headroom reports: the one make sets with
// -ldflags (git describe: "8208858", "8208858-dirty", a tag), else the one
// Go stamped into the binary (go build in a checkout, go install), else
// devVersion.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	return versionFrom(version, bi, ok)
}

// versionFrom picks the version from what -ldflags set and the build
// information. A plain go build in a git checkout stamps a pseudo-version
// and the commit; it reports the commit as make does, its first seven hex
// digits with "-dirty" for uncommitted changes. A release installed with
// go install reports its module version.
func versionFrom(ldflags string, bi *debug.BuildInfo, ok bool) string {
	if ldflags != devVersion && ldflags != "" {
		return ldflags
	}
	if !ok || bi == nil {
		return devVersion
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	v := bi.Main.Version
	if rev != "" && (v == "" || v == "(devel)" || strings.Contains(v, rev[:min(12, len(rev))])) {
		v = rev[:min(7, len(rev))]
		if dirty {
			v += "-dirty"
		}
		return v
	}
	if v == "" || v == "(devel)" {
		return devVersion
	}
	return strings.Replace(v, "+dirty", "-dirty", 1)
}
