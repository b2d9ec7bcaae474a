package report

import (
	"encoding/csv"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/headroom-sim/headroom/model"
)

// SeriesColumns are the fixed leading columns of a series CSV; one
// rejected_<reason> column follows for every reason that occurred.
var seriesColumns = []string{"interval_start_s", "clock", "offered", "completed", "failed", "retries",
	"in_flight", "queue_length", "ttft_p50_s", "ttft_p95_s", "queue_wait_p95_s", "input_tokens", "output_tokens", "cost_usd"}

// WriteSeriesCSV writes one variant's per-interval series, one row per
// interval.
func WriteSeriesCSV(w io.Writer, r *model.Results) error {
	cw := csv.NewWriter(w)
	s := &r.Series
	reasons := slices.Sorted(maps.Keys(s.Rejected))
	head := append([]string(nil), seriesColumns...)
	for _, k := range reasons {
		head = append(head, csvText("rejected_"+k))
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	for i := range s.StartS {
		row := []string{f(s.StartS[i]), csvText(s.Clock[i]), i64(s.Offered[i]), i64(s.Completed[i]), i64(s.Failed[i]), i64(s.Retries[i]),
			f(s.InFlight[i]), f(s.QueueLength[i]), f(s.TTFTP50[i]), f(s.TTFTP95[i]), f(s.QueueWaitP95[i]),
			i64(s.InputTokens[i]), i64(s.OutputTokens[i]), f(s.CostUSD[i])}
		for _, k := range reasons {
			row = append(row, i64(s.Rejected[k][i]))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteSummaryCSV writes one row per variant and workload (workload "*" is
// the variant's total) with the headline figures.
func WriteSummaryCSV(w io.Writer, d *Document) error {
	cw := csv.NewWriter(w)
	head := []string{"variant", "workload", "offered", "completed", "failed", "in_flight_at_end", "attempts", "retries", "rejected",
		"ttft_p50_s", "ttft_p95_s", "ttft_p99_s", "e2e_p95_s", "queue_wait_p95_s", "tpot_p50_s",
		"requests_per_s", "input_tokens_per_s", "output_tokens_per_s", "cost_usd", "slo_attainment"}
	if err := cw.Write(head); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	row := func(variant, wl string, s *model.Summary) []string {
		var rej int64
		for _, v := range s.Attempts.Rejected {
			rej += v
		}
		return []string{csvText(variant), csvText(wl), i64(s.Requests.Offered), i64(s.Requests.Completed), i64(s.Requests.Failed), i64(s.Requests.InFlightAtEnd),
			i64(s.Attempts.Total), i64(s.Attempts.Retries), i64(rej),
			f(s.Latency.TTFT.P50), f(s.Latency.TTFT.P95), f(s.Latency.TTFT.P99), f(s.Latency.E2E.P95), f(s.Latency.QueueWait.P95), f(s.Latency.TPOT.P50),
			f(s.Throughput.RequestsPerS), f(s.Throughput.InputTokensPerS), f(s.Throughput.OutputTokensPerS), f(s.Cost.Total), f(s.Goodput.SLOAttainment)}
	}
	for _, v := range d.Variants {
		name := VariantName(v)
		if err := cw.Write(row(name, "*", &v.Summary)); err != nil {
			return err
		}
		for i := range v.Workloads {
			if err := cw.Write(row(name, v.Workloads[i].Name, &v.Workloads[i].Summary)); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// VariantName is "base" for the base scenario, else the variant's name.
func VariantName(r *model.Results) string {
	if r.Variant == "" {
		return "base"
	}
	return r.Variant
}
