package model

import (
	"math"

	"github.com/headroom-sim/headroom/sim"
)

// groupStats accumulates one workload's measurements.
type groupStats struct {
	offered, completed, failed int64
	failedBy                   [numReasons]int64
	attempts, retries          int64
	rejected                   [numReasons]int64
	ttft, e2e, qwait, tpot     *sim.Sketch
	ttftSvc                    *sim.Sketch
	tok                        tokenTally
	good                       int64
	lastDone                   float64
	sloSet                     bool // a workload of the group has an SLO
	// twin is set on the only workload of a run (markTwins): the
	// series' sketches of TTFT and queue wait by arrival interval then
	// hold exactly its values, so its own ttft and qwait sketches keep
	// only their sums (ttftSum, qwaitSum) while it runs and are the
	// series' merged when the results are read (resolveTwins).
	twin              bool
	ttftSum, qwaitSum sim.SketchSum
}

type tokenTally struct {
	input, uncached, write, read, output int64
	costIn, costW, costR, costOut        float64
	costGPU                              float64
	costFixed                            float64 // a hosted tier's commitment, prorated
}

// markTwins marks the workload of a run that has only one (groupStats.twin),
// unless s.noTwin. Both ways of completing a request (completeBilled,
// doneDirect) record its TTFT and queue wait in the series as well.
func (s *Sim) markTwins() {
	if len(s.wls) == 1 && !s.noTwin {
		s.wls[0].stats.twin = true
	}
}

// resolveTwins gives a twin workload's TTFT and queue-wait sketches their
// counts, minimum and maximum from the series' sketches, merged, and
// their sums as they were added one request at a time: the sketches it
// would have recorded itself (sim.SketchSum).
func (s *Sim) resolveTwins() {
	for _, w := range s.wls {
		if st := w.stats; st.twin {
			st.ttft, st.qwait = sim.NewSketch(), sim.NewSketch()
			for i := range s.ser.ttft {
				st.ttft.Merge(s.ser.ttft[i])
				st.qwait.Merge(s.ser.qwait[i])
			}
			st.ttft.SetSum(st.ttftSum)
			st.qwait.SetSum(st.qwaitSum)
		}
	}
}

func newGroupStats() *groupStats {
	return &groupStats{ttft: sim.NewSketch(), e2e: sim.NewSketch(), qwait: sim.NewSketch(), tpot: sim.NewSketch(), ttftSvc: sim.NewSketch()}
}

// merge adds o into g.
func (g *groupStats) merge(o *groupStats) {
	g.offered += o.offered
	g.completed += o.completed
	g.failed += o.failed
	for i := range g.failedBy {
		g.failedBy[i] += o.failedBy[i]
		g.rejected[i] += o.rejected[i]
	}
	g.attempts += o.attempts
	g.retries += o.retries
	g.ttft.Merge(o.ttft)
	g.e2e.Merge(o.e2e)
	g.qwait.Merge(o.qwait)
	g.tpot.Merge(o.tpot)
	g.ttftSvc.Merge(o.ttftSvc)
	g.tok.add(&o.tok)
	g.good += o.good
	g.sloSet = g.sloSet || o.sloSet
	g.lastDone = math.Max(g.lastDone, o.lastDone)
}

// add adds o's tokens and costs into t.
func (t *tokenTally) add(o *tokenTally) {
	t.addTokens(o)
	t.addCosts(o)
}

// addTokens adds o's tokens into t, not its costs: for a tally whose
// costs are all zero, which would leave t's sums as they are.
func (t *tokenTally) addTokens(o *tokenTally) {
	t.input += o.input
	t.uncached += o.uncached
	t.write += o.write
	t.read += o.read
	t.output += o.output
}

// addCosts adds o's costs into t.
func (t *tokenTally) addCosts(o *tokenTally) {
	t.costIn += o.costIn
	t.costW += o.costW
	t.costR += o.costR
	t.costOut += o.costOut
	t.costGPU += o.costGPU
	t.costFixed += o.costFixed
}

// backendStats accumulates what one backend saw, including per-limit use.
type backendStats struct {
	name     string
	attempts int64
	admitted int64
	// abandoned counts attempts their clients abandoned (timeouts).
	abandoned int64
	rejected  [numReasons]int64
	tok       tokenTally
	scopes    []scopeStats
}

type scopeStats struct {
	name   string
	set    *limitSet
	window string
	dims   [numDims]dimStats
}

type dimStats struct {
	rejected    int64
	firstReject float64
	rejPer      []int32   // refusals per interval
	usePer      []float64 // units admitted per interval
	demandPer   []float64 // units offered per arrival interval (demand.go)
}

func newBackendStats(name string, p *provider, nInt int) *backendStats {
	b := &backendStats{name: name}
	add := func(scope string, s *limitSet, window string) {
		ss := scopeStats{name: scope, set: s, window: window}
		for d := 0; d < numDims; d++ {
			if s.win[d] != nil {
				ss.dims[d] = dimStats{firstReject: -1, rejPer: make([]int32, nInt), usePer: make([]float64, nInt), demandPer: make([]float64, nInt)}
			}
		}
		b.scopes = append(b.scopes, ss)
	}
	add("org", p.org, p.spec.Limits.Window)
	for i, k := range p.keys {
		add("key:"+p.spec.Keys[i].Name, k, p.spec.Keys[i].Limits.Window)
	}
	return b
}

func (b *backendStats) reject(scope, dim, interval int, now float64) {
	d := &b.scopes[scope].dims[dim]
	d.rejected++
	if d.firstReject < 0 {
		d.firstReject = now
	}
	if interval >= 0 && interval < len(d.rejPer) {
		d.rejPer[interval]++
	}
}

func (b *backendStats) use(scope, interval int, c *charge) {
	s := &b.scopes[scope]
	for d := 0; d < numDims; d++ {
		if s.set.win[d] != nil && interval >= 0 && interval < len(s.dims[d].usePer) {
			s.dims[d].usePer[interval] += c.amount(d)
		}
	}
}

// settle records the net change in use when a request's output charge is
// reconciled, so peak use reflects what was really consumed.
func (b *backendStats) settle(scope, interval int, c *charge, out int) {
	s := &b.scopes[scope]
	o := float64(out)
	for _, d := range [...]int{dimOTPM, dimTPM, dimTPD} {
		if s.set.win[d] == nil || interval < 0 || interval >= len(s.dims[d].usePer) {
			continue
		}
		unit := 1.0
		if d != dimOTPM {
			unit = c.wOut
		}
		delta := o * unit
		if c.reserve {
			delta = (o - c.outRes) * unit
		}
		s.dims[d].usePer[interval] += delta
	}
}
