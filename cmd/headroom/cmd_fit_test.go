package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/scenarios"
)

// TestFitWritesARunnableScenario: fit prints its quality, writes a scenario
// that loads, validates and runs, and the run offers about as many
// requests as the trace has.
func TestFitWritesARunnableScenario(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join("..", "..", "workloads", "testdata", "chat_sessions.csv")
	out := filepath.Join(dir, "fit.toml")
	code, stdout, stderr := cli(t, "fit", trace, "--format", "csv", "--time-unit", "ms",
		"--columns", "time=ts_ms,input=prompt_tokens,output=completion_tokens,session=conv,tenant=user", "--by", "tenant", "--write", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{`workload "chat_sessions/acme": 3 requests`, "rate: ", "arrivals: ", "prefix reuse in the trace", "wrote " + out} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	src, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.LoadBytes(src, out)
	if err != nil {
		t.Fatalf("the written scenario does not load: %v\n%s", err, src)
	}
	if len(sc.Workloads) != 2 || sc.Workloads[0].Tokens.SharedPrefix == 0 {
		t.Errorf("workloads %+v", sc.Workloads)
	}
	if code, _, stderr := cli(t, "run", out, "--no-html", "-q"); code != exitOK {
		t.Errorf("run of the fitted scenario: exit %d: %s", code, stderr)
	}
	// Printed rather than written: the same scenario on stdout.
	_, stdout, _ = cli(t, "fit", "../../workloads/testdata/made_up_azure.csv", "--workloads-only", "--route", "sonnet")
	if !strings.Contains(stdout, "Scenario (paste it") || !strings.Contains(stdout, `route = "sonnet"`) || strings.Contains(stdout, "[[provider]]") {
		t.Errorf("workloads only:\n%s", stdout)
	}
}

// TestFitEmpiricalScenarioLoads: a fit whose tokens are not lognormal
// writes empirical histograms (multi-line arrays in inline tables), and
// the scenario loads.
func TestFitEmpiricalScenarioLoads(t *testing.T) {
	var b strings.Builder
	b.WriteString("t,in,out\n")
	for i := 0; i < 3000; i++ {
		in := 100
		if i%3 == 0 {
			in = 5000 // bimodal: no lognormal fits
		}
		fmt.Fprintf(&b, "%d,%d,%d\n", i, in, 1+i%40)
	}
	p := filepath.Join(t.TempDir(), "bimodal.csv")
	os.WriteFile(p, []byte(b.String()), 0o644)
	code, stdout, stderr := cli(t, "fit", p, "--format", "csv", "--columns", "time=t,input=in,output=out")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "input: an empirical histogram") {
		t.Errorf("bimodal input fitted as:\n%s", stdout)
	}
	toml := stdout[strings.Index(stdout, "# Fitted by"):]
	if _, err := scenarios.LoadBytes([]byte(toml), "fit.toml"); err != nil {
		t.Fatalf("%v\n%s", err, toml)
	}
}

// TestFitBadInput: problems with the trace or the flags exit 2 with one
// line naming what is wrong.
func TestFitBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("t,in,out\n1,2,3\n2,x,3\n"), 0o644)
	other := filepath.Join(t.TempDir(), "other.csv")
	os.WriteFile(other, []byte("x,y,z\n1,2,3\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"fit"}, "fit takes one or more TRACE files"},
		{[]string{"fit", "nope.csv"}, "nope.csv: no such file"},
		{[]string{"fit", bad, "--format", "csv", "--columns", "time=t,input=in,output=out"}, `bad.csv:3: column "in": "x" is not a whole number`},
		{[]string{"fit", bad, "--format", "csv"}, `bad.csv:3: column "in": "x" is not a whole number`}, // t, in, out guessed
		{[]string{"fit", other, "--format", "csv"}, "no column looks like the request's time, input, output (columns: x, y, z); name them with --format csv --columns"},
		{[]string{"fit", bad, "--format", "csv", "--columns", "time=t,size=in"}, `unknown key "size"`},
		{[]string{"fit", bad, "--by", "colour"}, "--by \"colour\""},
		{[]string{"fit", bad, "--every", "0s"}, "--every"},
		{[]string{"fit", bad, "--where", "model"}, "--where"},
		{[]string{"fit", "../../workloads/testdata/made_up_azure.csv", "--by", "tenant"}, "fit by tenant: the azure trace has no tenant field"},
	}
	for _, c := range cases {
		code, stdout, stderr := cli(t, c.args...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q (want %q), stdout %q", c.args, code, stderr, c.want, stdout)
		}
	}
}

func TestFitHelp(t *testing.T) {
	code, stdout, stderr := cli(t, "fit", "--help")
	if code != exitOK || !strings.Contains(stdout, "Usage: headroom fit TRACE...") || !strings.Contains(stdout, "\nExamples:\n") || stderr != "" {
		t.Errorf("exit %d:\n%s%s", code, stdout, stderr)
	}
	for _, flag := range []string{"--format", "--columns", "--every", "--by", "--write", "--where", "--workloads-only"} {
		if !strings.Contains(stdout, flag) {
			t.Errorf("fit --help does not mention %s", flag)
		}
	}
}

// TestFitGuessesColumnsAndSpeaksFlags: a CSV log with common header names
// and ISO timestamps fits without --columns, and fit says which columns
// and time unit it took, as flags; its errors name fit's flags, not the
// keys of a scenario's trace table, and a date in a numeric time column
// suggests --time-unit datetime.
func TestFitGuessesColumnsAndSpeaksFlags(t *testing.T) {
	dir := t.TempDir()
	logCSV := filepath.Join(dir, "log.csv")
	if err := os.WriteFile(logCSV, []byte("Timestamp,Prompt_Tokens,completion_tokens,user\n"+
		"2025-03-01T09:00:00Z,1200,300,a\n2025-03-01T09:00:02Z,800,100,b\n2025-03-01T09:00:05Z,2000,400,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cli(t, "fit", logCSV)
	want := "read it as --format csv --columns time=Timestamp,input=Prompt_Tokens,output=completion_tokens --time-unit datetime"
	if code != exitOK || !strings.Contains(stdout, want) || !strings.Contains(stdout, "3 requests over 5.0s") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("a,b,c\n1,2,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{bad}, "no column looks like the request's time, input, output (columns: a, b, c); name them with --format csv --columns time=COLUMN,input=COLUMN,output=COLUMN"},
		{[]string{logCSV, "--format", "csv", "--columns", "time=Timestamp"}, "--columns: missing; a csv trace needs --columns time=COLUMN,input=COLUMN,output=COLUMN"},
		{[]string{logCSV, "--columns", "time=Timestamp,input=Prompt_Tokens,output=completion_tokens", "--format", "csv"}, `is not a number; if the times are dates and times, give --time-unit datetime`},
	} {
		code, _, stderr := cli(t, append([]string{"fit"}, c.args...)...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "columns = {") {
			t.Errorf("fit %v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
}

// requestsLog is the README's request log (epoch milliseconds, three
// teams), and requestsLogColumns its columns for --columns.
var requestsLog = filepath.Join("..", "..", "testdata", "logs", "requests.csv.gz")

const requestsLogColumns = "time=ts,input=prompt_tokens,output=completion_tokens,tenant=team"

// TestFitKeepsTheLogsClock: a log whose times are Unix timestamps (epoch
// milliseconds, the first record at 08:00:01 UTC) fits a scenario that
// starts at 08:00 with its curves from 08:00:01, says the clock is UTC,
// and puts the busiest hour where the replay of the same log does
// (09:00–10:00); and the same log read with --time-unit s says the values
// look like milliseconds.
func TestFitKeepsTheLogsClock(t *testing.T) {
	dir := t.TempDir()
	log, cols := requestsLog, requestsLogColumns
	out := filepath.Join(dir, "fit.toml")
	code, stdout, stderr := cli(t, "fit", log, "--format", "csv", "--time-unit", "ms", "--columns", cols, "--by", "tenant", "--write", out)
	if code != exitOK || !strings.Contains(stdout, "requests over 2h59m from 08:00:01 UTC") ||
		!strings.Contains(stdout, "busiest 80.8/min at 09:00:01 UTC, +1h") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	src, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(src); !strings.Contains(s, "# Clock times are UTC: the log's first record was at 08:00:01 UTC.\nstart = \"08:00:00\"\n") ||
		strings.Count(s, "from = \"08:00:01\"\n") != 3 {
		t.Errorf("the fitted scenario does not keep the clock:\n%s", s)
	}
	busiest := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := cli(t, args...)
		for _, l := range strings.Split(stdout, "\n") {
			if f := strings.Fields(l); len(f) == 3 && f[0] == "busiest" && f[1] == "hour" {
				return f[2]
			}
		}
		t.Fatalf("%v: exit %d, no busiest hour in:\n%s%s", args, code, stdout, stderr)
		return ""
	}
	fitted := busiest("run", out, "--no-html")
	replayed := busiest("run", filepath.Join("..", "..", "testdata", "logs", "replay.toml"), "--base-only", "--no-html")
	if fitted != "09:00–10:00" || replayed != fitted {
		t.Errorf("busiest hour: fitted %s, replayed %s, want both 09:00–10:00", fitted, replayed)
	}

	code, _, stderr = cli(t, "fit", log, "--format", "csv", "--time-unit", "s", "--columns", cols)
	want := `column "ts": time "1764576001679" is out of range; as milliseconds since 1970 it is 2025-12-01 08:00:01 UTC: give --time-unit ms` + "\n"
	if code != exitBadInput || !strings.HasSuffix(stderr, want) {
		t.Errorf("--time-unit s on epoch milliseconds: exit %d, stderr %q, want it to end %q", code, stderr, want)
	}
}

// TestFitInTimeZone: the same log (its first record at 08:00:01 UTC on
// 1 December 2025) fitted with --tz America/New_York starts at 03:00 New
// York time (UTC-05:00 in winter), its busiest hour at 04:00 there, and
// a run of the fitted scenario finds that hour; a log whose times have no
// date refuses a zone that changes with the seasons; a bad zone is an
// error naming the flag.
func TestFitInTimeZone(t *testing.T) {
	dir := t.TempDir()
	log, cols := requestsLog, requestsLogColumns
	out := filepath.Join(dir, "fit.toml")
	code, stdout, stderr := cli(t, "fit", log, "--format", "csv", "--time-unit", "ms", "--columns", cols, "--tz", "America/New_York", "--write", out)
	if code != exitOK || !strings.Contains(stdout, "requests over 2h59m from 03:00:01 America/New_York") ||
		!strings.Contains(stdout, "at 04:00:01 America/New_York, +1h") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	src, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(src); !strings.Contains(s, "# Clock times are America/New_York (UTC-05:00 at the log's first record, which was at 03:00:01 there).\nstart = \"03:00:00\"\n") {
		t.Errorf("the fitted scenario is not on New York's clock:\n%s", s)
	}
	code, stdout, stderr = cli(t, "run", out, "--no-html")
	if code != exitOK || !strings.Contains(stdout, "Busiest hour, 04:00–05:00") {
		t.Errorf("run of the fitted scenario: exit %d, %s\n%s", code, stderr, stdout)
	}

	undated := filepath.Join(dir, "burst.csv")
	rows := "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
	for i := 0; i < 50; i++ {
		rows += fmt.Sprintf("%d,ChatGPT,%d,%d,%d,Conversation log\n", 3600+i*7, 100+i, 50+i, 150+2*i)
	}
	if err := os.WriteFile(undated, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = cli(t, "fit", undated, "--tz", "Europe/Berlin")
	if code != exitBadInput || !strings.Contains(stderr, "changes its offset with the seasons") || !strings.Contains(stderr, "UTC-05:00") {
		t.Errorf("an undated log in a zone with summer time: exit %d, %s", code, stderr)
	}
	code, stdout, stderr = cli(t, "fit", undated, "--tz", "UTC+05:30")
	if code != exitOK || !strings.Contains(stdout, "from 06:30:00 UTC+05:30") {
		t.Errorf("an undated log at a fixed offset: exit %d, %s\n%s", code, stderr, stdout)
	}
	code, _, stderr = cli(t, "fit", log, "--format", "csv", "--time-unit", "ms", "--columns", cols, "--tz", "Mars/Olympus")
	if code != exitBadInput || !strings.Contains(stderr, `--tz: time zone "Mars/Olympus": not a zone name`) {
		t.Errorf("a bad zone: exit %d, %s", code, stderr)
	}
}
