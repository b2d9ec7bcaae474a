package report

import (
	"math"

	"github.com/headroom-sim/headroom/model"
)

// Names of the busiest hour's figures in a summary.
const (
	figPeakTTFT = "busiest_hour_ttft_p95_s"
	figPeakSLO  = "busiest_hour_slo_attainment_pct"
)

// PeakFigures estimates the busiest hour's key figures over replications
// (each replication's own busiest hour): its TTFT p95 and its SLO
// attainment, as the single-run table shows them. It returns nil unless
// every replication found a busiest hour. Figures of a summary are read by
// name, so these sit beside the key figures of SummarizeVariant.
func PeakFigures(peaks []*model.PeakWindow) []Figure {
	vals := make([]float64, 0, 2*len(peaks))
	for _, p := range peaks {
		vals = append(vals, peakValues(p)...)
	}
	return peakFigures(vals, nil)
}

// peakValues are a run's busiest-hour figures in the order peakFigures
// reads them, NaN without a busiest hour.
func peakValues(p *model.PeakWindow) []float64 {
	if p == nil {
		return []float64{math.NaN(), math.NaN()}
	}
	return []float64{p.TTFT.P95, 100 * p.SLOAttainment}
}

// peakFigures is PeakFigures from the replications' peakValues, two per
// replication, with each figure's difference from the base's (paired by
// replication) when base is not nil. It returns nil when there are no
// replications or one has no busiest hour.
func peakFigures(vals, base []float64) []Figure {
	n := len(vals) / 2
	if n == 0 || hasNaN(vals) || base != nil && (len(base) != len(vals) || hasNaN(base)) {
		return nil
	}
	defs := []struct{ name, label, unit string }{
		{figPeakTTFT, "busiest-hour TTFT p95", "s"},
		{figPeakSLO, "busiest-hour goodput (SLO met)", "%"},
	}
	out := make([]Figure, len(defs))
	xs, bs := make([]float64, n), make([]float64, n)
	for i, d := range defs {
		for r := range xs {
			xs[r] = vals[2*r+i]
		}
		out[i] = Figure{Name: d.name, Label: d.label, Unit: d.unit, Estimate: NewEstimate(xs)}
		if base != nil {
			for r := range bs {
				bs[r] = base[2*r+i]
			}
			diff := PairedDiff(xs, bs)
			out[i].DiffVsBase = &diff
		}
	}
	return out
}

func hasNaN(xs []float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) {
			return true
		}
	}
	return false
}
