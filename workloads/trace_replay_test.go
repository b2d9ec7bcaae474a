package workloads

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// replayAll replays spec to the horizon and returns copies of the records.
func replayAll(t testing.TB, spec TraceSpec, horizon float64) ([]ReplayRecord, TraceSummary) {
	t.Helper()
	rp, err := OpenReplay(&spec, horizon, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	var out []ReplayRecord
	for {
		rec, err := rp.Next()
		if errors.Is(err, io.EOF) {
			return out, rp.Summary()
		}
		if err != nil {
			t.Fatal(err)
		}
		c := *rec
		c.Keys = slices.Clone(rec.Keys)
		out = append(out, c)
	}
}

// synthTrace writes a CSV trace of n records at the given times.
func synthTrace(t testing.TB, times []float64) string {
	var b strings.Builder
	b.WriteString("t,in,out\n")
	for i, x := range times {
		fmt.Fprintf(&b, "%.6f,%d,%d\n", x, 100+i%50, 1+i%7)
	}
	return writeFile(t, "synth.csv", b.String())
}

var synthCols = TraceColumns{Time: "t", Input: "in", Output: "out"}

// poissonTimes draws n arrival times at a rate that doubles halfway.
func poissonTimes(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 9))
	times := make([]float64, n)
	t := 0.0
	for i := range times {
		rate := 2.0
		if i > n/2 {
			rate = 4
		}
		t += r.ExpFloat64() / rate
		times[i] = t
	}
	return times
}

func windowCounts(times []float64, width float64, n int) []int {
	c := make([]int, n)
	for _, x := range times {
		if i := int(x / width); i >= 0 && i < n {
			c[i]++
		}
	}
	return c
}

func recTimes(recs []ReplayRecord) []float64 {
	out := make([]float64, len(recs))
	for i, r := range recs {
		out[i] = r.Time
	}
	return out
}

func TestReplaySpeed(t *testing.T) {
	times := poissonTimes(500, 1)
	p := synthTrace(t, times)
	recs, _ := replayAll(t, TraceSpec{File: p, Format: FormatCSV, Columns: synthCols, Speed: 4}, math.Inf(1))
	if len(recs) != len(times) {
		t.Fatalf("%d records, want %d", len(recs), len(times))
	}
	for i, r := range recs {
		if want := (times[i] - times[0]) / 4; math.Abs(r.Time-want) > 1e-6 || r.Input != 100+i%50 {
			t.Fatalf("record %d at %v, want %v", i, r.Time, want)
		}
	}
}

func TestReplayCopiesScaleEveryWindow(t *testing.T) {
	times := poissonTimes(2000, 2)
	p := synthTrace(t, times)
	base, _ := replayAll(t, TraceSpec{File: p, Format: FormatCSV, Columns: synthCols}, math.Inf(1))
	for _, shift := range []float64{1, 7.5} {
		recs, sum := replayAll(t, TraceSpec{File: p, Format: FormatCSV, Columns: synthCols, Scale: 3, CopyShift: Duration(shift)}, math.Inf(1))
		if len(recs) != 3*len(base) || sum.Copies != 3 {
			t.Fatalf("shift %v: %d records, want %d", shift, len(recs), 3*len(base))
		}
		if !slices.IsSorted(recTimes(recs)) {
			t.Fatal("copies are not merged in time order")
		}
		// Every window's count is exactly the sum of the shifted copies'.
		bt := recTimes(base)
		const width, nw = 30.0, 40
		got := windowCounts(recTimes(recs), width, nw)
		want := make([]int, nw)
		for j := 0; j < 3; j++ {
			shifted := make([]float64, len(bt))
			for i, x := range bt {
				shifted[i] = x + float64(j)*shift
			}
			for i, c := range windowCounts(shifted, width, nw) {
				want[i] += c
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("shift %v: window counts %v, want %v", shift, got, want)
		}
	}
	// A fractional scale adds a thinned copy.
	recs, sum := replayAll(t, TraceSpec{File: p, Format: FormatCSV, Columns: synthCols, Scale: 1.25}, math.Inf(1))
	n := float64(len(base))
	if sum.Copies != 2 || math.Abs(float64(len(recs))-1.25*n) > 4*math.Sqrt(0.25*0.75*n) {
		t.Errorf("scale 1.25: %d records of %d, %d copies", len(recs), len(base), sum.Copies)
	}
}

func TestReplayThinningKeepsShape(t *testing.T) {
	times := poissonTimes(20000, 3)
	p := synthTrace(t, times)
	base, _ := replayAll(t, TraceSpec{File: p, Format: FormatCSV, Columns: synthCols}, math.Inf(1))
	recs, _ := replayAll(t, TraceSpec{File: p, Format: FormatCSV, Columns: synthCols, Scale: 0.3}, math.Inf(1))
	const width, nw = 300.0, 13
	b := windowCounts(recTimes(base), width, nw)
	g := windowCounts(recTimes(recs), width, nw)
	for i := range b {
		mean, sd := 0.3*float64(b[i]), math.Sqrt(0.3*0.7*float64(b[i]))
		if math.Abs(float64(g[i])-mean) > 4*sd+1 {
			t.Errorf("window %d: %d kept of %d, want %.0f ± %.0f", i, g[i], b[i], mean, 4*sd)
		}
	}
	// Kept records are records of the trace, untouched.
	j := 0
	for _, r := range recs {
		for j < len(base) && base[j].Line != r.Line {
			j++
		}
		if j == len(base) || base[j].Time != r.Time || base[j].Input != r.Input {
			t.Fatalf("kept record %+v is not in the trace", r)
		}
	}
}

func TestReplayLoop(t *testing.T) {
	p := synthTrace(t, []float64{10, 11, 13})
	// Span 3 s, mean gap 1.5 s: period 4.5 s.
	recs, sum := replayAll(t, TraceSpec{File: p, Format: FormatCSV, Columns: synthCols, Loop: true}, 12)
	want := []float64{0, 1, 3, 4.5, 5.5, 7.5, 9, 10, 12}
	got := recTimes(recs)
	if len(got) != 8 {
		t.Fatalf("got %v", got)
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("got %v, want %v (before 12)", got, want[:8])
		}
	}
	if sum.Passes != 3 {
		t.Errorf("passes %d", sum.Passes)
	}
	// With a window end the period is the window.
	recs, _ = replayAll(t, TraceSpec{File: p, Format: FormatCSV, Columns: synthCols, Loop: true, From: 1, To: 5}, 9)
	if got := recTimes(recs); !slices.Equal(got, []float64{0, 2, 4, 6, 8}) {
		t.Errorf("window loop: %v", got)
	}
	one := synthTrace(t, []float64{1})
	rp, _ := OpenReplay(&TraceSpec{File: one, Format: FormatCSV, Columns: synthCols, Loop: true}, 100, nil)
	defer rp.Close()
	rp.Next()
	if _, err := rp.Next(); err == nil || !strings.Contains(err.Error(), "loop needs at least two records") {
		t.Errorf("one-record loop: %v", err)
	}
}

func TestReplayMooncakeKeys(t *testing.T) {
	recs, sum := replayAll(t, TraceSpec{File: "testdata/made_up_mooncake.jsonl"}, math.Inf(1))
	if len(recs) != 4 || sum.BlockTokens != 512 || sum.WithKeys != 4 {
		t.Fatalf("got %d records, summary %+v", len(recs), sum)
	}
	// Only whole prompt blocks: 1300 tokens have 2, 1800 have 3.
	lens := []int{len(recs[0].Keys), len(recs[1].Keys), len(recs[2].Keys), len(recs[3].Keys)}
	if !slices.Equal(lens, []int{2, 3, 1, 2}) {
		t.Fatalf("key counts %v", lens)
	}
	k := func(i, j int) uint64 { return recs[i].Keys[j] }
	if k(0, 0) != k(1, 0) || k(0, 1) != k(1, 1) || k(0, 0) != k(2, 0) || !slices.Equal(recs[0].Keys, recs[3].Keys) {
		t.Error("shared leading hash ids must give equal keys")
	}
	if k(1, 2) == k(0, 1) {
		t.Error("a key names the whole prefix, not the block")
	}
	// Copies are other users: their keys are their own.
	recs2, _ := replayAll(t, TraceSpec{File: "testdata/made_up_mooncake.jsonl", Scale: 2}, math.Inf(1))
	if recs2[2].Time != 1 || recs2[2].Input != 1300 || recs2[2].Keys[0] == recs2[0].Keys[0] {
		t.Errorf("copy 1 (delayed 1 s) shares copy 0's keys: %+v", recs2[:3])
	}
}

func TestReplaySessionKeys(t *testing.T) {
	spec := TraceSpec{File: "testdata/chat_sessions.csv", Format: FormatCSV, TimeUnit: TimeMillis,
		Columns: TraceColumns{Time: "ts_ms", Input: "prompt_tokens", Output: "completion_tokens", Session: "conv"}}
	recs, _ := replayAll(t, spec, math.Inf(1))
	// a: (100, 50), (300, 40), (400, 30); b: (80, 20), (50, 10). Blocks of 64.
	a1, b1, a2, b2, a3 := recs[0].Keys, recs[1].Keys, recs[2].Keys, recs[3].Keys, recs[4].Keys
	if len(a1) != 2 || len(a2) != 5 || len(a3) != 6 || len(b1) != 1 || len(b2) != 0 {
		t.Fatalf("key counts %d %d %d %d %d", len(a1), len(a2), len(a3), len(b1), len(b2))
	}
	if !slices.Equal(a2[:2], a1) || !slices.Equal(a3[:5], a2) {
		t.Error("a later turn's context starts with the previous turn's")
	}
	if a1[0] == b1[0] {
		t.Error("sessions share keys")
	}
	// b's second turn is shorter than its first context: a new conversation.
	spec.BlockSize = 16
	recs, _ = replayAll(t, spec, math.Inf(1))
	if b1, b2 := recs[1].Keys, recs[3].Keys; b1[0] == b2[0] {
		t.Error("a shorter turn must not reuse the old context")
	}
}

func TestReplayPrefixKeys(t *testing.T) {
	src := "t,in,out,sys\n0,500,1,a\n1,300,1,a\n2,500,1,b\n3,50,1,a\n"
	p := writeFile(t, "p.csv", src)
	recs, _ := replayAll(t, TraceSpec{File: p, Format: FormatCSV, PrefixTokens: 256, BlockSize: 128,
		Columns: TraceColumns{Time: "t", Input: "in", Output: "out", Prefix: "sys"}}, math.Inf(1))
	if len(recs[0].Keys) != 2 || !slices.Equal(recs[0].Keys, recs[1].Keys) || recs[2].Keys[0] == recs[0].Keys[0] || recs[3].Keys != nil {
		t.Errorf("prefix keys: %v", recs)
	}
}

func TestReplayHorizonAndZeroTokens(t *testing.T) {
	recs, sum := replayAll(t, TraceSpec{File: "testdata/burstgpt_small.csv"}, 100)
	if len(recs) != 3 || sum.Requests != 3 {
		t.Fatalf("horizon 100: %d records", len(recs))
	}
	_, sum = replayAll(t, TraceSpec{File: "testdata/burstgpt_small.csv"}, 1000)
	if sum.ZeroOutput != 1 || sum.Output.Max < 270 {
		t.Errorf("summary %+v", sum)
	}
}

func TestForgetSessionsKeepsNewest(t *testing.T) {
	st := &replayStream{sess: map[uint64]sessState{}}
	for i := 0; i < 1000; i++ {
		st.sess[uint64(i)] = sessState{lastSeen: float64(i)}
	}
	rp := &Replay{}
	rp.forget(st)
	if len(st.sess) > 500 || len(st.sess) < 499 {
		t.Errorf("kept %d", len(st.sess))
	}
	for k := range st.sess {
		if k < 499 {
			t.Errorf("kept old session %d", k)
		}
	}
}

func TestReplayServeGenWithoutStream(t *testing.T) {
	recs, _ := replayAll(t, TraceSpec{File: "testdata/made_up_servegen-trace.csv", Scale: 0.5}, math.Inf(1))
	rp, err := OpenReplay(&TraceSpec{File: "testdata/made_up_servegen-trace.csv"}, math.Inf(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	n := 0
	for {
		if _, err := rp.Next(); err != nil {
			break
		}
		n++
	}
	if n < 1000 || len(recs) > n {
		t.Errorf("%d requests without a stream, %d thinned to half", n, len(recs))
	}
}

// TestReplayCountsRowsBeyondHorizon: a horizon that ends before the file
// still counts every row read, and says how many were not replayed (the
// summary once printed "0 rows read, 0 kept").
func TestReplayCountsRowsBeyondHorizon(t *testing.T) {
	times := make([]float64, 100)
	for i := range times {
		times[i] = float64(i) // one row a second, 0..99
	}
	p := synthTrace(t, times)
	spec := TraceSpec{File: p, Format: FormatCSV, Columns: synthCols}
	recs, sum := replayAll(t, spec, 50.5)
	if len(recs) != 51 || sum.Requests != 51 {
		t.Fatalf("horizon 50.5 s: %d records replayed, want 51 (0..50)", len(recs))
	}
	if sum.RowsRead != 100 || sum.RowsKept != 100 || sum.BeyondHorizon != 49 || sum.BeyondAtLeast || sum.TraceSpanS != 99 {
		t.Errorf("summary read %d, kept %d, beyond %d (at least: %v), span %v; want 100, 100, 49, false, 99",
			sum.RowsRead, sum.RowsKept, sum.BeyondHorizon, sum.BeyondAtLeast, sum.TraceSpanS)
	}
	// At twice the speed the horizon of 25.25 s reaches trace time 50.5 s.
	spec.Speed = 2
	recs, sum = replayAll(t, spec, 25.25)
	if len(recs) != 51 || sum.BeyondHorizon != 49 {
		t.Errorf("speed 2: %d replayed, %d beyond; want 51 and 49", len(recs), sum.BeyondHorizon)
	}
	// A horizon past the file: nothing beyond.
	spec.Speed = 0
	_, sum = replayAll(t, spec, 1000)
	if sum.RowsRead != 100 || sum.BeyondHorizon != 0 {
		t.Errorf("whole file: read %d, beyond %d; want 100 and 0", sum.RowsRead, sum.BeyondHorizon)
	}
	// A bad row past the horizon does not fail the replay; the count stops
	// there and says it is a lower bound.
	var b strings.Builder
	b.WriteString("t,in,out\n")
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, "%d,100,10\n", i)
	}
	b.WriteString("11,not-a-number,10\n12,100,10\n")
	spec = TraceSpec{File: writeFile(t, "bad-tail.csv", b.String()), Format: FormatCSV, Columns: synthCols}
	recs, sum = replayAll(t, spec, 5.5)
	if len(recs) != 6 || sum.BeyondHorizon != 4 || !sum.BeyondAtLeast {
		t.Errorf("bad tail: %d replayed, %d beyond (at least %v); want 6, 4, true", len(recs), sum.BeyondHorizon, sum.BeyondAtLeast)
	}
}
