package workloads

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// synthFitTrace draws a trace from known distributions: hourly rates
// (requests/min) with gamma arrivals of the given cv, lognormal tokens
// (input median 1000, p95 4000; output median 200, p95 800), and writes it
// as a CSV with times in seconds.
func synthFitTrace(t testing.TB, hourly []float64, cv float64, seed uint64) string {
	t.Helper()
	d := DemandSpec{Unit: UnitPerMinute, Hourly: hourly, Arrivals: ArrivalSpec{Kind: ArrivalGamma, CV: cv}}
	c, err := d.BuildCurve(0)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 1))
	arr := NewArrivals(c, d.Arrivals, r)
	in := Dist{Kind: KindLogNormal, Median: 1000, P95: 4000}
	out := Dist{Kind: KindLogNormal, Median: 200, P95: 800}
	p := filepath.Join(t.TempDir(), "synth.csv")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "t,in,out")
	end := float64(len(hourly)) * 3600
	for {
		x := arr.Next()
		if x >= end {
			break
		}
		fmt.Fprintf(w, "%.6f,%d,%d\n", x, max(1, int(math.Round(in.Sample(r)))), max(1, int(math.Round(out.Sample(r)))))
	}
	w.Flush()
	f.Close()
	return p
}

// TestFitRecoversKnownDistributions: a fit of a synthetic trace recovers the
// distributions it was drawn from: the mean rate within 2% and every hour's
// within three standard deviations of its sampling noise (cv/√n relative),
// the arrival cv within 10%, the lognormal medians and 95th percentiles
// within 5%.
func TestFitRecoversKnownDistributions(t *testing.T) {
	hourly := []float64{600, 1200, 1800, 900}
	for _, cv := range []float64{1, 2.5} {
		p := synthFitTrace(t, hourly, cv, uint64(10*cv))
		// Times are relative to the first record; with a rate of 10/s it
		// comes within a fraction of a second, which the curve absorbs.
		fit, err := FitTrace(TraceSpec{File: p, Format: FormatCSV, Columns: TraceColumns{Time: "t", Input: "in", Output: "out"}}, FitOptions{Every: 3600})
		if err != nil {
			t.Fatal(err)
		}
		if len(fit.Groups) != 1 {
			t.Fatalf("%d groups", len(fit.Groups))
		}
		g := fit.Groups[0]
		pts := g.Demand.Curve
		if len(pts) != len(hourly) || fit.Folded {
			t.Fatalf("cv %v: curve %v", cv, pts)
		}
		var sum, wantSum float64
		for i, want := range hourly {
			sum += pts[i]
			wantSum += want
			if tol := 3 * cv / math.Sqrt(want*60); math.Abs(pts[i]/want-1) > tol {
				t.Errorf("cv %v: hour %d rate %.1f/min, drawn at %.0f (tolerance %.1f%%)", cv, i, pts[i], want, 100*tol)
			}
		}
		if math.Abs(sum/wantSum-1) > 0.02 {
			t.Errorf("cv %v: mean rate %.1f/min, drawn at %.1f", cv, sum/4, wantSum/4)
		}
		gotCV := g.GapCV
		if g.Demand.Arrivals.Kind == ArrivalGamma {
			gotCV = g.Demand.Arrivals.CV
		}
		if math.Abs(gotCV/cv-1) > 0.10 {
			t.Errorf("cv %v: fitted %.3f (%+v)", cv, gotCV, g.Demand.Arrivals)
		}
		for _, tc := range []struct {
			name        string
			tf          TokenFit
			median, p95 float64
		}{{"input", g.Input, 1000, 4000}, {"output", g.Output, 200, 800}} {
			if !tc.tf.Lognormal {
				t.Errorf("cv %v: %s not fitted as lognormal (max error %.3f)", cv, tc.name, tc.tf.LognormalErr)
				continue
			}
			if d := tc.tf.Dist; math.Abs(d.Median/tc.median-1) > 0.05 || math.Abs(d.P95/tc.p95-1) > 0.05 {
				t.Errorf("cv %v: %s fitted %v, drawn from median %v p95 %v", cv, tc.name, d, tc.median, tc.p95)
			}
		}
		if math.Abs(g.LogCorrelation) > 0.05 {
			t.Errorf("independent draws, log correlation %.3f", g.LogCorrelation)
		}
		t.Logf("cv %v: %d requests, curve %v, gap cv %.3f (raw %.3f), input %v, output %v", cv, g.Requests, pts, g.GapCV, g.RawCV, g.Input.Dist, g.Output.Dist)
	}
}

// TestFitFoldsDays: a trace over several days gives one repeating day.
func TestFitFoldsDays(t *testing.T) {
	day := make([]float64, 24)
	for h := range day {
		day[h] = 30 + 20*float64(h%12)
	}
	var hourly []float64
	for d := 0; d < 3; d++ {
		hourly = append(hourly, day...)
	}
	p := synthFitTrace(t, hourly, 1, 5)
	fit, err := FitTrace(TraceSpec{File: p, Format: FormatCSV, Columns: TraceColumns{Time: "t", Input: "in", Output: "out"}}, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := fit.Groups[0]
	if !fit.Folded || !g.Demand.Repeat || len(g.Demand.Curve) != 24 || fit.EveryS != 3600 {
		t.Fatalf("folded %v, curve %v every %v", fit.Folded, g.Demand.Curve, fit.EveryS)
	}
	for h, want := range day {
		if math.Abs(g.Demand.Curve[h]/want-1) > 0.1 {
			t.Errorf("hour %d: %.1f, drawn at %.0f", h, g.Demand.Curve[h], want)
		}
	}
	if g.DayToDay > 0.15 || g.DayToDay == 0 {
		t.Errorf("day-to-day deviation %.3f", g.DayToDay)
	}
	if g.Demand.Arrivals.Kind != ArrivalPoisson {
		t.Errorf("poisson arrivals fitted as %+v (gap cv %.3f)", g.Demand.Arrivals, g.GapCV)
	}
}

// TestFitGroupsAndPrefixes: one workload per tenant; sessions give a
// prefix share.
func TestFitGroupsAndPrefixes(t *testing.T) {
	spec := TraceSpec{File: "testdata/chat_sessions.csv", Format: FormatCSV, TimeUnit: TimeMillis,
		Columns: TraceColumns{Time: "ts_ms", Input: "prompt_tokens", Output: "completion_tokens", Session: "conv", Tenant: "user"}}
	fit, err := FitTrace(spec, FitOptions{By: "tenant"})
	if err != nil {
		t.Fatal(err)
	}
	if len(fit.Groups) != 2 || fit.Groups[0].Name != "acme" || fit.Groups[0].Requests != 3 || fit.Groups[1].Requests != 2 {
		t.Fatalf("groups %+v", fit.Groups)
	}
	// acme: turn 2 (300 in) reuses turn 1's 150 tokens of context (2
	// blocks of 64 = 128); turn 3 (400 in) reuses 340 (5 blocks = 320).
	// Of 800 prompt tokens, 448 reused.
	a := fit.Groups[0]
	if math.Abs(a.PrefixShare-448.0/800) > 1e-9 || a.SharedPrefix == 0 || a.Prefixes != 1 {
		t.Errorf("acme reuse %.4f, shared %d, prefixes %d", a.PrefixShare, a.SharedPrefix, a.Prefixes)
	}
}

// TestSharedPrefixForKeepsTheShare: the shared prefix reuses the trace's
// share of prompt tokens although it lengthens shorter prompts: prompts of
// 100, 300 and 400 tokens and a share of 0.56 give S = 0.56 (S + 700)/3,
// S = 392/2.44.
func TestSharedPrefixForKeepsTheShare(t *testing.T) {
	third := 1.0 / 3
	s, mean, clamped := sharedPrefixFor([]float64{100, 300, 400}, []float64{third, third, third}, 0.56)
	if want := 392 / 2.44; math.Abs(float64(s)-want) > 0.5 || math.Abs(mean-800.0/3) > 1e-9 || math.Abs(clamped-(float64(s)+700)/3) > 1e-9 {
		t.Errorf("S %d (want %.1f), mean %v, clamped %v", s, want, mean, clamped)
	}
}

// TestFitEpochClock: numeric times that are Unix timestamps (2000 to 2100)
// give the fit its clock time, UTC, in every unit; times counted from the
// log's start (chat_sessions.csv's 1,000 ms) do not; and a timestamp read
// in too large a unit says which unit makes it one.
func TestFitEpochClock(t *testing.T) {
	dir := t.TempDir()
	// 2025-12-01 08:00:01.679 UTC is 1764576001.679 s.
	for _, c := range []struct {
		unit  string
		first string
		step  int64
	}{{TimeSeconds, "1764576001.679", 1}, {TimeMillis, "1764576001679", 1000}, {TimeMicros, "1764576001679000", 1e6}, {TimeNanos, "1764576001679000000", 1e9}} {
		var b strings.Builder
		b.WriteString("t,in,out\n")
		for i := int64(0); i < 50; i++ {
			if i == 0 {
				fmt.Fprintf(&b, "%s,100,10\n", c.first)
				continue
			}
			// later records: the first's whole units plus i·10 s
			whole, _, _ := strings.Cut(c.first, ".")
			var v int64
			fmt.Sscan(whole, &v)
			fmt.Fprintf(&b, "%d,100,10\n", v+i*10*c.step)
		}
		p := filepath.Join(dir, c.unit+".csv")
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		fit, err := FitTrace(TraceSpec{File: p, Format: FormatCSV, TimeUnit: c.unit, Columns: TraceColumns{Time: "t", Input: "in", Output: "out"}}, FitOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.unit, err)
		}
		if !fit.ClockKnown || math.Abs(fit.StartClock-(8*3600+1.679)) > 1e-3 || fit.Groups[0].Demand.From != "08:00:01" {
			t.Errorf("%s: clock known %v at %.3f s after midnight, curve from %s; want 08:00:01.679", c.unit, fit.ClockKnown, fit.StartClock, fit.Groups[0].Demand.From)
		}
	}
	spec := TraceSpec{File: "testdata/chat_sessions.csv", Format: FormatCSV, TimeUnit: TimeMillis,
		Columns: TraceColumns{Time: "ts_ms", Input: "prompt_tokens", Output: "completion_tokens"}}
	if fit, err := FitTrace(spec, FitOptions{}); err != nil || fit.ClockKnown {
		t.Errorf("times from the log's start: clock known %v (err %v)", fit != nil && fit.ClockKnown, err)
	}
	for _, c := range []struct {
		ns   int64
		want bool
	}{{946_684_800e9 - 1, false}, {946_684_800e9, true}, {4_102_444_800e9 - 1, true}, {4_102_444_800e9, false}, {1000e6, false}} {
		if EpochTime(c.ns) != c.want {
			t.Errorf("EpochTime(%d) = %v", c.ns, !c.want)
		}
	}
	for _, c := range []struct {
		v    string
		unit float64
		want string
	}{
		{"1764576001679", 1e9, `time "1764576001679" is out of range; as milliseconds since 1970 it is 2025-12-01 08:00:01 UTC: time_unit = "ms"?`},
		{"1764576001679000", 1e9, `as microseconds since 1970 it is 2025-12-01 08:00:01 UTC: time_unit = "us"?`},
		{"1764576001679000000", 1e6, `as nanoseconds since 1970 it is 2025-12-01 08:00:01 UTC: time_unit = "ns"?`},
		{"1e300", 1e9, `time "1e300" is out of range`},
	} {
		_, err := parseNumericTime(c.v, c.unit)
		if err == nil || !strings.Contains(err.Error(), c.want) || (c.v == "1e300" && strings.Contains(err.Error(), "since 1970")) {
			t.Errorf("%s at %g ns a unit: %v, want %q", c.v, c.unit, err, c.want)
		}
	}
}
