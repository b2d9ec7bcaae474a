package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRunTraceScenario: a scenario replaying a trace beside it runs with
// replications on two workers; the terminal and the JSON say what was read.
func TestRunTraceScenario(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../workloads/testdata/made_up_mooncake.jsonl")
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

// TestRunTraceLongerThanHorizon: a trace that goes on past the horizon is
// still counted whole (it once read "0 rows read, 0 kept"), and the rows
// the run did not reach are named in the terminal and the JSON.
func TestRunTraceLongerThanHorizon(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("t,in,out\n")
	for i := 0; i < 120; i++ {
		b.WriteString(strconv.Itoa(i) + ",200,20\n") // one a second for 2 minutes
	}
	os.WriteFile(filepath.Join(dir, "log.csv"), []byte(b.String()), 0o644)
	scen := `name = "replay"
duration = "1m"
[[workload]]
name = "chat"
route = "api"
[workload.demand]
trace = { file = "log.csv", format = "csv", columns = { time = "t", input = "in", output = "out" } }
[[provider]]
name = "api"
latency = { ttft = { base = "100ms" }, tpot = { base = "10ms" } }
price = { input = 1, output = 5 }
`
	p := filepath.Join(dir, "s.toml")
	os.WriteFile(p, []byte(scen), 0o644)
	out := filepath.Join(dir, "out.json")
	code, stdout, stderr := cli(t, "run", p, "--json", out, "--no-html")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"120 rows read, 120 kept, spanning 1m59s of trace time", "60 requests issued", "note: 60 rows beyond the horizon not replayed"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Variants []struct {
			Traces []struct {
				RowsRead      int64 `json:"rows_read"`
				RowsKept      int64 `json:"rows_kept"`
				BeyondHorizon int64 `json:"beyond_horizon"`
				Requests      int64 `json:"requests"`
			} `json:"traces"`
		} `json:"variants"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if tr := doc.Variants[0].Traces; len(tr) != 1 || tr[0].RowsRead != 120 || tr[0].RowsKept != 120 || tr[0].BeyondHorizon != 60 || tr[0].Requests != 60 {
		t.Errorf("traces %+v", tr)
	}
}
