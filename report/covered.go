package report

import (
	"fmt"

	"github.com/headroom-sim/headroom/model"
)

// Covered is the simulated time r's figures are over: the scenario's
// duration, or for an interrupted run (a live session ended early) the
// part of it that was simulated.
func Covered(r *model.Results) float64 {
	if r.Interrupted && r.SimulatedS > 0 && r.SimulatedS < r.DurationS {
		return r.SimulatedS
	}
	return r.DurationS
}

// SimulatedSpan says how much was simulated: "1h", or "1m05s of 1h" for
// an interrupted run.
func SimulatedSpan(r *model.Results) string {
	if c := Covered(r); c < r.DurationS {
		return fmt.Sprintf("%s of %s", Seconds(c), Seconds(r.DurationS))
	}
	return Seconds(r.DurationS)
}

// InterruptedLine is the warning an interrupted run's verdict opens with.
func InterruptedLine(r *model.Results) string {
	if c := Covered(r); c < r.DurationS {
		return fmt.Sprintf("interrupted: ended early, after %s of the scenario's %s (simulated time); every figure, cost included, is over those %s only",
			Seconds(c), Seconds(r.DurationS), Seconds(c))
	}
	return "interrupted: results cover only the simulated time before the interruption"
}
