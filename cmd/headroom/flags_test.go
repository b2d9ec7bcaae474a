package main

import (
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
)

// TestTooManyInFlightMessage: the in-flight bound's message gives the
// time as a duration and, when every simulation starts at one clock time,
// as a clock time, and the resident memory measured at the bound.
func TestTooManyInFlightMessage(t *testing.T) {
	e := &model.TooManyInFlight{Limit: 10_000_000, At: 500.34804483868515}
	got := tooManyError(e, 0, true).Error()
	if !strings.HasPrefix(got, "stopped 8m20s (at 00:08:20) into the simulated horizon: more than 10,000,000 requests were in flight at once") ||
		!strings.Contains(got, "the bound keeps memory to about 6.0 GB per simulation; no result files were written") {
		t.Errorf("got %q", got)
	}
	if got := tooManyError(e, 23*3600+55*60, true).Error(); !strings.HasPrefix(got, "stopped 8m20s (at 00:03:20) into") {
		t.Errorf("past midnight: %q", got)
	}
	if got := tooManyError(e, 0, false).Error(); !strings.HasPrefix(got, "stopped 8m20s into") {
		t.Errorf("several starts: %q", got)
	}
	c := startClocks{seen: map[float64]bool{}}
	cfg := c.wrap(func(i int) model.Config { return model.Config{StartClock: float64(7*3600 + i%2*3600)} })
	cfg(0)
	if at, ok := c.only(); !ok || at != 7*3600 {
		t.Errorf("one start: %v %v", at, ok)
	}
	cfg(1)
	if _, ok := c.only(); ok {
		t.Error("two starts make no clock time")
	}
}
