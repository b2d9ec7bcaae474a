package loadtest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxFile bounds a result file read whole (per-request rows with the
// generated texts can be large).
const maxFile = 1 << 30

// ReadFiles reads load-test result files; tool names their tool ("" to
// tell it from each file's content, see Detect). An LLMPerf run's two
// files, given both, give one level. Levels come in the natural order of
// the paths (rate1, rate4, rate16), whatever order a shell glob gave.
func ReadFiles(paths []string, tool string) ([]Level, error) {
	paths = slices.Clone(paths)
	slices.SortStableFunc(paths, NaturalCompare)
	switch tool {
	case "", ToolVLLM, ToolGuideLLM, ToolLLMPerf, ToolGenAI:
	default:
		return nil, fmt.Errorf("load-test format %q: allowed: %s", tool, Formats)
	}
	var out []Level
	seen := map[string]bool{}
	given := map[string]bool{}
	for _, p := range paths {
		given[filepath.Clean(p)] = true
	}
	for _, p := range paths {
		// genai-perf's summary beside its raw export is read with it.
		if filepath.Base(p) == genaiSummaryName && given[filepath.Join(filepath.Dir(p), "profile_export.json")] {
			continue
		}
		if base := llmperfBase(p); base != "" {
			if seen[base] {
				continue
			}
			seen[base] = true
		}
		ls, err := Read(p, tool)
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
	}
	return out, nil
}

// Read reads one result file.
func Read(path, tool string) ([]Level, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Msg: strings.TrimPrefix(err.Error(), "open "+path+": ")}
	}
	defer f.Close()
	b, err := readAllLimited(f, maxFile)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	ls, err := parse(path, b, tool)
	if err == nil {
		pairGenAIPerf(path, ls)
	}
	return ls, err
}

// parse reads a result file's bytes.
func parse(path string, b []byte, tool string) ([]Level, error) {
	d := &doc{file: path, data: sanitize(bytes.TrimPrefix(b, []byte("\ufeff")))}
	kind, err := detect(d)
	if err != nil {
		return nil, err
	}
	if tool != "" && toolOf(kind) != tool {
		return nil, &Error{File: path, Msg: fmt.Sprintf("--format %s, but the file looks like %s output (%s)", tool, toolOf(kind), kindWords[kind])}
	}
	switch kind {
	case kindAIPerfRecords:
		return readAIPerfRecords(d)
	case kindLLMPerfRows:
		var rows []json.RawMessage
		if err := json.Unmarshal(d.data, &rows); err != nil {
			return nil, d.syntaxErr(err, "LLMPerf's individual responses, a list of objects")
		}
		return readLLMPerfRun(d, nil, rows)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(d.data, &m); err != nil {
		return nil, d.syntaxErr(err, "a JSON object")
	}
	switch kind {
	case kindVLLM:
		return readVLLM(d, m)
	case kindGuideLLM:
		return readGuideLLM(d, m)
	case kindLLMPerfSummary:
		return readLLMPerfRun(d, m, nil)
	case kindPerfAnalyzer:
		return readPerfAnalyzerExport(d, m)
	default:
		return readGenAIPerf(d, m)
	}
}

// File kinds.
const (
	kindVLLM = iota
	kindGuideLLM
	kindLLMPerfSummary
	kindLLMPerfRows
	kindGenAIPerf
	kindAIPerfRecords
	kindPerfAnalyzer
)

var kindWords = map[int]string{
	kindVLLM:           "vllm bench serve --save-result",
	kindGuideLLM:       "a GuideLLM benchmark report",
	kindLLMPerfSummary: "an LLMPerf summary",
	kindLLMPerfRows:    "LLMPerf individual responses",
	kindGenAIPerf:      "a genai-perf profile export",
	kindAIPerfRecords:  "AIPerf per-request records",
	kindPerfAnalyzer:   "genai-perf's raw profile_export.json (perf_analyzer's per-request timestamps)",
}

func toolOf(kind int) string {
	switch kind {
	case kindVLLM:
		return ToolVLLM
	case kindGuideLLM:
		return ToolGuideLLM
	case kindLLMPerfSummary, kindLLMPerfRows:
		return ToolLLMPerf
	}
	return ToolGenAI
}

// IsLoadTest reports whether data looks like a load tester's JSON output
// (an object, a list or JSON lines), as opposed to a CSV of measured steps.
func IsLoadTest(data []byte) bool {
	t := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\ufeff")))
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// detect tells what a file is from its keys.
func detect(d *doc) (int, error) {
	t := bytes.TrimSpace(d.data)
	if len(t) == 0 {
		return 0, &Error{File: d.file, Msg: "empty file; expected a load tester's JSON result (" + Formats + ")"}
	}
	if t[0] == '[' {
		var rows []map[string]json.RawMessage
		if err := json.Unmarshal(t, &rows); err != nil {
			return 0, d.syntaxErr(err, "LLMPerf's individual responses, a list of objects")
		}
		if len(rows) == 0 || rows[0]["ttft_s"] == nil {
			return 0, &Error{File: d.file, Msg: "a JSON list whose entries have no ttft_s: expected LLMPerf's individual responses"}
		}
		return kindLLMPerfRows, nil
	}
	var m map[string]json.RawMessage
	err := json.Unmarshal(t, &m)
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) && bytes.Contains(t, []byte("\n{")) && bytes.Contains(t, []byte(`"metrics"`)) {
			return kindAIPerfRecords, nil
		}
		return 0, d.syntaxErr(err, "a load tester's JSON result ("+Formats+")")
	}
	has := func(k string) bool { _, ok := m[k]; return ok }
	switch {
	case has("benchmarks"):
		return kindGuideLLM, nil
	case has("mean_ttft_ms") || has("ttfts") || has("median_ttft_ms"):
		return kindVLLM, nil
	case has("results_ttft_s_mean") || has("results_end_to_end_latency_s_mean"):
		return kindLLMPerfSummary, nil
	case has("time_to_first_token") || has("request_latency") && has("request_throughput"):
		return kindGenAIPerf, nil
	case has("metrics") && has("metadata"):
		return kindAIPerfRecords, nil
	case has("experiments"):
		return kindPerfAnalyzer, nil
	}
	keys := slices.Sorted(maps.Keys(m))
	if len(keys) > 8 {
		keys = keys[:8]
	}
	return 0, &Error{File: d.file, Msg: fmt.Sprintf("cannot tell which load tester wrote it (keys %s…); expected vllm bench serve --save-result JSON, a GuideLLM report, LLMPerf's summary or individual responses, or a genai-perf profile export (its summary or the raw profile_export.json)", strings.Join(keys, ", "))}
}

// NaturalCompare orders strings as people number files: runs of digits
// compare by value, so "rate4" comes before "rate16".
func NaturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
