package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/report/htmlreport"
	"github.com/headroom-sim/headroom/report/shard"
	"github.com/headroom-sim/headroom/scenarios"
	"github.com/headroom-sim/headroom/scenarios/plan"
	"github.com/headroom-sim/headroom/sim"
)

// defaultPlanExample is the example headroom plan answers without an
// argument.
const defaultPlanExample = "hybrid-plan"

const planUsage = `Usage: headroom plan [FILE|EXAMPLE] [flags]

Answers the scenario's [plan] table (default: the embedded "` + defaultPlanExample + `"):
what to buy to hold every constraint at the least cost (objective
min_cost), and how far every workload's demand can grow before a
constraint breaks (max_load), of the winner or of the scenario as written.

Constraints: each workload's [workload.slo] met by plan.attainment of its
requests (default 99%), [[plan.target]] percentiles (p95 TTFT ≤ 2s),
plan.max_failed, plan.max_429 and plan.budget; each must hold over the
whole run and in its worst window (plan.window, default 1h).

Knobs ([[plan.knob]]): a key with a range ("1..64", "0..16+2") or values,
a scale of several keys ("tier ×k"), or named options setting several keys
at a fixed price prorated to the horizon. Monotone knobs (replicas, rate
limits, scale; or monotone = true) are searched by galloping and
bisection; the others are enumerated, and candidates whose fixed and GPU
cost alone exceed the best found are skipped. Every candidate runs
plan.replications replications (default 5) with common random numbers and
holds only at plan.confidence (default 95%); the winner is re-checked at
plan.recheck replications, running only those the search did not (the
same configuration and seed measure the same).

Prints the answer in one sentence, then the candidates with their cost and
each constraint's value and margin, why the others failed, and what the
search cost. Exit status 1 when nothing holds.

Before it runs, the plan estimates its work: the simulations the search
is expected to need (per choice of the knobs that are not monotone, a
gallop and a bisection over the monotone one, at every replication; the
re-check; the growth), each costing what its dearest candidate costs. A
plan estimated past the bound (about 40 minutes of one core) or past 4 GB
of memory is refused, naming what to reduce; so is, when it gets there, a
search that runs past the bound after all. --force lifts both, and the
bound on requests in flight at once. On a terminal, stderr shows the
estimate and the simulations run.

Examples:
  headroom plan                                       # the salespeople's cheapest hybrid
  headroom plan fleet-70b --json out/fleet.json       # and out/fleet.html
  headroom plan email-plan --write out/tier.toml      # the winning scenario, ready to run
  headroom plan my.toml --replications 10 --workers 8
  headroom plan my.toml --shard-from-env --shards 8 --part /out/plan-{shard}.json

Flags:
`

type planOptions struct {
	jsonPath, htmlPath, writePath string
	noHTML                        bool
	seed                          uint64
	sets                          []string
	quiet                         bool
	workers                       int
	shard                         string
	shardFromEnv                  bool
	shards                        int
	part                          string
	force, strict                 bool
	replications                  int
}

func cmdPlan(args []string, stdout, stderr io.Writer) error {
	return planCommand(args, stdout, stderr, defaultBounds)
}

// planCommand is headroom plan with the work bounds given.
func planCommand(args []string, stdout, stderr io.Writer, bounds workBounds) error {
	fs := newFlags("plan", planUsage, stdout, stderr)
	var o planOptions
	fs.StringVar(&o.jsonPath, "json", "", "write the plan as JSON to `FILE` (schema "+report.DecisionSchema+")")
	fs.StringVar(&o.htmlPath, "html", "", "write the HTML report (cost against latency for every candidate, the margins, the winner's report) to `FILE` (default with --json: beside it, .html)")
	fs.BoolVar(&o.noHTML, "no-html", false, "do not write the HTML report beside the JSON")
	fs.StringVar(&o.writePath, "write", "", "write the winning scenario as TOML, ready to run, to `FILE`")
	fs.Uint64Var(&o.seed, "seed", 0, "random seed `N` for every candidate (overrides the scenario's)")
	setFlag(fs, &o.sets, "override a scenario value by key path, `KEY=VALUE` (repeatable; plan.* keys change the plan)")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "print nothing but errors")
	workersFlag(fs, &o.workers)
	fs.StringVar(&o.shard, "shard", "", "search only shard `I/N` of the choices of the non-monotone knobs and write it to --part; combine parts with headroom merge")
	fs.BoolVar(&o.shardFromEnv, "shard-from-env", false, "take the shard index from JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID (Slurm job array)")
	fs.IntVar(&o.shards, "shards", 0, "the shard count `N` with --shard-from-env")
	fs.StringVar(&o.part, "part", "", "with --shard: write this shard's part to `FILE` ({shard} becomes the shard index)")
	fs.IntVar(&o.replications, "replications", 0, "run `N` replications per candidate (the same as --set plan.replications=N; the re-check defaults to 4 × N)")
	strictFlag(fs, &o.strict)
	fs.BoolVar(&o.force, "force", false, "plan even when the work or memory estimate is beyond its bound, and lift the bound on requests in flight at once")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return badInput("plan takes one scenario, got %d", fs.NArg())
	}
	var err error
	if o.workers, err = resolveWorkers(fs, o.workers); err != nil {
		return err
	}
	b := batchOptions{replications: 1, shard: o.shard, shardFromEnv: o.shardFromEnv, shards: o.shards, part: o.part}
	sh, err := b.resolve(fs, getenv, changedOutputs(fs, "json", "html", "write")...)
	if err != nil {
		return err
	}
	htmlPath, err := htmlTarget(o.htmlPath, o.jsonPath, o.noHTML)
	if err != nil {
		return err
	}
	if err := checkOutputs([]string{o.jsonPath, htmlPath, o.writePath, b.part}, nil); err != nil {
		return err
	}
	arg := fs.Arg(0)
	if arg == "" {
		arg = defaultPlanExample
	}
	sc, err := loadScenario(arg)
	if err != nil {
		return err
	}
	sets, err := parseSets(o.sets)
	if err != nil {
		return err
	}
	if fs.Changed("seed") {
		sets = append(sets, scenarios.Override{Path: "seed", Value: int64(o.seed)})
	}
	if fs.Changed("replications") {
		if o.replications < 1 {
			return badInput("--replications N: N is how many replications each candidate runs (plan.replications), at least 1, got %d", o.replications)
		}
		sets = append(sets, scenarios.Override{Path: "plan.replications", Value: int64(o.replications)})
	}
	pr, err := plan.Compile(sc, sets)
	if err != nil {
		return err
	}
	warnings, err := scenarioWarnings(sc, sets, o.strict, "", stderr)
	if err != nil {
		return err
	}
	opts := plan.Options{Workers: o.workers, Generator: "headroom " + version,
		Info: report.ScenarioInfo{Name: pr.Base().Name, Description: sc.Description, File: sc.File(), Overrides: o.sets}}
	if sh != nil {
		opts.Shard, opts.Shards = sh.Index, sh.Count
	}
	est := pr.Estimate(opts)
	if err := checkPlanEstimate(est, bounds, o.force); err != nil {
		return err
	}
	if !o.force {
		opts.MaxEvents = bounds.events
	} else {
		opts.MaxInFlight = -1
	}
	if p := planProgress(stderr, o.quiet, est); p != nil {
		opts.Progress = p
		defer fmt.Fprint(stderr, "\r\033[K")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	d, err := plan.Run(ctx, pr, opts)
	if errors.Is(err, sim.ErrInterrupted) || ctx.Err() != nil {
		return fmt.Errorf("interrupted before the plan was done; no result files were written")
	}
	if err != nil {
		return planRunError(err)
	}
	d.Warnings = warnings
	if sh != nil {
		part := shard.NewDecisionPart(d, *sh, shard.Hash(sc.Source()), pr.Base().Seed, o.sets)
		if err := writeFileAtomic(b.part, func(w *bufio.Writer) error { return part.Write(w) }); err != nil {
			return err
		}
		if !o.quiet {
			fmt.Fprintf(stdout, "shard %s: searched %d candidates in %d simulations; wrote %s\n", sh, d.Search.Evaluated, d.Search.Simulations, b.part)
		}
		return nil
	}
	return emitDecision(d, planOutputs{jsonPath: o.jsonPath, htmlPath: htmlPath, writePath: o.writePath, quiet: o.quiet}, stdout)
}

// planOutputs say where a plan's outcome goes.
type planOutputs struct {
	jsonPath, htmlPath, writePath string
	quiet                         bool
}

// emitDecision prints and writes a plan's outcome (plan and merge end
// here), and reports a plan in which nothing holds as a failure.
func emitDecision(d *report.Decision, o planOutputs, stdout io.Writer) error {
	if !o.quiet {
		if err := report.WriteDecisionTerminal(stdout, d); err != nil {
			return err
		}
	}
	wrote := func(path string) {
		if !o.quiet {
			fmt.Fprintf(stdout, "wrote %s\n", path)
		}
	}
	if !o.quiet && (o.jsonPath != "" || o.htmlPath != "" || o.writePath != "") {
		fmt.Fprintln(stdout)
	}
	if o.jsonPath != "" {
		if err := writeFileAtomic(o.jsonPath, func(w *bufio.Writer) error { return report.WriteDecisionJSON(w, d) }); err != nil {
			return err
		}
		wrote(o.jsonPath)
	}
	if o.htmlPath != "" {
		if err := writeFileAtomic(o.htmlPath, func(w *bufio.Writer) error { return htmlreport.WriteDecision(w, d, htmlreport.DefaultOptions()) }); err != nil {
			return err
		}
		wrote(o.htmlPath)
	}
	if o.writePath != "" {
		if d.WinnerTOML == nil {
			return fmt.Errorf("no candidate meets every constraint, so there is no winning scenario to write to %s", o.writePath)
		}
		if err := writeFileAtomic(o.writePath, func(w *bufio.Writer) error { _, err := w.Write(d.WinnerTOML); return err }); err != nil {
			return err
		}
		wrote(o.writePath)
	}
	if failed := d.Failed(); failed != "" {
		return errors.New(failed)
	}
	return nil
}
