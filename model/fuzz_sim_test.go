package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/scenarios"
	"github.com/headroom-sim/headroom/sim"
)

// FuzzSimulate loads arbitrary scenario text (seeded with every embedded
// example, whose numbers the fuzzer mutates), and simulates what loads
// over a short horizon: two minutes in 30-second intervals, at most
// 100,000 requests in flight, skipped when the work estimate is over 10^5
// events. A simulation must not panic, and its results must be finite
// (they write as JSON) and keep the books: requests offered = completed +
// failed + in flight, each backend's attempts = admitted + refused, and
// every cost figure equal to every other.
//
//	go test -run '^$' -fuzz '^FuzzSimulate$' -fuzztime 3m ./model/
func FuzzSimulate(f *testing.F) {
	for _, e := range scenarios.Examples() {
		f.Add(e.Source)
	}
	short := []scenarios.Override{{Path: "duration", Value: 120.0}, {Path: "interval", Value: 30.0}}
	f.Fuzz(func(t *testing.T, src []byte) {
		sc, err := scenarios.LoadBytes(src, "fuzz.toml")
		if err != nil {
			return
		}
		cfgs, err := sc.Configs(short)
		if err != nil {
			return // a variant that the short horizon makes invalid, say
		}
		for _, c := range cfgs {
			if w := model.EstimateWork(c); !(w.Events <= 1e5) {
				continue
			}
			s, err := model.Build(c)
			if err != nil {
				t.Fatalf("a configuration that loaded does not build: %v", err)
			}
			s.SetMaxInFlight(100_000)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			r, err := s.Run(ctx)
			cancel()
			var tooMany *model.TooManyInFlight
			if errors.As(err, &tooMany) || errors.Is(err, sim.ErrInterrupted) {
				continue
			}
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			checkBooks(t, r)
		}
	})
}

func checkBooks(t *testing.T, r *model.Results) {
	t.Helper()
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("results do not write as JSON: %v", err)
	}
	for _, g := range append([]model.GroupResult{{Name: "total", Summary: r.Summary}}, r.Workloads...) {
		q := g.Summary.Requests
		if q.Offered != q.Completed+q.Failed+q.InFlightAtEnd {
			t.Fatalf("%s: offered %d != completed %d + failed %d + in flight %d", g.Name, q.Offered, q.Completed, q.Failed, q.InFlightAtEnd)
		}
	}
	var backends, series float64
	for _, b := range r.Backends {
		var rej int64
		for _, v := range b.Rejected {
			rej += v
		}
		if b.Attempts != b.Admitted+rej {
			t.Fatalf("%s: attempts %d != admitted %d + refused %d", b.Name, b.Attempts, b.Admitted, rej)
		}
		backends += b.Cost.Total
	}
	for _, v := range r.Series.CostUSD {
		series += v
	}
	total := r.Summary.Cost.Total
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }
	if !near(backends, total) || !near(series, total) {
		t.Fatalf("cost: summary %v, backends %v, series %v", total, backends, series)
	}
}
