package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/scenarios/plan"
)

// fakeLine is a redraw line on a buffer whose clock moves only when told.
func fakeLine() (*redrawLine, *bytes.Buffer, *time.Time) {
	var buf bytes.Buffer
	t := time.Unix(0, 0)
	return &redrawLine{w: &buf, now: func() time.Time { return t }}, &buf, &t
}

// TestRunProgress: the run's line shows the estimate when it is over ten
// seconds, then the share done, the time left once two seconds have
// passed, and nothing when the line would not change.
func TestRunProgress(t *testing.T) {
	p, buf, now := fakeLine()
	f := p.run(batchEstimate{items: 1, workers: 1, Work: model.Work{Events: 1e10}})
	if got, want := buf.String(), "\rsimulating… about 1e+10 events, estimated 41m40s\033[K"; got != want {
		t.Fatalf("estimate line %q, want %q", got, want)
	}
	buf.Reset()
	f(0.1)
	f(0.1)
	*now = now.Add(4 * time.Second)
	f(0.5)
	if got, want := buf.String(), "\rsimulating…  10%\033[K\rsimulating…  50% · about 4s left\033[K"; got != want {
		t.Errorf("progress %q, want %q", got, want)
	}
}

// TestPlanProgress: the plan's line counts the simulations against the
// estimate and the time taken, on the same redraw.
func TestPlanProgress(t *testing.T) {
	p, buf, now := fakeLine()
	f := p.plan(plan.Estimate{Simulations: 1200, Workers: 2, Events: 1e6})
	if buf.Len() != 0 {
		t.Fatalf("a short plan showed its estimate: %q", buf.String())
	}
	*now = now.Add(3 * time.Second)
	f(12)
	f(12)
	if got, want := buf.String(), "\rplanning… 12 simulations (estimated at most 1,200) · 3s\033[K"; got != want {
		t.Errorf("progress %q, want %q", got, want)
	}
}
