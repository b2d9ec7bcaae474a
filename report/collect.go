package report

import (
	"fmt"

	"github.com/headroom-sim/headroom/model"
)

// Collector gathers the results of a plan's work items as they finish, in
// any order, and assembles the document from them. It keeps the full
// results only of each variant's first replication (the document shows
// those) and of every work item only its key figures and sweep row, a
// couple of hundred bytes, so a batch of many replications needs memory
// for its grid points and variants, not for its replications.
type Collector struct {
	p      *Plan
	firsts []*model.Results // by grid point and variant
	figs   []float64        // work item k's key figures at k·len(keyFigures)
	peaks  []float64        // work item k's busiest-hour figures at 2k (peakValues)
	rows   []SweepRow       // work item k's sweep row (sweeps only)
	have   []bool
	added  int
}

// ItemBytes is about what a Collector keeps per work item beyond the first
// replications, for estimates of a batch's memory: its key figures and
// busiest-hour figures (8 bytes each), its sweep row and a flag.
const ItemBytes = 8*(18+2) + 64 + 1

// NewCollector returns an empty collector for plan p.
func NewCollector(p *Plan) (*Collector, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	n := p.NumItems()
	c := &Collector{p: p, firsts: make([]*model.Results, p.NumPoints()*len(p.Variants)), have: make([]bool, n)}
	if p.Summarize {
		c.figs = make([]float64, n*len(keyFigures))
		c.peaks = make([]float64, 2*n)
	}
	if p.Grid != nil {
		c.rows = make([]SweepRow, n)
	}
	return c, nil
}

// Add records work item k's results. Only the summary of a replication
// other than the first is read, so its other parts may be left out (see
// Trim).
func (c *Collector) Add(k int, r *model.Results) error {
	if k < 0 || k >= len(c.have) {
		return fmt.Errorf("assemble: work item %d is not one of the plan's %d", k, len(c.have))
	}
	if r == nil {
		return fmt.Errorf("assemble: no result for work item %d", k)
	}
	if c.have[k] {
		return fmt.Errorf("assemble: work item %d given twice", k)
	}
	c.have[k] = true
	c.added++
	pt, v, rep := c.p.Item(k)
	if rep == 0 {
		c.firsts[pt*len(c.p.Variants)+v] = r
	}
	if c.figs != nil {
		f := c.figs[k*len(keyFigures) : (k+1)*len(keyFigures)]
		for i, d := range keyFigures {
			f[i] = d.value(&r.Summary)
		}
		copy(c.peaks[2*k:], peakValues(r.Findings.PeakWindow))
	}
	if c.rows != nil {
		c.rows[k] = SweepRows([]float64{0}, []*model.Results{r})[0]
	}
	return nil
}

// Trim returns the part of r a Collector reads of a replication other
// than the first: its identity, summary and busiest hour.
func Trim(r *model.Results) *model.Results {
	return &model.Results{Scenario: r.Scenario, Variant: r.Variant, Seed: r.Seed, Replication: r.Replication,
		DurationS: r.DurationS, IntervalS: r.IntervalS, StartClock: r.StartClock, Interrupted: r.Interrupted,
		SimulatedS: r.SimulatedS, Events: r.Events, Summary: r.Summary,
		Findings: model.Findings{PeakWindow: r.Findings.PeakWindow}}
}

// Output assembles the document once every work item has been added; see
// Assemble.
func (c *Collector) Output() (*Output, error) {
	p := c.p
	if c.added != len(c.have) {
		for k, ok := range c.have {
			if !ok {
				pt, v, rep := p.Item(k)
				return nil, fmt.Errorf("assemble: no result for work item %d (point %d, variant %q, replication %d)", k, pt, p.Variants[v], rep)
			}
		}
	}
	nv := len(p.Variants)
	var summary []VariantSummary
	if p.Summarize {
		for pt := 0; pt < p.NumPoints(); pt++ {
			for v := 0; v < nv; v++ {
				var base []float64
				if v > 0 {
					base = c.itemFigures(pt, 0)
				}
				summary = append(summary, summarizeFigures(VariantName(c.firsts[pt*nv+v]), c.itemFigures(pt, v), base, p.Replications))
			}
		}
		// The busiest hour's figures, when every run found one (tables
		// show the same rows for every variant).
		if !hasNaN(c.peaks) {
			for i := range summary {
				pt, v := i/nv, i%nv
				var base []float64
				if v > 0 {
					base = c.itemPeaks(pt, 0)
				}
				summary[i].Figures = append(summary[i].Figures, peakFigures(c.itemPeaks(pt, v), base)...)
			}
		}
	}
	doc := NewDocument(p.Generator, p.Scenario, c.firsts)
	doc.Warnings = p.Warnings
	if p.Summarize {
		doc.Replications = p.Replications
		doc.Summary = summary
	}
	out := &Output{Document: doc}
	if p.Grid != nil {
		rows := make([]SweepRow, p.NumPoints()*nv)
		for i := range rows {
			k := p.Index(i/nv, i%nv, 0)
			rows[i] = meanRow(c.rows[k : k+p.Replications])
		}
		out.Sweep = &SweepDocument{Document: *doc, Sweep: sweepInfo(p, rows, summary)}
		out.Document = &out.Sweep.Document
	}
	return out, nil
}

// itemPeaks are the busiest-hour figures of the replications of one grid
// point and variant, replication-major.
func (c *Collector) itemPeaks(pt, v int) []float64 {
	k := 2 * c.p.Index(pt, v, 0)
	return c.peaks[k : k+2*c.p.Replications]
}

// itemFigures are the key figures of the replications of one grid point
// and variant, replication-major.
func (c *Collector) itemFigures(pt, v int) []float64 {
	k := c.p.Index(pt, v, 0) * len(keyFigures)
	return c.figs[k : k+c.p.Replications*len(keyFigures)]
}
