package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/report/shard"
)

// maxReplications bounds --replications.
const maxReplications = 100_000

// batchOptions are the flags run, compare and sweep share for replications
// and shards.
type batchOptions struct {
	replications int
	shard        string
	shardFromEnv bool
	shards       int
	part         string
	force        bool
}

func (b *batchOptions) register(fs *pflag.FlagSet) {
	fs.IntVar(&b.replications, "replications", 1, "independent replications of every variant, `N`: the summary gets means with 95% confidence intervals and paired differences")
	fs.StringVar(&b.shard, "shard", "", "run only shard `I/N` of the work items (item k when k mod N = I) and write them to --part; combine parts with headroom merge")
	fs.BoolVar(&b.shardFromEnv, "shard-from-env", false, "take the shard index from JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID (Slurm job array)")
	fs.IntVar(&b.shards, "shards", 0, "the shard count `N` with --shard-from-env (a Slurm array also gives SLURM_ARRAY_TASK_COUNT)")
	fs.StringVar(&b.part, "part", "", "with --shard: write this shard's part file to `FILE` ({shard} becomes the shard index)")
	fs.BoolVar(&b.force, "force", false, "run even when the work or memory estimate is beyond its bound (see model/RELIABILITY.md), and lift the bound on requests in flight at once")
}

// resolve checks the batch flags and returns the shard this process runs,
// nil when it runs the whole batch. outputs names output flags that were
// given (--json, --csv), which a shard does not write.
func (b *batchOptions) resolve(fs *pflag.FlagSet, getenv func(string) string, outputs ...string) (*shard.Shard, error) {
	if b.replications < 1 || b.replications > maxReplications {
		return nil, badInput("--replications must be from 1 to %d, got %d", maxReplications, b.replications)
	}
	if fs.Changed("shards") && !b.shardFromEnv {
		return nil, badInput("--shards goes with --shard-from-env; otherwise write --shard I/N")
	}
	var sh shard.Shard
	var err error
	switch {
	case b.shard != "" && b.shardFromEnv:
		return nil, badInput("give --shard I/N or --shard-from-env, not both")
	case b.shard != "":
		sh, err = shard.Parse(b.shard)
	case b.shardFromEnv:
		sh, err = shard.FromEnv(getenv, b.shards)
	default:
		if b.part != "" {
			return nil, badInput("--part is written by a shard; add --shard I/N or --shard-from-env")
		}
		return nil, nil
	}
	if err != nil {
		return nil, badInput("%v", err)
	}
	if b.part == "" {
		return nil, badInput("a shard writes its results to --part FILE; merge the parts with headroom merge")
	}
	for _, o := range outputs {
		return nil, badInput("a shard writes only --part; %s is written by headroom merge", o)
	}
	b.part = strings.ReplaceAll(b.part, "{shard}", strconv.Itoa(sh.Index))
	return &sh, nil
}

// changedOutputs lists which of the output flags were given.
func changedOutputs(fs *pflag.FlagSet, names ...string) []string {
	var out []string
	for _, n := range names {
		if fs.Changed(n) {
			out = append(out, "--"+n)
		}
	}
	return out
}

// batchResults is what a plan's run kept: for the whole batch, the
// collector that reduces every result as it finishes; for a shard, its
// items' results (replications after the first trimmed to their summary).
type batchResults struct {
	col     *report.Collector
	mine    []*model.Results
	offered bool // some simulation had a request arrive
}

// runPlan runs a plan's work items, all of them or one shard's, on the
// worker pool: item k runs cfgs[point][variant] with its replication. It
// first estimates the work and refuses a batch beyond the bounds unless
// force is set. Configurations are made as workers start them and results
// reduced as they finish, so memory is bounded by the workers and the
// grid, not by the replications.
func runPlan(plan *report.Plan, cfgs [][]model.Config, sh *shard.Shard, workers int, quiet, force bool, stderr io.Writer) (*batchResults, error) {
	nItems := plan.NumItems()
	count := nItems
	item := func(i int) int { return i }
	if sh != nil {
		count = sh.Len(nItems)
		item = func(i int) int { return sh.Index + i*sh.Count }
	}
	est := estimateBatch(plan, cfgs, count, workers)
	if err := est.check(force); err != nil {
		return nil, err
	}
	out := &batchResults{}
	if sh != nil {
		out.mine = make([]*model.Results, count)
	} else {
		var err error
		if out.col, err = report.NewCollector(plan); err != nil {
			return nil, err
		}
	}
	if count == 0 {
		return out, nil
	}
	config := func(i int) model.Config {
		p, v, r := plan.Item(item(i))
		c := cfgs[p][v]
		c.Replication = r
		return c
	}
	sink := func(i int, r *model.Results) error {
		out.offered = out.offered || r.Summary.Requests.Offered > 0
		k := item(i)
		if out.col != nil {
			return out.col.Add(k, r)
		}
		if _, _, rep := plan.Item(k); rep > 0 {
			r = report.Trim(r)
		}
		out.mine[i] = r
		return nil
	}
	if err := simulate(count, config, sink, workers, quiet, force, est, stderr); err != nil {
		return nil, err
	}
	if !out.offered {
		fmt.Fprintln(stderr, "headroom: warning: no requests arrived within the horizon: check duration/start against the demand")
	}
	return out, nil
}

// collected wraps the results of every work item of plan, in order, as
// runPlan would have kept them.
func collected(plan *report.Plan, results []*model.Results) (*batchResults, error) {
	col, err := report.NewCollector(plan)
	if err != nil {
		return nil, err
	}
	out := &batchResults{col: col}
	for k, r := range results {
		if err := col.Add(k, r); err != nil {
			return nil, err
		}
		out.offered = out.offered || r.Summary.Requests.Offered > 0
	}
	return out, nil
}

// finishBatch completes a run, compare or sweep: a shard writes its part
// file; the whole batch is assembled and written as o says.
func finishBatch(plan *report.Plan, results *batchResults, sh *shard.Shard, hash string, seed uint64, partPath string, o outputOptions, stdout io.Writer) error {
	if sh != nil {
		part, err := shard.NewPart(plan, *sh, hash, seed, results.mine)
		if err != nil {
			return err
		}
		if err := writeOutputs(stdout, func(s *outputSet) error { return s.add(partPath, func(w *bufio.Writer) error { return part.Write(w) }) }); err != nil {
			return err
		}
		if !o.quiet && partPath != stdoutName {
			fmt.Fprintf(stdout, "shard %s: ran %d of %d work items; wrote %s\n", sh, len(results.mine), plan.NumItems(), partPath)
		}
		return nil
	}
	out, err := results.col.Output()
	if err != nil {
		return err
	}
	return emit(out, plan, o, stdout)
}

// getenv is the process environment, for --shard-from-env.
func getenv(name string) string { return os.Getenv(name) }
