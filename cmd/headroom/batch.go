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
}

func (b *batchOptions) register(fs *pflag.FlagSet) {
	fs.IntVar(&b.replications, "replications", 1, "independent replications of every variant, `N`: the summary gets means with 95% confidence intervals and paired differences")
	fs.StringVar(&b.shard, "shard", "", "run only shard `I/N` of the work items (item k when k mod N = I) and write them to --part; combine parts with headroom merge")
	fs.BoolVar(&b.shardFromEnv, "shard-from-env", false, "take the shard index from JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID (Slurm job array)")
	fs.IntVar(&b.shards, "shards", 0, "the shard count `N` with --shard-from-env (a Slurm array also gives SLURM_ARRAY_TASK_COUNT)")
	fs.StringVar(&b.part, "part", "", "with --shard: write this shard's part file to `FILE` ({shard} becomes the shard index)")
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

// runPlan runs a plan's work items, all of them or one shard's, on the
// worker pool: item k runs cfgs[point][variant] with its replication.
func runPlan(plan *report.Plan, cfgs [][]model.Config, sh *shard.Shard, workers int, quiet bool, stderr io.Writer) ([]*model.Results, error) {
	var items []int
	if sh != nil {
		items = sh.Items(plan.NumItems())
	} else {
		items = make([]int, plan.NumItems())
		for k := range items {
			items[k] = k
		}
	}
	list := make([]model.Config, len(items))
	for i, k := range items {
		p, v, r := plan.Item(k)
		list[i] = cfgs[p][v]
		list[i].Replication = r
	}
	if len(list) == 0 {
		return nil, nil
	}
	results, err := simulate(list, workers, quiet, stderr)
	if err == nil && !quiet && noneOffered(results) {
		fmt.Fprintln(stderr, "headroom: warning: no requests arrived within the horizon: check duration/start against the demand")
	}
	return results, err
}

// noneOffered reports whether no simulation had a request arrive.
func noneOffered(results []*model.Results) bool {
	for _, r := range results {
		if r != nil && r.Summary.Requests.Offered > 0 {
			return false
		}
	}
	return len(results) > 0
}

// finishBatch completes a run, compare or sweep: a shard writes its part
// file; the whole batch is assembled and written as o says.
func finishBatch(plan *report.Plan, results []*model.Results, sh *shard.Shard, hash string, seed uint64, partPath string, o outputOptions, stdout io.Writer) error {
	if sh != nil {
		part, err := shard.NewPart(plan, *sh, hash, seed, results)
		if err != nil {
			return err
		}
		if err := writeFileAtomic(partPath, func(w *bufio.Writer) error { return part.Write(w) }); err != nil {
			return err
		}
		if !o.quiet {
			fmt.Fprintf(stdout, "shard %s: ran %d of %d work items; wrote %s\n", sh, len(results), plan.NumItems(), partPath)
		}
		return nil
	}
	out, err := report.Assemble(plan, results)
	if err != nil {
		return err
	}
	return emit(out, plan, o, stdout)
}

// getenv is the process environment, for --shard-from-env.
func getenv(name string) string { return os.Getenv(name) }
