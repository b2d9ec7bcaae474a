package main

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/report/shard"
	"github.com/headroom-sim/headroom/scenarios"
)

const runUsage = `Usage: headroom run [FILE|EXAMPLE] [flags]

Simulates the scenario (a TOML file, or the name of an embedded example;
default "morning-peak") and its [[variant]] blocks side by side, prints a
summary, and writes JSON, CSV and HTML results when asked. With --json
FILE.json the HTML report is also written beside it, as FILE.html, unless
--html names another file or --no-html is given.

A workload's demand can be a request log replayed record by record:
  [workload.demand]
  trace = { file = "requests.csv", format = "azure" }   # or mooncake, burstgpt, servegen, csv, jsonl
with a window (from, to), speed, scale, loop and filters: see section 3 of
scenarios/REFERENCE.md, or headroom explain workload.demand.trace.
"headroom fit TRACE" writes a scenario whose workloads reproduce a log.

Examples:
  headroom run
  headroom run salespeople-peak --csv out/sales
  headroom run my.toml --json out/my.json --seed 7     # also writes out/my.html
  headroom run batch-job --html out/batch.html
  headroom run my.toml --set provider.sonnet.limits.itpm=2000000 --set workload.chat.client.max_concurrency=32
  headroom run my.toml --replications 20 --csv out/my     # means with 95% intervals, paired differences
  headroom run my.toml --replications 100 --shard 3/8 --part out/part-3.json

Flags:
`

type runOptions struct {
	commonFlags
	seedSet bool
	base    bool
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", runUsage, stdout, stderr)
	var o runOptions
	o.register(fs, "write results as JSON to `FILE` (schema "+report.Schema+")",
		"write summary.csv and one series CSV per variant into `DIR` (and key-figures.csv with --replications)",
		htmlHelp,
		"random seed `N` (overrides the scenario's seed)",
		setHelp)
	fs.BoolVar(&o.base, "base-only", false, "run only the base scenario, not its variants")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o.seedSet = fs.Changed("seed")
	var err error
	if o.workers, err = resolveWorkers(fs, o.workers); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return badInput("run takes one scenario, got %d; put alternatives in [[variant]] blocks, or use headroom compare", fs.NArg())
	}
	sh, htmlPath, err := o.resolveOutputs(fs, true)
	if err != nil {
		return err
	}
	sc, err := loadScenario(fs.Arg(0))
	if err != nil {
		return err
	}
	overrides, err := parseSets(o.sets)
	if err != nil {
		return err
	}
	if o.seedSet {
		overrides = append(overrides, scenarios.Override{Path: "seed", Value: int64(o.seed)})
	}
	var cfgs []model.Config
	if o.base {
		c, err := sc.Config(overrides)
		if err != nil {
			return err
		}
		cfgs = []model.Config{c}
	} else if cfgs, err = sc.Configs(overrides); err != nil {
		return err
	}
	warnings, err := scenarioWarnings(sc, overrides, o.strict, "", stderr)
	if err != nil {
		return err
	}

	plan := &report.Plan{Command: "run", Generator: "headroom " + buildVersion(),
		Scenario:     report.ScenarioInfo{Name: cfgs[0].Name, Description: sc.Description, File: sc.File(), Overrides: o.sets},
		Variants:     variantNames(cfgs),
		Replications: o.batch.replications, Summarize: fs.Changed("replications"),
		SLOs: report.SLOsOf(cfgs[0]), Warnings: warnings}
	points := [][]model.Config{cfgs}
	if err := checkCSVNames(o.csvDir, plan.Variants); err != nil {
		return err
	}
	results, err := runPlan(plan, points, sh, o.workers, o.quiet, o.batch.force, stderr)
	if err != nil {
		return err
	}
	return finishBatch(plan, results, sh, shard.Hash(sc.Source()), cfgs[0].Seed, o.batch.part,
		outputOptions{jsonPath: o.jsonPath, csvPath: o.csvDir, htmlPath: htmlPath, quiet: o.quiet}, stdout)
}

// variantNames names configurations as the report does: "base" for the
// base, else the variant's name.
func variantNames(cfgs []model.Config) []string {
	out := make([]string, len(cfgs))
	for i, c := range cfgs {
		out[i] = c.Variant
		if out[i] == "" {
			out[i] = "base"
		}
	}
	return out
}

func parseSets(sets []string) ([]scenarios.Override, error) {
	var out []scenarios.Override
	for _, s := range sets {
		p, v, err := scenarios.ParseSet(s)
		if err != nil {
			return nil, badInput("--set %s: %v", s, err)
		}
		out = append(out, scenarios.Override{Path: p, Value: v})
	}
	return out, nil
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// maxFileNamePart bounds the part of a file name made from a variant's
// name, so "series-NAME.csv" stays well within every file system's limit.
const maxFileNamePart = 64

// fileSafe turns a variant name into a file name part: lower case, runs
// of other characters than letters, digits, '.', '_' and '-' made one
// '-', at most maxFileNamePart bytes.
func fileSafe(s string) string {
	s = strings.Trim(unsafeChars.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(s) > maxFileNamePart {
		s = strings.TrimRight(s[:maxFileNamePart], "-")
	}
	if s == "" {
		return "variant"
	}
	return s
}

// seriesFileNames are the series CSV files of variants, in order: each
// "series-NAME.csv" with NAME from fileSafe, the second and later
// variants that would take a name already given getting the first free
// "NAME-2", "NAME-3", … So names are unique and bounded, and depend only
// on the variants' names, which are known before the run.
func seriesFileNames(variants []string) []string {
	used := map[string]bool{}
	out := make([]string, len(variants))
	for i, v := range variants {
		name := fileSafe(v)
		for n := 2; used[name]; n++ {
			name = fmt.Sprintf("%s-%d", fileSafe(v), n)
		}
		used[name] = true
		out[i] = "series-" + name + ".csv"
	}
	return out
}

// checkCSVNames fails before the run when the CSV files of the variants
// could not be made in dir.
func checkCSVNames(dir string, variants []string) error {
	if dir == "" {
		return nil
	}
	for _, n := range seriesFileNames(variants) {
		if p := filepath.Join(dir, n); len(p) >= 4096 {
			return badInput("--csv %s: the path %s… is too long for a file", dir, p[:64])
		}
	}
	return nil
}

// writeCSVs stages the CSV files of a run or compare in dir and returns
// their paths, in order, for the command to announce.
func writeCSVs(s *outputSet, dir string, doc *report.Document) ([]string, error) {
	var wrote []string
	add := func(name string, f func(w *bufio.Writer) error) error {
		path := filepath.Join(dir, name)
		if err := s.add(path, f); err != nil {
			return err
		}
		wrote = append(wrote, path)
		return nil
	}
	if err := add("summary.csv", func(w *bufio.Writer) error { return report.WriteSummaryCSV(w, doc) }); err != nil {
		return nil, err
	}
	if doc.Summary != nil {
		if err := add("key-figures.csv", func(w *bufio.Writer) error { return report.WriteKeyFiguresCSV(w, doc) }); err != nil {
			return nil, err
		}
	}
	names := make([]string, len(doc.Variants))
	for i, r := range doc.Variants {
		names[i] = report.VariantName(r)
	}
	for i, name := range seriesFileNames(names) {
		r := doc.Variants[i]
		if err := add(name, func(w *bufio.Writer) error { return report.WriteSeriesCSV(w, r) }); err != nil {
			return nil, err
		}
	}
	return wrote, nil
}
