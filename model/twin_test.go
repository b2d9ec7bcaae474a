package model

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

// runTwin runs cfg with the only workload's TTFT and queue-wait sketches
// taken from the series (markTwins) or kept apart, and returns its results
// as JSON and whether the workload was a twin.
func runTwin(t interface{ Fatal(...any) }, cfg Config, twin bool) ([]byte, bool) {
	b, s := runSet(t, cfg, func(s *Sim) { s.noTwin = !twin })
	return b, len(s.wls) == 1 && s.wls[0].stats.twin
}

// TestTwinEqualsOwnSketches: a run's only workload, whose TTFT and queue
// wait sketches are the series' merged with their own sums, reports
// byte for byte what it reports with sketches of its own, on random
// scenarios (direct and general paths, windows, SLOs, prices, closed and
// open loops) and on the M/M/c model.
func TestTwinEqualsOwnSketches(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := genDirectConfig(t)
		cfg.Workloads = cfg.Workloads[:1]
		got, twin := runTwin(t, cfg, true)
		want, _ := runTwin(t, cfg, false)
		if !twin {
			t.Fatal("the only workload is not a twin")
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("the twin differs:\ngot %s\nwant %s", firstDiff(got, want), firstDiff(want, got))
		}
	})
	cfg := mmcConfig(7.2, 1, 8, 2000, 3)
	got, _ := runTwin(t, cfg, true)
	want, _ := runTwin(t, cfg, false)
	if !bytes.Equal(got, want) {
		t.Fatalf("the twin differs on the M/M/c model:\ngot %s\nwant %s", firstDiff(got, want), firstDiff(want, got))
	}
}
