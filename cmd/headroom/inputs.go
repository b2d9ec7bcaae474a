package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/scenarios"
	"github.com/headroom-sim/headroom/scenarios/schema"
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
	if looksLikePath(arg) {
		if e, ok := strings.CutSuffix(arg, ".toml"); ok && !strings.ContainsAny(e, `/\`) {
			if _, lerr := scenarios.LookupExample(e); lerr == nil {
				return nil, badInput("%s: no such file (the embedded example is named %q, without .toml)", arg, e)
			}
		}
		return nil, badInput("%s: no such file", arg)
	}
	if _, lerr := scenarios.LookupExample(arg); lerr != nil {
		return nil, badInput("%s: no such file, and %v", arg, noExample(arg))
	}
	return scenarios.LoadExample(arg)
}

// looksLikePath reports whether arg can only be a file's path, never an
// example's name: it has a directory separator or a .toml suffix.
func looksLikePath(arg string) bool {
	return strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".toml")
}

// noExample is the error for an example name that is not embedded, with
// a did-you-mean when one is close and the names there are.
func noExample(name string) error {
	var names []string
	for _, e := range scenarios.Examples() {
		names = append(names, e.Name)
	}
	if dym := schema.DidYouMean(name, names); dym != "" {
		return fmt.Errorf("no example named %q%s (have: %s)", name, dym, strings.Join(names, ", "))
	}
	return fmt.Errorf("no example named %q; have: %s", name, strings.Join(names, ", "))
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

// strictFlag registers --strict.
func strictFlag(fs *pflag.FlagSet, p *bool) {
	fs.BoolVar(p, "strict", false, "treat warnings (defaults that change the answer, such as a provider without prices) as errors")
}

// scenarioWarnings returns the scenario's warnings (defaults that change
// the answer) for the report, each printed once on stderr, always: with
// -q, with stdout sent elsewhere or with --json in CI a warning must
// still reach the person or the log that watches stderr (the terminal
// summary lists them again, beside the numbers they qualify). With
// strict they are bad input instead. prefix goes before each key
// (compare names the file). params are a sweep's, whose values are
// checked as --set's.
func scenarioWarnings(sc *scenarios.Scenario, overrides []scenarios.Override, strict bool, prefix string, stderr io.Writer, params ...scenarios.Param) ([]report.Warning, error) {
	ws, err := sc.Warnings(overrides, params...)
	if err != nil {
		return nil, err
	}
	out := make([]report.Warning, len(ws))
	for i, w := range ws {
		out[i] = report.Warning{Key: prefix + w.Key, Message: w.Message}
		fmt.Fprintf(stderr, "headroom: warning: %s\n", w)
	}
	if strict && len(ws) > 0 {
		return nil, &scenarios.Error{File: sc.File(), Msg: fmt.Sprintf("--strict: the %d warning(s) above are errors: give the keys they name", len(ws))}
	}
	return out, nil
}

// fileHead is the first 512 bytes of the file at name (fewer if it is
// shorter), enough to tell its kind; nil when it cannot be read.
func fileHead(name string) []byte {
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	return head[:n]
}
