package model

import (
	"math"
	"testing"

	"github.com/headroom-sim/headroom/sim"
	"github.com/headroom-sim/headroom/workloads"
)

// recorder is a LiveObserver that keeps what it was told.
type recorder struct {
	started   map[uint64]LiveStart
	completed map[uint64]LiveUsage
	failed    map[uint64]LiveRefusal
}

func newRecorder() *recorder {
	return &recorder{started: map[uint64]LiveStart{}, completed: map[uint64]LiveUsage{}, failed: map[uint64]LiveRefusal{}}
}

func (r *recorder) Started(tag uint64, s *LiveStart)   { r.started[tag] = *s }
func (r *recorder) Completed(tag uint64, u *LiveUsage) { r.completed[tag] = *u }
func (r *recorder) Failed(tag uint64, f *LiveRefusal)  { r.failed[tag] = *f }
func (r *recorder) ended(tag uint64) bool {
	_, a := r.completed[tag]
	_, b := r.failed[tag]
	return a || b
}
func (r *recorder) count() (started, completed, failed int) {
	return len(r.started), len(r.completed), len(r.failed)
}

// liveCfg is a provider under several binding limits with random latency,
// loaded past them by a Poisson workload that never retries.
func liveCfg() Config {
	return Config{
		Name: "live", Seed: 7, Duration: 600, Interval: 60,
		Workloads: []WorkloadSpec{{
			Name: "chat", Route: "p",
			Demand: workloads.DemandSpec{Unit: "requests/s", Rate: 4},
			Tokens: workloads.TokenSpec{Input: workloads.Fixed(500), Output: workloads.Fixed(200), MaxTokens: 300},
			Client: ClientSpec{Retry: RetrySpec{Preset: "none"}},
		}},
		Providers: []ProviderSpec{{
			Name:        "p",
			Limits:      LimitsSpec{RPM: 120, OTPM: 50_000, ITPM: 100_000},
			Concurrency: ConcurrencySpec{Max: 12},
			Latency: LatencySpec{TTFT: TTFTSpec{Base: 0.4, PerInputToken: 0.0002, Dist: "lognormal", CV: 0.5},
				TPOT: TPOTSpec{Mean: 0.02, Dist: "lognormal", CV: 0.3}},
		}},
	}
}

// arrivalsOf regenerates a workload's arrival times as Build draws them.
func arrivalsOf(t *testing.T, c Config, wi int) []float64 {
	t.Helper()
	w := c.Workloads[wi]
	curve, err := w.Demand.BuildCurve(c.StartClock)
	if err != nil {
		t.Fatal(err)
	}
	a := workloads.NewArrivals(curve, w.Demand.Arrivals, sim.Stream(c.Seed, "workload/"+w.Name+"/arrivals", c.Replication))
	var out []float64
	for at := a.Next(); at < c.Duration; at = a.Next() {
		out = append(out, at)
	}
	return out
}

// TestLiveMatchesRun injects the arrivals `run` simulates, one by one at
// their times, and requires the same outcome decision by decision: the
// live form is the simulation, not a copy of it.
func TestLiveMatchesRun(t *testing.T) {
	cfg := liveCfg()
	want := mustRun(t, cfg)
	rec := newRecorder()
	l, err := NewLive(cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Endpoints()) != 1 || l.Endpoints()[0].Name != "p" {
		t.Fatalf("endpoints %+v", l.Endpoints())
	}
	wl, err := l.Resolve(0, "any-key")
	if err != nil {
		t.Fatal(err)
	}
	arr := arrivalsOf(t, cfg, 0)
	for i, at := range arr {
		l.AdvanceTo(at)
		if _, err := l.Inject(LiveRequest{Workload: wl, Tag: uint64(i + 1), Input: 500, Output: 200, MaxTokens: 300}); err != nil {
			t.Fatal(err)
		}
	}
	l.AdvanceTo(l.Horizon())
	got := l.Results()
	if got.Interrupted {
		t.Fatal("a live run that reached its horizon says it was interrupted")
	}
	ws, gs := want.Summary, got.Summary
	if ws.Requests.Offered != int64(len(arr)) || !sameCounts(gs.Requests, ws.Requests) {
		t.Fatalf("requests: live %+v, run %+v", gs.Requests, ws.Requests)
	}
	for k, v := range ws.Attempts.Rejected {
		if gs.Attempts.Rejected[k] != v {
			t.Errorf("rejected %s: live %d, run %d", k, gs.Attempts.Rejected[k], v)
		}
	}
	if ws.Attempts.Rejected["rpm"] == 0 || ws.Attempts.Rejected["concurrency"] == 0 {
		t.Fatalf("the scenario should bind on rpm and concurrency: %v", ws.Attempts.Rejected)
	}
	if gs.Latency.TTFT != ws.Latency.TTFT || gs.Latency.E2E != ws.Latency.E2E || gs.Tokens != ws.Tokens {
		t.Errorf("latency or tokens differ:\nlive %+v %+v\nrun  %+v %+v", gs.Latency.TTFT, gs.Tokens, ws.Latency.TTFT, ws.Tokens)
	}
	st, done, failed := rec.count()
	if int64(done) != ws.Requests.Completed || int64(failed) != ws.Requests.Failed || st != done+int(gs.Requests.InFlightAtEnd) {
		t.Errorf("observer saw %d started, %d completed, %d failed; results %+v", st, done, failed, gs.Requests)
	}
	for tag, s := range rec.started {
		u, ok := rec.completed[tag]
		if !ok {
			continue
		}
		if math.Abs(u.At-s.Done) > 1e-9 || s.FirstToken <= s.At || s.Done < s.FirstToken {
			t.Fatalf("request %d: started %+v, completed at %v", tag, s, u.At)
		}
		if s.Limits.N != 3 || s.Limits.Levels[0].Dim != "rpm" || s.Limits.Levels[0].Capacity != 120 {
			t.Fatalf("request %d: limits %+v", tag, s.Limits.List())
		}
	}
	for tag, f := range rec.failed {
		if f.Reason == "rpm" && !(f.RetryAfter >= 1) {
			t.Fatalf("request %d: an rpm refusal without a Retry-After: %+v", tag, f)
		}
	}
}

func sameCounts(a, b RequestCounts) bool {
	if a.Offered != b.Offered || a.Completed != b.Completed || a.Failed != b.Failed || a.InFlightAtEnd != b.InFlightAtEnd {
		return false
	}
	for k, v := range b.FailedBy {
		if a.FailedBy[k] != v {
			return false
		}
	}
	return true
}

// TestLiveBucketLevels checks the levels read for headers against the
// token bucket's own arithmetic.
func TestLiveBucketLevels(t *testing.T) {
	cfg := liveCfg()
	cfg.Providers[0].Concurrency = ConcurrencySpec{}
	rec := newRecorder()
	l, err := NewLive(cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := l.Inject(LiveRequest{Workload: 0, Tag: uint64(i + 1), Input: 500, Output: 200, MaxTokens: 300}); err != nil {
			t.Fatal(err)
		}
	}
	l.AdvanceTo(30)
	var snap LiveSnapshot
	l.Snapshot(&snap)
	for _, b := range snap.Buckets {
		switch b.Dim {
		case "rpm": // 120 - 3, refilled at 2/s for 30 s, capped at 120
			if b.Remaining != 120 || b.Used != 3 || b.Reset != 0 {
				t.Errorf("rpm %+v", b)
			}
		case "otpm": // reserved 300 each, settled to 200 each when done
			if b.Used != 600 {
				t.Errorf("otpm used %v, want 600 after settlement", b.Used)
			}
		}
	}
	// Right after three admissions the bucket is three short, full again
	// in 1.5 s at 2 requests/s.
	l2, _ := NewLive(cfg, newRecorder())
	for i := 0; i < 3; i++ {
		l2.Inject(LiveRequest{Workload: 0, Tag: 1, Input: 500, Output: 200})
	}
	l2.Snapshot(&snap)
	if b := snap.Buckets[0]; b.Dim != "rpm" || b.Remaining != 117 || math.Abs(b.Reset-1.5) > 1e-9 {
		t.Errorf("just after 3 admissions: %+v", b)
	}
}

// TestLivePromptCache: the second request with the same prefix reads what
// the first wrote; a different prefix writes its own.
func TestLivePromptCache(t *testing.T) {
	cfg := liveCfg()
	cfg.Providers[0].Concurrency = ConcurrencySpec{}
	rec := newRecorder()
	l, err := NewLive(cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	send := func(tag, prefix uint64, at float64) {
		l.AdvanceTo(at)
		if _, err := l.Inject(LiveRequest{Workload: 0, Tag: tag, Input: 3000, Output: 10, Prefix: prefix, PrefixTokens: 2000}); err != nil {
			t.Fatal(err)
		}
	}
	send(1, 42, 0)
	send(2, 42, 5)
	send(3, 43, 6)
	send(4, 42, 400) // past the 5-minute TTL
	l.AdvanceTo(500)
	want := []struct{ read, write int }{{0, 2000}, {2000, 0}, {0, 2000}, {0, 2000}}
	for i, w := range want {
		u := rec.completed[uint64(i+1)]
		if u.CacheRead != w.read || u.CacheWrite != w.write {
			t.Errorf("request %d: read %d write %d, want %d %d", i+1, u.CacheRead, u.CacheWrite, w.read, w.write)
		}
	}
}

// TestLiveAbandonReleasesGatewaySlot: a client that goes away gives its
// stream slot back at once, so the next request is admitted.
func TestLiveAbandonReleasesGatewaySlot(t *testing.T) {
	cfg := liveCfg()
	cfg.Providers[0].Concurrency = ConcurrencySpec{}
	one := 1.0
	cfg.Gateway = &GatewaySpec{Tenants: []TenantSpec{{Name: "team", MaxStreams: 1, Weight: &one}}}
	cfg.Workloads[0].Tenant = "team"
	rec := newRecorder()
	l, err := NewLive(cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	wl, err := l.Resolve(0, "team")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Resolve(0, "other"); err == nil {
		t.Fatal("an unknown tenant was accepted")
	}
	tk, _ := l.Inject(LiveRequest{Workload: wl, Tag: 1, Input: 100, Output: 500})
	l.AdvanceTo(1)
	l.Inject(LiveRequest{Workload: wl, Tag: 2, Input: 100, Output: 5})
	l.AdvanceTo(2)
	if f, ok := rec.failed[2]; !ok || f.Reason != "gw_streams" {
		t.Fatalf("second stream: %+v, want gw_streams", rec.failed[2])
	}
	if !l.Abandon(tk) {
		t.Fatal("abandon of a running request reported nothing outstanding")
	}
	l.Inject(LiveRequest{Workload: wl, Tag: 3, Input: 100, Output: 5})
	l.AdvanceTo(60)
	if _, ok := rec.completed[3]; !ok {
		t.Fatalf("after the first client left, the third request was not served: %+v", rec.failed[3])
	}
	if rec.ended(1) {
		t.Fatal("an abandoned request was reported")
	}
	res := l.Results()
	if rj := res.Summary.Attempts.Rejected; rj["client_disconnected"] != 1 || rj["timeout"] != 0 {
		t.Fatalf("the disconnect is not counted as client_disconnected (and not as a timeout): %v", rj)
	}
	if f := res.Summary.Requests.FailedBy; f["client_disconnected"] != 1 {
		t.Fatalf("the disconnected request did not fail as client_disconnected: %v", f)
	}
}
