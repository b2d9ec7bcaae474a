package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunTraceScenario: a scenario replaying a trace beside it runs with
// replications on two workers; the terminal and the JSON say what was read.
func TestRunTraceScenario(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../workloads/testdata/mooncake_small.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "logs"), 0o755)
	os.WriteFile(filepath.Join(dir, "logs", "m.jsonl"), src, 0o644)
	scen := `name = "replay"
duration = "1m"
[[workload]]
name = "chat"
route = "api"
[workload.demand]
trace = { file = "logs/m.jsonl", scale = 2, loop = true }
[[provider]]
name = "api"
latency = { ttft = { base = "100ms" }, tpot = { base = "10ms" } }
cache = { ttl = "5m", min_tokens = 512 }
`
	p := filepath.Join(dir, "s.toml")
	os.WriteFile(p, []byte(scen), 0o644)
	out := filepath.Join(dir, "out.json")
	code, stdout, stderr := cli(t, "run", p, "--replications", "3", "--workers", "2", "--json", out, "--no-html")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "Traces replayed:") || !strings.Contains(stdout, "chat ← m.jsonl (mooncake)") {
		t.Errorf("stdout:\n%s", stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Variants []struct {
			Traces []struct {
				Requests int64 `json:"requests"`
				Copies   int   `json:"copies"`
				Passes   int   `json:"passes"`
				Format   string
			} `json:"traces"`
		} `json:"variants"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	tr := doc.Variants[0].Traces
	// 4 records over 2.25 s, period 2.25 + 2.25/3 = 3 s: 20 passes in a
	// minute, 2 copies, the second 1 s later, whose last record (at 60.25 s)
	// falls after the horizon.
	if len(tr) != 1 || tr[0].Copies != 2 || tr[0].Passes != 20 || tr[0].Requests != 159 || tr[0].Format != "mooncake" {
		t.Errorf("traces %+v", tr)
	}
}
