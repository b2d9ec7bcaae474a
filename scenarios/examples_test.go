package scenarios_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/scenarios"
)

// runExample runs an embedded example's base and variants.
func runExample(t *testing.T, name string, overrides ...scenarios.Override) []*model.Results {
	t.Helper()
	sc, err := scenarios.LoadExample(name)
	if err != nil {
		t.Fatal(err)
	}
	cfgs, err := sc.Configs(overrides)
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.RunAll(context.Background(), cfgs, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func within(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > rel*math.Abs(want) {
		t.Errorf("%s = %.4g, want %.4g within %.1f%%", what, got, want, 100*rel)
	}
}

func limit(r *model.Results, backend, dim string) model.LimitResult {
	for _, b := range r.Backends {
		if b.Name == backend {
			for _, l := range b.Limits {
				if l.Dimension == dim && l.Scope == "org" {
					return l
				}
			}
		}
	}
	return model.LimitResult{}
}

func TestEveryExampleLoadsAndRuns(t *testing.T) {
	for _, e := range scenarios.Examples() {
		if e.Description == "" {
			t.Errorf("%s: no description", e.Name)
		}
		res := runExample(t, e.Name, scenarios.Override{Path: "duration", Value: "10m"})
		for _, r := range res {
			q := r.Summary.Requests
			if q.Offered != q.Completed+q.Failed+q.InFlightAtEnd {
				t.Errorf("%s/%s: requests not conserved: %+v", e.Name, r.Variant, q)
			}
		}
	}
}

// Seed 002: 1,500/min against 1,000/min from 09:00 to 10:00. The fluid
// limit: the backlog grows at 500/min to 30,000 at 10:00, then drains at
// 100/min to 24,000 at 11:00 and at 500/min after, clearing at 11:48.
func TestSalespeopleFluidLimit(t *testing.T) {
	res := runExample(t, "salespeople-peak")
	base := res[0]
	s := base.Series
	peak, at := 0.0, 0
	for i, v := range s.QueueLength {
		if v > peak {
			peak, at = v, i
		}
	}
	// Series values are interval means: the interval from 10:00 has a
	// mean backlog of 30,000 - 100/2 = 29,950 (it drains at 100/min), the
	// one before 29,750. Poisson noise over the hour's 90,000 arrivals is
	// about 300.
	within(t, "peak backlog", peak, 29950, 0.03)
	if got := s.Clock[at]; got != "09:59" && got != "10:00" && got != "10:01" {
		t.Errorf("backlog peaks in the interval from %s, want about 10:00", got)
	}
	clear := -1
	for i := at; i < len(s.QueueLength); i++ {
		if s.QueueLength[i] < 100 {
			clear = i
			break
		}
	}
	if clear < 0 {
		t.Fatal("backlog never clears")
	}
	// 11:48 is 4h48m after the 07:00 start: interval 288.
	if d := clear - 288; d < -4 || d > 4 {
		t.Errorf("backlog clears in the interval from %s, want 11:48 ± 4 min", s.Clock[clear])
	}
	// Throughput is pinned at the limit during the backlog.
	for i := at - 30; i < at; i++ {
		if c := s.Completed[i]; c < 950 || c > 1050 {
			t.Errorf("%s: %d completions, want about 1,000 (the limit)", s.Clock[i], c)
		}
	}
	if base.Summary.Requests.Failed != 0 {
		t.Errorf("queueing client lost %d requests", base.Summary.Requests.Failed)
	}
	// Who sent at 9 a.m. waits far longer than who sent at 11:50.
	if w9, w12 := s.QueueWaitP95[at-1], s.QueueWaitP95[300]; w9 < 20*60 || w12 > 5 {
		t.Errorf("queue wait p95 at 09:58 %.0fs, at 12:00 %.1fs", w9, w12)
	}
	// Without the client queue the excess is refused instead.
	sdk := res[1]
	if sdk.Summary.Attempts.Rejected["rpm"] == 0 || sdk.Summary.Requests.Failed == 0 {
		t.Errorf("sdk variant: rpm 429s %d, failed %d; want both > 0", sdk.Summary.Attempts.Rejected["rpm"], sdk.Summary.Requests.Failed)
	}
}

// Seed 000: 2M ITPM with 80% of input read from cache processes about
// 10M input tokens a minute; when reads count, 2M.
func TestCacheReadsMultiplyInputThroughput(t *testing.T) {
	res := runExample(t, "cache-reads")
	within(t, "input tokens/min, reads free", res[0].Summary.Throughput.InputTokensPerS*60, 10e6, 0.03)
	within(t, "input tokens/min, reads count", res[1].Summary.Throughput.InputTokensPerS*60, 2e6, 0.03)
	within(t, "cache hit rate", res[0].Summary.Tokens.CacheHitRate, 0.8, 0.01)
	if !limit(res[0], "claude", "itpm").Binding {
		t.Error("ITPM should be the binding limit")
	}
}

// Seed 001: 50 users hold; 5,000 hit the TPM limit.
func TestEmailLaunch(t *testing.T) {
	res := runExample(t, "email-launch")
	calm, spike := res[0], res[1]
	if n := sumMap(calm.Summary.Attempts.Rejected); n != 0 {
		t.Errorf("50 users: %d refusals, want none", n)
	}
	// Interactive response time law for a closed loop: X = N / (Z + R).
	x := calm.Summary.Throughput.RequestsPerS
	r := calm.Summary.Latency.E2E.Mean
	within(t, "50-user throughput", x, 50/(30+r), 0.03)
	// 5,000 users: TPM binds and throughput pins at the limit: tokens
	// admitted per minute at most 2M plus the one-minute burst.
	tpm := limit(spike, "frontier", "tpm")
	if !tpm.Binding || tpm.Rejected == 0 {
		t.Errorf("5,000 users: TPM should bind, got %+v", tpm)
	}
	tok := (spike.Summary.Throughput.InputTokensPerS + spike.Summary.Throughput.OutputTokensPerS) * spike.DurationS
	if max := 2e6*spike.DurationS/60 + 2e6; tok > max {
		t.Errorf("5,000 users: %.3g tokens served, above the limit's %.3g", tok, max)
	}
	if tok < 0.9*2e6*spike.DurationS/60 {
		t.Errorf("5,000 users: %.3g tokens served, want the limit nearly saturated", tok)
	}
	if spike.Summary.Requests.Failed == 0 {
		t.Error("5,000 users: expected failed requests")
	}
}

// Seed 004 from the client side.
func TestBatchJobFloorAndClients(t *testing.T) {
	// The first second: 200 requests each reserving 6,000 + 8 x 4,096 =
	// 38,768 units against a 600,000 burst: exactly 15 fit.
	first := runExample(t, "batch-job", scenarios.Override{Path: "duration", Value: "1s"})[0]
	if got := first.Backends[0].Admitted; got != 15 {
		t.Errorf("burst admits %d, want 15", got)
	}
	if got := first.Summary.Attempts.Rejected["tpm"]; got != 185 {
		t.Errorf("first-second TPM 429s %d, want 185", got)
	}
	res := runExample(t, "batch-job")
	naive, paced := res[0], res[1]
	// The floor: 100M units at 300,000 a minute is 5.56 hours.
	floor := 10000 * (6000 + 8*500) / 300000.0 * 60
	if ms := paced.Summary.MakespanS; ms < floor || ms > floor*1.06 {
		t.Errorf("paced job took %.2fh, want within 6%% above the %.2fh floor", ms/3600, floor/3600)
	}
	if paced.Summary.Requests.Completed != 10000 {
		t.Errorf("paced job completed %d of 10,000", paced.Summary.Requests.Completed)
	}
	if n := sumMap(paced.Summary.Attempts.Rejected); n > 100 {
		t.Errorf("paced job got %d 429s, want almost none", n)
	}
	if n := naive.Summary.Attempts.Rejected["tpm"]; n < 10*10000/2 {
		t.Errorf("naive client: %d TPM 429s, want a storm", n)
	}
	if naive.Summary.Requests.Completed >= paced.Summary.Requests.Completed/2 {
		t.Errorf("naive client completed %d, want far fewer than the paced client", naive.Summary.Requests.Completed)
	}
}

// The default scenario shows the story it promises: the peak hits a
// limit, requests are refused and retried, a backlog builds after 9 a.m.
// and drains; the next tier removes all of it.
func TestDefaultScenarioStory(t *testing.T) {
	res := runExample(t, scenarios.DefaultExample)
	base, tier4 := res[0], res[1]
	var first float64 = math.Inf(1)
	for _, b := range base.Backends {
		for _, l := range b.Limits {
			if l.Rejected > 0 && l.FirstRejectS < first {
				first = l.FirstRejectS
			}
		}
	}
	if first < 8*3600 || first > 10*3600 {
		t.Errorf("first 429 at %.0fs, want during the 9 a.m. peak", first)
	}
	if base.Summary.Attempts.Retries == 0 {
		t.Error("no retries in the base")
	}
	peak, at := 0.0, 0
	for i, v := range base.Series.QueueLength {
		if v > peak {
			peak, at = v, i
		}
	}
	if peak < 5 || !strings.HasPrefix(base.Series.Clock[at], "09") {
		t.Errorf("backlog peak %.1f at %s, want a backlog in the 9 o'clock hour", peak, base.Series.Clock[at])
	}
	if last := base.Series.QueueLength[len(base.Series.QueueLength)-1]; last > 1 {
		t.Errorf("backlog %.1f at the end, want drained", last)
	}
	if n := sumMap(tier4.Summary.Attempts.Rejected); n != 0 {
		t.Errorf("tier 4: %d refusals, want none", n)
	}
	if v := report.Verdict(base); len(v) < 3 || !strings.Contains(strings.Join(v, " "), "binds") {
		t.Errorf("verdict does not say what binds: %q", v)
	}
}

func sumMap(m map[string]int64) int64 {
	var s int64
	for _, v := range m {
		s += v
	}
	return s
}

func cluster(r *model.Results) *model.ClusterResult {
	for _, b := range r.Backends {
		if b.Cluster != nil {
			return b.Cluster
		}
	}
	return nil
}

// Seed 002's batch curve: the replica's throughput plateaus at
// 64 / 0.548 s; capped at batch 8, at 8 / 0.156 s.
func TestBatchCurvePlateau(t *testing.T) {
	res := runExample(t, "batch-curve")
	for i, want := range []float64{64 / 0.548, 8 / 0.156} {
		s := res[i].Series
		var c int64
		for _, v := range s.Completed[50:] {
			c += v
		}
		within(t, res[i].Variant+" plateau", float64(c)/(10*60), want, 0.01)
	}
}

// Paged KV fits a far larger batch in the same memory than contiguous
// allocation, which reserves prompt + max_tokens per sequence.
func TestKVPagingExample(t *testing.T) {
	res := runExample(t, "kv-paging")
	paged, contig := cluster(res[0]), cluster(res[1])
	if paged.PeakBatch < 1.5*contig.PeakBatch {
		t.Errorf("peak batch paged %.0f, contiguous %.0f; want paged far larger", paged.PeakBatch, contig.PeakBatch)
	}
	if contig.MeanKVUse < 0.95 || paged.MeanKVUse > 0.8 {
		t.Errorf("KV use paged %.2f, contiguous %.2f; want contiguous full and paged not", paged.MeanKVUse, contig.MeanKVUse)
	}
	if p, c := res[0].Summary.Throughput.RequestsPerS, res[1].Summary.Throughput.RequestsPerS; p < 1.15*c {
		t.Errorf("throughput paged %.2f, contiguous %.2f", p, c)
	}
}

// The day/night schedule bills 2 replicas for 14 hours and 4 for 10, and
// the overnight batch work waits longer on the aggressive batch than on
// the day configuration kept all night.
func TestDayNightSchedule(t *testing.T) {
	res := runExample(t, "day-night")
	base, always := cluster(res[0]), cluster(res[1])
	if base.GPUHours < 68 || base.GPUHours > 68.05 || math.Abs(always.GPUHours-96) > 1e-6 {
		t.Errorf("GPU hours %.3f and %.3f, want 68 (plus drain) and 96", base.GPUHours, always.GPUHours)
	}
	if res[0].Summary.Cost.Total >= res[1].Summary.Cost.Total {
		t.Errorf("the schedule should cost less: %.2f vs %.2f", res[0].Summary.Cost.Total, res[1].Summary.Cost.Total)
	}
	for _, r := range res {
		if q := r.Summary.Requests; q.Failed != 0 || float64(q.InFlightAtEnd) > 0.001*float64(q.Offered) {
			t.Errorf("%s: requests %+v", r.Variant, q)
		}
	}
}

// Two H100s hold the working day with low latency; one does not, and its
// queue drains only after the peak. The GPUs are billed idle or busy.
func TestLlamaH100(t *testing.T) {
	res := runExample(t, "llama-h100")
	two, one := res[0], res[1]
	if p95 := two.Summary.Latency.TTFT.P95; p95 > 2 {
		t.Errorf("two replicas: TTFT p95 %.2fs, want under the 2s SLO", p95)
	}
	if p95 := one.Summary.Latency.TTFT.P95; p95 < 60 {
		t.Errorf("one replica: TTFT p95 %.1fs, want a queue at the peak", p95)
	}
	within(t, "two-replica GPU cost", two.Summary.Cost.Total, 2*24*3.90, 1e-9)
	if c := cluster(two); c.Preemptions != 0 || c.MeanKVUse > 0.5 {
		t.Errorf("two replicas: preemptions %d, KV use %.2f", c.Preemptions, c.MeanKVUse)
	}
}

// Seed 002's hybrid: self-hosted evaluation overflows to the hosted fast
// model only at the peak; switched-off clusters cost nothing; the three
// options complete everything and differ in cost.
func TestHybridExample(t *testing.T) {
	res := runExample(t, "hybrid")
	hybrid, hosted, self, noCache := res[0], res[1], res[2], res[3]
	for _, r := range res {
		if q := r.Summary.Requests; q.Failed != 0 || q.Completed < q.Offered-10 {
			t.Errorf("%s: requests %+v", r.Variant, q)
		}
	}
	if len(hybrid.Routes) != 1 || hybrid.Routes[0].Overflows == 0 {
		t.Fatalf("hybrid: no overflow to the hosted model: %+v", hybrid.Routes)
	}
	for _, b := range hybrid.Backends {
		if b.Name == "capable-gpu" && b.Cost.Total != 0 {
			t.Errorf("a cluster with zero replicas cost $%.2f", b.Cost.Total)
		}
	}
	if !(hosted.Summary.Cost.Total > hybrid.Summary.Cost.Total && hybrid.Summary.Cost.Total > self.Summary.Cost.Total) {
		t.Errorf("cost per day: hosted $%.0f, hybrid $%.0f, self-hosted $%.0f", hosted.Summary.Cost.Total, hybrid.Summary.Cost.Total, self.Summary.Cost.Total)
	}
	// The response cache: 200,000 equally likely evaluations kept an hour
	// answer a share that follows from the hourly demand; it is the same
	// in every variant (common random numbers), and turning it off costs
	// more and slows the peak.
	c := hybrid.Gateway.Cache
	if c == nil || c.HitRate < 0.1 || c.HitRate > 0.3 {
		t.Fatalf("response cache %+v, want a hit rate between 10%% and 30%%", c)
	}
	if hosted.Gateway.Cache.Hits != c.Hits && math.Abs(float64(hosted.Gateway.Cache.Hits-c.Hits)) > 0.01*float64(c.Hits) {
		t.Errorf("cache hits differ across variants: %d vs %d", hosted.Gateway.Cache.Hits, c.Hits)
	}
	if noCache.Gateway.Cache != nil || noCache.Summary.Cost.Total <= hybrid.Summary.Cost.Total {
		t.Errorf("no cache: cost $%.0f, hybrid $%.0f", noCache.Summary.Cost.Total, hybrid.Summary.Cost.Total)
	}
}

// Seeds 000/001: two models with separate limits hold a peak one model's
// tier cannot; so does the next tier.
func TestTwoModelsExample(t *testing.T) {
	res := runExample(t, "two-models")
	spread, one, higher := res[0], res[1], res[2]
	if spread.Summary.Requests.Failed != 0 || higher.Summary.Requests.Failed != 0 {
		t.Errorf("failed: spread %d, higher tier %d; want none", spread.Summary.Requests.Failed, higher.Summary.Requests.Failed)
	}
	if one.Summary.Attempts.Rejected["itpm"] == 0 || one.Summary.Requests.Failed == 0 {
		t.Errorf("one model: itpm 429s %d, failed %d; want the tier to bind", one.Summary.Attempts.Rejected["itpm"], one.Summary.Requests.Failed)
	}
	st := spread.Routes[0]
	a, b := float64(st.Targets[0].Sent), float64(st.Targets[1].Sent)
	within(t, "share to model-a", a/(a+b), 2.0/3, 0.03)
}

// Seed 004 through the gateway: the burst admits exactly 15 of the naive
// client's 200; the fixed client finishes near the 5.6-hour floor with no
// 429s and reserves 1.24 units per unit used (3.88 for the naive one);
// the support tenant's chat keeps its SLO while the job runs, and loses it
// without the priority class or without the fair queue.
func TestGatewayTenantsExample(t *testing.T) {
	first := runExample(t, "gateway-tenants", scenarios.Override{Path: "duration", Value: "1s"})[0]
	acme := first.Gateway.Tenants[0]
	if acme.Name != "acme" || acme.Admitted != 15 {
		t.Errorf("first second: tenant %s admitted %d, want acme with 15", acme.Name, acme.Admitted)
	}
	if got := acme.Rejected["gw_units"]; got != 185 {
		t.Errorf("first second: %d unit 429s, want 185", got)
	}
	res := runExample(t, "gateway-tenants")
	byName := map[string]*model.Results{}
	for _, r := range res {
		byName[r.Variant] = r
	}
	naive, fixed := res[0], byName["fixed"]
	floor := 10000 * (6000 + 8*500) / 300000.0 * 60
	job := fixed.Workloads[0].Summary
	if job.Requests.Completed != 10000 || job.MakespanS < floor || job.MakespanS > floor*1.06 {
		t.Errorf("fixed client: %d done in %.2fh, want all 10,000 within 6%% of the %.2fh floor", job.Requests.Completed, job.MakespanS/3600, floor/3600)
	}
	if n := sumMap(job.Attempts.Rejected); n > 0 {
		t.Errorf("fixed client got %d refusals, want none", n)
	}
	if got := fixed.Gateway.Tenants[0].ReservationToActual; math.Abs(got-1.24) > 0.001 {
		t.Errorf("fixed reservation/actual %.4f, want 12,400/10,000 = 1.24", got)
	}
	if got := naive.Gateway.Tenants[0].ReservationToActual; math.Abs(got-3.8768) > 0.001 {
		t.Errorf("naive reservation/actual %.4f, want 38,768/10,000 = 3.8768", got)
	}
	if n := naive.Workloads[0].Summary.Attempts.Rejected["gw_units"]; n < 20000 {
		t.Errorf("naive client: %d unit 429s, want a storm", n)
	}
	if naive.Workloads[0].Summary.Requests.Completed > 2000 {
		t.Errorf("naive client completed %d, want most of the job to fail", naive.Workloads[0].Summary.Requests.Completed)
	}
	chat := func(name string) float64 { return byName[name].Workloads[1].Summary.Latency.TTFT.P95 }
	alone, withJob := chat("chat alone"), chat("fixed")
	if withJob > 1 {
		t.Errorf("chat TTFT p95 %.2fs with the job, want within its 1 s SLO", withJob)
	}
	for _, v := range []string{"no priority", "no fair queue"} {
		if chat(v) < 1 || chat(v) < 1.5*withJob {
			t.Errorf("%s: chat TTFT p95 %.2fs, want past the 1 s SLO and well above %.2fs with priorities", v, chat(v), withJob)
		}
	}
	if alone > withJob {
		t.Errorf("chat alone p95 %.2fs above chat with the job %.2fs", alone, withJob)
	}
	// A 30-minute limiter-store outage: failing closed refuses about 30 x
	// 60 x 5.5 chat attempts and some fail; failing open refuses none of
	// of chat's and fails next to nothing.
	closed, open := byName["store down, fail closed"], byName["store down, fail open"]
	if n := closed.Gateway.FailClosedRejects; n < 9000 || n > 12000 {
		t.Errorf("fail closed: %d refused during the outage, want about 10,000", n)
	}
	if closed.Summary.Requests.Failed < 1000 || open.Summary.Requests.Failed*100 > closed.Summary.Requests.Failed || open.Gateway.FailOpenAdmits < 9000 {
		t.Errorf("outage: fail closed failed %d, fail open failed %d with %d local admissions",
			closed.Summary.Requests.Failed, open.Summary.Requests.Failed, open.Gateway.FailOpenAdmits)
	}
	// The job waits at the gateway, the chat hardly.
	q := fixed.Gateway.Queue.ByPriority
	if q[0].WaitS.P95 > 1 || q[1].Queued == 0 {
		t.Errorf("fair queue: interactive wait p95 %.2fs, batch queued %d", q[0].WaitS.P95, q[1].Queued)
	}
}
