package main

import (
	"errors"
	"os"

	"github.com/headroom-sim/headroom/scenarios"
	"github.com/headroom-sim/headroom/workloads"
)

// errHelp is returned when --help was asked for and printed.
var errHelp = errors.New("help shown")

func isBadInput(err error) bool {
	var u usageError
	var se *scenarios.Error
	var ses scenarios.Errors
	var te *workloads.TraceError
	return errors.As(err, &u) || errors.As(err, &se) || errors.As(err, &ses) || errors.As(err, &te)
}

// loadScenario reads FILE, or the embedded example of that name when no
// such file exists, or the default example when arg is empty.
func loadScenario(arg string) (*scenarios.Scenario, error) {
	if arg == "" {
		arg = scenarios.DefaultExample
	}
	f, err := os.Open(arg)
	if err == nil {
		defer f.Close()
		return loadOpened(f, arg)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, usageError{err}
	}
	if _, lerr := scenarios.LookupExample(arg); lerr != nil {
		return nil, badInput("%s: no such file, and %v", arg, lerr)
	}
	return scenarios.LoadExample(arg)
}

// loadOpened loads the scenario file f opened from path. A file that cannot
// be read (a directory, say) is bad input, like a problem inside it.
func loadOpened(f *os.File, path string) (*scenarios.Scenario, error) {
	sc, err := scenarios.Load(f, path)
	if err != nil && !isBadInput(err) {
		return nil, usageError{err}
	}
	return sc, err
}
