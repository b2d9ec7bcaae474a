package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/workloads"
)

const fitUsage = `Usage: headroom fit TRACE... [flags]

Fits a scenario whose workloads reproduce request logs: a rate curve (one
point per interval, folded into a repeating day when the trace spans days),
the burstiness of arrivals (the gamma cv of the gaps in the curve's time),
the token distributions (lognormal when it fits within 10% at every
quantile from p10 to p99, else an empirical histogram), the correlation of
input and output noted, and the shared-prefix share when the trace has
block hashes, sessions or prefix ids. It prints the fit's quality per
quantity and the scenario to paste, or writes it with --write. When the
log has a clock (date-times, Unix timestamps in s, ms, us or ns, BurstGPT,
ServeGen) the scenario keeps it, in UTC or the zone --tz names (at its
offset at the first record): it starts at the first record's minute and
its curves at that record's time, so a log kept in UTC by a team in New
York gets its 9 a.m. peak at 09:00 with --tz America/New_York.

Trace formats are those of [workload.demand] trace (section 3 of
scenarios/REFERENCE.md; headroom explain workload.demand.trace): azure,
mooncake, burstgpt and servegen are detected from the first line; a csv or
jsonl without --columns has them read off its header by their common
names (timestamp, time, created_at, t; input_tokens, prompt_tokens,
input_length, isl, in; output_tokens, completion_tokens, output_length,
osl, out; tenant, model, session), and dates and times as the time, and fit says what it
took; --format and --columns name them otherwise. Gzipped files are read directly. Each
TRACE gives its own workloads; the flags apply to every one.

Examples:
  headroom fit AzureLLMInferenceTrace_conv.csv
  headroom fit requests.csv.gz --format csv --time-unit ms --columns time=ts,input=prompt_tokens,output=completion_tokens,tenant=team --by tenant --write fitted.toml
  headroom fit BurstGPT_1.csv --where model=GPT-4 --every 15m --route sonnet --workloads-only

Flags:
`

type fitOptions struct {
	format, columns, timeUnit, dataset string
	where                              []string
	blockSize, prefixTokens            int
	from, to, sortWindow, every        string
	by, route, name, write, zone       string
	workloadsOnly                      bool
}

func cmdFit(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("fit", fitUsage, stdout, stderr)
	var o fitOptions
	fs.StringVar(&o.format, "format", "", "trace format `F`: azure, mooncake, burstgpt, servegen, csv, jsonl (default: from the first line)")
	fs.StringVar(&o.columns, "columns", "", "csv/jsonl fields, `KEY=COLUMN,...` with keys time, input, output, tenant, model, workload, session, prefix, prefix_tokens, blocks")
	fs.StringVar(&o.timeUnit, "time-unit", "", "csv/jsonl time unit `U`: s, ms, us, ns or datetime (default s)")
	fs.IntVar(&o.blockSize, "block-size", 0, "prompt tokens per block hash `N` (with a blocks column; default 64 for sessions and prefix ids)")
	fs.IntVar(&o.prefixTokens, "prefix-tokens", 0, "length in tokens `N` of the prefix a prefix column names")
	fs.StringVar(&o.dataset, "dataset", "", "a ServeGen trace's dataset JSON `FILE` (default: beside the trace)")
	fs.StringArrayVar(&o.where, "where", nil, "keep records whose field matches, `FIELD=V1|V2` (model, tenant, workload, log_type; repeatable)")
	fs.StringVar(&o.from, "from", "", "start of the window, a `DURATION` of trace time after the earliest record")
	fs.StringVar(&o.to, "to", "", "end of the window, a `DURATION` of trace time (default: the end)")
	fs.StringVar(&o.sortWindow, "sort-window", "", "accept records up to `DURATION` out of time order")
	fs.StringVar(&o.every, "every", "", "rate curve spacing `DURATION` (default: 1h for 12 h or more of trace, 15m from 3 h, 5m from 1 h, 1m from 10 min, else 10s)")
	fs.StringVar(&o.zone, "tz", "UTC", "the time `ZONE` of the scenario's clock times: an IANA name such as America/New_York, or an offset such as UTC+05:30")
	fs.StringVar(&o.by, "by", "", "one workload per value of `FIELD`: tenant, model or workload")
	fs.StringVar(&o.route, "route", "api", "the backend the workloads name, `NAME`")
	fs.StringVar(&o.name, "name", "", "the scenario's `NAME` (default: the first trace's name with -fit)")
	fs.BoolVar(&o.workloadsOnly, "workloads-only", false, "write only the [[workload]] blocks, to paste into a scenario that has the route")
	fs.StringVar(&o.write, "write", "", "write the scenario to `FILE` instead of printing it")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return badInput("fit takes one or more TRACE files (see headroom fit --help)")
	}
	spec, opt, err := o.traceSpec()
	if err != nil {
		return err
	}
	if o.write != "" {
		if err := checkOutputs([]string{o.write}, nil); err != nil {
			return err
		}
	}
	var fits []*workloads.Fit
	for _, path := range fs.Args() {
		s := spec
		s.File = path
		if err := o.guessColumns(&s, stdout); err != nil {
			return err
		}
		f, err := workloads.FitTrace(s, opt)
		if err != nil {
			return o.fitError(path, err)
		}
		fits = append(fits, f)
	}
	if err := report.WriteFitQuality(stdout, fits); err != nil {
		return err
	}
	toml := report.FitScenario(fits, report.FitScenarioOptions{Name: o.name, Route: o.route, WorkloadsOnly: o.workloadsOnly})
	if o.write != "" {
		if err := writeFileAtomic(o.write, func(w *bufio.Writer) error { _, err := w.WriteString(toml); return err }); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nwrote %s\n", o.write)
		return nil
	}
	fmt.Fprintf(stdout, "\nScenario (paste it, or write it with --write FILE):\n\n%s", toml)
	return nil
}

// traceSpec turns the flags into the trace settings every TRACE shares.
func (o *fitOptions) traceSpec() (workloads.TraceSpec, workloads.FitOptions, error) {
	s := workloads.TraceSpec{Format: o.format, TimeUnit: o.timeUnit, BlockSize: o.blockSize, PrefixTokens: o.prefixTokens, Dataset: o.dataset}
	var opt workloads.FitOptions
	if o.columns != "" {
		c, err := workloads.ParseTraceColumns(o.columns)
		if err != nil {
			return s, opt, badInput("--columns %v", err)
		}
		s.Columns = c
	}
	for _, w := range o.where {
		if err := workloads.ParseTraceFilter(&s.Where, w); err != nil {
			return s, opt, badInput("--where %v", err)
		}
	}
	for _, d := range []struct {
		flag, v string
		dst     *workloads.Duration
	}{{"--from", o.from, &s.From}, {"--to", o.to, &s.To}, {"--sort-window", o.sortWindow, &s.SortWindow}} {
		if d.v == "" {
			continue
		}
		v, err := workloads.ParseDuration(d.v)
		if err != nil {
			return s, opt, badInput("%s: %v", d.flag, err)
		}
		*d.dst = v
	}
	if o.every != "" {
		v, err := workloads.ParseDuration(o.every)
		if err != nil || v <= 0 {
			return s, opt, badInput("--every %q: want a duration > 0 such as 15m", o.every)
		}
		opt.Every = float64(v)
	}
	switch o.by {
	case "", "tenant", "model", "workload":
		opt.By = o.by
	default:
		return s, opt, badInput("--by %q: must be tenant, model or workload", o.by)
	}
	if o.zone != "UTC" {
		z, err := workloads.ParseZone(o.zone)
		if err != nil {
			return s, opt, badInput("--tz: %v", err)
		}
		opt.Zone = z
	}
	s.File = "TRACE"
	v := s
	if o.columns == "" && (o.format == "" || o.format == workloads.FormatCSV || o.format == workloads.FormatJSONL) {
		// Each TRACE's columns are read off its header (guessColumns).
		v.Columns = workloads.TraceColumns{Time: "t", Input: "i", Output: "o"}
	}
	if err := v.Validate(); err != nil {
		return s, opt, badInput("%s", traceFlagWords(err))
	}
	if o.route == "" || strings.ContainsAny(o.route, "\"\n") {
		return s, opt, badInput("--route %q: must be a backend name", o.route)
	}
	return s, opt, nil
}

// guessColumns names a csv or jsonl trace's columns from its header when
// --columns is not given and the format is not one Headroom tells from
// the first line (Azure, BurstGPT, Mooncake, ServeGen), and says on w
// what it took.
func (o *fitOptions) guessColumns(s *workloads.TraceSpec, w io.Writer) error {
	if o.columns != "" {
		return nil
	}
	switch o.format {
	case "":
		if _, err := workloads.DetectTraceFormat(s.File); err == nil {
			return nil
		}
	case workloads.FormatCSV, workloads.FormatJSONL:
	default:
		return nil
	}
	g, err := workloads.GuessTraceColumns(s.File)
	if err != nil {
		return badInput("%s: %s; name them with --format %s --columns time=COLUMN,input=COLUMN,output=COLUMN", s.File, fitFlagWords(err.Error()), g.Format)
	}
	if o.format != "" {
		g.Format = o.format
	}
	s.Format, s.Columns = g.Format, g.Columns
	if o.timeUnit == "" {
		s.TimeUnit = g.TimeUnit
	}
	if err := s.Validate(); err != nil {
		return badInput("%s: %s", s.File, traceFlagWords(err))
	}
	flags := "--format " + g.Format + " --columns " + strings.Join(g.Taken, ",")
	if s.TimeUnit == workloads.TimeDatetime && o.timeUnit == "" {
		flags += fmt.Sprintf(" --time-unit datetime (its times are dates and times, such as %q)", g.Example)
	}
	_, err = fmt.Fprintf(w, "%s: no --columns given; read it as %s\n\n", s.File, flags)
	return err
}

// fitFlagWords turns the words of a trace table ("set format = \"csv\" and
// name its columns in columns = { ... }") into the flags of fit.
func fitFlagWords(msg string) string {
	return strings.NewReplacer(
		`set format = "csv" and name its columns in columns = { time = ..., input = ..., output = ... }`, "give --format csv --columns time=COLUMN,input=COLUMN,output=COLUMN",
		`set format = "jsonl" and name its fields in columns = { time = ..., input = ..., output = ... }`, "give --format jsonl --columns time=FIELD,input=FIELD,output=FIELD",
		`needs columns = { time = "...", input = "...", output = "..." } naming its fields`, "needs --columns time=COLUMN,input=COLUMN,output=COLUMN",
		"set format (", "give --format (",
		"or set format to one of", "or give --format, one of",
		"set time_unit", "give --time-unit",
		`time_unit = "ms"?`, "give --time-unit ms",
		`time_unit = "us"?`, "give --time-unit us",
		`time_unit = "ns"?`, "give --time-unit ns",
	).Replace(msg)
}

// traceFlagWords words a trace setting's error with the flag that sets it.
func traceFlagWords(err error) string {
	var fe *workloads.FieldError
	if !errors.As(err, &fe) {
		return err.Error()
	}
	flag := "--" + strings.ReplaceAll(strings.SplitN(fe.Key, ".", 2)[0], "_", "-")
	return flag + ": " + fitFlagWords(fe.Msg)
}

// fitError marks trace problems as bad input, in the words of fit's
// flags: a time that is not a number, without --time-unit, suggests
// --time-unit datetime.
func (o *fitOptions) fitError(path string, err error) error {
	var te *workloads.TraceError
	if errors.As(err, &te) {
		te.Msg = fitFlagWords(te.Msg)
		if o.timeUnit == "" && strings.Contains(te.Msg, "is not a number") && strings.Contains(te.Msg, "time ") {
			te.Msg += "; if the times are dates and times, give --time-unit datetime (numbers are seconds unless --time-unit says ms, us or ns)"
		}
		return usageError{err}
	}
	return badInput("%s: %v", path, err)
}
