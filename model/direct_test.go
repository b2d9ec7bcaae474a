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

// runSet builds cfg, lets set change the Sim before it runs (a test's
// switch on a fast path), runs it and returns its results as JSON and the
// built Sim.
func runSet(t interface{ Fatal(...any) }, cfg Config, set func(*Sim)) ([]byte, *Sim) {
	s, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	set(s)
	r, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b, s
}

// runDirect runs cfg with the direct path (startDirect, doneDirect) on or
// off and returns its results as JSON, and whether a workload took it.
func runDirect(t interface{ Fatal(...any) }, cfg Config, direct bool) ([]byte, bool) {
	b, s := runSet(t, cfg, func(s *Sim) { s.noDirect = !direct })
	took := false
	for _, w := range s.wls {
		took = took || w.direct
	}
	return b, took
}

// genDirectConfig draws a scenario whose hosted targets are often direct
// (no limit, outage, spend cap, concurrency cap or usable prompt cache),
// beside workloads that are not (a pacer, a timeout, a route, a batch
// lane), with open-loop, closed-loop and job demand, windows, SLOs, prices
// or none, and client pools that fill.
func genDirectConfig(t *rapid.T) Config {
	cfg := Config{Name: "direct", Seed: rapid.Uint64Range(1, 1<<40).Draw(t, "seed"),
		Duration: rapid.Float64Range(60, 900).Draw(t, "duration")}
	cfg.Interval = cfg.Duration / float64(rapid.IntRange(1, 12).Draw(t, "intervals"))
	if rapid.Bool().Draw(t, "window?") {
		cfg.Window = cfg.Duration / float64(rapid.IntRange(1, 4).Draw(t, "windows"))
	}
	nProv := rapid.IntRange(1, 2).Draw(t, "providers")
	for i := 0; i < nProv; i++ {
		p := ProviderSpec{Name: "p" + strconv.Itoa(i),
			Latency: LatencySpec{
				TTFT: TTFTSpec{Base: workloads.Duration(rapid.Float64Range(0.01, 2).Draw(t, "ttft")),
					PerInputToken: workloads.Duration(rapid.SampledFrom([]float64{0, 0.0001}).Draw(t, "pertok")),
					Dist:          rapid.SampledFrom([]string{"fixed", "exponential", "lognormal"}).Draw(t, "ttftdist")},
				TPOT: TPOTSpec{Mean: workloads.Duration(rapid.Float64Range(0.001, 0.05).Draw(t, "tpot")),
					Dist: rapid.SampledFrom([]string{"fixed", "exponential"}).Draw(t, "tpotdist")},
			}}
		if p.Latency.TTFT.Dist == "lognormal" {
			p.Latency.TTFT.CV = 0.5
		}
		if rapid.Bool().Draw(t, "priced?") {
			p.Price = PriceSpec{Input: 3, Output: 15, CacheWrite: 3.75, CacheRead: 0.3}
		}
		switch rapid.IntRange(0, 5).Draw(t, "extra") {
		case 1:
			p.Limits = LimitsSpec{RPM: rapid.Float64Range(30, 600).Draw(t, "rpm")}
		case 2:
			p.Concurrency = ConcurrencySpec{Max: rapid.IntRange(1, 10).Draw(t, "conmax"), WhenFull: "queue"}
		case 3:
			p.Cache = CacheSpec{MinTokens: 100}
		}
		cfg.Providers = append(cfg.Providers, p)
	}
	if rapid.Bool().Draw(t, "route?") {
		rt := RouteSpec{Name: "rt", Strategy: StrategyWeighted, Weights: []float64{1}, Targets: []string{"p0"}}
		if nProv > 1 {
			rt.Targets, rt.Weights = []string{"p0", "p1"}, []float64{1, 2}
		}
		cfg.Routes = append(cfg.Routes, rt)
	}
	nW := rapid.IntRange(1, 3).Draw(t, "workloads")
	for i := 0; i < nW; i++ {
		w := WorkloadSpec{Name: "w" + strconv.Itoa(i), Route: "p" + strconv.Itoa(rapid.IntRange(0, nProv-1).Draw(t, "target"))}
		if len(cfg.Routes) > 0 && rapid.Bool().Draw(t, "toRoute") {
			w.Route = "rt"
		}
		switch rapid.IntRange(0, 3).Draw(t, "mode") {
		case 0, 1:
			w.Demand = workloads.DemandSpec{Unit: "requests/s", Rate: rapid.Float64Range(0.1, 20).Draw(t, "rate"),
				Arrivals: workloads.ArrivalSpec{Kind: rapid.SampledFrom([]string{"poisson", "constant"}).Draw(t, "arr")}}
		case 2:
			w.Demand = workloads.DemandSpec{Users: rapid.IntRange(1, 30).Draw(t, "users"), Think: workloads.Fixed(rapid.Float64Range(0, 5).Draw(t, "think"))}
		default:
			w.Demand = workloads.DemandSpec{Count: rapid.IntRange(1, 300).Draw(t, "count"), At: workloads.Duration(rapid.Float64Range(0, 30).Draw(t, "at"))}
		}
		if rapid.Bool().Draw(t, "fixedTokens?") {
			w.Tokens = workloads.TokenSpec{Input: workloads.Fixed(float64(rapid.IntRange(1, 2000).Draw(t, "in"))),
				Output: workloads.Fixed(float64(rapid.IntRange(1, 300).Draw(t, "out")))}
		} else {
			w.Tokens = workloads.TokenSpec{
				Input:        workloads.Dist{Kind: "uniform", Min: 1, Max: rapid.Float64Range(1, 3000).Draw(t, "inmax")},
				Output:       workloads.Dist{Kind: "uniform", Min: 1, Max: rapid.Float64Range(1, 400).Draw(t, "outmax")},
				MaxTokens:    rapid.IntRange(0, 300).Draw(t, "maxtok"),
				SharedPrefix: rapid.IntRange(0, 400).Draw(t, "prefix"),
			}
		}
		w.Client = ClientSpec{MaxConcurrency: rapid.IntRange(0, 12).Draw(t, "maxconc"), Retry: RetrySpec{Preset: "none"}}
		switch rapid.IntRange(0, 5).Draw(t, "clientExtra") {
		case 1:
			w.Client.Pace = PaceSpec{RequestsPerMin: rapid.Float64Range(30, 600).Draw(t, "pace")}
		case 2:
			w.Client.Timeout = workloads.Duration(rapid.Float64Range(0.5, 5).Draw(t, "timeout"))
		case 3:
			if w.Route != "rt" {
				w.Lane = LaneBatch
			}
		}
		if rapid.Bool().Draw(t, "slo?") {
			w.SLO = SLOSpec{TTFT: workloads.Duration(rapid.Float64Range(0.1, 3).Draw(t, "sloTTFT")),
				E2E: workloads.Duration(rapid.Float64Range(0.5, 10).Draw(t, "sloE2E"))}
		}
		cfg.Workloads = append(cfg.Workloads, w)
	}
	cfg.ApplyDefaults()
	if err := cfg.Validate(); err != nil {
		t.Skip(err)
	}
	return cfg
}

// TestDirectEqualsGeneral: the direct path of a request to a hosted target
// with nothing on its way (hosted.go, complete.go) gives byte for byte the
// results of the general path through the client's pacer, the gateway, the
// router and the provider's checks, the events count included, on random
// scenarios that mix direct workloads with others.
func TestDirectEqualsGeneral(t *testing.T) {
	took := 0
	rapid.Check(t, func(t *rapid.T) {
		cfg := genDirectConfig(t)
		got, direct := runDirect(t, cfg, true)
		want, _ := runDirect(t, cfg, false)
		if !bytes.Equal(got, want) {
			t.Fatalf("the direct path differs from the general one:\ngot %s\nwant %s", firstDiff(got, want), firstDiff(want, got))
		}
		if direct {
			took++
		}
	})
	if took < 20 {
		t.Fatalf("only %d of the scenarios drawn had a direct workload: the test checks too little", took)
	}
}

// TestDirectMMc: the M/M/c benchmark's model takes the direct path and
// gives the same results both ways.
func TestDirectMMc(t *testing.T) {
	cfg := mmcConfig(7.2, 1, 8, 2000, 3)
	got, direct := runDirect(t, cfg, true)
	want, _ := runDirect(t, cfg, false)
	if !direct {
		t.Fatal("the M/M/c model does not take the direct path")
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the direct path differs from the general one:\ngot %s\nwant %s", firstDiff(got, want), firstDiff(want, got))
	}
}
