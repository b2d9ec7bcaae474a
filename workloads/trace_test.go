package workloads

import (
	"math"
	"os"
	"strings"
	"testing"
)

func TestReadAzureTraceFixture(t *testing.T) {
	f, err := os.Open("testdata/azure_small.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := ReadAzureTrace(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []TraceRecord{
		{0, 374, 44},
		{4.314579, 396, 109},
		{4.541877, 879, 55},
		{60, 91, 16},
		{5*3600 + 44*60 + 13.31941, 10, 1}, // across midnight
	}
	if len(recs) != len(want) {
		t.Fatalf("got %d records, want %d", len(recs), len(want))
	}
	for i, w := range want {
		g := recs[i]
		if math.Abs(g.Time-w.Time) > 1e-9 || g.Input != w.Input || g.Output != w.Output {
			t.Errorf("row %d: got %+v, want %+v", i, g, w)
		}
	}
}

func TestReadAzureTraceZones(t *testing.T) {
	src := "TIMESTAMP,ContextTokens,GeneratedTokens\n" +
		"2023-11-16 18:15:46.5+00:00,1,2\n" +
		"2023-11-16 19:15:47+01:00,3,4\n" + // the same hour in another zone: 0.5 s later
		"2023-11-16 18:15:48Z,5,6\n"
	recs, err := ReadAzureTrace(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[1].Time != 0.5 || recs[2].Time != 1.5 {
		t.Errorf("got %+v", recs)
	}
	recs, err = ReadAzureTrace(strings.NewReader("TIMESTAMP,ContextTokens,GeneratedTokens\n"))
	if err != nil || len(recs) != 0 {
		t.Errorf("header only: %v, %v", recs, err)
	}
}

func TestReadAzureTraceErrors(t *testing.T) {
	const head = "TIMESTAMP,ContextTokens,GeneratedTokens\n"
	const row = "2023-11-16 18:15:46.6805900,374,44\n"
	cases := map[string]string{
		"":                                       "empty input",
		"time,in,out\n" + row:                    `line 1: header column 1 is "time"`,
		head + row + "2023-11-16 18:15:4x,1,1\n": `line 3: timestamp "2023-11-16 18:15:4x"`,
		head + row + "2023-11-16 18:15:47,-1,1\n": "line 3: ContextTokens: -1 is out of range",
		head + "2023-11-16 18:15:47,1,many\n":     `line 2: GeneratedTokens: "many" is not an integer`,
		head + row + "2023-11-16 18:15:47,1\n":    "line 3",
		head + row + "2023-11-16 18:15:40,1,1\n":  "line 3: timestamp 2023-11-16 18:15:40 is earlier than line 2's",
		head + row + row + "2023-11-16,1,1\n":     "line 4",
	}
	for src, want := range cases {
		_, err := ReadAzureTrace(strings.NewReader(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q:\n got %v\nwant it to contain %q", src, err, want)
		}
	}
}

func TestReadAzureTraceReal(t *testing.T) {
	f, err := os.Open("../../shared/data/AzureLLMInferenceTrace_conv.csv")
	if err != nil {
		t.Skipf("Azure trace not available: %v", err)
	}
	defer f.Close()
	recs, err := ReadAzureTrace(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 19366 {
		t.Errorf("got %d records, want 19366", len(recs))
	}
	span := recs[len(recs)-1].Time
	rate := float64(len(recs)-1) / span
	if math.Abs(rate-5.5) > 0.1 {
		t.Errorf("mean rate %.3f req/s over %.0fs, want ≈ 5.5", rate, span)
	}
	t.Logf("%d requests over %.0fs: %.3f req/s", len(recs), span, rate)
	for i, r := range recs {
		if r.Input < 0 || r.Output < 0 || (i > 0 && r.Time < recs[i-1].Time) {
			t.Fatalf("row %d: %+v", i, r)
		}
	}
}
