package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/model/serve"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/report/shard"
	"github.com/headroom-sim/headroom/scenarios"
)

const serveUsage = `Usage: headroom serve [FILE|EXAMPLE] [flags]

Serves the scenario's providers, clusters and routes as live endpoints in
the OpenAI (Chat Completions, Responses) and Anthropic (Messages) shapes,
so a real client can be tested against the planned tier. The endpoints are
the simulation, run in real time: limits, Retry-After and rate-limit
headers, prompt caching, concurrency, outages, the gateway and GPU batching
behave as "headroom run" simulates them.

The scenario's workloads are not run: there is no background load, only
your clients' requests reach the endpoints (each endpoint takes its
answer lengths, SLO and priority from the workload sent to it).

The session ends at the scenario's duration or on Ctrl-C; the results are
then printed and written as run writes them. Ended early, they say so and
are over the simulated time served ("Simulated 3m02s of 1h", "Cost $0.20
over 3m02s"), not the whole duration. A client that disconnects fails as
client_disconnected. The request log never holds an API key in clear: it
writes "sk-…abcd" and a key_hash that tells keys apart.

Examples:
  headroom serve my.toml --listen 127.0.0.1:8080
  headroom serve my.toml --speed 60 --json out/live.json --log out/requests.jsonl
  OPENAI_BASE_URL=http://127.0.0.1:8080/sonnet/v1 my-app    # point a client at one endpoint

Flags:
`

func cmdServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", serveUsage, stdout, stderr)
	listen := fs.String("listen", "127.0.0.1:8080", "address to listen on, `HOST:PORT` (port 0 picks a free one)")
	speed := fs.Float64("speed", 1, "run the simulated clock `K` times faster than the wall clock (latencies, refills, windows, outages)")
	jsonPath := fs.String("json", "", "write the session's results as JSON to `FILE` on exit (schema "+report.Schema+")")
	htmlPath := fs.String("html", "", htmlHelp)
	noHTML := fs.Bool("no-html", false, "do not write the HTML report beside the JSON")
	logPath := fs.String("log", "", "append one JSON line per request to `FILE` (- for stderr); API keys masked")
	grace := fs.Duration("grace", 30*time.Second, "on shutdown, how long in-flight streams may take to finish before they are cut, `DURATION`")
	maxBody := fs.Int64("max-body", 8<<20, "largest request body accepted, in `BYTES`")
	seed := fs.Uint64("seed", 0, "random seed `N` (overrides the scenario's seed)")
	var sets []string
	setFlag(fs, &sets, setHelp)
	quiet := fs.BoolP("quiet", "q", false, "print nothing but errors")
	var strict bool
	strictFlag(fs, &strict)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return badInput("serve takes one scenario, got %d", fs.NArg())
	}
	if !(*speed > 0) || *speed > 1e6 {
		return badInput("--speed K must be a number > 0 and at most 1000000 (1 is real time), got %v", *speed)
	}
	if *grace < 0 {
		return badInput("--grace must be a duration >= 0, got %v", *grace)
	}
	html, err := htmlTarget(*htmlPath, *jsonPath, *noHTML)
	if err != nil {
		return err
	}
	logFile := ""
	if *logPath != "-" {
		logFile = *logPath
	}
	if err := checkOutputs([]string{*jsonPath, html, logFile}, nil); err != nil {
		return err
	}
	sc, err := loadScenario(fs.Arg(0))
	if err != nil {
		return err
	}
	overrides, err := parseSets(sets)
	if err != nil {
		return err
	}
	if fs.Changed("seed") {
		overrides = append(overrides, scenarios.Override{Path: "seed", Value: int64(*seed)})
	}
	cfg, err := sc.Config(overrides)
	if err != nil {
		return err
	}
	warnings, err := scenarioWarnings(sc, overrides, strict, "", stderr)
	if err != nil {
		return err
	}
	opts := serve.Options{Speed: *speed, MaxBody: *maxBody}
	switch *logPath {
	case "":
	case "-":
		opts.Log = stderr
	default:
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return usageError{fmt.Errorf("--log: %w", err)}
		}
		defer f.Close()
		opts.Log = f
	}
	srv, err := serve.New(cfg, opts)
	if err != nil {
		return badInput("%v", err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return badInput("--listen %s: %v", *listen, err)
	}
	if !*quiet {
		b := report.ServeBanner{Scenario: cfg.Name, URL: "http://" + ln.Addr().String(), Speed: *speed, DurationS: srv.Horizon(), LogPath: *logPath}
		for _, w := range cfg.Workloads {
			b.Workloads = append(b.Workloads, w.Name)
		}
		for _, e := range srv.Endpoints() {
			b.Endpoints = append(b.Endpoints, report.ServeEndpoint{Name: e.Name, Kind: e.Kind, Model: e.Model, Keys: e.Keys})
		}
		if err := report.WriteServeBanner(stdout, b); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := srv.Serve(ctx, ln, *grace)
	if err != nil {
		return err
	}
	plan := &report.Plan{Command: "serve", Generator: "headroom " + version,
		Scenario: report.ScenarioInfo{Name: cfg.Name, Description: sc.Description, File: sc.File(), Overrides: sets},
		Variants: []string{"base"}, Replications: 1, SLOs: report.SLOsOf(cfg), Warnings: warnings}
	if !*quiet {
		fmt.Fprintln(stdout)
	}
	results, err := collected(plan, []*model.Results{res})
	if err != nil {
		return err
	}
	return finishBatch(plan, results, nil, shard.Hash(sc.Source()), cfg.Seed, "",
		outputOptions{jsonPath: *jsonPath, htmlPath: html, quiet: *quiet}, stdout)
}
