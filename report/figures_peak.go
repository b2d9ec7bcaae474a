package report

import "github.com/headroom-sim/headroom/model"

// PeakFigures estimates the busiest hour's key figures over replications
// (each replication's own busiest hour): its TTFT p95 and its SLO
// attainment, as the single-run table shows them. It returns nil unless
// every replication found a busiest hour. Figures of a summary are read by
// name, so these sit beside the key figures of SummarizeVariant.
func PeakFigures(peaks []*model.PeakWindow) []Figure {
	if len(peaks) == 0 {
		return nil
	}
	ttft := make([]float64, len(peaks))
	good := make([]float64, len(peaks))
	for i, p := range peaks {
		if p == nil {
			return nil
		}
		ttft[i], good[i] = p.TTFT.P95, 100*p.SLOAttainment
	}
	return []Figure{
		{Name: "busiest_hour_ttft_p95_s", Label: "busiest-hour TTFT p95", Unit: "s", Estimate: NewEstimate(ttft)},
		{Name: "busiest_hour_slo_attainment_pct", Label: "busiest-hour goodput (SLO met)", Unit: "%", Estimate: NewEstimate(good)},
	}
}
