package model

import (
	"math"
	"testing"

	"github.com/headroom-sim/headroom/workloads"
)

// overloadConfig offers 10 requests/s (600 a minute) of 100 input and 10
// output tokens to a provider allowing 100 RPM, 20k ITPM and 6k OTPM, with
// no retries: demand is six times the RPM limit, three times the ITPM
// limit, and exactly the OTPM limit.
func overloadConfig(seed uint64) Config {
	return Config{
		Name: "overload", Seed: seed, Duration: 3 * 3600, Interval: 300,
		Workloads: []WorkloadSpec{{
			Name: "chat", Route: "api",
			Demand: workloads.DemandSpec{Unit: "requests/s", Hourly: []float64{2, 10, 2}},
			Tokens: workloads.TokenSpec{Input: workloads.Fixed(100), Output: workloads.Fixed(10), MaxTokens: 10},
			Client: ClientSpec{Retry: RetrySpec{Preset: "none"}},
			SLO:    SLOSpec{TTFT: 1},
		}},
		Providers: []ProviderSpec{{
			Name:    "api",
			Limits:  LimitsSpec{RPM: 100, ITPM: 20000, OTPM: 6000},
			Latency: LatencySpec{TTFT: TTFTSpec{Base: 0.2}},
		}},
	}
}

// TestPeakDemandCountsEveryArrival: with no client queue every request
// reaches the limits at its first attempt as it arrives, so each limit's
// peak demand is exactly the busiest interval's arrivals in the limit's
// units, over the limit: far above the peak use a token bucket can ever
// admit ((interval + burst)/interval = 1.2 here).
func TestPeakDemandCountsEveryArrival(t *testing.T) {
	r := mustRun(t, overloadConfig(1))
	busiest, at := int64(0), 0
	for i, v := range r.Series.Offered {
		if v > busiest {
			busiest, at = v, i
		}
	}
	perMin := float64(busiest) / 5
	want := map[string]float64{"rpm": perMin / 100, "itpm": perMin * 100 / 20000, "otpm": perMin * 10 / 6000}
	limits := r.Backends[0].Limits
	if len(limits) != 3 {
		t.Fatalf("%d limits, want 3", len(limits))
	}
	for _, l := range limits {
		if math.Abs(l.PeakDemand-want[l.Dimension]) > 1e-9 {
			t.Errorf("%s: peak demand %.4f, want %.4f (%d arrivals in the busiest 5 minutes)", l.Dimension, l.PeakDemand, want[l.Dimension], busiest)
		}
		if l.PeakDemandIntervalS != float64(at)*300 {
			t.Errorf("%s: peak demand in the interval from %gs, want %gs", l.Dimension, l.PeakDemandIntervalS, float64(at)*300)
		}
		if l.PeakUse > 1.2+1e-9 {
			t.Errorf("%s: peak use %.3f above the bucket's ceiling 1.2", l.Dimension, l.PeakUse)
		}
	}
	if l := limits[0]; l.Dimension != "rpm" || l.PeakDemand < 5 {
		t.Errorf("rpm demand %.2f×, want about 6×", l.PeakDemand)
	}
	if f := r.Findings; f.FirstToBind == nil || f.MostRefused == nil || f.MostRefused.Dimension != "rpm" {
		t.Errorf("findings %+v: want rpm refusing the most", f)
	}
}

// TestPeakWindowIsTheBusiestHour: the middle hour offers five times the
// others; the peak window is that hour, and its counts add up to what the
// series and the run's summary say about requests that arrived in it.
func TestPeakWindowIsTheBusiestHour(t *testing.T) {
	r := mustRun(t, overloadConfig(2))
	p := r.Findings.PeakWindow
	if p == nil {
		t.Fatal("no peak window")
	}
	if p.StartS != 3600 || p.EndS != 7200 {
		t.Fatalf("peak window [%g, %g), want the middle hour [3600, 7200)", p.StartS, p.EndS)
	}
	var offered int64
	for i := 12; i < 24; i++ {
		offered += r.Series.Offered[i]
	}
	if p.Offered != offered {
		t.Errorf("offered %d, series say %d", p.Offered, offered)
	}
	// Nothing waits (no client queue, no retries): every arrival ends in
	// its hour but for the last few in service at its end.
	if p.Completed+p.Failed > p.Offered || p.Offered-p.Completed-p.Failed > 10 {
		t.Errorf("offered %d, completed %d, failed %d", p.Offered, p.Completed, p.Failed)
	}
	// Only about one request in six fits the RPM limit in the peak hour,
	// against most of the quiet hours'.
	if p.SLOAttainment > 0.25 || p.SLOAttainment >= r.Summary.Goodput.SLOAttainment {
		t.Errorf("peak-hour SLO attainment %.3f, whole run %.3f", p.SLOAttainment, r.Summary.Goodput.SLOAttainment)
	}
	if want := float64(p.Good) / float64(p.Completed+p.Failed); p.SLOAttainment != want {
		t.Errorf("attainment %v, good/ended %v", p.SLOAttainment, want)
	}
	if p.TTFT.Count != p.Completed || math.Abs(p.TTFT.P95-0.2) > 1e-6 {
		t.Errorf("peak TTFT %+v", p.TTFT)
	}
}

// TestNoPeakWindowInAShortRun: a run of one hour or less is its own peak.
func TestNoPeakWindowInAShortRun(t *testing.T) {
	c := overloadConfig(1)
	c.Duration, c.Interval = 3600, 60
	if p := mustRun(t, c).Findings.PeakWindow; p != nil {
		t.Errorf("peak window %+v in a one-hour run", p)
	}
}

// TestLatencyCurvesAreQuantiles: the curves are non-decreasing, start at
// the minimum, end at the maximum and pass through the summary's p50 and
// p95.
func TestLatencyCurvesAreQuantiles(t *testing.T) {
	r := mustRun(t, mmcConfig(2, 1, 3, 4*3600, 1))
	w := r.Workloads[0]
	c := w.Curves
	if c == nil || len(c.Shares) != len(c.TTFT) || len(c.E2E) != len(c.TTFT) {
		t.Fatalf("curves %+v", c)
	}
	for i := 1; i < len(c.TTFT); i++ {
		if c.TTFT[i] < c.TTFT[i-1] || c.E2E[i] < c.E2E[i-1] || c.Shares[i] <= c.Shares[i-1] {
			t.Fatalf("not increasing at %d: %+v", i, c)
		}
	}
	q := w.Summary.Latency.TTFT
	at := func(share float64) float64 {
		for i, s := range c.Shares {
			if s == share {
				return c.TTFT[i]
			}
		}
		t.Fatalf("no share %v", share)
		return 0
	}
	if at(0.5) != q.P50 || at(0.95) != q.P95 || at(1) != q.Max {
		t.Errorf("curve p50 %v p95 %v max %v, summary %+v", at(0.5), at(0.95), at(1), q)
	}
}
