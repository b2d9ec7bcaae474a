package workloads

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuessTraceColumns: common names are matched without case or
// underscores, the first of a list wins, a date and time makes the unit
// datetime and a number leaves it seconds, and a log without an output
// column is refused naming the columns it has.
func TestGuessTraceColumns(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	g, err := GuessTraceColumns(write("a.jsonl", `{"created_at": 1700000000.5, "input_tokens": 10, "outputTokens": 2, "model": "m", "prompt_tokens": 9}`+"\n"))
	if err != nil || g.Format != FormatJSONL || g.Columns != (TraceColumns{Time: "created_at", Input: "input_tokens", Output: "outputTokens", Model: "model"}) || g.TimeUnit != "" {
		t.Errorf("jsonl: %+v, %v", g, err)
	}
	g, err = GuessTraceColumns(write("b.csv", "request_time,num_prompt_tokens,generated_tokens\n2025-01-02 03:04:05.5,1,2\n"))
	if err != nil || g.Format != FormatCSV || g.Columns.Time != "request_time" || g.Columns.Input != "num_prompt_tokens" || g.Columns.Output != "generated_tokens" || g.TimeUnit != TimeDatetime {
		t.Errorf("csv: %+v, %v", g, err)
	}
	if _, err := GuessTraceColumns(write("c.csv", "timestamp,prompt_tokens,latency\n1,2,3\n")); err == nil || !strings.Contains(err.Error(), "output (columns: timestamp, prompt_tokens, latency)") {
		t.Errorf("no output column: %v", err)
	}
}
