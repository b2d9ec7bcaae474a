package model

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// The windows of a workload partition its whole-run counts: every request
// is counted in the window it arrived in, every attempt in the window it
// was sent in, and the 429s add up to the 429 reasons of the run.
func TestWindowsAddUpToTheRun(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := genConfig(t)
		cfg.Window = rapid.SampledFrom([]float64{7, 60, 600, 1e6}).Draw(t, "window")
		s, err := Build(cfg)
		if err != nil {
			t.Fatalf("build: %v", err)
		}
		r, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range r.Workloads {
			var off, done, failed, good, att, r429, lat int64
			for _, w := range g.Windows {
				off += w.Offered
				done += w.Completed
				failed += w.Failed
				good += w.Good
				att += w.Attempts
				r429 += w.Refused429
				lat += w.TTFT.Count
				if w.TTFT.Count != w.Completed || w.E2E.Count != w.Completed || w.QueueWait.Count != w.Completed {
					t.Fatalf("%s window %v: %d completed but %d/%d/%d latencies", g.Name, w.StartS, w.Completed, w.TTFT.Count, w.E2E.Count, w.QueueWait.Count)
				}
			}
			sm := g.Summary
			var want429 int64
			for k, v := range sm.Attempts.Rejected {
				if Status429(k) {
					want429 += v
				}
			}
			for _, c := range []struct {
				what      string
				got, want int64
			}{{"offered", off, sm.Requests.Offered}, {"completed", done, sm.Requests.Completed}, {"failed", failed, sm.Requests.Failed},
				{"good", good, sm.Goodput.Good}, {"attempts", att, sm.Attempts.Total}, {"429s", r429, want429}, {"latencies", lat, sm.Latency.TTFT.Count}} {
				if c.got != c.want {
					t.Fatalf("%s: windows hold %d %s, the run %d", g.Name, c.got, c.what, c.want)
				}
			}
		}
	})
}

// Without Config.Window the results carry no windows, so the JSON of
// every other command is unchanged.
func TestNoWindowsByDefault(t *testing.T) {
	r := mustRun(t, mmcConfig(2, 1, 4, 600, 1))
	b, _ := json.Marshal(r.Workloads)
	if r.Workloads[0].Windows != nil || strings.Contains(string(b), `"windows"`) {
		t.Fatalf("windows present without Config.Window: %s", b[:min(len(b), 200)])
	}
	c := mmcConfig(2, 1, 4, 600, 1)
	c.Window = -1
	if _, err := Build(c); err == nil {
		t.Fatal("a negative window was accepted")
	}
}

func TestStatus429(t *testing.T) {
	for _, k := range []string{"rpm", "key_tpm", "concurrency", "gw_units", "gw_streams", "spend_cap", "batch_queue"} {
		if !Status429(k) {
			t.Errorf("%s is a 429", k)
		}
	}
	for _, k := range []string{"queue_full", "overloaded_529", "timeout", "too_large_400", "gw_shed_503", "nonsense"} {
		if Status429(k) {
			t.Errorf("%s is not a 429", k)
		}
	}
}
