package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/report/shard"
	"github.com/headroom-sim/headroom/scenarios/schema"
	"github.com/headroom-sim/headroom/sim"
	"github.com/headroom-sim/headroom/workloads"
)

// newFlags makes a command's flag set: parse errors go to stderr, --help
// prints usage and the flags to stdout.
func newFlags(name, usage string, stdout, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { // only for --help (ContinueOnError)
		fmt.Fprint(stdout, usage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fs.SetOutput(stderr)
	}
	return fs
}

// parseFlags parses args, turning --help into errHelp and anything else
// wrong into bad input.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return errHelp
		}
		if name, ok := strings.CutPrefix(err.Error(), "unknown flag: --"); ok {
			var names []string
			fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
			if c, ok := schema.Suggest(name, names); ok {
				return usageError{fmt.Errorf("%w (did you mean --%s?)", err, c)}
			}
			return usageError{fmt.Errorf("%w (see headroom %s --help for the flags)", err, fs.Name())}
		}
		return usageError{err}
	}
	return nil
}

// workersFlag registers --workers N; 0 stands for "not given".
func workersFlag(fs *pflag.FlagSet, p *int) {
	fs.IntVar(p, "workers", 0, "simulations run in parallel, `N` >= 1 (default: GOMAXPROCS)")
}

// resolveWorkers returns the --workers value, GOMAXPROCS when it was not
// given, and bad input when it is below 1.
func resolveWorkers(fs *pflag.FlagSet, n int) (int, error) {
	if !fs.Changed("workers") {
		return runtime.GOMAXPROCS(0), nil
	}
	if n < 1 {
		return 0, badInput("--workers N: N is how many simulations run in parallel, at least 1 (leave it out for GOMAXPROCS, %d here), got %d", runtime.GOMAXPROCS(0), n)
	}
	return n, nil
}

// simulate runs n simulations (config(i) makes the i-th) on a worker pool
// until done or until the user interrupts, handing each result to sink as
// it finishes, with progress and the time left on a terminal.
func simulate(n int, config func(int) model.Config, sink func(int, *model.Results) error, workers int, quiet, force bool, est batchEstimate, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	progress := progressPrinter(stderr, quiet, est)
	opt := model.RunOptions{Workers: workers, Progress: progress}
	if force {
		opt.MaxInFlight = -1
	}
	clocks := startClocks{seen: map[float64]bool{}}
	err := model.RunEach(ctx, n, clocks.wrap(config), opt, sink)
	if progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	var tooMany *model.TooManyInFlight
	switch {
	case errors.As(err, &tooMany):
		clock, ok := clocks.only()
		return tooManyError(tooMany, clock, ok)
	case errors.Is(err, sim.ErrInterrupted):
		return fmt.Errorf("interrupted before the end of the simulated horizon; no result files were written")
	}
	return err
}

// rssPerInFlight is the resident memory one request in flight costs at
// the in-flight bound, measured with GNU time: 10,000,000 requests queued
// behind 10 servers (20,000 offered a second, the bound passed 8m20s in)
// peaked at 4,161,420, 5,570,056 and 5,786,312 KB of resident memory in
// three runs (Go 1.26, 2026-12-01): 4.3 to 5.9 GB, as the garbage
// collector lets the heap grow past the 450 bytes of live data a request
// holds (model.BytesPerRequest) before it collects. The message gives the
// top of that range, rounded up.
const rssPerInFlight = 600

// tooManyError words a simulation stopped by the in-flight bound: when,
// as a duration and, when every simulation shares one start (clockOK), as
// the clock time, and what memory the bound keeps to.
func tooManyError(e *model.TooManyInFlight, clock float64, clockOK bool) error {
	at := report.Seconds(e.At)
	if clockOK {
		at += " (at " + workloads.ClockHMS(math.Mod(clock+math.Floor(e.At), 86400)) + ")"
	}
	return fmt.Errorf("stopped %s into the simulated horizon: more than %s requests were in flight at once (the backends fall ever further behind the demand), "+
		"and the bound keeps memory to about %s per simulation; no result files were written. Give the backends more capacity, cap the client "+
		"(client.max_concurrency), shorten the duration, or run with --force to lift the bound",
		at, report.Count(e.Limit), decimalBytes(float64(e.Limit)*rssPerInFlight))
}

// decimalBytes formats a memory size in decimal units, as GNU time and
// the documents give it: "4.2 GB", "420 MB".
func decimalBytes(b float64) string {
	if b >= 1e9 {
		return fmt.Sprintf("%.1f GB", b/1e9)
	}
	return fmt.Sprintf("%.0f MB", b/1e6)
}

// startClocks remembers the clock times the simulations start at, so
// that a message can name a clock time when they all share one.
type startClocks struct {
	mu   sync.Mutex
	seen map[float64]bool
}

// wrap returns config, noting each configuration's start.
func (s *startClocks) wrap(config func(int) model.Config) func(int) model.Config {
	return func(i int) model.Config {
		c := config(i)
		s.mu.Lock()
		s.seen[c.StartClock] = true
		s.mu.Unlock()
		return c
	}
}

// only is the one start every simulation had, if they had one.
func (s *startClocks) only() (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) != 1 {
		return 0, false
	}
	for c := range s.seen {
		return c, true
	}
	return 0, false
}

// commonFlags are the flags run, compare and sweep share: outputs, seed,
// overrides, workers and sharding. Each command says in its own words
// what its CSV holds and what the seed and overrides apply to.
type commonFlags struct {
	jsonPath string
	csvDir   string // a directory, or for sweep a file
	htmlPath string
	noHTML   bool
	seed     uint64
	sets     []string
	quiet    bool
	strict   bool
	workers  int
	batch    batchOptions
}

// register adds the shared flags to fs, with the command's help texts for
// --json, --csv, --html, --seed and --set.
func (c *commonFlags) register(fs *pflag.FlagSet, jsonHelp, csvHelp, htmlHelp, seedHelp, setHelp string) {
	fs.StringVar(&c.jsonPath, "json", "", jsonHelp)
	fs.StringVar(&c.csvDir, "csv", "", csvHelp)
	fs.StringVar(&c.htmlPath, "html", "", htmlHelp)
	fs.BoolVar(&c.noHTML, "no-html", false, "do not write the HTML report beside the JSON")
	fs.Uint64Var(&c.seed, "seed", 0, seedHelp)
	setFlag(fs, &c.sets, setHelp)
	fs.BoolVarP(&c.quiet, "quiet", "q", false, "print nothing but warnings and errors")
	strictFlag(fs, &c.strict)
	workersFlag(fs, &c.workers)
	c.batch.register(fs)
}

// setFlag registers --set KEY=VALUE (repeatable) with the command's help
// text; parseSets reads what it gathered. run, compare, sweep, plan, serve
// and validate share it, so an override validates as it runs.
func setFlag(fs *pflag.FlagSet, p *[]string, help string) {
	fs.StringArrayVar(p, "set", nil, help)
}

// setHelp is the --set help of the commands that apply an override to
// the scenario as it is.
const setHelp = "override a scenario value by key path, `KEY=VALUE` (repeatable)"

// htmlHelp is the --html help of run and compare.
const htmlHelp = "write a self-contained HTML report with charts to `FILE` (default with --json: beside it, .html)"

// resolveOutputs settles the shard (from --shard or the environment) and
// the HTML report's path (given, beside the JSON, or none), and checks
// before any simulation that every output can be written. csvIsDir says
// whether --csv names a directory (run, compare) or a file (sweep).
func (c *commonFlags) resolveOutputs(fs *pflag.FlagSet, csvIsDir bool) (*shard.Shard, string, error) {
	sh, err := c.batch.resolve(fs, getenv, changedOutputs(fs, "json", "csv", "html")...)
	if err != nil {
		return nil, "", err
	}
	htmlPath, err := htmlTarget(c.htmlPath, c.jsonPath, c.noHTML)
	if err != nil {
		return nil, "", err
	}
	files, dirs := []string{c.jsonPath, htmlPath}, []string{c.csvDir}
	if !csvIsDir {
		files, dirs = append(files, c.csvDir), nil
	}
	if err := checkOutputs(files, dirs); err != nil {
		return nil, "", err
	}
	return sh, htmlPath, nil
}
