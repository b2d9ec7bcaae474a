package model

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/headroom-sim/headroom/sim"
	"github.com/headroom-sim/headroom/workloads"
)

// jobConfig is a one-off job of count requests behind a client of cap
// slots, served in 1 s each by an unlimited provider.
func jobConfig(count, cap int, duration float64) Config {
	c := mmcConfig(1, 1, cap, duration, 1)
	c.Workloads[0].Demand = workloads.DemandSpec{Count: count}
	c.Providers[0].Latency.TTFT.Dist = ""
	return c
}

// A job's requests beyond the client's slots are not made until a slot
// frees: a job of 100M requests behind 16 slots holds 16 records, and the
// requests it completes follow from the fluid limit (16 per second).
func TestJobRequestsIssuedLazily(t *testing.T) {
	c := jobConfig(100_000_000, 16, 600)
	s, err := Build(c)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.reqs); n > 16 {
		t.Errorf("%d request records for 16 client slots", n)
	}
	q := r.Summary.Requests
	if q.Offered != 100_000_000 || q.Completed != 16*600 || q.InFlightAtEnd != q.Offered-q.Completed {
		t.Errorf("offered %d, completed %d (want 16 a second: %d), in flight %d", q.Offered, q.Completed, 16*600, q.InFlightAtEnd)
	}
	if got := r.Series.QueueLength[0]; math.Abs(got-(100_000_000-16-16*30)) > 16*31 {
		t.Errorf("queue length over the first minute %v, want about 1e8", got)
	}
}

// Closed-loop users waiting for a client slot hold no request record.
func TestWaitingUsersHoldNoRecord(t *testing.T) {
	c := mmcConfig(1, 1, 4, 60, 1)
	c.Workloads[0].Demand = workloads.DemandSpec{Users: 100_000, Think: workloads.Fixed(0.001)}
	s, err := Build(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(s.reqs); n > 4 {
		t.Errorf("%d request records for 4 client slots and 100,000 users", n)
	}
}

// A simulation that holds more requests at once than its bound stops,
// says when, and returns its partial results marked interrupted.
func TestTooManyInFlight(t *testing.T) {
	c := jobConfig(1000, 0, 60)
	c.Workloads[0].Demand.At = 5
	s, err := Build(c)
	if err != nil {
		t.Fatal(err)
	}
	s.SetMaxInFlight(100)
	r, err := s.Run(context.Background())
	var tm *TooManyInFlight
	if !errors.As(err, &tm) || tm.Limit != 100 || tm.At != 5 {
		t.Fatalf("err %v, want more than 100 in flight at t = 5", err)
	}
	if r == nil || !r.Interrupted {
		t.Errorf("results %v, want partial results marked interrupted", r)
	}
	if errors.Is(err, sim.ErrInterrupted) {
		t.Error("a stopped run is not an interrupted one")
	}
	// Without a bound it runs.
	s, _ = Build(c)
	s.SetMaxInFlight(-1)
	if _, err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// RunEach builds a simulation only when a worker starts it, so at most
// workers exist at once, and hands every result over exactly once.
func TestRunEachBoundedByWorkers(t *testing.T) {
	const n, workers = 40, 3
	var alive, peak atomic.Int64
	var mu sync.Mutex
	seen := map[int]int{}
	cfg := func(i int) Config {
		if a := alive.Add(1); a > peak.Load() {
			peak.Store(a)
		}
		c := mmcConfig(2, 1, 2, 100, 1)
		c.Replication = i
		return c
	}
	err := RunEach(context.Background(), n, cfg, RunOptions{Workers: workers}, func(i int, r *Results) error {
		alive.Add(-1)
		mu.Lock()
		defer mu.Unlock()
		seen[i]++
		if r.Replication != i {
			t.Errorf("result %d is replication %d", i, r.Replication)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != n {
		t.Errorf("%d results for %d simulations", len(seen), n)
	}
	for i, k := range seen {
		if k != 1 {
			t.Errorf("result %d handed over %d times", i, k)
		}
	}
	if p := peak.Load(); p > workers {
		t.Errorf("%d simulations alive at once on %d workers", p, workers)
	}
	// An error from the sink stops the batch.
	stop := errors.New("enough")
	var calls atomic.Int64
	err = RunEach(context.Background(), n, func(i int) Config { return mmcConfig(2, 1, 2, 100, 1) }, RunOptions{Workers: 2},
		func(int, *Results) error { calls.Add(1); return stop })
	if !errors.Is(err, stop) || calls.Load() != 1 {
		t.Errorf("err %v after %d calls, want the sink's error after one", err, calls.Load())
	}
	// So does a cancelled context.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := RunEach(ctx, n, cfg, RunOptions{Workers: 2}, func(int, *Results) error { return nil }); !errors.Is(err, sim.ErrInterrupted) {
		t.Errorf("cancelled: %v", err)
	}
}

// The work estimate of an open loop is its rate over the horizon, two
// events a request plus the ticks; a closed loop's is its users over think
// time plus the fastest answer; a job's is its count, and its requests in
// flight are capped by the client.
func TestEstimateWork(t *testing.T) {
	c := mmcConfig(3, 1, 4, 1000, 1)
	w := EstimateWork(c)
	if w.Requests != 3000 || w.Events != 2*3000+10 || w.InFlight != 0 {
		t.Errorf("open loop: %+v", w)
	}
	c.Workloads[0].Demand = workloads.DemandSpec{Users: 50, Think: workloads.Fixed(1)}
	c.Providers[0].Latency.TTFT = TTFTSpec{Base: 1}
	if w := EstimateWork(c); math.Abs(w.Requests-50*1000/2.0) > 1e-6 || w.InFlight != 4 {
		t.Errorf("closed loop: %+v", w)
	}
	c.Workloads[0].Client.MaxConcurrency = 0
	if w := EstimateWork(c); w.InFlight != 25 {
		t.Errorf("closed loop: %+v", w)
	}
	c.Workloads[0].Demand = workloads.DemandSpec{Users: 50, Think: workloads.Fixed(0)}
	c.Providers[0].Latency.TTFT = TTFTSpec{}
	if w := EstimateWork(c); !math.IsInf(w.Events, 1) {
		t.Errorf("zero think at zero latency: %+v, want unbounded", w)
	}
	c = jobConfig(1e6, 0, 100)
	if w := EstimateWork(c); w.Requests != 1e6 || w.InFlight != 1e6 || w.Bytes < 1e6*BytesPerRequest {
		t.Errorf("uncapped job: %+v", w)
	}
}
