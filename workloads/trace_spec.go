package workloads

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"

	"github.com/headroom-sim/headroom/scenarios/schema"
	"slices"
	"strings"
)

// Trace formats accepted in TraceSpec.Format.
const (
	FormatAzure    = "azure"    // Azure LLM inference traces, 2023 and 2024 (TIMESTAMP,ContextTokens,GeneratedTokens)
	FormatMooncake = "mooncake" // Mooncake JSONL (timestamp ms, input_length, output_length, hash_ids)
	FormatBurstGPT = "burstgpt" // BurstGPT CSV (Timestamp, Model, Request tokens, Response tokens, ..., Log Type)
	FormatServeGen = "servegen" // ServeGen per-window statistics (chunk-N-trace.csv with its chunk-N-dataset.json)
	FormatCSV      = "csv"      // any CSV with a header, columns named by TraceSpec.Columns
	FormatJSONL    = "jsonl"    // one JSON object per line, fields named by TraceSpec.Columns
)

// traceFormats lists the formats for error messages.
const traceFormats = "azure, mooncake, burstgpt, servegen, csv, jsonl"

// Time units accepted in TraceSpec.TimeUnit.
const (
	TimeSeconds  = "s"
	TimeMillis   = "ms"
	TimeMicros   = "us"
	TimeNanos    = "ns"
	TimeDatetime = "datetime"
)

// Ways of scaling accepted in TraceSpec.ScaleBy.
const (
	ScaleThin   = "thin"
	ScaleCopies = "copies"
)

// Limits of trace replay, far beyond real use, so that a typo cannot make a
// replay run forever or hold unbounded memory (the keys' ranges are in their
// tags).
const (
	maxTraceLine      = 64 << 20    // longest line a reader accepts, bytes
	maxTraceBlocks    = 1 << 20     // hash blocks in one record
	maxSessions       = 1 << 20     // sessions remembered at once (the least recently seen are forgotten)
	defaultSynthBlock = 64          // tokens per block of prefixes made from session or prefix ids
	mooncakeBlock     = 512         // tokens per Mooncake hash block
	maxTraceHorizonS  = 1e9 * 86400 // times beyond this (in seconds) are refused
)

// TraceSpec replays a request log as a workload's demand: every record is a
// request at its own time with its own input and output tokens, in the
// record's order. In TOML it is the table trace = { file = "...", format =
// "..." } of [workload.demand], with optional transforms.
//
// Trace time is measured from the earliest record (after sorting, see
// SortWindow); trace time From is simulated t = 0. Transforms apply in this
// order: the record filter (Where), the window [From, To), Speed, Scale,
// Loop.
type TraceSpec struct {
	// File is the trace's path, relative to the scenario file unless
	// absolute. Gzipped files (by their first bytes) are read directly.
	File string `toml:"file" doc:"the trace, relative to the scenario file; gzipped files are read directly"`
	// Format is one of FormatAzure, FormatMooncake, FormatBurstGPT,
	// FormatServeGen, FormatCSV, FormatJSONL; empty means detect it from
	// the file's first line.
	Format string `toml:"format" enum:"azure|mooncake|burstgpt|servegen|csv|jsonl" noun:"format" default:"detected from the first line" doc:"the trace's format"`
	// Columns names the fields of a csv or jsonl trace.
	Columns TraceColumns `toml:"columns" doc:"csv and jsonl: the names of the fields"`
	// TimeUnit is the unit of a numeric time column ("s", "ms", "us",
	// "ns") or "datetime" for timestamps like "2024-05-10 00:00:00.009930"
	// with an optional zone; csv and jsonl only (default "s").
	TimeUnit string `toml:"time_unit" enum:"s|ms|us|ns|datetime" noun:"time unit" default:"s" doc:"csv and jsonl: the unit of a numeric time column, or datetime"`
	// BlockSize is the number of prompt tokens per hash block: the block
	// hashes of Columns.Blocks (required with it), Mooncake's (512), or
	// the blocks Headroom makes for session and prefix ids (default 64).
	BlockSize int `toml:"block_size" unit:"tokens" range:"(0,1048576]" zero:"the format's default (Mooncake 512, else 64)" doc:"prompt tokens per block hash, or per block of the prefixes made from sessions and prefix ids"`
	// PrefixTokens is the length of the prefix that Columns.Prefix names,
	// when no Columns.PrefixTokens column gives it per record.
	PrefixTokens int `toml:"prefix_tokens" unit:"tokens" range:"(0,1073741824]" zero:"absent" doc:"the length of the prefix columns.prefix names, when no column gives it"`
	// Dataset is a ServeGen chunk's dataset JSON (token distributions);
	// default: the trace file's name with "-trace.csv" replaced by
	// "-dataset.json".
	Dataset string `toml:"dataset" doc:"servegen: the chunk's dataset JSON (default: beside the trace)"`

	// Where keeps only the records whose fields take one of the listed
	// values.
	Where TraceFilter `toml:"where" doc:"keep only records whose fields take one of the values listed"`
	// From and To cut the window [From, To) out of the trace (trace time,
	// relative to its earliest record); To = 0 means the trace's end.
	From Duration `toml:"from" range:"[0s,inf)" default:"0s" doc:"the window's start, in trace time from the earliest record"`
	To   Duration `toml:"to" range:"[0s,inf)" zero:"the trace's end" doc:"the window's end (exclusive), in trace time"`
	// Speed compresses time (2 replays the trace twice as fast, so at
	// twice the rate) or stretches it (0.5); default 1.
	Speed float64 `toml:"speed" range:"(0,1000000]" zero:"1, as recorded" doc:"time compression: 2 replays twice as fast"`
	// Scale multiplies the number of requests at the same shape: by
	// thinning (each record kept with probability Scale < 1) or by
	// superposing copies (Scale > 1: floor(Scale) copies, plus one more
	// thinned to the fraction), copy j delayed by j·CopyShift. Copies are
	// other users like these: their sessions and prefixes are their own.
	Scale     float64  `toml:"scale" range:"(0,100]" zero:"1, as recorded" doc:"more or fewer requests at the same shape"`
	ScaleBy   string   `toml:"scale_by" enum:"thin|copies" noun:"way to scale" default:"thin below 1, copies above" doc:"how scale is applied"`
	CopyShift Duration `toml:"copy_shift" range:"[0s,1d]" default:"1s" doc:"with copies: copy j is delayed by j × copy_shift"`
	// Loop replays the window again and again until the horizon, each
	// pass starting where the previous one ended (the window's length:
	// To − From, or the records' span plus one mean gap). Like copies,
	// each pass has sessions and prefixes of its own.
	Loop bool `toml:"loop" doc:"replay the window again until the horizon"`
	// SortWindow accepts records up to this much earlier than a record
	// before them and replays them in time order; a record later out of
	// order is an error. 0 (default) requires time order.
	SortWindow Duration `toml:"sort_window" range:"[0s,1d]" default:"0s" doc:"accept records this much out of time order, and sort them"`

	// Dir is the directory a relative File is read from (the scenario
	// file's); set by the scenario loader, not in TOML.
	Dir string `toml:"-"`
	// Cache keeps parsed ServeGen datasets across the validations, builds
	// and replays of one scenario (nil: parse every time); set by the
	// scenario loader, not in TOML.
	Cache *TraceCache `toml:"-"`
}

// TraceColumns names the fields of a csv or jsonl trace. Time, Input and
// Output are required; the rest are optional.
type TraceColumns struct {
	Time         string `toml:"time" doc:"arrival time, in time_unit"`
	Input        string `toml:"input" doc:"prompt tokens"`
	Output       string `toml:"output" doc:"generated tokens"`
	Tenant       string `toml:"tenant" doc:"the record's tenant, for where.tenant"`
	Model        string `toml:"model" doc:"the record's model, for where.model"`
	Workload     string `toml:"workload" doc:"the record's workload, for where.workload"`
	Session      string `toml:"session" doc:"session or conversation id: each turn's prefix is the previous turn's context"`
	Prefix       string `toml:"prefix" doc:"id of a shared prefix, prefix_tokens long"`
	PrefixTokens string `toml:"prefix_tokens" doc:"the prefix's length in tokens, per record"`
	Blocks       string `toml:"blocks" doc:"block hashes: a JSON array, or integers separated by spaces or semicolons"`
}

// TraceFilter keeps records whose field is one of the values listed; an
// empty list keeps every record. Values match exactly.
type TraceFilter struct {
	Model    []string `toml:"model" doc:"keep records of these models"`
	Tenant   []string `toml:"tenant" doc:"keep records of these tenants"`
	Workload []string `toml:"workload" doc:"keep records of these workloads"`
	LogType  []string `toml:"log_type" doc:"keep records of these BurstGPT log types (\"Conversation log\", \"API log\")"`
}

// IsZero reports whether no filter is set.
func (f TraceFilter) IsZero() bool {
	return len(f.Model) == 0 && len(f.Tenant) == 0 && len(f.Workload) == 0 && len(f.LogType) == 0
}

// Path is the trace file's path: File, joined to Dir when relative.
func (t *TraceSpec) Path() string {
	if t.File == "" || filepath.IsAbs(t.File) || t.Dir == "" {
		return t.File
	}
	return filepath.Join(t.Dir, t.File)
}

// DatasetPath is the ServeGen dataset's path (see Dataset).
func (t *TraceSpec) DatasetPath() string {
	d := t.Dataset
	if d == "" {
		p := t.Path()
		if !strings.HasSuffix(p, "-trace.csv") {
			return ""
		}
		return strings.TrimSuffix(p, "-trace.csv") + "-dataset.json"
	}
	if filepath.IsAbs(d) || t.Dir == "" {
		return d
	}
	return filepath.Join(t.Dir, d)
}

// speed is the effective Speed.
func (t *TraceSpec) speed() float64 {
	if t.Speed == 0 {
		return 1
	}
	return t.Speed
}

// scale is the effective Scale.
func (t *TraceSpec) scale() float64 {
	if t.Scale == 0 {
		return 1
	}
	return t.Scale
}

// scaleBy is the effective ScaleBy.
func (t *TraceSpec) scaleBy() string {
	if t.ScaleBy != "" {
		return t.ScaleBy
	}
	if t.scale() > 1 {
		return ScaleCopies
	}
	return ScaleThin
}

// copyShift is the effective CopyShift.
func (t *TraceSpec) copyShift() float64 {
	if t.CopyShift == 0 {
		return 1
	}
	return float64(t.CopyShift)
}

// generic reports whether the format takes a column mapping.
func generic(format string) bool { return format == FormatCSV || format == FormatJSONL }

// Validate checks the settings without reading the file; OpenTrace reads
// the file's header and reports missing columns. Errors are *FieldError
// values keyed relative to the trace table ("speed", "columns.time").
func (t *TraceSpec) Validate() error {
	if err := schema.Check(t); err != nil {
		return err
	}
	if t.File == "" {
		return fieldErrorf("file", "missing; name the trace file, e.g. file = \"requests.csv\" (relative to the scenario file)")
	}
	c := t.Columns
	if t.Format != "" && !generic(t.Format) && c != (TraceColumns{}) {
		return fieldErrorf("columns", "does not apply to format %q, whose columns are fixed; columns name the fields of format \"csv\" or \"jsonl\"", t.Format)
	}
	if generic(t.Format) {
		for _, req := range []struct{ key, v string }{{"time", c.Time}, {"input", c.Input}, {"output", c.Output}} {
			if req.v == "" {
				return fieldErrorf("columns."+req.key, "missing; a %s trace needs columns = { time = \"...\", input = \"...\", output = \"...\" } naming its fields", t.Format)
			}
		}
	}
	if t.TimeUnit != "" && t.Format != "" && !generic(t.Format) {
		return fieldErrorf("time_unit", "does not apply to format %q, whose time unit is fixed", t.Format)
	}
	n := 0
	for _, v := range []string{c.Session, c.Prefix, c.Blocks} {
		if v != "" {
			n++
		}
	}
	if n > 1 {
		return fieldErrorf("columns", "name at most one of session, prefix and blocks: each says how prompts share prefixes in its own way")
	}
	if c.PrefixTokens != "" && c.Prefix == "" {
		return fieldErrorf("columns.prefix_tokens", "needs columns.prefix, the id of the prefix whose length it gives")
	}
	if c.Blocks != "" && t.BlockSize == 0 {
		return fieldErrorf("block_size", "missing; columns.blocks needs the number of prompt tokens each block hash covers, e.g. block_size = 16")
	}
	if t.BlockSize > 0 && t.Format != "" && t.Format != FormatMooncake && !generic(t.Format) && t.Format != FormatBurstGPT {
		return fieldErrorf("block_size", "does not apply to format %q, which has no block hashes, sessions or prefix ids", t.Format)
	}
	if c.Prefix != "" && c.PrefixTokens == "" && t.PrefixTokens == 0 {
		return fieldErrorf("prefix_tokens", "missing; columns.prefix needs the prefix's length: prefix_tokens = N, or a column columns.prefix_tokens")
	}
	if t.PrefixTokens > 0 && (c.Prefix == "" || c.PrefixTokens != "") {
		return fieldErrorf("prefix_tokens", "applies only with columns.prefix and without columns.prefix_tokens")
	}
	if t.Dataset != "" && t.Format != FormatServeGen {
		return fieldErrorf("dataset", "applies only to format \"servegen\"")
	}
	if err := t.Where.validate(t.Format, c); err != nil {
		return Prefix("where", err)
	}
	for _, d := range []struct {
		key string
		v   Duration
	}{{"from", t.From}, {"to", t.To}, {"copy_shift", t.CopyShift}, {"sort_window", t.SortWindow}} {
		if f := float64(d.v); math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > maxTraceHorizonS {
			return fieldErrorf(d.key, "must be a finite duration >= 0, got %v", f)
		}
	}
	if t.To != 0 && t.To <= t.From {
		return fieldErrorf("to", "must be later than from (%v), got %v", t.From, t.To)
	}
	switch t.ScaleBy {
	case ScaleThin:
		if t.scale() > 1 {
			return fieldErrorf("scale_by", "thin keeps each record with probability scale, so it needs scale <= 1 (got %v); use copies to add requests", t.scale())
		}
	case ScaleCopies:
		if t.scale() < 1 {
			return fieldErrorf("scale_by", "copies superposes shifted copies, so it needs scale >= 1 (got %v); use thin to remove requests", t.scale())
		}
	}
	if t.CopyShift != 0 && t.scaleBy() != ScaleCopies {
		return fieldErrorf("copy_shift", "applies only when scale > 1 superposes copies")
	}
	return nil
}

// validate checks the filter against the fields the format has.
func (f TraceFilter) validate(format string, c TraceColumns) error {
	check := func(key string, vals []string, has bool, hint string) error {
		if len(vals) == 0 {
			return nil
		}
		if !has {
			return fieldErrorf(key, "the trace has no %s field to filter on%s", key, hint)
		}
		if i := slices.Index(vals, ""); i >= 0 {
			return fieldErrorf(key+"["+strconv.Itoa(i)+"]", "must not be empty")
		}
		return nil
	}
	gen := generic(format)
	colHint := func(col string) string {
		if gen {
			return "; name it in columns." + col
		}
		return ""
	}
	if err := check("model", f.Model, format == "" || format == FormatBurstGPT || gen && c.Model != "", colHint("model")); err != nil {
		return err
	}
	if err := check("tenant", f.Tenant, format == "" || gen && c.Tenant != "", colHint("tenant")); err != nil {
		return err
	}
	if err := check("workload", f.Workload, format == "" || gen && c.Workload != "", colHint("workload")); err != nil {
		return err
	}
	return check("log_type", f.LogType, format == "" || format == FormatBurstGPT, " (only BurstGPT traces have a log type)")
}

// Probe opens the trace and reads its first record, so that a missing
// file, a missing column or a malformed first row is reported before a
// run. It returns the reader's errors (*TraceError, or *FieldError for
// settings that do not fit the detected format).
func (t *TraceSpec) Probe() error {
	rd, err := OpenTrace(t)
	if err != nil {
		return err
	}
	defer rd.Close()
	// The first row of the file, whatever the filter and the window keep:
	// reading on to the first kept one could read the whole file.
	if _, err := rd.sorted(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// BlockTokens is the number of prompt tokens each prefix block of the
// trace's records covers: BlockSize, else the format's default (Mooncake
// 512, else 64), the format detected from the file when the spec does not
// name it.
func (t *TraceSpec) BlockTokens() (int, error) {
	if t.BlockSize > 0 {
		return t.BlockSize, nil
	}
	format := t.Format
	if format == "" {
		f, err := DetectTraceFormat(t.Path())
		if err != nil {
			return 0, err
		}
		format = f
	}
	if format == FormatMooncake {
		return mooncakeBlock, nil
	}
	return defaultSynthBlock, nil
}

// ParseTraceColumns reads a column mapping written as
// "time=ts,input=prompt_tokens,output=completion_tokens" (the keys of
// TraceColumns).
func ParseTraceColumns(s string) (TraceColumns, error) {
	var c TraceColumns
	fields := map[string]*string{"time": &c.Time, "input": &c.Input, "output": &c.Output, "tenant": &c.Tenant,
		"model": &c.Model, "workload": &c.Workload, "session": &c.Session, "prefix": &c.Prefix,
		"prefix_tokens": &c.PrefixTokens, "blocks": &c.Blocks}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || v == "" {
			return c, fmt.Errorf("%q: want KEY=COLUMN, e.g. time=ts", part)
		}
		p := fields[k]
		if p == nil {
			return c, fmt.Errorf("%q: unknown key %q; allowed: time, input, output, tenant, model, workload, session, prefix, prefix_tokens, blocks", part, k)
		}
		*p = v
	}
	return c, nil
}

// ParseTraceFilter adds a filter written as "FIELD=V1|V2" (FIELD one of
// model, tenant, workload, log_type) to f.
func ParseTraceFilter(f *TraceFilter, s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || v == "" {
		return fmt.Errorf("%q: want FIELD=VALUE or FIELD=V1|V2, e.g. model=GPT-4", s)
	}
	vals := strings.Split(v, "|")
	switch strings.TrimSpace(k) {
	case "model":
		f.Model = append(f.Model, vals...)
	case "tenant":
		f.Tenant = append(f.Tenant, vals...)
	case "workload":
		f.Workload = append(f.Workload, vals...)
	case "log_type":
		f.LogType = append(f.LogType, vals...)
	default:
		return fmt.Errorf("%q: unknown field %q; allowed: model, tenant, workload, log_type", s, k)
	}
	return nil
}
