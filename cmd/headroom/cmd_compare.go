package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/report/shard"
	"github.com/headroom-sim/headroom/scenarios"
)

const compareUsage = `Usage: headroom compare A.toml B.toml ... [flags]

Simulates the base of each scenario (a file or an embedded example) side
by side, as variants named after the scenarios, the first being the base
the others are compared with. Scenarios with the same seed draw the same
random numbers (common random numbers), so the differences are the
scenarios' differences, not noise; --seed gives them all one seed.

Prints every scenario's key figures (with --replications N: the mean and
95% confidence interval over N replications) and each one's difference
from the first, paired by replication, with its own interval.

Examples:
  headroom compare tier3.toml tier4.toml --json out/cmp.json     # also writes out/cmp.html
  headroom compare hosted.toml self-hosted.toml hybrid.toml --replications 20 --csv out/cmp
  headroom compare a.toml b.toml --replications 200 --shard 0/4 --part out/part-0.json

Flags:
`

type compareOptions struct {
	commonFlags
}

func cmdCompare(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("compare", compareUsage, stdout, stderr)
	var o compareOptions
	o.register(fs, "write results as JSON to `FILE` (schema "+report.Schema+")",
		"write summary.csv, key-figures.csv and one series CSV per scenario into `DIR`",
		htmlHelp,
		"random seed `N` for every scenario (overrides their seed)",
		"override a value in every scenario by key path, `KEY=VALUE` (repeatable)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return badInput("compare takes two or more scenarios, got %d; a scenario's own alternatives go in [[variant]] blocks (headroom run)", fs.NArg())
	}
	var err error
	if o.workers, err = resolveWorkers(fs, o.workers); err != nil {
		return err
	}
	sh, htmlPath, err := o.resolveOutputs(fs, true)
	if err != nil {
		return err
	}
	overrides, err := parseSets(o.sets)
	if err != nil {
		return err
	}
	if fs.Changed("seed") {
		overrides = append(overrides, scenarios.Override{Path: "seed", Value: int64(o.seed)})
	}
	var cfgs []model.Config
	var sources [][]byte
	var files []string
	var warnings []report.Warning
	for _, arg := range fs.Args() {
		sc, err := loadScenario(arg)
		if err != nil {
			return err
		}
		c, err := sc.Config(overrides)
		if err != nil {
			return err
		}
		ws, err := scenarioWarnings(sc, overrides, o.strict, sc.File()+": ", stderr)
		if err != nil {
			return err
		}
		warnings = append(warnings, ws...)
		cfgs = append(cfgs, c)
		sources = append(sources, sc.Source())
		files = append(files, sc.File())
	}
	names := compareNames(cfgs, files)
	for i := range cfgs {
		cfgs[i].Variant = names[i]
	}
	if seeds := distinctSeeds(cfgs); len(seeds) > 1 && !o.quiet {
		fmt.Fprintf(stderr, "headroom: note: the scenarios have different seeds (%s), so their differences include sampling noise; give --seed N for common random numbers\n", strings.Join(seeds, ", "))
	}

	plan := &report.Plan{Command: "compare", Generator: "headroom " + buildVersion(),
		Scenario:     report.ScenarioInfo{Name: strings.Join(names, " vs "), File: strings.Join(files, ", "), Overrides: o.sets},
		Variants:     names,
		Replications: o.batch.replications, Summarize: true,
		SLOs: report.SLOsOf(cfgs...), Warnings: warnings}
	if err := checkCSVNames(o.csvDir, plan.Variants); err != nil {
		return err
	}
	results, err := runPlan(plan, [][]model.Config{cfgs}, sh, o.workers, o.quiet, o.batch.force, stderr)
	if err != nil {
		return err
	}
	return finishBatch(plan, results, sh, shard.Hash(sources...), cfgs[0].Seed, o.batch.part,
		outputOptions{jsonPath: o.jsonPath, csvPath: o.csvDir, htmlPath: htmlPath, quiet: o.quiet}, stdout)
}

// compareNames names each compared scenario by its name, or by its file
// when two share a name, numbered when even those clash.
func compareNames(cfgs []model.Config, files []string) []string {
	count := map[string]int{}
	for _, c := range cfgs {
		count[c.Name]++
	}
	out := make([]string, len(cfgs))
	seen := map[string]int{}
	for i, c := range cfgs {
		n := c.Name
		if count[n] > 1 {
			n = strings.TrimSuffix(filepath.Base(files[i]), ".toml")
		}
		seen[n]++
		if seen[n] > 1 {
			n = fmt.Sprintf("%s (%d)", n, seen[n])
		}
		out[i] = n
	}
	return out
}

// distinctSeeds lists the different seeds of cfgs, in order.
func distinctSeeds(cfgs []model.Config) []string {
	var out []string
	seen := map[uint64]bool{}
	for _, c := range cfgs {
		if !seen[c.Seed] {
			seen[c.Seed] = true
			out = append(out, fmt.Sprint(c.Seed))
		}
	}
	return out
}
