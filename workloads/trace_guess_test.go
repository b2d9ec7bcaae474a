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
	// The shortest headers: t, in, out; ISL and OSL; a longer name wins
	// over a short one in the same header.
	for _, tc := range []struct {
		head string
		want TraceColumns
	}{
		{"t,in,out", TraceColumns{Time: "t", Input: "in", Output: "out"}},
		{"T, In ,OUT", TraceColumns{Time: "T", Input: "In", Output: "OUT"}},
		{"ts,ISL,OSL", TraceColumns{Time: "ts", Input: "ISL", Output: "OSL"}},
		{"t,time,in,prompt_tokens,out,output_tokens", TraceColumns{Time: "time", Input: "prompt_tokens", Output: "output_tokens"}},
	} {
		g, err := GuessTraceColumns(write("short.csv", tc.head+"\n1,2,3,4,5,6\n"))
		if err != nil || g.Columns != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.head, g.Columns, err, tc.want)
		}
	}
	// Still nothing for a single letter that is not t, nor for the texts.
	if _, err := GuessTraceColumns(write("d.jsonl", `{"t": 1, "prompt": "hi", "completion": "hello", "i": 2, "o": 3}`+"\n")); err == nil || !strings.Contains(err.Error(), "input, output") {
		t.Errorf("prompt and completion texts taken for token counts: %v", err)
	}
}
