package workloads

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// TraceRecord is one request of a replayed trace.
type TraceRecord struct {
	Time   float64 // seconds after the trace's first request
	Input  int     // prompt tokens
	Output int     // generated tokens
}

// ReadAzureTrace reads the Azure LLM inference trace CSV format (Patel et
// al., "Splitwise", ISCA 2024): a header "TIMESTAMP,ContextTokens,
// GeneratedTokens" and one request per row with a timestamp like
// "2023-11-16 18:17:03.9799600" (a trailing zone such as "+00:00" is
// accepted) and two non-negative token counts. Times are returned in
// seconds relative to the first row; rows must be in time order. Errors
// name the line number. A header with no rows gives an empty slice.
func ReadAzureTrace(r io.Reader) ([]TraceRecord, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 3
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("azure trace: empty input, expected header TIMESTAMP,ContextTokens,GeneratedTokens")
	}
	if err != nil {
		return nil, fmt.Errorf("azure trace: %w", err)
	}
	header := [3]string{"TIMESTAMP", "ContextTokens", "GeneratedTokens"}
	for i, want := range header {
		got := strings.TrimSpace(head[i])
		if i == 0 {
			got = strings.TrimPrefix(got, "\ufeff") // byte-order mark
		}
		if got != want {
			return nil, fmt.Errorf("azure trace: line 1: header column %d is %q, want %q (header TIMESTAMP,ContextTokens,GeneratedTokens)", i+1, got, want)
		}
	}
	var (
		out        []TraceRecord
		first      time.Time
		prev       float64
		prevLineNo int
	)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("azure trace: %w", err) // csv.ParseError names the line
		}
		line, _ := cr.FieldPos(0)
		ts, err := parseAzureTime(strings.TrimSpace(rec[0]))
		if err != nil {
			return nil, fmt.Errorf("azure trace: line %d: %w", line, err)
		}
		in, err := parseTokenCount(rec[1])
		if err != nil {
			return nil, fmt.Errorf("azure trace: line %d: ContextTokens: %w", line, err)
		}
		gen, err := parseTokenCount(rec[2])
		if err != nil {
			return nil, fmt.Errorf("azure trace: line %d: GeneratedTokens: %w", line, err)
		}
		if len(out) == 0 {
			first = ts
		}
		t := ts.Sub(first).Seconds()
		if t < prev {
			return nil, fmt.Errorf("azure trace: line %d: timestamp %s is earlier than line %d's; rows must be in time order", line, rec[0], prevLineNo)
		}
		prev, prevLineNo = t, line
		out = append(out, TraceRecord{Time: t, Input: in, Output: gen})
	}
}

// parseAzureTime parses one trace timestamp: the published traces'
// "2023-11-16 18:17:03.9799600", optionally with a zone such as "+00:00" or
// "Z". A timestamp without a zone is read as UTC.
func parseAzureTime(s string) (time.Time, error) {
	layouts := [2]string{
		"2006-01-02 15:04:05.999999999",
		"2006-01-02 15:04:05.999999999Z07:00",
	}
	for _, layout := range layouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("timestamp %q: want the form \"2023-11-16 18:17:03.9799600\", optionally followed by a zone like \"+00:00\"", s)
}

// parseTokenCount parses a non-negative token count.
func parseTokenCount(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	if n < 0 || n > maxTokens {
		return 0, fmt.Errorf("%d is out of range 0..%d", n, maxTokens)
	}
	return n, nil
}
