package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/scenarios/plan"
)

// redrawLine is one line on a terminal that redraws itself: each draw
// returns to the line's start, writes the text and clears what is left of
// the old one; a text the same as the last is not drawn again.
type redrawLine struct {
	w    io.Writer
	last string
	now  func() time.Time
}

// progressOn is a progress line on stderr, or nil when stderr is not a
// terminal (or when quiet).
func progressOn(stderr io.Writer, quiet bool) *redrawLine {
	if quiet || !isTerminal(stderr) {
		return nil
	}
	return &redrawLine{w: stderr, now: time.Now}
}

func (p *redrawLine) draw(format string, args ...any) {
	line := "\r" + fmt.Sprintf(format, args...) + "\033[K"
	if line != p.last {
		p.last = line
		fmt.Fprint(p.w, line)
	}
}

// isTerminal reports whether w is a terminal (a character device), where
// a progress line may redraw itself.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressPrinter returns a progress callback that redraws one line on
// stderr with the share done and the time left, or nil when stderr is not
// a terminal (or when quiet). Before the first progress it shows the
// estimate's time, when that is over ten seconds.
func progressPrinter(stderr io.Writer, quiet bool, est batchEstimate) func(float64) {
	if p := progressOn(stderr, quiet); p != nil {
		return p.run(est)
	}
	return nil
}

func (p *redrawLine) run(est batchEstimate) func(float64) {
	if d := est.duration(); d > 10*time.Second {
		p.draw("simulating… about %s events, estimated %s", approx(est.Events), durationText(d))
	}
	start := p.now()
	return func(done float64) {
		left := ""
		if el := p.now().Sub(start); done >= 0.01 && el > 2*time.Second {
			left = " · about " + durationText(time.Duration(float64(el)*(1-done)/done).Round(time.Second)) + " left"
		}
		p.draw("simulating… %3d%%%s", int(done*100), left)
	}
}

// planProgress returns a progress callback that redraws one line on
// stderr with the simulations run and the time taken, or nil when stderr
// is not a terminal (or when quiet). It first shows the estimate, when
// that is over ten seconds.
func planProgress(stderr io.Writer, quiet bool, e plan.Estimate) func(int) {
	if p := progressOn(stderr, quiet); p != nil {
		return p.plan(e)
	}
	return nil
}

func (p *redrawLine) plan(e plan.Estimate) func(int) {
	if d := planDuration(e); d > 10*time.Second {
		p.draw("planning… up to about %s simulations of about %s events each: about %s on %d worker(s), at most",
			report.Count(int64(e.Simulations)), approx(e.PerRun.Events), durationText(d), e.Workers)
	}
	start := p.now()
	return func(sims int) {
		p.draw("planning… %s simulations (estimated at most %s) · %s", report.Count(int64(sims)), report.Count(int64(e.Simulations)),
			durationText(p.now().Sub(start).Round(time.Second)))
	}
}
