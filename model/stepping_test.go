package model

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/headroom-sim/headroom/workloads"
	"pgregory.net/rapid"
)

// Cluster stepping modes.
const (
	modeSpans     = iota // spans of unchanged batch, one event each (the default)
	modeIteration        // one event per iteration from the aggregate
	modeReference        // one event per iteration, every sequence visited
)

// runStepping runs cfg with a cluster stepping mode.
func runStepping(t interface{ Fatal(...any) }, cfg Config, mode int) []byte {
	s, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.refStepping = mode == modeReference
	s.noSpans = mode != modeSpans
	r, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r.Events = 0 // spans are fewer events: that is their point
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFastSteppingEqualsReference: on random scenarios with clusters, the
// aggregate stepping gives byte-identical results to stepping every
// sequence one by one: the same first-token and completion times for
// every request (the latency sketches, series and counts would differ
// otherwise), the same preemptions and KV use.
func TestFastSteppingEqualsReference(t *testing.T) {
	kept := keepFailing(t)
	rapid.Check(t, func(t *rapid.T) {
		cfg := genConfig(t)
		if len(cfg.Clusters) == 0 {
			t.Skip("no cluster")
		}
		kept.watch(t, cfg)
		sameAcrossModes(t, cfg, false)
	})
}

// genClusterConfig draws a loaded cluster scenario: every workload routed
// to one cluster, with random engine, KV, prefix caching, schedules and
// failures.
func genClusterConfig(t *rapid.T) Config {
	chunked := rapid.Bool().Draw(t, "chunked")
	cl := ClusterSpec{Name: "gpu", Replicas: rapid.IntRange(1, 3).Draw(t, "replicas"),
		MaxNumSeqs:          rapid.IntRange(1, 128).Draw(t, "maxseqs"),
		MaxNumBatchedTokens: rapid.IntRange(64, 8192).Draw(t, "maxtokens"),
		ChunkedPrefill:      &chunked,
		Order:               rapid.SampledFrom([]string{"fcfs", "priority"}).Draw(t, "order"),
		Scheduler:           rapid.SampledFrom([]string{"vllm", "no-evict"}).Draw(t, "scheduler"),
		PrefixCaching:       rapid.Bool().Draw(t, "prefixcache"),
		KV: KVSpec{Allocation: rapid.SampledFrom([]string{"paged", "contiguous"}).Draw(t, "alloc"),
			BlockSize: rapid.SampledFrom([]int{1, 4, 16, 32}).Draw(t, "bs"), Blocks: rapid.IntRange(200, 20000).Draw(t, "blocks")},
		GPU: "H100-SXM", Model: "llama-3.1-8b"}
	if rapid.Bool().Draw(t, "failure?") {
		cl.Failures = []FailureSpec{{After: workloads.Duration(rapid.Float64Range(0, 100).Draw(t, "fat")), Duration: 30,
			Replica: 0, Requests: rapid.SampledFrom([]string{"retry", "lose"}).Draw(t, "freq")}}
	}
	if rapid.Bool().Draw(t, "schedule?") {
		cl.Schedule = []ScheduleSpec{{At: "00:01", Replicas: rapid.IntRange(1, 4).Draw(t, "sr"), MaxNumSeqs: rapid.IntRange(1, 64).Draw(t, "sm")}}
	}
	var wls []WorkloadSpec
	for i := 0; i < rapid.IntRange(1, 2).Draw(t, "n"); i++ {
		prefix := rapid.IntRange(0, 300).Draw(t, "prefix")
		w := WorkloadSpec{Name: "w" + strconv.Itoa(i), Route: "gpu",
			Priority: rapid.SampledFrom([]string{PriorityInteractive, PriorityBatch}).Draw(t, "prio"),
			Demand:   workloads.DemandSpec{Unit: "requests/s", Rate: rapid.Float64Range(1, 60).Draw(t, "rate")},
			Tokens: workloads.TokenSpec{
				Input:        workloads.Dist{Kind: "uniform", Min: 1, Max: rapid.Float64Range(1, 3000).Draw(t, "in")},
				Output:       workloads.Dist{Kind: "uniform", Min: 1, Max: rapid.Float64Range(1, 600).Draw(t, "out")},
				MaxTokens:    rapid.IntRange(0, 800).Draw(t, "maxtok"),
				SharedPrefix: prefix, Prefixes: 1},
			Client: ClientSpec{MaxConcurrency: rapid.IntRange(0, 200).Draw(t, "conc"), Retry: RetrySpec{Preset: "anthropic-python"}}}
		wls = append(wls, w)
	}
	return Config{Name: "stepping", Seed: rapid.Uint64().Draw(t, "seed"), Duration: rapid.Float64Range(30, 240).Draw(t, "dur"),
		Interval: 30, Workloads: wls, Clusters: []ClusterSpec{cl}}
}

// TestFastSteppingEqualsReferenceLoaded is the same check on loaded
// clusters, where budgets run out, blocks run out and sequences are
// preempted, so both steppings and the switches between them are used.
// Spans are compared on one replica: with several, two replicas can end
// iterations at exactly the same instant (after a client queue hands them
// requests at the same moment and their batches match), and spans may take
// such a tie in the other order.
func TestFastSteppingEqualsReferenceLoaded(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := genClusterConfig(t)
		one := len(cfg.Clusters[0].Schedule) == 0 && cfg.Clusters[0].Replicas == 1
		sameAcrossModes(t, cfg, one)
	})
}

// TestSpansEqualReferenceOneReplica draws only single-replica clusters, so
// spans are compared on every draw.
func TestSpansEqualReferenceOneReplica(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := genClusterConfig(t)
		cfg.Clusters[0].Replicas = 1
		cfg.Clusters[0].Schedule = nil
		sameAcrossModes(t, cfg, true)
	})
}

// TestFastSteppingEqualsReferenceExamples checks the same on the cluster
// test configurations, which exercise preemption and both allocations.
func TestFastSteppingEqualsReferenceExamples(t *testing.T) {
	for _, alloc := range []string{"paged", "contiguous"} {
		c := clusterConfig(40, 200, 100, "iteration", []float64{1, 256}, []float64{0.010, 0.060}, 256, 4000)
		c.Workloads[0].Tokens.MaxTokens = 2000
		c.Clusters[0].KV.Allocation = alloc
		sameAcrossModes(t, c, true)
	}
	c := clusterConfig(30, 300, 400, "iteration", []float64{1, 256}, []float64{0.010, 0.050}, 256, 600)
	c.Duration = 600
	sameAcrossModes(t, c, true)
}

// sameAcrossModes runs cfg in the stepping modes and requires identical
// bytes. Spans are compared only when asked: they schedule fewer events,
// so events at exactly the same instant on two replicas may be handled in
// the other order. Scenarios with continuous random timings have no such
// ties; the deterministic ones genConfig draws (fixed think times and
// latencies, constant arrivals) do.
func sameAcrossModes(t interface {
	Fatalf(string, ...any)
	Fatal(...any)
}, cfg Config, spans bool) {
	ref := runStepping(t, cfg, modeReference)
	modes := []int{modeIteration}
	if spans {
		modes = append(modes, modeSpans)
	}
	for _, m := range modes {
		if got := runStepping(t, cfg, m); !bytes.Equal(got, ref) {
			t.Fatalf("mode %d differs from the reference:\ngot %s\nref %s", m, firstDiff(got, ref), firstDiff(ref, got))
		}
	}
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	hi := min(len(a), i+80)
	return string(a[lo:hi])
}
