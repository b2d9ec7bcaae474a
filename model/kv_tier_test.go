package model

import (
	"testing"

	"github.com/headroom-sim/headroom/workloads"
)

// tierConfig alternates two workloads with different 1,024-token prefixes
// on one replica whose KV holds only one of them: every request evicts the
// other workload's prefix.
func tierConfig(cpu *KVTierSpec) Config {
	c := clusterConfig(0, 1040, 2, "iteration", []float64{1, 256}, []float64{0.010, 0.010}, 256, 100)
	c.Duration = 200
	c.Clusters[0].Step.PrefillPerToken = 1e-5
	c.Clusters[0].PrefixCaching = true
	c.Clusters[0].KV.CPU = cpu
	w := c.Workloads[0]
	w.Demand = workloads.DemandSpec{Unit: "requests/s", Rate: 0.5, Arrivals: workloads.ArrivalSpec{Kind: "constant"}}
	w.Tokens.SharedPrefix = 1024
	w.Tokens.MaxTokens = 8
	a, b := w, w
	a.Name, b.Name = "a", "b"
	b.Demand.Curve, b.Demand.Rate, b.Demand.Every = make([]float64, 201), 0, 1 // b starts a second later
	for i := 1; i < len(b.Demand.Curve); i++ {
		b.Demand.Curve[i] = 0.5
	}
	c.Workloads = []WorkloadSpec{a, b}
	return c
}

// A prefix evicted from GPU memory is found in the CPU tier and read back
// over the host link: its request's prefill costs the remaining tokens'
// compute plus blocks × block size × bytes per token ÷ bandwidth, instead
// of recomputing the prefix. Without the tier every request recomputes.
func TestCPUTierHitCostsTheTransferBack(t *testing.T) {
	const bpt = 131072 // Llama-3.1-8B: 128 KiB of KV per token
	with := mustRun(t, tierConfig(&KVTierSpec{SizeGB: 10, BandwidthGBs: 32, BytesPerToken: bpt}))
	without := mustRun(t, tierConfig(nil))
	pc := with.Backends[0].Cluster.PrefixCache
	n := with.Summary.Requests.Completed
	if pc.Misses != 2 || pc.CPUHits != n-2 || pc.GPUHits != 0 {
		t.Fatalf("with the tier: %+v for %d requests, want the first two missing and the rest CPU hits", pc, n)
	}
	if p := without.Backends[0].Cluster.PrefixCache; p.Misses != without.Summary.Requests.Completed || p.CPUHits != 0 {
		t.Fatalf("without the tier: %+v, want every request recomputing", p)
	}
	read := 64 * 16 * bpt / 32e9
	hit := 0.010 + 16e-5 + read
	miss := 0.010 + 1040e-5
	within(t, "TTFT of a CPU-tier hit (p50)", with.Summary.Latency.TTFT.P50, hit, 0.01)
	within(t, "TTFT of a recompute (p50)", without.Summary.Latency.TTFT.P50, miss, 0.01)
	within(t, "read-back time", pc.CPUReadS, float64(n-2)*read, 1e-9)
	if with.Backends[0].Tokens.CacheRead != (n-2)*1024 {
		t.Errorf("cache reads %d tokens, want %d", with.Backends[0].Tokens.CacheRead, (n-2)*1024)
	}
}

// The tier keeps what fits, least recently used out first.
func TestKVTierLRU(t *testing.T) {
	tr := newKVTier(&KVTierSpec{SizeGB: 1e-9 * 10 * 16, BandwidthGBs: 1}, 16, 1) // 10 blocks
	tr.put(1, 4)
	tr.put(2, 4)
	tr.touch(1)
	tr.put(3, 4) // evicts 2, the least recently used
	if !tr.has(1) || tr.has(2) || !tr.has(3) || tr.used != 8 {
		t.Fatalf("tier holds 1:%v 2:%v 3:%v, %d blocks", tr.has(1), tr.has(2), tr.has(3), tr.used)
	}
	tr.put(4, 11) // larger than the tier: not kept
	if tr.has(4) || tr.used != 8 {
		t.Fatalf("an entry larger than the tier was kept")
	}
	tr.reset()
	if tr.has(1) || tr.used != 0 {
		t.Fatalf("reset left entries")
	}
}

// A request whose prefix is fetched from the CPU tier but which then does
// not fit the iteration (here its prompt does not fit what is left of the
// token budget, chunked prefill off) gives the fetch back: the read is
// charged with the admission it serves, and the request counts as a
// CPU-tier hit. The fetch was once kept: its read went to an iteration
// that did not admit the request (and was lost when that iteration was a
// span of pure decode, so spans differed from the reference), and the
// request counted as a GPU hit. Every CPU-tier hit here is of the same
// 24-token prefix, 6 blocks of 4 tokens: the read-back time is exactly
// hits × 6 × 4 × bytes per token ÷ bandwidth.
func TestCPUTierFetchWithoutAdmissionIsGivenBack(t *testing.T) {
	chunked := false
	wl := func(name string, rate, in, out float64, maxtok, prefix int) WorkloadSpec {
		return WorkloadSpec{Name: name, Route: "gpu", Priority: PriorityInteractive,
			Demand: workloads.DemandSpec{Unit: "requests/s", Rate: rate},
			Tokens: workloads.TokenSpec{Input: workloads.Dist{Kind: "uniform", Min: 1, Max: in}, Output: workloads.Dist{Kind: "uniform", Min: 1, Max: out},
				MaxTokens: maxtok, SharedPrefix: prefix, Prefixes: 1},
			Client: ClientSpec{Retry: RetrySpec{Preset: "anthropic-python"}}}
	}
	const bpt, bw = 131072, 1.0
	cfg := Config{Name: "tier", Seed: 0x30189, Duration: 36.5, Interval: 30,
		Workloads: []WorkloadSpec{wl("w0", 2.125, 64.5, 7.875, 325, 0), wl("w1", 1.453125, 95.5, 92.875, 64, 24)},
		Clusters: []ClusterSpec{{Name: "gpu", Replicas: 1, MaxNumSeqs: 2, MaxNumBatchedTokens: 64, ChunkedPrefill: &chunked,
			Order: "fcfs", Scheduler: "vllm", PrefixCaching: true, GPU: "H100-SXM", Model: "llama-3.1-8b",
			KV: KVSpec{Allocation: "contiguous", BlockSize: 4, Blocks: 200, CPU: &KVTierSpec{SizeGB: 0.01, BandwidthGBs: bw, BytesPerToken: bpt}}}}}
	r := mustRun(t, cfg)
	pc := r.Backends[0].Cluster.PrefixCache
	if pc.CPUReadS == 0 {
		t.Fatalf("no CPU-tier read: %+v", pc)
	}
	within(t, "read-back time", pc.CPUReadS, float64(pc.CPUHits)*6*4*bpt/(bw*1e9), 1e-12)
	sameAcrossModes(t, cfg, true)
}
