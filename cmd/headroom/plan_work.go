package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/scenarios/plan"
	"github.com/headroom-sim/headroom/workloads"
)

// planDuration is how long the estimate's events take on its workers.
func planDuration(e plan.Estimate) time.Duration {
	return batchEstimate{items: e.Simulations, workers: e.Workers, Work: model.Work{Events: e.Events}}.duration()
}

// workBounds are the bounds a plan is checked against (tests lower them).
type workBounds struct {
	events, bytes float64
}

// defaultBounds are run's: maxEvents and maxBytes.
var defaultBounds = workBounds{events: maxEvents, bytes: maxBytes}

// checkPlanEstimate refuses a plan beyond the bounds, unless force.
func checkPlanEstimate(e plan.Estimate, b workBounds, force bool) error {
	if force {
		return nil
	}
	if !(e.Events <= b.events) {
		return badInput("this plan would handle about %s events: up to about %s simulations (%s) of about %s events each (%s), "+
			"which would take about %s on %d worker(s); the bound is %s events. Narrow the knobs' ranges or values, lower plan.replications or plan.recheck, "+
			"shorten the duration, lower the demand, or run with --force",
			approx(e.Events), report.Count(int64(e.Simulations)), planSplit(e), approx(e.PerRun.Events), planWhy(e), durationText(planDuration(e)), e.Workers, approx(b.events))
	}
	if !(e.Bytes <= b.bytes) {
		return badInput("this plan would need about %s of memory (up to %s requests in flight at once in a simulation, %d simulations at once); the bound is %s. "+
			"Cap the clients (client.max_concurrency), use fewer users, wider intervals or fewer --workers, or run with --force",
			bytesText(e.Bytes), approx(e.PerRun.InFlight), e.Workers, bytesText(b.bytes))
	}
	return nil
}

// planSplit says what the estimated simulations are for: "22 for the
// search, where an exhaustive one runs 24; 20 for the growth".
func planSplit(e plan.Estimate) string {
	var parts []string
	if search := e.Simulations - e.GrowthSimulations; search > 0 {
		parts = append(parts, fmt.Sprintf("%s for the search and the re-check, where an exhaustive search runs %s", report.Count(int64(search)), report.Count(int64(e.Exhaustive))))
	}
	if e.GrowthSimulations > 0 {
		parts = append(parts, fmt.Sprintf("%s for the growth, at about %d× the demand", report.Count(int64(e.GrowthSimulations)), plan.GrowthFactor))
	}
	return strings.Join(parts, "; ")
}

// planWhy names the largest contributor to a simulation's events.
func planWhy(e plan.Estimate) string {
	if e.Busiest == "" {
		return "no workload issues requests"
	}
	return fmt.Sprintf("the busiest workload, %q, issues about %s requests in one", e.Busiest, approx(e.Requests))
}

// planRunError words the errors a plan stops with.
func planRunError(err error) error {
	var wb *plan.WorkBound
	var tooMany *model.TooManyInFlight
	switch {
	case errors.As(err, &wb):
		return fmt.Errorf("stopped after %s simulations: the next would take the plan past its bound of %s events (the search needed more than estimated); "+
			"no result files were written. Narrow the knobs' ranges or values, lower plan.replications or plan.recheck, shorten the duration, or run with --force",
			report.Count(int64(wb.Simulations)), approx(wb.Bound))
	case errors.As(err, &tooMany):
		return fmt.Errorf("stopped: a candidate had more than %s requests in flight at once %s into the simulated horizon (its backends fall ever further behind the demand), "+
			"and memory is bounded at about %s per simulation; no result files were written. Start the knob's range higher, so that no candidate is that far short, "+
			"cap the client (client.max_concurrency), or run with --force to lift the bound",
			report.Count(tooMany.Limit), workloads.Duration(tooMany.At), bytesText(float64(tooMany.Limit)*model.BytesPerRequest))
	}
	return err
}

// planProgress returns a progress callback that redraws one line on
// stderr with the simulations run and the time left by the estimate, or
// nil when stderr is not a terminal (or when quiet). It first shows the
// estimate, when that is over ten seconds.
func planProgress(stderr io.Writer, quiet bool, e plan.Estimate) func(int) {
	if quiet || !isTerminal(stderr) {
		return nil
	}
	if d := planDuration(e); d > 10*time.Second {
		fmt.Fprintf(stderr, "\rplanning… up to about %s simulations of about %s events each: about %s on %d worker(s), at most\033[K", report.Count(int64(e.Simulations)), approx(e.PerRun.Events), durationText(d), e.Workers)
	}
	start := time.Now()
	return func(sims int) {
		line := fmt.Sprintf("\rplanning… %s simulations (estimated at most %s) · %s", report.Count(int64(sims)), report.Count(int64(e.Simulations)), durationText(time.Since(start).Round(time.Second)))
		fmt.Fprint(stderr, line+"\033[K")
	}
}
