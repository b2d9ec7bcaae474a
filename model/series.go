package model

import "github.com/headroom-sim/headroom/sim"

// seriesStats accumulates the per-interval time series.
type seriesStats struct {
	offered, completed, failed, retries []int64
	rejected                            [numReasons][]int64
	inFlight, queue                     sim.Gauge
	inFlightMean, queueMean             []float64
	ttft, qwait                         []*sim.Sketch
	inputTok, outputTok                 []int64
	cost                                []float64
	// arrFailed and arrGood count the requests that failed, and those
	// that completed meeting their SLOs, by the interval they arrived in
	// (the peak window's figures, findings.go).
	arrFailed, arrGood []int64
}

func newSeriesStats(n int) *seriesStats {
	s := &seriesStats{
		offered: make([]int64, n), completed: make([]int64, n), failed: make([]int64, n), retries: make([]int64, n),
		inFlightMean: make([]float64, n), queueMean: make([]float64, n),
		ttft: make([]*sim.Sketch, n), qwait: make([]*sim.Sketch, n),
		inputTok: make([]int64, n), outputTok: make([]int64, n), cost: make([]float64, n),
		arrFailed: make([]int64, n), arrGood: make([]int64, n),
	}
	return s
}

func (s *seriesStats) reject(reason, iv int) {
	if s.rejected[reason] == nil {
		s.rejected[reason] = make([]int64, len(s.offered))
	}
	s.rejected[reason][iv]++
}

// latency records a completed request's TTFT and queue wait in the
// interval it arrived in.
func (s *seriesStats) latency(iv int, ttft, qwait float64) {
	// Both sketches read once: with the stores of the first completion of
	// an interval between them, each would be looked up again.
	t, q := s.ttft[iv], s.qwait[iv]
	if t == nil {
		t, q = sim.NewSketch(), sim.NewSketch()
		s.ttft[iv], s.qwait[iv] = t, q
	}
	if !t.TryAdd(ttft) {
		t.Add(ttft)
	}
	if !q.TryAdd(qwait) {
		q.Add(qwait)
	}
}

// tick closes interval iv at time t.
func (s *seriesStats) tick(iv int, t float64) {
	if iv < 0 || iv >= len(s.offered) {
		return
	}
	s.inFlightMean[iv], _ = s.inFlight.Mark(t)
	s.queueMean[iv], _ = s.queue.Mark(t)
}
