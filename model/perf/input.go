package perf

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Format is a measurement file's layout.
type Format string

// The measurement formats calibration reads.
const (
	// FormatSplitwise is Splitwise's perf_model.csv (ReadSplitwise).
	FormatSplitwise Format = "splitwise"
	// FormatSteps is the documented step CSV (ReadStepCSV).
	FormatSteps Format = "steps"
	// FormatVidur is a vidur operator profile, mlp.csv (ReadVidurMLP).
	FormatVidur Format = "vidur"
)

// Formats lists the formats DetectFormat knows.
var Formats = []Format{FormatSplitwise, FormatSteps, FormatVidur}

// DetectFormat tells a measurement file's format from its first
// non-comment line, the CSV header.
func DetectFormat(data []byte) (Format, error) {
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(line, "\ufeff"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := map[string]bool{}
		var names []string
		for _, c := range strings.Split(line, ",") {
			c = strings.ToLower(strings.Trim(strings.TrimSpace(c), `"`))
			cols[c] = true
			names = append(names, c)
		}
		switch {
		case cols["num_tensor_parallel_workers"] || cols["time_stats.mlp_up_proj.median"]:
			return FormatVidur, nil
		case cols["prompt_time"] || cols["token_time"] || cols["hardware"]:
			return FormatSplitwise, nil
		case cols["step_ms"]:
			return FormatSteps, nil
		}
		if len(names) > 8 {
			names = append(names[:8], "…")
		}
		return "", fmt.Errorf("perf: cannot tell the format from the header (columns: %s); expected Splitwise's perf_model.csv "+
			"(model, hardware, prompt_size, batch_size, token_size, prompt_time, token_time, tensor_parallel), "+
			"a step CSV (batch_size, prefill_tokens, context_tokens, step_ms) or a vidur mlp.csv (time_stats.<op>.median, num_tokens, num_tensor_parallel_workers)",
			strings.Join(names, ", "))
	}
	return "", errors.New("perf: empty file: expected a CSV header line")
}

// SplitwiseConfig is one model/hardware/TP configuration of a Splitwise file.
type SplitwiseConfig struct {
	Model, Hardware string
	TP, Rows        int
}

// String is "model/hardware/tpN", as ReadSplitwise's labels spell it.
func (c SplitwiseConfig) String() string { return fmt.Sprintf("%s/%s/tp%d", c.Model, c.Hardware, c.TP) }

// SplitwiseConfigs lists the configurations of a Splitwise file in file
// order. Malformed rows are skipped: ReadSplitwise reports them.
func SplitwiseConfigs(data []byte) []SplitwiseConfig {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comment = '#'
	r.TrimLeadingSpace = true
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return nil
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	mi, ok1 := col["model"]
	hi, ok2 := col["hardware"]
	ti, ok3 := col["tensor_parallel"]
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	var out []SplitwiseConfig
	index := map[SplitwiseConfig]int{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return out
		}
		if len(rec) <= max(mi, hi, ti) {
			continue
		}
		tp, err := strconv.Atoi(strings.TrimSpace(rec[ti]))
		if err != nil {
			continue
		}
		k := SplitwiseConfig{Model: strings.TrimSpace(rec[mi]), Hardware: strings.TrimSpace(rec[hi]), TP: tp}
		if i, ok := index[k]; ok {
			out[i].Rows++
			continue
		}
		index[k] = len(out)
		k.Rows = 1
		out = append(out, k)
	}
	return out
}

// SelectSplitwise picks the one configuration matching the filters
// (case-insensitive; empty or 0 = any). ok is false when the file lists no
// configuration at all (ReadSplitwise then says why). The error lists
// what the file has, or the configurations that match when several do.
func SelectSplitwise(cs []SplitwiseConfig, model, hardware string, tp int) (c SplitwiseConfig, ok bool, err error) {
	var match []SplitwiseConfig
	for _, c := range cs {
		if (model == "" || strings.EqualFold(model, c.Model)) && (hardware == "" || strings.EqualFold(hardware, c.Hardware)) && (tp == 0 || tp == c.TP) {
			match = append(match, c)
		}
	}
	filter := filterText(model, hardware, tp)
	switch {
	case len(cs) == 0:
		return SplitwiseConfig{Model: model, Hardware: hardware, TP: tp}, false, nil
	case len(match) == 0:
		return c, false, fmt.Errorf("perf: splitwise: no rows match %s; the file has models %s, hardware %s, tp %s (configurations: %s)",
			filter, distinct(cs, func(c SplitwiseConfig) string { return c.Model }),
			distinct(cs, func(c SplitwiseConfig) string { return c.Hardware }),
			distinct(cs, func(c SplitwiseConfig) string { return strconv.Itoa(c.TP) }), configList(cs))
	case len(match) > 1:
		return c, false, fmt.Errorf("perf: splitwise: %d configurations match %s; choose one with --model, --hardware and --tp: %s",
			len(match), filter, configList(match))
	}
	return match[0], true, nil
}

func filterText(model, hardware string, tp int) string {
	var f []string
	if model != "" {
		f = append(f, "--model "+model)
	}
	if hardware != "" {
		f = append(f, "--hardware "+hardware)
	}
	if tp != 0 {
		f = append(f, fmt.Sprintf("--tp %d", tp))
	}
	if len(f) == 0 {
		return "(no filters)"
	}
	return strings.Join(f, " ")
}

func distinct(cs []SplitwiseConfig, key func(SplitwiseConfig) string) string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cs {
		if k := key(c); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return strings.Join(out, ", ")
}

func configList(cs []SplitwiseConfig) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.String()
	}
	return strings.Join(s, ", ")
}
