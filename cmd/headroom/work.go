package main

import (
	"fmt"
	"math"
	"time"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// Bounds on a batch, checked before it runs (--force lifts them).
const (
	// maxEvents bounds the events a batch is estimated to handle: about
	// 40 minutes of one core at nsPerEvent.
	maxEvents = 1e10
	// maxBytes bounds a batch's estimated peak memory.
	maxBytes = 4 << 30
	// nsPerEvent is about what one event costs (model/PERFORMANCE.md: 165 to
	// 260 ns per request of two or three events), for the time estimate.
	nsPerEvent = 250
	// resultBytesPerInterval is what one interval of a kept result costs.
	resultBytesPerInterval = 250
	// trimmedResultBytes is what a shard keeps of a later replication.
	trimmedResultBytes = 4096
)

// batchEstimate is what a batch is expected to cost before it runs.
type batchEstimate struct {
	items   int
	workers int
	model.Work
	// why names the largest contributor to the events: the workload
	// issuing the most requests.
	why string
}

// estimateBatch estimates count work items of plan (all of them, or a
// shard's) run on workers: the events of every item, the peak memory of
// the simulations held at once plus the results kept.
func estimateBatch(plan *report.Plan, cfgs [][]model.Config, count, workers int) batchEstimate {
	e := batchEstimate{items: count, workers: workers}
	if count == 0 {
		return e
	}
	var perItem model.Work
	var maxBytes, intervals, inFlight float64
	kinds := 0
	most := 0.0
	for _, row := range cfgs {
		for _, c := range row {
			w := model.EstimateWork(c)
			perItem = perItem.Add(w)
			maxBytes = math.Max(maxBytes, w.Bytes)
			inFlight = math.Max(inFlight, w.InFlight)
			if c.Interval > 0 {
				intervals = math.Max(intervals, math.Ceil(c.Duration/c.Interval))
			}
			for i := range c.Workloads {
				one := c
				one.Workloads = c.Workloads[i : i+1]
				if r := model.EstimateWork(one).Requests; r > most {
					most = r
					e.why = fmt.Sprintf("the busiest workload, %q, issues about %s requests in one", c.Workloads[i].Name, approx(r))
				}
			}
			kinds++
		}
	}
	scale := float64(count) / float64(kinds)
	e.Requests = perItem.Requests * scale
	e.Events = perItem.Events * scale
	e.InFlight = inFlight
	// Held at once: a simulation per worker, the first replication of
	// every grid point and variant, and a few hundred bytes per item.
	firsts := float64(min(count, plan.NumPoints()*len(plan.Variants)))
	e.Bytes = float64(min(workers, count))*maxBytes + firsts*intervals*resultBytesPerInterval + float64(count)*report.ItemBytes
	if plan.Replications > 1 && count > int(firsts) {
		e.Bytes += float64(count-int(firsts)) * trimmedResultBytes / float64(plan.Replications) // a shard's trimmed results
	}
	return e
}

// duration is how long the estimate's events take on its workers.
func (e batchEstimate) duration() time.Duration {
	s := e.Events * nsPerEvent / 1e9 / float64(max(1, min(e.workers, e.items)))
	if s > 1e9 || math.IsInf(s, 0) || math.IsNaN(s) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(s * float64(time.Second))
}

// check refuses a batch beyond the bounds, unless force.
func (e batchEstimate) check(force bool) error {
	if force {
		return nil
	}
	if !(e.Events <= maxEvents) {
		return badInput("this run would handle about %s events in %s simulation(s) (%s), which would take about %s on %d worker(s) at %d ns an event; "+
			"the bound is %s events. Shorten the duration, lower the demand or the replications, or run with --force",
			approx(e.Events), report.Count(int64(e.items)), e.why, durationText(e.duration()), max(1, min(e.workers, e.items)), nsPerEvent, approx(maxEvents))
	}
	if !(e.Bytes <= maxBytes) {
		return badInput("this run would need about %s of memory (up to %s requests in flight at once in a simulation, %s simulations at once, %s work items); the bound is %s. "+
			"Cap the clients (client.max_concurrency), use fewer users, wider intervals, fewer --workers or replications, or run with --force",
			bytesText(e.Bytes), approx(e.InFlight), report.Count(int64(max(1, min(e.workers, e.items)))), report.Count(int64(e.items)), bytesText(maxBytes))
	}
	return nil
}

// approx formats a large count with three significant digits: "3.6e+15",
// "1,200,000".
func approx(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "unboundedly many"
	}
	if v >= 1e9 {
		return fmt.Sprintf("%.2g", v)
	}
	return report.Count(int64(math.Round(v)))
}

// bytesText formats a byte count in binary units, labelled as such:
// "4.0 GiB", "310 MiB".
func bytesText(b float64) string {
	switch {
	case math.IsInf(b, 0) || math.IsNaN(b):
		return "unboundedly much"
	case b >= 1<<40:
		return fmt.Sprintf("%.3g TiB", b/(1<<40))
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	}
	return fmt.Sprintf("%.0f MiB", b/(1<<20))
}

// durationText formats a wall-clock estimate: "45s", "3m10s", "2h05m".
func durationText(d time.Duration) string {
	switch {
	case d == time.Duration(math.MaxInt64):
		return "forever"
	case d > 1000*time.Hour:
		return fmt.Sprintf("%.0f days", d.Hours()/24)
	case d >= time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	case d >= time.Minute:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%.0fs", math.Max(1, d.Seconds()))
}
