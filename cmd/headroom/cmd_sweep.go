package main

import (
	"bufio"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/scenarios"
	"github.com/headroom-sim/headroom/workloads"
)

const sweepUsage = `Usage: headroom sweep [FILE|EXAMPLE] (--concurrency LEVELS | --rate LEVELS) [flags]

A step-load test. Runs the scenario (a TOML file or an embedded example;
default "morning-peak") once per load level and prints, per level, the
whole system's requests/s and output tokens/s (totals ÷ simulated time),
TTFT p50 and p95, TPOT p50, E2E p95 and the attempts refused (429/5xx),
and marks the knee: the level to pick for interactive traffic.

  --concurrency  closed loop: the workload gets users = LEVEL with zero
                 think time, so LEVEL requests are always in flight (fewer
                 if its client's max_concurrency is lower)
  --rate         open loop: the workload's demand becomes a constant
                 LEVEL requests/s (its arrival process is kept)

The swept workload is --workload, default the first; every other workload
runs as in the scenario, and [[variant]] blocks are ignored. --set is
applied after the level, so --set workload.NAME.demand.think=2s adds think
time to a concurrency sweep.

LEVELS is a list "1,2,4,8", a geometric range "1..512x2" (start..end x
factor), a linear range "10..100+10" (start..end + step), or a mix of them
"1,2,5..50+5", increasing. Each level simulates the scenario's duration;
a step-load test wants a steady state, so shorten it with --duration
(e.g. 10m). Levels run in parallel.

The knee is the last level before the first level whose throughput
(output tokens/s) gains less than 10% over the previous level while its
TTFT p50 rises by more than 25% (or its refused attempts, 429/5xx, rise by
more than 25%); in a rate sweep a level serving more than 10% less than
its offered requests/s also counts as flattened. If throughput never
flattens that way, there is no knee: extend the range.

Examples:
  headroom sweep llama-h100 --concurrency 1..256x2 --duration 10m
  headroom sweep batch-curve --rate 20..200+20 --duration 10m --csv sweep.csv
  headroom sweep email-launch --concurrency 1,10,100,1000 --duration 10m --json sweep.json   # and sweep.html
  headroom sweep llama-h100 --rate 1..64x2 --duration 5m --html out/llama-sweep.html
  headroom sweep my.toml --workload chat --rate 1..64x2 --set cluster.h100.replicas=1

Flags:
`

type sweepOptions struct {
	concurrency string
	rate        string
	workload    string
	duration    string
	jsonPath    string
	csvPath     string
	htmlPath    string
	noHTML      bool
	seed        uint64
	sets        []string
	quiet       bool
	workers     int
}

func cmdSweep(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sweep", sweepUsage, stdout, stderr)
	var o sweepOptions
	fs.StringVar(&o.concurrency, "concurrency", "", "closed-loop `LEVELS` of concurrent users, e.g. 1,2,4,8 or 1..512x2")
	fs.StringVar(&o.rate, "rate", "", "open-loop `LEVELS` in requests/s, e.g. 10..100+10 or 1..64x2")
	fs.StringVar(&o.workload, "workload", "", "the workload to sweep, by `NAME` (default: the first)")
	fs.StringVar(&o.duration, "duration", "", "simulated time per level, `D` such as 10m (default: the scenario's duration)")
	fs.StringVar(&o.jsonPath, "json", "", "write the per-level results and the table as JSON to `FILE` (schema "+report.Schema+", plus \"sweep\")")
	fs.StringVar(&o.csvPath, "csv", "", "write the table as CSV to `FILE`, one row per level")
	fs.StringVar(&o.htmlPath, "html", "", "write a self-contained HTML report (table, charts against load, knee) to `FILE` (default with --json: beside it, .html)")
	fs.BoolVar(&o.noHTML, "no-html", false, "do not write the HTML report beside the JSON")
	fs.Uint64Var(&o.seed, "seed", 0, "random seed for every level (overrides the scenario's `seed`)")
	fs.StringArrayVar(&o.sets, "set", nil, "override a scenario value by key path, `KEY=VALUE` (repeatable)")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "print nothing but errors")
	fs.IntVar(&o.workers, "workers", runtime.GOMAXPROCS(0), "levels simulated in parallel")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return badInput("sweep takes one scenario, got %d", fs.NArg())
	}
	htmlPath, err := htmlTarget(o.htmlPath, o.jsonPath, o.noHTML)
	if err != nil {
		return err
	}
	kind, spec := scenarios.SweepConcurrency, o.concurrency
	switch {
	case fs.Changed("concurrency") && fs.Changed("rate"):
		return badInput("sweep takes --concurrency or --rate, not both")
	case fs.Changed("rate"):
		kind, spec = scenarios.SweepRate, o.rate
	case !fs.Changed("concurrency"):
		return badInput(`sweep needs --concurrency LEVELS (closed loop) or --rate LEVELS (open loop), e.g. --concurrency 1..64x2; see "headroom sweep --help"`)
	}
	levels, err := scenarios.ParseLevels(spec)
	if err != nil {
		return badInput("--%s: %v", kind, err)
	}
	if o.workers < 1 {
		return badInput("--workers must be at least 1, got %d", o.workers)
	}
	var durationS float64
	if fs.Changed("duration") {
		d, err := workloads.ParseDuration(o.duration)
		if err != nil || d <= 0 {
			if err == nil {
				err = fmt.Errorf("must be > 0")
			}
			return badInput("--duration %s: %v", o.duration, err)
		}
		durationS = float64(d)
	}

	sc, err := loadScenario(fs.Arg(0))
	if err != nil {
		return err
	}
	workload, err := sc.SweepWorkload(o.workload)
	if err != nil {
		return err
	}
	overrides, err := parseSets(o.sets)
	if err != nil {
		return err
	}
	if durationS > 0 {
		overrides = append(overrides, scenarios.Override{Path: "duration", Value: durationS})
	}
	if fs.Changed("seed") {
		overrides = append(overrides, scenarios.Override{Path: "seed", Value: int64(o.seed)})
	}
	cfgs, err := sc.SweepConfigs(workload, kind, levels, overrides)
	if err != nil {
		return err
	}

	results, err := simulate(cfgs, o.workers, o.quiet, stderr)
	if err != nil {
		return err
	}

	rows := report.SweepRows(levels, results)
	report.MarkKnee(kind, rows)
	if !o.quiet {
		if err := report.WriteSweepTerminal(stdout, sweepTitle(cfgs[0], sc.Description, kind, workload, o.sets), kind, rows); err != nil {
			return err
		}
	}
	info := report.ScenarioInfo{Name: cfgs[0].Name, Description: sc.Description, File: sc.File(), Overrides: o.sets}
	doc := report.NewSweepDocument("headroom "+version, info, kind, workload, levels, results, rows)
	if o.jsonPath != "" {
		if err := writeFileAtomic(o.jsonPath, func(w *bufio.Writer) error { return report.WriteSweepJSON(w, doc) }); err != nil {
			return err
		}
		if !o.quiet {
			fmt.Fprintf(stdout, "\nwrote %s\n", o.jsonPath)
		}
	}
	if o.csvPath != "" {
		if err := writeFileAtomic(o.csvPath, func(w *bufio.Writer) error { return report.WriteSweepCSV(w, rows) }); err != nil {
			return err
		}
		if !o.quiet {
			if o.jsonPath == "" {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintf(stdout, "wrote %s\n", o.csvPath)
		}
	}
	if htmlPath != "" {
		if err := writeSweepHTML(htmlPath, doc, htmlOptions(cfgs[0])); err != nil {
			return err
		}
		if !o.quiet {
			if o.jsonPath == "" && o.csvPath == "" {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintf(stdout, "wrote %s\n", htmlPath)
		}
	}
	return nil
}

// sweepTitle says what was swept: scenario, workload, kind, time per level.
func sweepTitle(c model.Config, description, kind, workload string, sets []string) string {
	var b strings.Builder
	b.WriteString(c.Name)
	if description != "" {
		b.WriteString(" — " + description)
	}
	loop := "closed loop, zero think time"
	if kind == scenarios.SweepRate {
		loop = "open loop, requests/s"
	}
	fmt.Fprintf(&b, "\n%s sweep of workload %q (%s) · %s per level · seed %d",
		kind, workload, loop, workloads.Duration(c.Duration), c.Seed)
	for _, s := range sets {
		b.WriteString("\n  --set " + s)
	}
	return b.String()
}
