package model

import (
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/workloads"
)

// scopeCfg is two workloads on two API keys of one provider, each sending
// one request with a 2,000-token shared prefix: the first at t = 0, the
// second 10 s later, within the cache's TTL.
func scopeCfg(group string) Config {
	wl := func(name, key string, at float64) WorkloadSpec {
		return WorkloadSpec{Name: name, Route: "p", Key: key,
			Demand: workloads.DemandSpec{Count: 1, At: workloads.Duration(at)},
			Tokens: workloads.TokenSpec{Input: workloads.Fixed(3000), Output: workloads.Fixed(10), SharedPrefix: 2000, PrefixGroup: group},
			Client: ClientSpec{Retry: RetrySpec{Preset: "none"}}}
	}
	return Config{Name: "scope", Seed: 1, Duration: 120, Interval: 60,
		Workloads: []WorkloadSpec{wl("support", "team-a", 0), wl("sales", "team-b", 10)},
		Providers: []ProviderSpec{{Name: "p", Keys: []KeySpec{{Name: "team-a"}, {Name: "team-b"}},
			Latency: LatencySpec{TTFT: TTFTSpec{Base: 0.5}, TPOT: TPOTSpec{Mean: 0.01}}}}}
}

// TestPromptCacheAcrossKeys: a provider's prompt cache is the
// organization's, so two keys sending the same prefix share its entry
// (named by prefix_group); workloads that do not say so send their own.
func TestPromptCacheAcrossKeys(t *testing.T) {
	cfg := scopeCfg("assistant")
	cfg.ApplyDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, cfg)
	got := map[string]TokenCounts{}
	for _, w := range r.Workloads {
		got[w.Name] = w.Summary.Tokens
	}
	if got["support"].CacheWrite != 2000 || got["support"].CacheRead != 0 || got["sales"].CacheRead != 2000 || got["sales"].CacheWrite != 0 {
		t.Errorf("one prefix group over two keys: support %+v, sales %+v; want a write, then a read", got["support"], got["sales"])
	}
	r = mustRun(t, scopeCfg(""))
	for _, w := range r.Workloads {
		if w.Summary.Tokens.CacheWrite != 2000 || w.Summary.Tokens.CacheRead != 0 {
			t.Errorf("%s without a group: %+v; want its own write", w.Name, w.Summary.Tokens)
		}
	}
	// A group's workloads send the same prefixes.
	bad := scopeCfg("assistant")
	bad.Workloads[1].Tokens.SharedPrefix = 1500
	bad.ApplyDefaults()
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), `"assistant" is also workload "support"'s, whose shared_prefix is 2000 tokens`) {
		t.Errorf("mismatched group: %v", err)
	}
}

// TestLivePromptCacheAcrossKeys: live, the prompt cache is shared by every
// key of the provider, as the organization's is.
func TestLivePromptCacheAcrossKeys(t *testing.T) {
	cfg := scopeCfg("")
	rec := newRecorder()
	l, err := NewLive(cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	a, err := l.Resolve(0, "team-a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.Resolve(0, "team-b")
	if err != nil {
		t.Fatal(err)
	}
	l.AdvanceTo(1)
	if _, err := l.Inject(LiveRequest{Workload: a, Tag: 1, Input: 3000, Output: 10, Prefix: 42, PrefixTokens: 2000}); err != nil {
		t.Fatal(err)
	}
	l.AdvanceTo(5)
	if _, err := l.Inject(LiveRequest{Workload: b, Tag: 2, Input: 3000, Output: 10, Prefix: 42, PrefixTokens: 2000}); err != nil {
		t.Fatal(err)
	}
	l.AdvanceTo(60)
	if u := rec.completed[1]; u.CacheWrite != 2000 {
		t.Errorf("first key: %+v", u)
	}
	if u := rec.completed[2]; u.CacheRead != 2000 || u.CacheWrite != 0 {
		t.Errorf("second key, same prefix: read %d write %d, want 2000 read", u.CacheRead, u.CacheWrite)
	}
}

// TestPrefixGroupOnCluster: a replica's prefix cache holds a group's
// shared prefix for every workload of the group, as vLLM's automatic
// prefix caching serves any request with the same leading blocks.
func TestPrefixGroupOnCluster(t *testing.T) {
	for _, group := range []string{"assistant", ""} {
		cfg := scopeCfg(group)
		cfg.Providers = nil
		cl := gpuCluster("gpu", 1, 1)
		cl.PrefixCaching = true
		cfg.Clusters = []ClusterSpec{cl}
		for i := range cfg.Workloads {
			cfg.Workloads[i].Route, cfg.Workloads[i].Key = "gpu", ""
			cfg.Workloads[i].Tokens.Input = workloads.Fixed(1000)
			cfg.Workloads[i].Tokens.SharedPrefix = 512
		}
		cfg.ApplyDefaults()
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		r := mustRun(t, cfg)
		read := map[string]int64{}
		for _, w := range r.Workloads {
			read[w.Name] = w.Summary.Tokens.CacheRead
		}
		if shared := read["sales"] == 512; shared != (group != "") || read["support"] != 0 {
			t.Errorf("group %q: prefix-cache reads %v; want the second workload to read the first's 512 tokens only with a group", group, read)
		}
	}
}
