package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeToTheHorizon: serve runs a short scenario to its end on a free
// loopback port, prints its endpoints, and writes the results like run.
func TestServeToTheHorizon(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "live.json")
	code, stdout, stderr := cli(t, "serve", filepath.Join("..", "..", "testdata", "good", "minimal.toml"), "--listen", "127.0.0.1:0",
		"--set", `duration="2s"`, "--speed", "4", "--json", out, "--no-html", "--log", filepath.Join(dir, "log.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "serving") || !strings.Contains(stdout, "/api/v1") || !strings.Contains(stdout, "wrote "+out) {
		t.Fatalf("stdout:\n%s", stdout)
	}
	// The banner says where, how fast, and that the scenario's own
	// workload sends nothing.
	for _, want := range []string{"on http://127.0.0.1:", "at 4x speed: the scenario's 2s lasts 500ms of wall time",
		"no background load: the scenario's workload (chat) is not run; only your clients' requests reach these endpoints"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the banner does not say %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Command  string `json:"command"`
		Variants []struct {
			Interrupted bool `json:"interrupted"`
			Workloads   []struct {
				Name string `json:"name"`
			} `json:"workloads"`
		} `json:"variants"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Variants) != 1 || doc.Variants[0].Interrupted || doc.Variants[0].Workloads[0].Name != "api" {
		t.Fatalf("results %s: %v", b[:min(len(b), 300)], err)
	}
}

func TestServeBadFlags(t *testing.T) {
	minimal := filepath.Join("..", "..", "testdata", "good", "minimal.toml")
	for _, args := range [][]string{
		{"serve", minimal, "--speed", "0"},
		{"serve", minimal, "--speed", "nan"},
		{"serve", minimal, "--listen", "nowhere:port"},
		{"serve", minimal, "--grace", "-1s"},
		{"serve", "a.toml", "b.toml"},
	} {
		if code, _, stderr := cli(t, args...); code != 2 || !strings.HasPrefix(stderr, "headroom: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}
