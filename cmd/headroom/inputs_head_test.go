package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileHead: the kind checks of merge (a plan part?) and calibrate (a
// load test?) read the first 512 bytes: all of a short file, 512 of a
// long one, nothing of a missing one; and they tell a part, a load test
// and a step CSV apart by them.
func TestFileHead(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	short := write("short.json", `{"schema": "headroom/plan-part/v1"}`)
	long := write("long.csv", strings.Repeat("x", 2000))
	if got := fileHead(short); string(got) != `{"schema": "headroom/plan-part/v1"}` {
		t.Errorf("short file: %q", got)
	}
	if got := fileHead(long); len(got) != 512 {
		t.Errorf("long file: %d bytes, want 512", len(got))
	}
	if got := fileHead(filepath.Join(dir, "missing")); got != nil {
		t.Errorf("missing file: %q", got)
	}
	steps := write("steps.csv", "batch_size,prefill_tokens,context_tokens,step_ms\n1,0,100,10\n")
	bench := write("bench.json", "\ufeff  [{\"a\": 1}]")
	if isLoadTestInput([]string{steps}, "") || !isLoadTestInput([]string{bench}, "") || isLoadTestInput([]string{filepath.Join(dir, "missing")}, "") {
		t.Error("isLoadTestInput does not tell a step CSV from a load test's JSON")
	}
	if isPlanPart(steps) || isPlanPart(bench) || !isPlanPart(short) {
		t.Error("isPlanPart takes a CSV or a load test for a plan part, or misses one")
	}
}
