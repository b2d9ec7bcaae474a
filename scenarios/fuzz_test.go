package scenarios_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/scenarios"
)

// FuzzLoad feeds arbitrary bytes to Load. It must never panic; every
// problem must be a located scenario error (which the CLI turns into exit
// status 2); a scenario that loads must build all its configurations.
//
//	go test -run XXX -fuzz FuzzLoad -fuzztime 30s ./scenarios/
func FuzzLoad(f *testing.F) {
	for _, e := range scenarios.Examples() {
		f.Add(e.Source)
	}
	for _, dir := range []string{"bad", "good"} {
		files, err := filepath.Glob(filepath.Join("..", "testdata", dir, "*.toml"))
		if err != nil {
			f.Fatal(err)
		}
		for _, name := range files {
			src, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		sc, err := scenarios.LoadBytes(src, "fuzz.toml")
		if err != nil {
			checkScenarioError(t, err)
			return
		}
		cfgs, err := sc.Configs(nil)
		if err != nil {
			t.Fatalf("Load accepted the scenario but Configs failed: %v", err)
		}
		if len(cfgs) != 1+len(sc.Variants) {
			t.Fatalf("%d configs for %d variants", len(cfgs), len(sc.Variants))
		}
		for _, c := range cfgs {
			if err := c.Validate(); err != nil {
				t.Fatalf("config %q %q does not validate: %v", c.Name, c.Variant, err)
			}
		}
	})
}

func checkScenarioError(t *testing.T, err error) {
	t.Helper()
	var se *scenarios.Error
	if !errors.As(err, &se) {
		t.Fatalf("error %T is not a *scenarios.Error: %v", err, err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "fuzz.toml") {
		t.Fatalf("error does not name the file: %s", msg)
	}
	if strings.Contains(msg, "internal error") {
		t.Fatalf("internal error: %s", msg)
	}
}

// FuzzOverride feeds arbitrary --set overrides to an example: it must never
// panic, and every problem must be located at the override.
//
//	go test -run XXX -fuzz FuzzOverride -fuzztime 30s ./scenarios/
func FuzzOverride(f *testing.F) {
	for _, s := range []string{
		"provider.sonnet.limits.rpm=8000", `workload.chat.client.retry={ preset = "openai-python" }`,
		"workload[0].tokens.input.median=5", "provider.0.outage[0].status=503", "workload.chat.demand={rate=5}",
		"provider.sonnet.limits.rpm.x=1", `'a'."b".c[0]=x`, "duration=0s", "seed=-1", "workload.chat.tokens.input=nan",
	} {
		f.Add(s)
	}
	sc, err := scenarios.LoadExample(scenarios.DefaultExample)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		path, value, err := scenarios.ParseSet(in)
		if err != nil {
			return
		}
		cfgs, err := sc.Configs([]scenarios.Override{{Path: path, Value: value}})
		if err != nil {
			var se *scenarios.Error
			if !errors.As(err, &se) || strings.Contains(err.Error(), "internal error") {
				t.Fatalf("%q: %T %v", in, err, err)
			}
			return
		}
		for _, c := range cfgs {
			if err := c.Validate(); err != nil {
				t.Fatalf("%q: accepted, but %q does not validate: %v", in, c.Variant, err)
			}
		}
	})
}
