package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/scenarios/plan"
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

// planRunError words the error a plan stops with at its work bound: the
// estimate assumes the growth search's mean factor, and a search that
// goes further can pass it. (A candidate past the in-flight bound does not
// stop the plan: it fails every constraint.)
func planRunError(err error) error {
	var wb *plan.WorkBound
	if errors.As(err, &wb) {
		return fmt.Errorf("stopped after %s simulations: the next would take the plan past its bound of %s events (the search needed more than estimated); "+
			"no result files were written. Narrow the knobs' ranges or values, lower plan.replications or plan.recheck, shorten the duration, or run with --force",
			report.Count(int64(wb.Simulations)), approx(wb.Bound))
	}
	return err
}
