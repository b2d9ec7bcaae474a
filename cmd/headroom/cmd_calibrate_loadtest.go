package main

import (
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/headroom-sim/headroom/model/loadtest"
	"github.com/headroom-sim/headroom/model/perf"
	"github.com/headroom-sim/headroom/report"
)

// isLoadTestInput tells load-test results (JSON) from step CSVs: by
// --format, else by the first file's first bytes.
func isLoadTestInput(paths []string, format string) bool {
	switch format {
	case loadtest.ToolVLLM, loadtest.ToolGuideLLM, loadtest.ToolLLMPerf, loadtest.ToolGenAI:
		return true
	case "":
	default:
		return false
	}
	if len(paths) == 0 {
		return false
	}
	return loadtest.IsLoadTest(fileHead(paths[0]))
}

// calibrateLoadTest fits a hosted latency model, or the cluster step
// model, to load-test results.
func calibrateLoadTest(paths []string, o calibrateOptions, stdout io.Writer) error {
	target := o.target
	if target == "" {
		target = "hosted"
		if o.gpu != "" || o.servedModel != "" || o.kind != "" {
			target = "cluster"
		}
	}
	if target != "hosted" && target != "cluster" {
		return badInput("--target %q: must be hosted or cluster", o.target)
	}
	if target == "hosted" && (o.gpu != "" || o.servedModel != "" || o.kind != "" || o.tp != 0) {
		return badInput("--gpu, --served-model, --kind and --tp describe a self-hosted engine; use --target cluster, or leave them out to fit a hosted API")
	}
	if o.model != "" || o.hardware != "" {
		return badInput("--model and --hardware select rows of a Splitwise file, not load-test results")
	}
	format := o.format
	levels, err := loadtest.ReadFiles(paths, format)
	if err != nil {
		var le *loadtest.Error
		if errors.As(err, &le) {
			return usageError{err}
		}
		return badInput("%v", err)
	}
	if err := report.WriteLoadTestLevels(stdout, levels); err != nil {
		return err
	}
	if target == "hosted" {
		fit, err := loadtest.FitHosted(levels)
		if err != nil {
			return badInput("%s: %v", strings.Join(paths, ", "), err)
		}
		return report.WriteHostedCalibration(stdout, fit)
	}
	ms, notes := loadtest.StepMeasurements(levels)
	if len(ms) == 0 {
		return badInput("%s: no step could be inferred: %s", strings.Join(paths, ", "), strings.Join(notes, "; "))
	}
	for _, n := range notes {
		io.WriteString(stdout, "  note: "+n+"\n")
	}
	var tools []string
	for _, l := range levels {
		if !slices.Contains(tools, l.Tool) {
			tools = append(tools, l.Tool)
		}
	}
	cal := &report.Calibration{Path: strings.Join(paths, ", "), Format: perf.Format(strings.Join(tools, " and ") + " load test"), Measurements: ms, TP: max(o.tp, 1)}
	if err := resolveHardware(cal, o); err != nil {
		return err
	}
	if err := fitModels(cal, o); err != nil {
		return err
	}
	io.WriteString(stdout, "\n")
	return report.Calibrate(stdout, cal)
}
