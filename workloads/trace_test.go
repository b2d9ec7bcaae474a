package workloads

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writeFile writes a fixture into a temporary directory and returns its path.
func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readAll(t *testing.T, spec TraceSpec) []TraceRow {
	t.Helper()
	rows, err := ReadTrace(&spec)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestReadAzureFixture(t *testing.T) {
	rows := readAll(t, TraceSpec{File: "testdata/made_up_azure.csv"})
	want := []struct {
		t       float64
		in, out int
		line    int
	}{
		{0, 512, 64, 2},
		{2.5, 1200, 32, 3},
		{2.75, 2048, 128, 4},
		{60, 256, 16, 5},
		{4*3600 + 1*60 + 49.75, 20, 2, 6}, // across midnight
	}
	if len(rows) != len(want) {
		t.Fatalf("got %d rows, want %d", len(rows), len(want))
	}
	for i, w := range want {
		g := rows[i]
		if math.Abs(g.Time-w.t) > 1e-9 || g.Input != w.in || g.Output != w.out || g.Line != w.line {
			t.Errorf("row %d: got %+v, want %+v", i, g, w)
		}
	}
}

func TestDetectFormats(t *testing.T) {
	for file, want := range map[string]string{
		"testdata/made_up_azure.csv":          FormatAzure,
		"testdata/made_up_mooncake.jsonl":     FormatMooncake,
		"testdata/burstgpt_small.csv":         FormatBurstGPT,
		"testdata/made_up_servegen-trace.csv": FormatServeGen,
	} {
		got, err := DetectTraceFormat(file)
		if err != nil || got != want {
			t.Errorf("%s: got %q, %v; want %q", file, got, err, want)
		}
	}
	if _, err := DetectTraceFormat("testdata/chat_sessions.csv"); err == nil || !strings.Contains(err.Error(), `format = "csv"`) {
		t.Errorf("generic CSV: %v", err)
	}
}

func TestParseDatetimeAgreesWithTime(t *testing.T) {
	cases := []string{
		"2024-03-04 23:58:13.0000001",
		"2024-05-10 00:00:00.009930+00:00",
		"2024-02-29T23:59:59Z",
		"2023-11-16 19:15:47+01:00",
		"2023-11-16 19:15:47-0530",
		"1969-12-31 23:59:59.5",
		"2000-03-01 00:00:00",
		"2100-02-28 12:00:00.123456789",
	}
	layouts := []string{"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999Z0700", "2006-01-02T15:04:05Z07:00", "2006-01-02 15:04:05.999999999"}
	for _, c := range cases {
		got, err := parseDatetime(c)
		if err != nil {
			t.Errorf("%s: %v", c, err)
			continue
		}
		var want time.Time
		for _, l := range layouts {
			if w, err := time.Parse(l, c); err == nil {
				want = w
				break
			}
		}
		if want.IsZero() {
			t.Fatalf("%s: time.Parse cannot read it either", c)
		}
		if got != want.UnixNano() {
			t.Errorf("%s: got %d, time.Parse %d", c, got, want.UnixNano())
		}
	}
	for _, bad := range []string{"", "2023-11-16", "2023-13-01 00:00:00", "2023-02-29 00:00:00", "2023-11-16 24:00:00", "2023-11-16 18:15:4x", "2023-11-16 18:15:46.", "2023-11-16 18:15:46 EST", "2023-11-16 18:15:46+25:00"} {
		if _, err := parseDatetime(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestReadMooncake(t *testing.T) {
	rows := readAll(t, TraceSpec{File: "testdata/made_up_mooncake.jsonl"})
	if len(rows) != 4 {
		t.Fatalf("got %d rows", len(rows))
	}
	if rows[2].Time != 1.4 || rows[2].Input != 700 || rows[2].Output != 9 || rows[2].Line != 3 {
		t.Errorf("row 2: %+v", rows[2])
	}
	if rows[3].Line != 5 || rows[3].Time != 2.25 { // the blank line is skipped but counted
		t.Errorf("row 3: %+v", rows[3])
	}
	if got := rows[1].Blocks; len(got) != 4 || got[3] != 14 {
		t.Errorf("blocks: %v", got)
	}
}

func TestReadBurstGPTFilter(t *testing.T) {
	rows := readAll(t, TraceSpec{File: "testdata/burstgpt_small.csv", Where: TraceFilter{Model: []string{"GPT-4"}}})
	// Times stay relative to the file's first record, not the first kept.
	if len(rows) != 2 || rows[0].Time != 41 || rows[1].Time != 113 || rows[0].Model != "GPT-4" || rows[1].Output != 0 {
		t.Errorf("got %+v", rows)
	}
	rows = readAll(t, TraceSpec{File: "testdata/burstgpt_small.csv", Where: TraceFilter{LogType: []string{"Conversation log"}, Model: []string{"ChatGPT", "GPT-4"}}})
	if len(rows) != 3 {
		t.Errorf("log type filter: %d rows", len(rows))
	}
}

func TestReadGenericCSVWindow(t *testing.T) {
	spec := TraceSpec{File: "testdata/chat_sessions.csv", Format: FormatCSV, TimeUnit: TimeMillis,
		Columns: TraceColumns{Time: "ts_ms", Input: "prompt_tokens", Output: "completion_tokens", Session: "conv", Tenant: "user"},
		From:    Duration(0.5), To: Duration(3)}
	rows := readAll(t, spec)
	// Window [0.5 s, 3 s) of trace time: rows at 0.5 and 2.0, made relative to 0.5.
	if len(rows) != 2 || rows[0].Time != 0 || rows[1].Time != 1.5 || rows[0].Tenant != "globex" || !rows[0].HasSession {
		t.Errorf("got %+v", rows)
	}
	spec.Where = TraceFilter{Tenant: []string{"acme"}}
	spec.From, spec.To = 0, 0
	rows = readAll(t, spec)
	if len(rows) != 3 || rows[2].Time != 4 {
		t.Errorf("tenant filter: %+v", rows)
	}
}

func TestReadGenericJSONL(t *testing.T) {
	src := `{"t": "2024-05-10 00:00:00.5", "in": 10, "out": "3", "blocks": [7, "ab"], "m": "x"}
{"t": "2024-05-10 00:00:01Z", "in": 20, "out": 4, "blocks": "7 8 9", "m": 5}
`
	p := writeFile(t, "g.jsonl", src)
	rows := readAll(t, TraceSpec{File: p, Format: FormatJSONL, TimeUnit: TimeDatetime, BlockSize: 4,
		Columns: TraceColumns{Time: "t", Input: "in", Output: "out", Blocks: "blocks", Model: "m"}})
	if len(rows) != 2 || rows[1].Time != 0.5 || rows[0].Output != 3 || rows[1].Model != "5" {
		t.Fatalf("got %+v", rows)
	}
	if b := rows[0].Blocks; len(b) != 2 || b[0] != 7 || b[1] != hashID([]byte("ab")) {
		t.Errorf("blocks %v", b)
	}
	if b := rows[1].Blocks; len(b) != 3 || b[2] != 9 {
		t.Errorf("blocks %v", b)
	}
}

func TestReadGzip(t *testing.T) {
	src, err := os.ReadFile("testdata/made_up_mooncake.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "trace.jsonl.gz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write(src)
	zw.Close()
	f.Close()
	rows := readAll(t, TraceSpec{File: p})
	if len(rows) != 4 || rows[3].Output != 200 {
		t.Errorf("gzip: %+v", rows)
	}
}

func TestSortWindow(t *testing.T) {
	src := "time,in,out\n10,1,1\n12,2,2\n11,3,3\n15,4,4\n13.5,5,5\n"
	p := writeFile(t, "s.csv", src)
	cols := TraceColumns{Time: "time", Input: "in", Output: "out"}
	_, err := ReadTrace(&TraceSpec{File: p, Format: FormatCSV, Columns: cols})
	if err == nil || !strings.Contains(err.Error(), "s.csv:4: time is 1s earlier than line 3's") || !strings.Contains(err.Error(), "sort_window to at least 1s") {
		t.Errorf("unsorted: %v", err)
	}
	rows := readAll(t, TraceSpec{File: p, Format: FormatCSV, Columns: cols, SortWindow: Duration(2)})
	var got []int
	for _, r := range rows {
		got = append(got, r.Input)
	}
	if strings.Trim(strings.Join(strings.Fields(strings.Trim(fmtInts(got), "[]")), ","), ",") != "1,3,2,5,4" || rows[0].Time != 0 || rows[4].Time != 5 {
		t.Errorf("sorted: %v %+v", got, rows)
	}
	_, err = ReadTrace(&TraceSpec{File: p, Format: FormatCSV, Columns: cols, SortWindow: Duration(0.5)})
	if err == nil || !strings.Contains(err.Error(), "more than sort_window (0.5s) allows") {
		t.Errorf("window too small: %v", err)
	}
}

func fmtInts(v []int) string {
	var b strings.Builder
	for i, x := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(x))
	}
	return b.String()
}

func TestTraceErrors(t *testing.T) {
	head := "TIMESTAMP,ContextTokens,GeneratedTokens\n"
	row := "2024-03-04 23:58:10.2500000,512,64\n"
	cols := TraceColumns{Time: "t", Input: "i", Output: "o"}
	cases := []struct {
		name, src string
		spec      TraceSpec
		want      string
	}{
		{"empty.csv", "", TraceSpec{Format: FormatAzure}, "empty file"},
		{"h.csv", "time,in,out\n" + row, TraceSpec{Format: FormatAzure}, `h.csv:1: header has no column "TIMESTAMP", "ContextTokens", "GeneratedTokens"`},
		{"ts.csv", head + row + "2024-03-04 23:58:1x,1,1\n", TraceSpec{}, `ts.csv:3: column "TIMESTAMP": timestamp "2024-03-04 23:58:1x"`},
		{"neg.csv", head + row + "2024-03-04 23:58:17,-1,1\n", TraceSpec{}, `neg.csv:3: column "ContextTokens": -1 is out of range`},
		{"many.csv", head + "2024-03-04 23:58:17,1,many\n", TraceSpec{}, `many.csv:2: column "GeneratedTokens": "many" is not a whole number`},
		{"short.csv", head + row + "2024-03-04 23:58:17,1\n", TraceSpec{}, "short.csv:3: 2 fields, but the header has 3"},
		{"order.csv", head + row + "2024-03-04 23:58:10,1,1\n", TraceSpec{}, "order.csv:3: time is 0.25s earlier than line 2's"},
		{"big.csv", head + "2024-03-04 23:58:17,1e20,1\n", TraceSpec{}, "out of range"},
		{"frac.csv", head + "2024-03-04 23:58:17,1.5,1\n", TraceSpec{}, `"1.5" is not a whole number`},
		{"m.jsonl", `{"timestamp": 0, "input_length": 5, "output_length": 1}` + "\n{\"timestamp\": 1, \"output_length\": 1}\n", TraceSpec{Format: FormatMooncake}, `m.jsonl:2: missing field "input_length"`},
		{"m2.jsonl", `{"timestamp": 0, "input_length": "x", "output_length": 1}`, TraceSpec{Format: FormatMooncake}, `m2.jsonl:1: field "input_length": expected a int64, got a JSON string`},
		{"m3.jsonl", "{\"timestamp\": 0,", TraceSpec{Format: FormatMooncake}, "m3.jsonl:1: not a JSON object"},
		{"m4.jsonl", `{"timestamp": 1e300, "input_length": 1, "output_length": 1}`, TraceSpec{Format: FormatMooncake}, `m4.jsonl:1: field "timestamp": time "1e300" is out of range`},
		{"g.csv", "t,i\n1,2\n", TraceSpec{Format: FormatCSV, Columns: cols}, `g.csv:1: header has no column "o" (columns.output)`},
		{"g.jsonl", `{"t": 1, "i": 2}`, TraceSpec{Format: FormatJSONL, Columns: cols}, `g.jsonl:1: missing field "o"`},
		{"g2.jsonl", `{"t": [1], "i": 2, "o": 3}`, TraceSpec{Format: FormatJSONL, Columns: cols}, `g2.jsonl:1: field "t": expected a string or a number, got a JSON array`},
		{"q.csv", "t,i,o\n1,\"2,3\n", TraceSpec{Format: FormatCSV, Columns: cols}, "q.csv:2:"},
		{"sg-trace.csv", "0,1,1,Gamma,1,1\n", TraceSpec{Format: FormatServeGen}, "sg-dataset.json: no such file"},
		{"sg2-trace.csv", "0,1,1,Pareto,1,1\n", TraceSpec{Format: FormatServeGen}, `sg2-trace.csv:1: family "Pareto"`},
		{"sg3-trace.csv", "0,1,1,Gamma,1,1\n0,1,1,Gamma,1,1\n", TraceSpec{Format: FormatServeGen}, "sg3-trace.csv:2: window start 0 is not after"},
	}
	for _, c := range cases {
		spec := c.spec
		spec.File = writeFile(t, c.name, c.src)
		_, err := ReadTrace(&spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant it to contain %q", c.name, err, c.want)
			continue
		}
		var te *TraceError
		if !errors.As(err, &te) {
			t.Errorf("%s: %T is not a *TraceError", c.name, err)
		}
	}
	if _, err := ReadTrace(&TraceSpec{File: "testdata/nope.csv"}); err == nil || !strings.Contains(err.Error(), "testdata/nope.csv: no such file") {
		t.Errorf("missing file: %v", err)
	}
}

func TestTraceSpecValidate(t *testing.T) {
	cols := TraceColumns{Time: "t", Input: "i", Output: "o"}
	cases := []struct {
		spec TraceSpec
		want string
	}{
		{TraceSpec{}, "file: missing"},
		{TraceSpec{File: "x", Format: "parquet"}, `format: unknown format "parquet"`},
		{TraceSpec{File: "x", Format: FormatAzure, Columns: cols}, "columns: does not apply"},
		{TraceSpec{File: "x", Format: FormatCSV, Columns: TraceColumns{Time: "t"}}, "columns.input: missing"},
		{TraceSpec{File: "x", Format: FormatCSV, Columns: cols, TimeUnit: "h"}, `time_unit: unknown time unit "h"; allowed: s, ms, us, ns, datetime`},
		{TraceSpec{File: "x", Format: FormatAzure, TimeUnit: "ms"}, "time_unit: does not apply"},
		{TraceSpec{File: "x", Format: FormatCSV, Columns: TraceColumns{Time: "t", Input: "i", Output: "o", Blocks: "b"}}, "block_size: missing"},
		{TraceSpec{File: "x", Format: FormatCSV, Columns: TraceColumns{Time: "t", Input: "i", Output: "o", Blocks: "b", Session: "s"}}, "at most one of session, prefix and blocks"},
		{TraceSpec{File: "x", Format: FormatCSV, Columns: TraceColumns{Time: "t", Input: "i", Output: "o", Prefix: "p"}}, "prefix_tokens: missing"},
		{TraceSpec{File: "x", Format: FormatAzure, BlockSize: 16}, "block_size: does not apply"},
		{TraceSpec{File: "x", Speed: math.NaN()}, "speed: must be a finite number, got nan"},
		{TraceSpec{File: "x", Speed: -1}, "speed"},
		{TraceSpec{File: "x", Scale: math.Inf(1)}, "scale: must be a finite number, got inf"},
		{TraceSpec{File: "x", Scale: 2, ScaleBy: ScaleThin}, "scale_by: thin keeps each record"},
		{TraceSpec{File: "x", Scale: 0.5, ScaleBy: ScaleCopies}, "scale_by: copies superposes"},
		{TraceSpec{File: "x", Scale: 0.5, CopyShift: 1}, "copy_shift: applies only"},
		{TraceSpec{File: "x", From: 10, To: 5}, "to: must be later than from"},
		{TraceSpec{File: "x", From: Duration(math.NaN())}, "from: must be a finite number, got nan"},
		{TraceSpec{File: "x", SortWindow: Duration(2 * 86400)}, "sort_window: must be between 0 and 1d, got 2d"},
		{TraceSpec{File: "x", Format: FormatAzure, Where: TraceFilter{Model: []string{"a"}}}, "where.model: the trace has no model field"},
		{TraceSpec{File: "x", Format: FormatCSV, Columns: cols, Where: TraceFilter{Tenant: []string{"a"}}}, "name it in columns.tenant"},
		{TraceSpec{File: "x", Format: FormatBurstGPT, Where: TraceFilter{Model: []string{""}}}, "where.model[0]: must not be empty"},
		{TraceSpec{File: "x", Format: FormatAzure, Dataset: "d.json"}, "dataset: applies only"},
	}
	for _, c := range cases {
		err := c.spec.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v:\n got %v\nwant %q", c.spec, err, c.want)
		}
	}
	ok := TraceSpec{File: "x", Format: FormatCSV, Columns: cols, Speed: 2, Scale: 2.5, CopyShift: 3, Loop: true, From: 1, To: 2}
	if err := ok.Validate(); err != nil {
		t.Errorf("valid spec: %v", err)
	}
}

func TestServeGenReplay(t *testing.T) {
	rows := readAll(t, TraceSpec{File: "testdata/made_up_servegen-trace.csv"})
	var n1, n2 int
	for _, r := range rows {
		switch r.Input {
		case 200, 400:
			n1++
			if r.Output != 20 {
				t.Fatalf("window 800's output is always 20: %+v", r)
			}
		case 2000:
			n2++
		default:
			t.Fatalf("input %d is in no distribution", r.Input)
		}
	}
	// 600..1200 s at 2/s (Gamma shape 2, cv² 1/2) and 1200..1800 s at
	// 0.25/s (Weibull shape 0.5, cv² 5). Tokens come from the dataset
	// window in force: 800 (also before it, the earlier one being empty)
	// until 1400, then 1400. So 1200 + 50 requests of the first kind and
	// 100 of the second; a renewal count's variance is about n·cv².
	sd1, sd2 := math.Sqrt(1200*0.5+50*5), math.Sqrt(100*5)
	if math.Abs(float64(n1)-1250) > 4*sd1 || math.Abs(float64(n2)-100) > 4*sd2 {
		t.Errorf("counts %d and %d, want about 1250 and 100", n1, n2)
	}
}

func TestReplayIsExact(t *testing.T) {
	spec := TraceSpec{File: "testdata/made_up_azure.csv"}
	rows := readAll(t, spec)
	rp, err := OpenReplay(&spec, math.Inf(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	for i := 0; ; i++ {
		rec, err := rp.Next()
		if errors.Is(err, io.EOF) {
			if i != len(rows) {
				t.Fatalf("replayed %d of %d", i, len(rows))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Time != rows[i].Time || rec.Input != rows[i].Input || rec.Output != rows[i].Output || rec.Line != rows[i].Line {
			t.Errorf("record %d: %+v, row %+v", i, rec, rows[i])
		}
	}
	s := rp.Summary()
	if s.Requests != 5 || s.RowsRead != 5 || s.RowsKept != 5 || s.Input.Max != 2048 {
		t.Errorf("summary %+v", s)
	}
}

func TestCSVLinesQuotes(t *testing.T) {
	src := "a,b,c\n\"x, y\",\"say \"\"hi\"\"\", z \r\n\n1,,\n \"q\" ,2,3\n"
	l := newCSVLines(strings.NewReader(src))
	var got [][]string
	var lines []int
	for {
		rec, err := l.read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var row []string
		for _, f := range rec {
			row = append(row, string(f))
		}
		got = append(got, row)
		lines = append(lines, l.line)
	}
	want := [][]string{{"a", "b", "c"}, {"x, y", `say "hi"`, "z "}, {"1", "", ""}, {"q", "2", "3"}}
	if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(lines) != "[1 2 4 5]" {
		t.Errorf("got %q at lines %v", got, lines)
	}
	for _, bad := range []string{"\"open,1\n", "a\"b,1\n", "\"a\"b,1\n"} {
		if _, err := newCSVLines(strings.NewReader(bad)).read(); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestDecimalNanos(t *testing.T) {
	for s, want := range map[string]int64{"1": 1e9, "1.5": 1.5e9, "-2.25": -2.25e9, "0.000000001": 1, "12345.678": 12345678000000} {
		if got, err := parseNumericTime(s, 1e9); err != nil || got != want {
			t.Errorf("%s s: %d, %v; want %d", s, got, err, want)
		}
	}
	if got, _ := parseNumericTime([]byte("1500"), 1e6); got != 1.5e9 {
		t.Errorf("1500 ms: %d", got)
	}
	if got, _ := parseNumericTime("1e3", 1e6); got != 1e9 {
		t.Errorf("1e3 ms: %d", got)
	}
	for _, bad := range []string{"", "-", ".", "1.2.3", "9999999999999", "x"} {
		if _, err := parseNumericTime(bad, 1e9); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
