package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/report/shard"
	"github.com/headroom-sim/headroom/scenarios"
	"github.com/headroom-sim/headroom/workloads"
)

const sweepUsage = `Usage: headroom sweep [FILE|EXAMPLE] (--concurrency LEVELS | --rate LEVELS | --param KEY=V1,V2,...)... [flags]

A step-load test, or a sweep over any scenario keys. Runs the scenario (a TOML file or an embedded example;
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
runs as in the scenario. [[variant]] blocks are not run unless --variants
is given (then every variant runs at every point). --set is applied after
the level, so --set workload.NAME.demand.think=2s adds think time to a
concurrency sweep.

LEVELS is a list "1,2,4,8", a geometric range "1..512x2" (start..end x
factor), a linear range "10..100+10" (start..end + step), or a mix of them
"1,2,5..50+5", increasing. Each level simulates the scenario's duration;
a step-load test wants a steady state, so shorten it with --duration
(e.g. 10m). Levels run in parallel.

--param KEY=V1,V2,... sweeps any scenario key, by the key paths of --set
and [[variant]] set (provider.sonnet.limits.rpm=4000,8000,
workload.chat.client.max_concurrency=16..128x2). Several --param flags (and
a load level) make a grid, their cartesian product, the first varying
slowest. Values are TOML as for --set; a numeric range as for LEVELS
expands; numbers may be written 2M, 1.5k, 800k, and print that way. Keys
joined by ";" in one --param step together, value i of each with value i
of the others (one axis, not a cross-product):
--param 'provider.api.limits.rpm=2k,4k; provider.api.limits.itpm=800k,1.6M'.
Each point applies the load level, then --set, then a
variant's set (with --variants), then the point's values. With --param,
--replications or --variants the output has one table per variant, the
JSON a sweep section with params, points and curves (key figures against
the first parameter), and the CSV one row per point.

A sweep of scenario keys without a load level (--param alone: a tier's
limits, a cluster's replicas) is a purchase, not a load test: it marks no
knee, and its pick is the cheapest point that holds (at most 0.1% of
requests failing and at least 99% meeting their SLOs), at equal cost the
smaller values; one per variant over the whole grid. With a load level
the lines run along the load and each gets its knee.

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
  headroom sweep my.toml --param provider.sonnet.limits.rpm=1k..8kx2 --param workload.chat.client.max_concurrency=16,64 --json grid.json
  headroom sweep my.toml --param 'provider.sonnet.limits.rpm=2k,4k,8k; provider.sonnet.limits.itpm=400k,800k,1.6M'   # a tier ladder, one axis
  headroom sweep my.toml --rate 1..64x2 --replications 10 --shard-from-env --shards 8 --part /out/part-{shard}.json

Flags:
`

type sweepOptions struct {
	concurrency string
	rate        string
	params      []string
	variants    bool
	workload    string
	duration    string
	commonFlags
}

func cmdSweep(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sweep", sweepUsage, stdout, stderr)
	var o sweepOptions
	fs.StringVar(&o.concurrency, "concurrency", "", "closed-loop `LEVELS` of concurrent users, e.g. 1,2,4,8 or 1..512x2")
	fs.StringVar(&o.rate, "rate", "", "open-loop `LEVELS` in requests/s, e.g. 10..100+10 or 1..64x2")
	fs.StringArrayVar(&o.params, "param", nil, "sweep a scenario key over values, `KEY=V1,V2,...` (repeatable: a grid)")
	fs.BoolVar(&o.variants, "variants", false, "also run every [[variant]] at each point (default: the base only)")
	fs.StringVar(&o.workload, "workload", "", "the workload a load level varies, by `NAME` (default: the first)")
	fs.StringVar(&o.duration, "duration", "", "simulated time per point, `D` such as 10m (default: the scenario's duration)")
	o.register(fs, "write the per-point results and the table as JSON to `FILE` (schema "+report.Schema+", plus \"sweep\")",
		"write the table as CSV to `FILE`, one row per point",
		"write a self-contained HTML report (table, charts against load or the first --param, knee) to `FILE` (default with --json: beside it, .html)",
		"random seed `N` for every point (overrides the scenario's seed)",
		setHelp)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return badInput("sweep takes one scenario, got %d", fs.NArg())
	}
	params, err := sweepParams(fs, &o)
	if err != nil {
		return err
	}
	grid, err := scenarios.NewGrid(params)
	if err != nil {
		return badInput("%v", err)
	}
	if o.workers, err = resolveWorkers(fs, o.workers); err != nil {
		return err
	}
	sh, htmlPath, err := o.resolveOutputs(fs, false)
	if err != nil {
		return err
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
	workload := ""
	kind := "grid"
	for _, p := range params {
		if p.IsLoad() {
			if workload, err = sc.SweepWorkload(o.workload); err != nil {
				return err
			}
			if len(params) == 1 {
				kind = p.Key
			}
		}
	}
	if workload == "" && fs.Changed("workload") {
		return badInput("--workload names the workload a load level varies; add --concurrency or --rate LEVELS")
	}
	overrides, err := parseSets(o.sets)
	if err != nil {
		return err
	}
	if durationS > 0 {
		overrides = append(overrides, scenarios.Override{Path: "duration", Value: workloads.Duration(durationS)})
	}
	if fs.Changed("seed") {
		overrides = append(overrides, scenarios.Override{Path: "seed", Value: int64(o.seed)})
	}
	cfgs, err := sc.GridConfigs(grid, workload, o.variants, overrides)
	if err != nil {
		return err
	}
	warnings, err := scenarioWarnings(sc, overrides, o.strict, "", stderr, params...)
	if err != nil {
		return err
	}

	plan := &report.Plan{Command: "sweep", Generator: "headroom " + buildVersion(),
		Scenario:     report.ScenarioInfo{Name: cfgs[0][0].Name, Description: sc.Description, File: sc.File(), Overrides: o.sets},
		Variants:     sc.VariantNames(o.variants),
		Replications: o.batch.replications,
		Summarize:    fs.Changed("param") || fs.Changed("replications") || o.variants,
		Grid:         gridPlan(grid, kind, workload),
		SLOs:         report.SLOsOf(cfgs[0][0]),
		Warnings:     warnings}
	results, err := runPlan(plan, cfgs, sh, o.workers, o.quiet, o.batch.force, stderr)
	if err != nil {
		return err
	}
	return finishBatch(plan, results, sh, shard.Hash(sc.Source()), cfgs[0][0].Seed, o.batch.part,
		outputOptions{jsonPath: o.jsonPath, csvPath: o.csvDir, htmlPath: htmlPath, quiet: o.quiet}, stdout)
}

// sweepParams collects the swept parameters: the load level (--concurrency
// or --rate) first, then each --param in order.
func sweepParams(fs *pflag.FlagSet, o *sweepOptions) ([]scenarios.Param, error) {
	var params []scenarios.Param
	switch {
	case fs.Changed("concurrency") && fs.Changed("rate"):
		return nil, badInput("sweep takes --concurrency or --rate, not both")
	case fs.Changed("concurrency") || fs.Changed("rate"):
		kind, spec := scenarios.SweepConcurrency, o.concurrency
		if fs.Changed("rate") {
			kind, spec = scenarios.SweepRate, o.rate
		}
		levels, err := scenarios.ParseLevels(spec)
		if err != nil {
			return nil, badInput("--%s: %v", kind, err)
		}
		params = append(params, scenarios.LoadParam(kind, levels))
	case len(o.params) == 0:
		return nil, badInput(`sweep needs --concurrency LEVELS (closed loop), --rate LEVELS (open loop) or --param KEY=V1,V2,..., e.g. --concurrency 1..64x2; see "headroom sweep --help"`)
	}
	for _, spec := range o.params {
		p, err := scenarios.ParseParam(spec)
		if err != nil {
			return nil, badInput("%v", err)
		}
		params = append(params, p)
	}
	return params, nil
}

// gridPlan describes a grid for the report.
func gridPlan(g scenarios.Grid, kind, workload string) *report.GridPlan {
	gp := &report.GridPlan{Kind: kind, Workload: workload}
	for _, p := range g.Params {
		for i, q := range append([]scenarios.Param{p}, p.Linked...) {
			sp := report.SweepParam{Key: q.Key, Values: q.Raw, Linked: i > 0}
			if n, ok := q.Numbers(); ok {
				sp.Numbers = n
			}
			gp.Params = append(gp.Params, sp)
		}
	}
	for i := 0; i < g.Size(); i++ {
		gp.Points = append(gp.Points, report.GridPoint{Label: g.Label(i), Values: g.Values(i)})
	}
	return gp
}
