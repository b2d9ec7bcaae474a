package workloads

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// ColumnGuess is what GuessTraceColumns read off a csv or jsonl trace's
// first record: its format, the columns it named from common names, and
// the time unit its first time value suggests.
type ColumnGuess struct {
	Format   string // FormatCSV or FormatJSONL
	Columns  TraceColumns
	TimeUnit string // TimeDatetime for a date and time, else "" (seconds)
	// Taken lists "key=column" for each column named, in the order
	// time, input, output, then the others.
	Taken []string
	// Example is the first time value, when it made TimeUnit datetime.
	Example string
}

// columnNames are the common header names of a request log's fields, in
// order of preference, compared without case, spaces, dashes or
// underscores. The short ones close each list (t, in, out; isl and osl,
// the input and output sequence lengths of benchmark logs): each names
// one field only, and a longer name in the same header wins over them.
// Not prompt or completion: in a JSONL log those are often the texts.
var columnNames = []struct {
	key   string
	names []string
}{
	{"time", []string{"timestamp", "time", "ts", "arrival_time", "arrived_at", "created_at", "created", "start_time", "request_time", "datetime", "date", "t"}},
	{"input", []string{"input_tokens", "prompt_tokens", "input_length", "input_len", "num_prompt_tokens", "prompt_len", "context_tokens", "tokens_in", "request_tokens", "input", "isl", "in"}},
	{"output", []string{"output_tokens", "completion_tokens", "output_length", "output_len", "num_completion_tokens", "completion_len", "generated_tokens", "tokens_out", "response_tokens", "output", "osl", "out"}},
	{"tenant", []string{"tenant", "team", "org", "organization", "customer", "project"}},
	{"model", []string{"model", "model_name"}},
	{"session", []string{"session", "session_id", "conversation_id", "conversation"}},
}

func normalName(s string) string {
	return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(strings.TrimSpace(s)))
}

// GuessTraceColumns reads the first record of a CSV (with a header) or
// JSONL request log and names its time, input and output columns (and a
// tenant, model or session column) from common names: timestamp,
// prompt_tokens, completion_tokens, input_tokens, output_tokens... A time
// whose first value is a date and time ("2025-03-01T09:00:00Z") gives
// TimeUnit datetime. It fails, listing the columns it saw, when time,
// input or output has no match.
func GuessTraceColumns(path string) (ColumnGuess, error) {
	rd, cl, err := openTraceFile(path)
	if err != nil {
		return ColumnGuess{}, err
	}
	defer cl.Close()
	br := bufio.NewReader(rd)
	var g ColumnGuess
	var names []string
	first := map[string]string{} // column → its first value
	if strings.HasPrefix(strings.TrimPrefix(peekLine(br), "\ufeff"), "{") {
		g.Format = FormatJSONL
		line, err := br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return g, &TraceError{File: path, Msg: err.Error()}
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "\ufeff")), &obj); err != nil {
			return g, &TraceError{File: path, Line: 1, Msg: "not a JSON object: " + strings.TrimPrefix(err.Error(), "json: ")}
		}
		for k, v := range obj {
			names = append(names, k)
			first[k] = fmt.Sprint(v)
			if s, ok := v.(string); ok {
				first[k] = s
			}
		}
		slices.Sort(names)
	} else {
		g.Format = FormatCSV
		r := csv.NewReader(br)
		r.FieldsPerRecord = -1
		head, err := r.Read()
		if err != nil {
			return g, &TraceError{File: path, Line: 1, Msg: "cannot read a CSV header: " + err.Error()}
		}
		for i := range head {
			head[i] = strings.TrimSpace(strings.TrimPrefix(head[i], "\ufeff"))
		}
		names = head
		if rec, err := r.Read(); err == nil {
			for i, v := range rec {
				if i < len(head) {
					first[head[i]] = strings.TrimSpace(v)
				}
			}
		}
	}
	byNorm := map[string]string{}
	for _, n := range names {
		if _, ok := byNorm[normalName(n)]; !ok {
			byNorm[normalName(n)] = n
		}
	}
	set := map[string]*string{"time": &g.Columns.Time, "input": &g.Columns.Input, "output": &g.Columns.Output,
		"tenant": &g.Columns.Tenant, "model": &g.Columns.Model, "session": &g.Columns.Session}
	taken := map[string]bool{}
	for _, c := range columnNames {
		for _, n := range c.names {
			if col, ok := byNorm[normalName(n)]; ok && !taken[col] {
				*set[c.key] = col
				taken[col] = true
				g.Taken = append(g.Taken, c.key+"="+col)
				break
			}
		}
	}
	var missing []string
	for _, k := range []string{"time", "input", "output"} {
		if *set[k] == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return g, fmt.Errorf("no column looks like the request's %s (columns: %s)", strings.Join(missing, ", "), strings.Join(names, ", "))
	}
	if v := first[g.Columns.Time]; v != "" {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			if _, err := parseDatetime(v); err == nil {
				g.TimeUnit, g.Example = TimeDatetime, v
			}
		}
	}
	return g, nil
}

// peekLine returns the first line buffered, without consuming it.
func peekLine(br *bufio.Reader) string {
	b, _ := br.Peek(br.Size())
	if i := strings.IndexByte(string(b), '\n'); i >= 0 {
		b = b[:i]
	}
	return strings.TrimSpace(string(b))
}
