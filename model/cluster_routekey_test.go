package model

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/headroom-sim/headroom/sim"
	"pgregory.net/rapid"
)

// keyChecker checks after every event that each replica's routing key is
// what least-work routing would compute from the replica itself.
type keyChecker struct {
	s *Sim
	t fataler
}

func (k keyChecker) Handle(e sim.Event) {
	k.s.Handle(e)
	for _, c := range k.s.clus {
		for i, rep := range c.replicas {
			want := routeKey(rep.load(), i)
			if !rep.accepting() {
				want = routeNone
			}
			if c.rkey[i] != want {
				k.t.Fatalf("%s replica %d at %v after event kind %d: routing key %d, load %d (state %d, failed %v)",
					c.spec.Name, i, e.Time, e.Kind, c.rkey[i], rep.load(), rep.state, rep.failed)
			}
		}
	}
}

// runRouted runs cfg with least-work routing reading the routing keys or,
// with scan, scanning the replicas as it did before the keys; it returns
// the results as JSON.
func runRouted(t fataler, cfg Config, scan bool) []byte {
	s, err := Build(cfg)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	for _, c := range s.clus {
		c.scanRoute = scan
	}
	s.ran = true
	s.start()
	if err := s.eng.Run(context.Background(), cfg.Duration, keyChecker{s, t}); err != nil {
		t.Fatalf("run: %v", err)
	}
	r := s.results(false)
	r.Events = s.eng.Events()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("json: %v", err)
	}
	return b
}

// TestRoutingKeysFollowLoads: on random cluster scenarios with fleet
// options (routing policies, autoscaling, pools, failures, schedules,
// static batches), every replica's routing key equals its outstanding work
// (or none, when it does not accept requests) after every event, and the
// results are byte for byte those of routing by scanning the replicas.
func TestRoutingKeysFollowLoads(t *testing.T) {
	kept := keepFailing(t)
	rapid.Check(t, func(t *rapid.T) {
		var cfg Config
		if rapid.Bool().Draw(t, "mixed?") {
			cfg = genConfig(t) // clusters beside hosted providers, static batches
			if len(cfg.Clusters) == 0 {
				t.Skip("no cluster")
			}
		} else {
			cfg = genClusterConfig(t)
			genFleet(t, &cfg.Clusters[0])
		}
		kept.watch(t, cfg)
		a, b := runRouted(t, cfg, false), runRouted(t, cfg, true)
		if !bytes.Equal(a, b) {
			t.Fatalf("routing keys and scanning differ at %s", firstDiff(a, b))
		}
	})
}
