package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
)

// bound is a run on one tier whose ITPM refuses first and OTPM most, with
// demand 3.6 times OTPM at its peak, and a GPU cluster of 6 × TP8.
func bound() *model.Results {
	r := &model.Results{Scenario: "s", Seed: 1, DurationS: 7200, IntervalS: 300, StartClock: "08:00"}
	r.Summary.Requests = model.RequestCounts{Offered: 1000, Completed: 900, Failed: 100, FailedBy: map[string]int64{"otpm": 80, "itpm": 20}}
	r.Summary.Attempts = model.AttemptCounts{Total: 1500, Retries: 500, RetriesPerRequest: 0.5, Rejected: map[string]int64{"otpm": 400, "itpm": 100, "concurrency": 7}}
	r.Summary.Latency.TTFT = model.Quantiles{Count: 900, P50: 0.5, P95: 2.5}
	r.Summary.Goodput.SLOAttainment = 0.9
	r.Backends = []model.BackendResult{
		{Name: "sonnet", Kind: "hosted", Limits: []model.LimitResult{
			{Scope: "org", Dimension: "itpm", Limit: 800000, Rejected: 100, FirstRejectS: 3783, PeakRejectIntervalS: 3900, PeakUse: 1.19, PeakDemand: 1.5, PeakDemandIntervalS: 3600},
			{Scope: "org", Dimension: "otpm", Limit: 160000, Rejected: 400, FirstRejectS: 3938, PeakRejectIntervalS: 4200, PeakUse: 1.18, PeakDemand: 3.6, PeakDemandIntervalS: 3900},
		}},
		{Name: "llama", Kind: "cluster", Attempts: 10, Cost: model.Cost{Total: 120},
			Cluster: &model.ClusterResult{Replicas: 6, GPUs: 48, GPU: "H100-SXM", MaxNumSeqs: 256, PeakBatch: 256, Utilization: 0.97, GPUHours: 96}},
	}
	r.Findings = model.Findings{
		FirstToBind: &model.LimitRef{Backend: "sonnet", Scope: "org", Dimension: "itpm"},
		MostRefused: &model.LimitRef{Backend: "sonnet", Scope: "org", Dimension: "otpm"},
		Clusters:    []model.ClusterFinding{{Backend: "llama", Bound: model.BoundBatch}},
		Backlog:     &model.Backlog{Peak: 33, PeakIntervalS: 4200, ClearedS: 6300},
		PeakWindow: &model.PeakWindow{StartS: 3600, EndS: 7200, Offered: 600, Completed: 520, Failed: 80, Good: 420, SLOAttainment: 0.7,
			TTFT: model.Quantiles{Count: 520, P95: 6.8}},
	}
	return r
}

func TestVerdictSaysWhatBindsAndByHowMuch(t *testing.T) {
	v := Verdict(bound())
	got := strings.Join(v, "\n")
	for _, want := range []string{
		"900 of 1,000 requests completed (90.0%), 100 failed (10.0%: otpm 80, itpm 20).",
		"First to bind: sonnet ITPM limit 800k binds: 100 attempts refused (429), first at 09:03:03, most in the interval from 09:05; peak use 119% of the limit; offered demand peaks at 1.5× the limit in the interval from 09:00.",
		"sonnet OTPM limit 160k binds: 400 attempts refused (429), first at 09:05:38, most in the interval from 09:10; peak use 118% of the limit; offered demand peaks at 3.6× the limit in the interval from 09:05.",
		"llama (6 replicas × TP8 = 48 H100-SXM): running iterations 97% of the time",
		"saturated: the batch is full",
		"Other refusals: concurrency 7.",
		"Busiest hour, 09:00–10:00 (600 of the 1,000 requests arrived then): 13.3% of them failed (whole run 10.0%), SLOs met by 70.0% (whole run 90.0%), TTFT p95 6.8s (whole run 2.5s).",
		"Backlog peaks at 33 waiting requests in the interval from 09:10 and clears by 09:45.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("verdict lacks\n  %s\nin\n%s", want, got)
		}
	}
	if strings.HasPrefix(v[2], "First to bind") {
		t.Errorf("only the first to bind is marked: %q", v[2])
	}
}

func TestVerdictWithoutRefusalsNamesDemandHeldBack(t *testing.T) {
	r := &model.Results{StartClock: "00:00", IntervalS: 300, DurationS: 3600}
	r.Summary.Requests = model.RequestCounts{Offered: 10, Completed: 10}
	r.Backends = []model.BackendResult{{Name: "fast", Limits: []model.LimitResult{{Scope: "org", Dimension: "rpm", Limit: 1000, FirstRejectS: -1, PeakUse: 1, PeakDemand: 3.6, PeakDemandIntervalS: 600}}}}
	r.Findings.Tightest = &model.LimitRef{Backend: "fast", Scope: "org", Dimension: "rpm"}
	got := strings.Join(Verdict(r), "\n")
	if want := "No rate limit refused a request, but fast RPM was at 100% of its limit at peak while offered demand peaks at 3.6× the limit in the interval from 00:10"; !strings.Contains(got, want) {
		t.Errorf("verdict:\n%s\nlacks %q", got, want)
	}
	r.Backends[0].Limits[0].PeakUse, r.Backends[0].Limits[0].PeakDemand = 0.5, 0.5
	if got := strings.Join(Verdict(r), "\n"); !strings.Contains(got, "the tightest was fast RPM at 50% of its limit at peak (headroom 2.0×)") {
		t.Errorf("verdict:\n%s", got)
	}
}

func TestGPUsCountsHardware(t *testing.T) {
	for _, c := range []struct {
		in   model.ClusterResult
		want string
	}{
		{model.ClusterResult{Replicas: 6, GPUs: 48, GPU: "H100-SXM"}, "6 replicas × TP8 = 48 H100-SXM"},
		{model.ClusterResult{Replicas: 1, GPUs: 4, GPU: "H100-SXM"}, "1 replica × TP4 = 4 H100-SXM"},
		{model.ClusterResult{Replicas: 2, GPUs: 2}, "2 replicas × TP1 = 2 GPUs"},
		{model.ClusterResult{Replicas: 2, TensorParallel: 4, GPUs: 8, PeakGPUs: 24, GPU: "A100"}, "2 replicas × TP4 = 8 A100, up to 24 at peak"},
	} {
		if got := GPUs(&c.in); got != c.want {
			t.Errorf("GPUs(%+v) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestTerminalCrossVariantLineAndWarnings: with several variants the
// terminal ends with the cheapest that holds, as the HTML does, then the
// document's warnings; the busiest hour sits beside the whole run.
func TestTerminalCrossVariantLineAndWarnings(t *testing.T) {
	base := bound()
	tier := bound()
	tier.Variant = "tier 4"
	tier.Summary.Requests = model.RequestCounts{Offered: 1000, Completed: 1000}
	tier.Summary.Goodput.SLOAttainment = 1
	tier.Summary.Cost.Total = 150
	d := NewDocument("headroom test", ScenarioInfo{Name: "s"}, []*model.Results{base, tier})
	d.Warnings = []Warning{{Key: "provider.sonnet.price", Message: "no price: its tokens cost $0.00"}}
	var b bytes.Buffer
	if err := WriteTerminal(&b, d); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"busiest hour   09:00–10:00",
		"busiest-hour TTFT p95",
		// The base failed 10%: its cost is for fewer requests, so the two
		// are also set side by side per completed request.
		"Cheapest change that holds (at most 0.1% of requests failing and at least 99% meeting their SLOs): “tier 4”, at $150 (+$150 against the base, which completed 10% fewer requests: $150 against $0.00 per 1,000 completed).",
		"Warnings (defaults that change the answer):\n  ! provider.sonnet.price: no price: its tokens cost $0.00",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal lacks %q:\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "Cheapest change"), strings.Index(out, "tier 4:\n"); i < j {
		t.Errorf("the cross-variant line comes before the verdicts")
	}
}

func TestNewDocumentKeepsAGivenVerdict(t *testing.T) {
	r := bound()
	r.Verdict = []string{"kept"}
	NewDocument("g", ScenarioInfo{}, []*model.Results{r})
	if len(r.Verdict) != 1 || r.Verdict[0] != "kept" {
		t.Errorf("verdict %q", r.Verdict)
	}
	r.Verdict = nil
	NewDocument("g", ScenarioInfo{}, []*model.Results{r})
	if len(r.Verdict) < 5 {
		t.Errorf("verdict %q", r.Verdict)
	}
}

// TestCheapestComparesPerCompletedRequest: a base that failed 45% of its
// requests looks cheap in total; the cross-variant line says its cost is
// for fewer requests and compares per 1,000 completed, and names a
// variant base by its name.
func TestCheapestComparesPerCompletedRequest(t *testing.T) {
	mk := func(name string, completed int64, cost, att float64) *model.Results {
		r := &model.Results{Scenario: "s", Variant: name, DurationS: 3600}
		r.Summary.Requests = model.RequestCounts{Offered: 10000, Completed: completed, Failed: 10000 - completed}
		r.Summary.Goodput.SLOAttainment = att
		r.Summary.Cost.Total = cost
		return r
	}
	base := mk("", 5500, 631, 0.55)
	tier := mk("tier 2", 10000, 1080, 1)
	want := "Cheapest change that holds (" + HoldRule + "): “tier 2”, at $1,080 (+$449 against the base, which completed 45% fewer requests: $108 against $115 per 1,000 completed)."
	if got := CheapestThatHolds([]*model.Results{base, tier}); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// Same work done: totals alone.
	base = mk("", 10000, 900, 0.97)
	if got, want := CheapestThatHolds([]*model.Results{base, tier}), "(+$180 against the base)."; !strings.HasSuffix(got, want) {
		t.Errorf("got %s, want it to end %q", got, want)
	}
	// A named first variant (compare's files) is quoted, not "the sales-9am".
	base = mk("sales-9am", 10000, 900, 0.97)
	if got, want := CheapestThatHolds([]*model.Results{base, tier}), "(+$180 against “sales-9am”)."; !strings.HasSuffix(got, want) {
		t.Errorf("got %s, want it to end %q", got, want)
	}
}

// A token bucket's peak use above 100% is explained where it is quoted
// (its burst admits more than the rate in one interval); a fixed window,
// or a use that rounds to 100%, is not.
func TestVerdictExplainsBurstAboveTheLimit(t *testing.T) {
	for _, c := range []struct {
		window, dim string
		use         float64
		want        string
	}{
		{model.WindowTokenBucket, "rpm", 1.52, "peak use 152% of the limit (the bucket's burst let through more than a minute's worth); offered"},
		{model.WindowTokenBucket, "rpd", 1.3, "peak use 130% of the limit (the full bucket let through more than the daily rate); offered"},
		{model.WindowTokenBucket, "rpm", 1.004, "peak use 100% of the limit; offered"},
		{"fixed", "rpm", 1.52, "peak use 152% of the limit; offered"},
	} {
		r := bound()
		l := &r.Backends[0].Limits[0]
		l.Window, l.Dimension, l.PeakUse = c.window, c.dim, c.use
		r.Findings.FirstToBind.Dimension = c.dim
		if got := strings.Join(Verdict(r), "\n"); !strings.Contains(got, c.want) {
			t.Errorf("%s %s at %v: want %q in\n%s", c.window, c.dim, c.use, c.want, got)
		}
	}
}
