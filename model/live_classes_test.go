package model

import (
	"math"
	"testing"

	"github.com/headroom-sim/headroom/workloads"
)

// TestLivePriorityPerRequest: behind a fair queue of one slot, a request
// marked interactive goes before a batch-priority one that waited longer,
// whatever the endpoint's default.
func TestLivePriorityPerRequest(t *testing.T) {
	cfg := liveCfg()
	cfg.Providers[0].Concurrency = ConcurrencySpec{}
	cfg.Providers[0].Limits = LimitsSpec{}
	one := 1.0
	cfg.Gateway = &GatewaySpec{Queue: GatewayQueue{MaxInFlight: 1}, Tenants: []TenantSpec{{Name: "team", Weight: &one}}}
	cfg.Workloads[0].Tenant = "team"
	rec := newRecorder()
	l, err := NewLive(cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	wl, _ := l.Resolve(0, "team")
	send := func(tag uint64, prio string) {
		if _, err := l.Inject(LiveRequest{Workload: wl, Tag: tag, Input: 100, Output: 20, Priority: prio}); err != nil {
			t.Fatal(err)
		}
	}
	send(1, "")            // takes the slot
	send(2, PriorityBatch) // waits
	send(3, PriorityBatch) // waits
	send(4, "interactive") // waits, but goes first
	l.AdvanceTo(100)
	if !(rec.started[4].At < rec.started[2].At && rec.started[2].At < rec.started[3].At) {
		t.Errorf("starts: interactive %v, batch %v then %v; want the interactive one first", rec.started[4].At, rec.started[2].At, rec.started[3].At)
	}
	if _, err := l.Inject(LiveRequest{Workload: wl, Tag: 5, Input: 1, Output: 1, Priority: "urgent"}); err == nil {
		t.Error("an unknown priority was accepted")
	}
}

// TestLiveBatchLane: a request sent to the batch lane skips the rate
// limits, takes the batch turnaround and costs the batch price.
func TestLiveBatchLane(t *testing.T) {
	cfg := liveCfg()
	cfg.Providers[0].Limits = LimitsSpec{RPM: 1}
	cfg.Providers[0].Price = PriceSpec{Input: 3, Output: 15, BatchDiscount: 0.5}
	cfg.Providers[0].Batch = BatchSpec{Turnaround: workloads.Fixed(600)}
	rec := newRecorder()
	l, err := NewLive(cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	for tag := uint64(1); tag <= 3; tag++ {
		if _, err := l.Inject(LiveRequest{Workload: 0, Tag: tag, Input: 1000, Output: 100, Batch: true}); err != nil {
			t.Fatal(err)
		}
	}
	l.AdvanceTo(599)
	if _, _, f := rec.count(); f != 0 || len(rec.completed) != 0 {
		t.Fatalf("before the turnaround: %d completed, %d refused", len(rec.completed), f)
	}
	l.AdvanceTo(601)
	for tag := uint64(1); tag <= 3; tag++ {
		u, ok := rec.completed[tag]
		if !ok || math.Abs(u.Duration-600) > 1e-9 {
			t.Fatalf("batch request %d: %+v, want done after 600 s", tag, u)
		}
		want := 0.5 * (1000*3 + 100*15) / 1e6
		if math.Abs(u.CostUSD-want) > 1e-12 {
			t.Errorf("batch request %d cost %v, want %v (half price)", tag, u.CostUSD, want)
		}
	}
	// A cluster has no batch API.
	cfg = liveCfg()
	cfg.Clusters = append(cfg.Clusters, gpuCluster("gpu", 1, 1))
	if l, err = NewLive(cfg, newRecorder()); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Inject(LiveRequest{Workload: len(l.wls) - 1, Tag: 9, Input: 10, Output: 1, Batch: true}); err == nil {
		t.Error("a cluster took a batch-lane request")
	}
}

// TestLiveResponseCache: with a gateway response cache, a repeated request
// is answered from the cache within its TTL, at no cost; a request without
// content is never cached.
func TestLiveResponseCache(t *testing.T) {
	cfg := liveCfg()
	cfg.Providers[0].Concurrency = ConcurrencySpec{}
	cfg.Providers[0].Price = PriceSpec{Input: 3, Output: 15}
	one := 1.0
	cfg.Gateway = &GatewaySpec{Cache: GatewayCache{TTL: 60, Latency: 0.02}, Tenants: []TenantSpec{{Name: "team", Weight: &one}}}
	cfg.Workloads[0].Tenant = "team"
	rec := newRecorder()
	l, err := NewLive(cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	wl, _ := l.Resolve(0, "team")
	send := func(tag, content uint64, at float64) {
		l.AdvanceTo(at)
		if _, err := l.Inject(LiveRequest{Workload: wl, Tag: tag, Input: 100, Output: 10, Content: content}); err != nil {
			t.Fatal(err)
		}
	}
	send(1, 77, 0)
	send(2, 77, 10)  // a hit
	send(3, 78, 11)  // other content
	send(4, 77, 100) // past the TTL
	send(5, 0, 101)
	send(6, 0, 110) // no content: never a hit
	l.AdvanceTo(200)
	for tag, hit := range map[uint64]bool{1: false, 2: true, 3: false, 4: false, 5: false, 6: false} {
		u, ok := rec.completed[tag]
		if !ok {
			t.Fatalf("request %d did not complete: %+v", tag, rec.failed[tag])
		}
		if got := u.CostUSD == 0 && math.Abs(u.Duration-0.02) < 1e-9; got != hit || u.FromCache != hit {
			t.Errorf("request %d: cost %v after %v s; hit %v, want %v", tag, u.CostUSD, u.Duration, got, hit)
		}
	}
}
