package scenarios_test

import (
	"math"
	"testing"

	"github.com/headroom-sim/headroom/model"
)

func backend(r *model.Results, name string) model.BackendResult {
	for _, b := range r.Backends {
		if b.Name == name {
			return b
		}
	}
	return model.BackendResult{}
}

// The autoscaled fleet follows the day: its first scale-up comes one
// evaluation period after the 08:00 jump and serves four minutes later;
// meanwhile the overflow spills to the hosted endpoint, at a cost the
// route reports. Autoscaled costs less than the hourly schedule, which
// costs less than the fleet held at its peak; without the spill the
// requests of 08:00 queue and miss their SLO.
func TestAutoscaleDayExample(t *testing.T) {
	res := runExample(t, "autoscale-day")
	base, noSpill, fixed, sched := res[0], res[1], res[2], res[3]
	auto := backend(base, "auto").Cluster
	as := auto.Autoscale
	if len(as.Events) == 0 {
		t.Fatal("no scale events")
	}
	up := as.Events[0]
	if up.AtS != 8*3600+30 || up.From != 1 || up.ReadyAtS != up.AtS+240 || up.Reason != model.ScaleMetric {
		t.Errorf("first scale event %+v, want a scale-up at 08:00:30 ready at 08:04:30", up)
	}
	if as.UnderProvisionedS < 240 || as.PeakReplicas > 8 || as.PeakReplicas < 4 {
		t.Errorf("autoscaler %+v", as)
	}
	// GPU-hours: one replica from midnight, then the count after each event
	// (billed from the decision; draining replicas finish within seconds).
	var sec, prev float64
	n := 1
	for _, e := range as.Events {
		sec += float64(n) * (e.AtS - prev)
		prev, n = e.AtS, e.To
	}
	sec += float64(n) * (86400 - prev)
	if h := auto.GPUHours; h < sec/3600 || h > sec/3600+0.05 {
		t.Errorf("GPU-hours %.3f, the events give %.3f", h, sec/3600)
	}
	within(t, "fixed fleet's cost", fixed.Summary.Cost.Total, 6*24*3.90, 1e-9)
	if h := backend(sched, "fixed").Cluster.GPUHours; h < 75 || h > 75.05 {
		t.Errorf("schedule GPU-hours %.3f, want 75 (its entries' replicas × hours) plus drains", h)
	}
	if !(base.Summary.Cost.Total < sched.Summary.Cost.Total && sched.Summary.Cost.Total < fixed.Summary.Cost.Total) {
		t.Errorf("costs: autoscaled %.2f, schedule %.2f, fixed %.2f", base.Summary.Cost.Total, sched.Summary.Cost.Total, fixed.Summary.Cost.Total)
	}
	rt := base.Routes[0]
	hosted := backend(base, "hosted-8b")
	if rt.ScaleUpSpill == 0 || rt.ScaleUpSpill > rt.Overflows || rt.ScaleUpSpillCostUSD <= 0 || rt.ScaleUpSpillCostUSD > hosted.Cost.Total+1e-9 {
		t.Errorf("spill %d of %d overflows costing $%.4f, hosted $%.4f", rt.ScaleUpSpill, rt.Overflows, rt.ScaleUpSpillCostUSD, hosted.Cost.Total)
	}
	if g, ng := base.Summary.Goodput.SLOAttainment, noSpill.Summary.Goodput.SLOAttainment; g < 0.999 || ng >= g {
		t.Errorf("SLO attainment with the spill %.4f, without %.4f", g, ng)
	}
	for _, r := range res {
		if q := r.Summary.Requests; q.Failed != 0 {
			t.Errorf("%s: requests %+v", r.Variant, q)
		}
	}
}

// With 64 tenants' 4,096-token prompts on four replicas that each hold a
// quarter of them, prefix-aware routing reaches the hit rate of the
// prompts' share of the input (each prompt computed about once), where
// least-work and round-robin routing keep evicting them; TTFT follows.
// llm-d-style weighted scorers and a CPU tier get most of the way.
func TestPrefixRoutingExample(t *testing.T) {
	res := runExample(t, "prefix-routing")
	lw, rr, pa, wt, cpu := res[0], res[1], res[2], res[3], res[4]
	hit := func(r *model.Results) float64 { return r.Backends[0].Tokens.CacheHitRate }
	// The ceiling: every prompt's 4,096 shared tokens read from the cache.
	b := pa.Backends[0]
	ceiling := 4096 * float64(pa.Summary.Requests.Completed) / float64(b.Tokens.Input)
	if hit(pa) < 0.99*ceiling {
		t.Errorf("prefix-aware hit rate %.4f, ceiling %.4f", hit(pa), ceiling)
	}
	if pc := b.Cluster.PrefixCache; pc.Misses > 2*64 {
		t.Errorf("prefix-aware routing recomputed prompts %d times, want about once each of 64", pc.Misses)
	}
	if hit(lw) > hit(pa)-0.2 || math.Abs(hit(rr)-hit(lw)) > 0.03 {
		t.Errorf("hit rates: least work %.3f, round robin %.3f, prefix-aware %.3f", hit(lw), hit(rr), hit(pa))
	}
	if p, l := pa.Summary.Latency.TTFT.P95, lw.Summary.Latency.TTFT.P95; p > l/2 {
		t.Errorf("TTFT p95: prefix-aware %.3fs, least work %.3fs", p, l)
	}
	if hit(wt) < 0.95*hit(pa) || hit(cpu) < 0.95*hit(pa) {
		t.Errorf("hit rates: weighted %.3f, least work with a CPU tier %.3f, prefix-aware %.3f", hit(wt), hit(cpu), hit(pa))
	}
	pc := cpu.Backends[0].Cluster.PrefixCache
	// Each CPU-tier hit reads 256 blocks of 16 tokens at 128 KiB a token
	// over 32 GB/s.
	perHit := 256 * 16 * 131072 / 32e9
	if pc.CPUHits == 0 || pc.CPUReadS < float64(pc.CPUHits)*perHit-1e-9 {
		t.Errorf("CPU tier: %+v, want %d hits of %.4fs each", pc, pc.CPUHits, perHit)
	}
	for _, r := range res {
		if rt := r.Backends[0].Cluster.Routing; rt.MaxOverMean > 1.2 {
			t.Errorf("%s: load spread %+v", r.Variant, rt)
		}
	}
}

// Long prompts on eight H100s: disaggregated 4:4, the decoding sequences
// never wait behind a prefill chunk (inter-token p99 an order of magnitude
// lower than co-located), at the price of a slower first token (half the
// GPUs prefill, and every prompt's KV moves over the link); 5:3 runs short
// of decode KV at times, and requests wait for it. Same GPUs, same cost.
func TestDisaggregatedExample(t *testing.T) {
	res := runExample(t, "disaggregated")
	co, pd, pd53 := res[0], res[1], res[2]
	for _, r := range res {
		within(t, r.Variant+" cost", r.Summary.Cost.Total, 8*3.90, 1e-9)
		if g := r.Backends[0].Cluster.GPUs; g != 8 {
			t.Errorf("%s: %d GPUs", r.Variant, g)
		}
	}
	ci, di := co.Backends[0].Cluster.ITL.P99, pd.Backends[0].Cluster.ITL.P99
	if di > ci/5 {
		t.Errorf("inter-token p99: disaggregated %.4fs, co-located %.4fs", di, ci)
	}
	if pd.Summary.Latency.TTFT.P50 <= co.Summary.Latency.TTFT.P50 {
		t.Errorf("TTFT p50: disaggregated %.3fs, co-located %.3fs: want the transfer and half the prefill capacity to show", pd.Summary.Latency.TTFT.P50, co.Summary.Latency.TTFT.P50)
	}
	if g, cg := pd.Summary.Goodput.SLOAttainment, co.Summary.Goodput.SLOAttainment; g < cg+0.03 {
		t.Errorf("goodput: disaggregated %.3f, co-located %.3f", g, cg)
	}
	tr := pd.Backends[0].Cluster.Transfer
	// bytes ÷ 50 GB/s + 2 ms, Llama-3.1-8B's KV being 128 KiB a token.
	within(t, "mean transfer", tr.Time.Mean, tr.Bytes/float64(tr.Transfers)/50e9+0.002, 1e-9)
	if tr.BytesPerToken != 131072 || tr.KVWait.Max != 0 {
		t.Errorf("transfer %+v, want 131072 bytes a token and no wait for decode KV at 4:4", tr)
	}
	if w := pd53.Backends[0].Cluster.Transfer.KVWait; w.Max <= 0 {
		t.Errorf("5:3: kv wait %+v, want the decode pool's KV to bind", w)
	}
}
