package model

import (
	"fmt"
	"math"

	"github.com/headroom-sim/headroom/sim"
)

// maxWindows bounds the windows of one workload (Config.Window).
const maxWindows = 100_000

// WindowResult is one workload's figures in one window of Config.Window
// seconds. Requests are counted in the window they arrived in, attempts
// and their refusals in the window they were sent in, so a request that
// arrives at the peak and completes late counts against the peak.
type WindowResult struct {
	StartS    float64 `json:"start_s"`
	Offered   int64   `json:"offered"`
	Completed int64   `json:"completed"`
	Failed    int64   `json:"failed"`
	// Good counts completed requests that met every SLO of the workload.
	Good     int64 `json:"good"`
	Attempts int64 `json:"attempts"`
	// Refused429 counts attempts refused with a 429 (see Status429).
	Refused429 int64 `json:"refused_429"`
	// Latencies of the requests that arrived in the window and completed.
	TTFT      Quantiles `json:"ttft_s"`
	E2E       Quantiles `json:"e2e_s"`
	TPOT      Quantiles `json:"tpot_s"`
	QueueWait Quantiles `json:"queue_wait_s"`
}

// status429 marks the refusal reasons a client sees as HTTP 429.
var status429 = func() (m [numReasons]bool) {
	for _, r := range []int{rsConcurrency, rsSpendCap, rsBatchQueue, rsGwUnits, rsGwKeyUnits, rsGwStreams, rsGwKeyStreams} {
		m[r] = true
	}
	for d := 0; d < 2*numDims; d++ {
		m[d] = true // org and key limit dimensions
	}
	return m
}()

// Status429 reports whether a refusal reason (a key of
// AttemptCounts.Rejected) is answered with HTTP 429: the rate-limit
// dimensions, org and key, concurrency, the spend cap, the batch queue and
// the gateway's unit buckets and stream caps.
func Status429(reason string) bool {
	for i, n := range reasonNames {
		if n == reason {
			return status429[i]
		}
	}
	return false
}

// windowStats accumulates one workload's per-window figures.
type windowStats struct {
	width                      float64
	offered, completed, failed []int64
	good, attempts, refused    []int64
	ttft, e2e, tpot, qwait     []*sim.Sketch // nil until the window's first completion
}

// newWindowStats returns accumulators for windows of width seconds over
// the horizon, or nil when width is 0.
func newWindowStats(width, horizon float64) *windowStats {
	if width <= 0 {
		return nil
	}
	n := int(math.Ceil(horizon/width - 1e-9))
	n = max(n, 1)
	return &windowStats{width: width,
		offered: make([]int64, n), completed: make([]int64, n), failed: make([]int64, n),
		good: make([]int64, n), attempts: make([]int64, n), refused: make([]int64, n),
		ttft: make([]*sim.Sketch, n), e2e: make([]*sim.Sketch, n), tpot: make([]*sim.Sketch, n), qwait: make([]*sim.Sketch, n)}
}

// checkWindow reports a window width the model cannot take.
func checkWindow(width, horizon float64) error {
	if width < 0 || math.IsNaN(width) || math.IsInf(width, 0) {
		return fmt.Errorf("window must be a finite number of seconds >= 0, got %v", width)
	}
	if width > 0 && horizon/width > maxWindows {
		return fmt.Errorf("window %vs gives more than %d windows over the horizon", width, maxWindows)
	}
	return nil
}

// at is the window of time t.
func (ws *windowStats) at(t float64) int {
	i := int(t / ws.width)
	if i >= len(ws.offered) {
		i = len(ws.offered) - 1
	}
	if i < 0 {
		i = 0
	}
	return i
}

// complete records a completed request that arrived at arrival.
func (ws *windowStats) complete(arrival, ttft, e2e, qwait, tpot float64, hasTPOT, good bool) {
	i := ws.at(arrival)
	ws.completed[i]++
	if good {
		ws.good[i]++
	}
	if ws.ttft[i] == nil {
		ws.ttft[i], ws.e2e[i], ws.tpot[i], ws.qwait[i] = sim.NewSketch(), sim.NewSketch(), sim.NewSketch(), sim.NewSketch()
	}
	ws.ttft[i].Add(ttft)
	ws.e2e[i].Add(e2e)
	ws.qwait[i].Add(qwait)
	if hasTPOT {
		ws.tpot[i].Add(tpot)
	}
}

// refuse records a refused attempt sent at now.
func (ws *windowStats) refuse(reason int, now float64) {
	if status429[reason] {
		ws.refused[ws.at(now)]++
	}
}

// windowRefused records a refused attempt of w in its window stats, if any.
func (s *Sim) windowRefused(w *workload, reason int) {
	if w.win != nil {
		w.win.refuse(reason, s.eng.Now())
	}
}

// results lists the windows.
func (ws *windowStats) results() []WindowResult {
	if ws == nil {
		return nil
	}
	q := func(sk *sim.Sketch) Quantiles {
		if sk == nil {
			return Quantiles{}
		}
		return quantiles(sk)
	}
	out := make([]WindowResult, len(ws.offered))
	for i := range out {
		out[i] = WindowResult{StartS: float64(i) * ws.width, Offered: ws.offered[i], Completed: ws.completed[i], Failed: ws.failed[i],
			Good: ws.good[i], Attempts: ws.attempts[i], Refused429: ws.refused[i],
			TTFT: q(ws.ttft[i]), E2E: q(ws.e2e[i]), TPOT: q(ws.tpot[i]), QueueWait: q(ws.qwait[i])}
	}
	return out
}
