package workloads

import (
	"errors"
	"io"
)

// Trace replay. A workload's demand can be a request log rather than a rate
// (TraceSpec): each record becomes a request at its own time with its own
// prompt and output tokens. The pieces, in the order a record passes them:
//
//   - a row source per format parses the file line by line (trace_csv.go,
//     trace_jsonl.go, trace_servegen.go), gzipped or not;
//   - TraceReader sorts rows within the sort window, makes times relative to
//     the earliest record, and applies the filter and the window;
//   - Replay applies speed, scale (thinning or shifted copies, each copy a
//     stream of its own over the file) and loop, and turns block hashes,
//     session ids and prefix ids into prefix keys (ReplayRecord.Keys).
//
// Nothing holds more than the rows in the sort window, one record per copy
// and a bounded table of sessions, so a trace of any length replays in
// constant memory.

// ReadTrace reads every record spec selects (filter and window; no speed,
// scale or loop), for small traces and tests.
func ReadTrace(spec *TraceSpec) ([]TraceRow, error) {
	rd, err := OpenTrace(spec)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var out []TraceRow
	for {
		var row TraceRow
		err := rd.Next(&row)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(row.Blocks) == 0 {
			row.Blocks = nil
		}
		row.abs, row.keep = 0, false
		out = append(out, row)
	}
}
