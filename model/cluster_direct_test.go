package model

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/headroom-sim/headroom/workloads"
	"pgregory.net/rapid"
)

// runClusterDirect runs cfg with the direct paths (sendDirect for cluster
// targets, startDirect for hosted ones) on or off and returns its results
// as JSON, and whether a workload's first attempts went the cluster's
// direct way.
func runClusterDirect(t interface{ Fatal(...any) }, cfg Config, direct bool) ([]byte, bool) {
	b, s := runSet(t, cfg, func(s *Sim) { s.noDirect = !direct })
	took := false
	for _, w := range s.wls {
		// newRequest's dispatch to sendDirect, for a workload that issued
		// requests (a test of the path, not of the flag)
		took = took || w.targets[0].cdirect && w.stats.attempts > 0
	}
	return b, took
}

// genClusterDirectConfig draws a cluster scenario (genClusterConfig, with
// fleet options half the time) whose workloads often send to the cluster
// with nothing on the way, beside ones that do not (a pacer, a timeout, a
// route with a hosted fallback, a gateway), with open-loop, closed-loop
// and job demand, log-normal or uniform tokens, client caps, windows, and
// clusters that refuse (max_waiting, max_model_len).
func genClusterDirectConfig(t *rapid.T) Config {
	cfg := genClusterConfig(t)
	cl := &cfg.Clusters[0]
	if rapid.Bool().Draw(t, "fleet?") {
		for i := range cl.Schedule {
			cl.Schedule[i].MaxNumSeqs = 0
		}
		genFleet(t, cl)
	}
	cl.MaxWaiting = rapid.SampledFrom([]int{0, 0, 2, 20}).Draw(t, "maxwaiting")
	if rapid.Bool().Draw(t, "maxlen?") {
		cl.KV.MaxModelLen = rapid.IntRange(200, 4000).Draw(t, "maxlen")
	}
	if rapid.Bool().Draw(t, "window?") {
		cfg.Window = cfg.Duration / float64(rapid.IntRange(1, 4).Draw(t, "windows"))
	}
	hosted := rapid.Bool().Draw(t, "hosted?")
	if hosted {
		cfg.Providers = []ProviderSpec{{Name: "api", Latency: LatencySpec{TTFT: TTFTSpec{Base: 0.3, Dist: "fixed"},
			TPOT: TPOTSpec{Mean: 0.01, Dist: "fixed"}}}}
		f := true
		cfg.Routes = []RouteSpec{{Name: "rt", Strategy: StrategyFallback, Targets: []string{"gpu", "api"}, Fallback: &f,
			Cooldown: workloads.Duration(rapid.SampledFrom([]float64{0, 5}).Draw(t, "cooldown"))}}
	}
	for i := range cfg.Workloads {
		w := &cfg.Workloads[i]
		w.Tenant = "a"
		switch rapid.IntRange(0, 5).Draw(t, "demand"+strconv.Itoa(i)) {
		case 1:
			w.Demand = workloads.DemandSpec{Users: rapid.IntRange(1, 30).Draw(t, "users"), Think: workloads.Fixed(rapid.Float64Range(0, 5).Draw(t, "think"))}
		case 2:
			w.Demand = workloads.DemandSpec{Count: rapid.IntRange(1, 300).Draw(t, "count"), At: workloads.Duration(rapid.Float64Range(0, 30).Draw(t, "at"))}
		}
		if rapid.Bool().Draw(t, "lognormal?") {
			w.Tokens.Input = workloads.Dist{Kind: "lognormal", Median: rapid.Float64Range(10, 1000).Draw(t, "median"), P95: 3000}
			w.Tokens.Output = workloads.Fixed(float64(rapid.IntRange(1, 500).Draw(t, "fixout")))
			if w.Tokens.SharedPrefix > 0 {
				w.Tokens.Prefixes = rapid.IntRange(1, 9).Draw(t, "prefixes")
			}
		}
		if rapid.Bool().Draw(t, "noretry?") {
			w.Client.Retry = RetrySpec{Preset: "none"}
		}
		switch rapid.IntRange(0, 7).Draw(t, "extra"+strconv.Itoa(i)) {
		case 1:
			w.Client.Pace = PaceSpec{RequestsPerMin: rapid.Float64Range(30, 600).Draw(t, "pace")}
		case 2:
			w.Client.Timeout = workloads.Duration(rapid.Float64Range(0.5, 5).Draw(t, "timeout"))
		case 3:
			if hosted {
				w.Route = "rt"
			}
		}
	}
	if rapid.IntRange(0, 5).Draw(t, "gateway?") == 0 {
		cfg.Gateway = genGateway(t, cfg.Workloads)
	}
	cfg.ApplyDefaults()
	if err := cfg.Validate(); err != nil {
		t.Skip(err)
	}
	return cfg
}

// TestClusterDirectEqualsGeneral: the direct path of a new request to a
// cluster with nothing on its way (sendDirect, backend.go) gives byte for
// byte the results of the general path through attempt, send, route,
// sendTo, sendCluster, pickFor and enqueue, the events count included, on
// random scenarios that mix direct workloads with others.
func TestClusterDirectEqualsGeneral(t *testing.T) {
	took := 0
	rapid.Check(t, func(t *rapid.T) {
		cfg := genClusterDirectConfig(t)
		got, direct := runClusterDirect(t, cfg, true)
		want, _ := runClusterDirect(t, cfg, false)
		if !bytes.Equal(got, want) {
			t.Fatalf("the direct path differs from the general one:\ngot %s\nwant %s", firstDiff(got, want), firstDiff(want, got))
		}
		if direct {
			took++
		}
	})
	if took < 20 {
		t.Fatalf("only %d of the scenarios drawn had a direct cluster workload: the test checks too little", took)
	}
}

// TestClusterDirectHour: five minutes of the cluster-day benchmark's
// model (testdata/perf/cluster-day.toml) take the direct path and give the
// same results both ways.
func TestClusterDirectHour(t *testing.T) {
	cfg := Config{Name: "cluster-day", Seed: 1, Duration: 300, Interval: 60,
		Workloads: []WorkloadSpec{{Name: "chat", Route: "h100",
			Demand: workloads.DemandSpec{Unit: "requests/s", Rate: 100},
			Tokens: workloads.TokenSpec{Input: workloads.Dist{Kind: "lognormal", Median: 1000, P95: 3000},
				Output: workloads.Fixed(500), MaxTokens: 1024, SharedPrefix: 512, Prefixes: 8},
			Client: ClientSpec{Retry: RetrySpec{Preset: "none"}}}},
		Clusters: []ClusterSpec{{Name: "h100", Replicas: 8, GPU: "H100-SXM", Model: "llama-3.1-8b", MaxNumSeqs: 256,
			PrefixCaching: true, KV: KVSpec{Allocation: "paged", BlockSize: 16}}}}
	cfg.ApplyDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	got, direct := runClusterDirect(t, cfg, true)
	want, _ := runClusterDirect(t, cfg, false)
	if !direct {
		t.Fatal("the cluster-day model does not take the direct path")
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the direct path differs from the general one:\ngot %s\nwant %s", firstDiff(got, want), firstDiff(want, got))
	}
}
