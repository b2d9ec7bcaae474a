package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/headroom-sim/headroom/model"
)

// Knee thresholds; see KneeIndex.
const (
	// KneeMaxGain is the largest relative throughput gain over the previous
	// level that still counts as "flat".
	KneeMaxGain = 0.10
	// KneeMinTTFTRise is the smallest relative rise of TTFT p50 (or of
	// refused attempts) over the previous level that counts as "climbing".
	KneeMinTTFTRise = 0.25
)

// KneeRule states the knee rule in words, for help texts and JSON.
const KneeRule = "the knee is the last level before the first level whose throughput (output tokens/s) gains less than 10% over the previous level while its TTFT p50 rises by more than 25% " +
	"(or its refused attempts, 429/5xx, rise by more than 25%); in a rate sweep a level serving more than 10% less than its offered requests/s also counts as flattened; " +
	"if throughput never flattens that way, there is no knee"

// SweepRow is one level of a step-load sweep: the whole system's figures
// (all workloads) at that level. Throughputs are over the simulated
// horizon (total ÷ duration); latencies are of completed requests, in
// seconds.
type SweepRow struct {
	Level            float64 `json:"level"`
	RequestsPerS     float64 `json:"requests_per_s"`
	OutputTokensPerS float64 `json:"output_tokens_per_s"`
	TTFTP50          float64 `json:"ttft_p50_s"`
	TTFTP95          float64 `json:"ttft_p95_s"`
	TPOTP50          float64 `json:"tpot_p50_s"`
	E2EP95           float64 `json:"e2e_p95_s"`
	// Rejected counts attempts the backends refused (429 rate limits, 503
	// queue full, 5xx), retries included.
	Rejected int64 `json:"rejected"`
	// Attempts counts every attempt sent, retries included.
	Attempts int64 `json:"attempts,omitempty"`
	// Knee marks the knee of the throughput curve (see KneeIndex).
	Knee bool `json:"knee"`
	// CostUSD is the level's total cost; SLOAttainment the share of ended
	// requests meeting their workload's SLOs; FailedShare the share of
	// offered requests that failed.
	CostUSD       float64 `json:"cost_usd"`
	SLOAttainment float64 `json:"slo_attainment"`
	FailedShare   float64 `json:"failed_share"`
	// NoSLO says no workload sets an SLO, so SLOAttainment counts every
	// completed request (tables show "—").
	NoSLO bool `json:"no_slo,omitempty"`
	// Pick marks the level to pick for interactive traffic: the knee, or
	// when the workloads set SLOs the highest level at or below it that
	// holds them (see PickIndex).
	Pick bool `json:"pick,omitempty"`
}

// Holds reports whether the level holds its SLOs by HoldRule.
func (r SweepRow) Holds() bool {
	return r.FailedShare <= HoldMaxFailed && r.SLOAttainment >= HoldMinSLO
}

// SweepInfo describes a sweep in JSON.
type SweepInfo struct {
	Kind string `json:"kind"` // "concurrency" or "rate", or "grid" for a sweep of --param keys (with or without a load level)
	// Workload is the workload a load level varies; omitted without one.
	Workload string `json:"workload,omitempty"`
	// Levels and Rows are the base variant's table for a sweep of one
	// numeric parameter (the load levels of a step-load sweep); omitted
	// for several parameters.
	Levels []float64  `json:"levels,omitempty"`
	Rows   []SweepRow `json:"rows,omitempty"`
	// KneeLevel is the knee's level, null when there is none. KneeRule
	// states the rule; a sweep of scenario keys without a load level has
	// no knee and omits it.
	KneeLevel *float64 `json:"knee_level"`
	KneeRule  string   `json:"knee_rule,omitempty"`
	// PickLevel is the level to pick (SweepRow.Pick), null when none
	// holds. PickRule states the rule: for a step-load sweep PickRule when
	// the workloads set SLOs (without SLOs it is omitted and the pick is
	// the knee); for a sweep of scenario keys CheapestRule, always.
	PickLevel *float64 `json:"pick_level"`
	PickRule  string   `json:"pick_rule,omitempty"`
	// Params, Points and Curves describe the grid (see SweepPoint and
	// SweepCurve); present with --param, --replications or --variants.
	Params []SweepParam `json:"params,omitempty"`
	Points []SweepPoint `json:"points,omitempty"`
	Curves []SweepCurve `json:"curves,omitempty"`
}

// SweepDocument is the JSON form of a sweep: the usual document, with one
// variant per level (in level order), plus the per-level table.
type SweepDocument struct {
	Document
	Sweep SweepInfo `json:"sweep"`
}

// NewSweepDocument wraps a sweep's per-level results and rows.
func NewSweepDocument(generator string, info ScenarioInfo, kind, workload string, levels []float64, results []*model.Results, rows []SweepRow) *SweepDocument {
	d := &SweepDocument{Document: *NewDocument(generator, info, results),
		Sweep: SweepInfo{Kind: kind, Workload: workload, Levels: levels, Rows: rows, KneeRule: KneeRule}}
	if k := kneeOf(rows); k >= 0 {
		v := rows[k].Level
		d.Sweep.KneeLevel = &v
	}
	if k := MarkPick(rows, false); k >= 0 {
		v := rows[k].Level
		d.Sweep.PickLevel = &v
	}
	return d
}

// CheapestRule states how a sweep of scenario keys (--param, no load
// level) picks its point: what to buy is the cheapest that holds, not the
// most that holds.
const CheapestRule = "the cheapest point that holds (" + HoldRule + "); at equal cost the smaller values; none when no point holds"

// CheapestIndex returns the index of the cheapest row that holds (by
// SweepRow.Holds), at equal cost the one smaller returns true for over
// the others (nil: the first), or -1 when no row holds. Costs equal to
// one part in a billion count as equal.
func CheapestIndex(rows []SweepRow, smaller func(i, j int) bool) int {
	best := -1
	for i, r := range rows {
		if !r.Holds() {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := rows[best].CostUSD
		switch {
		case sameCost(r.CostUSD, b):
			if smaller != nil && smaller(i, best) {
				best = i
			}
		case r.CostUSD < b:
			best = i
		}
	}
	return best
}

// sameCost reports whether two costs agree to one part in a billion.
func sameCost(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// PickRule states how the level to pick is chosen when workloads set SLOs.
const PickRule = "the knee if it holds the SLOs (" + HoldRule + "), else the highest level below the knee that holds them; " +
	"without a knee, the highest level that holds them; none when no level does"

// PickIndex returns the level to pick in rows (increasing level order,
// the knee marked): without SLOs the knee; with SLOs the knee if it holds
// them, else the highest level below it that does (the highest of all
// without a knee); -1 when there is no such level. It never picks a level
// that misses an SLO it was asked to respect.
func PickIndex(rows []SweepRow, slos bool) int {
	k := kneeOf(rows)
	if !slos {
		return k
	}
	top := len(rows) - 1
	if k >= 0 {
		top = k
	}
	for i := top; i >= 0; i-- {
		if rows[i].Holds() {
			return i
		}
	}
	return -1
}

// MarkPick sets Pick on the row PickIndex chooses and clears it on the
// others; it returns the row's index or -1.
func MarkPick(rows []SweepRow, slos bool) int {
	k := PickIndex(rows, slos)
	for i := range rows {
		rows[i].Pick = i == k
	}
	return k
}

// WriteSweepJSON writes the sweep document as indented JSON.
func WriteSweepJSON(w io.Writer, d *SweepDocument) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// SweepRows turns the results of a sweep's levels (res[i] ran at
// levels[i], in increasing order) into rows, the knee marked by KneeIndex
// (call MarkKnee("rate", rows) to re-mark a rate sweep's). A nil result
// gives a row of zeros.
func SweepRows(levels []float64, res []*model.Results) []SweepRow {
	n := min(len(levels), len(res))
	rows := make([]SweepRow, n)
	for i := 0; i < n; i++ {
		rows[i].Level = levels[i]
		r := res[i]
		if r == nil {
			continue
		}
		s := &r.Summary
		rows[i].RequestsPerS = s.Throughput.RequestsPerS
		rows[i].OutputTokensPerS = s.Throughput.OutputTokensPerS
		rows[i].TTFTP50 = s.Latency.TTFT.P50
		rows[i].TTFTP95 = s.Latency.TTFT.P95
		rows[i].TPOTP50 = s.Latency.TPOT.P50
		rows[i].E2EP95 = s.Latency.E2E.P95
		rows[i].Rejected = sum(s.Attempts.Rejected)
		rows[i].Attempts = s.Attempts.Total
		rows[i].CostUSD = s.Cost.Total
		rows[i].SLOAttainment = s.Goodput.SLOAttainment
		rows[i].NoSLO = s.Goodput.NoSLO
		if s.Requests.Offered > 0 {
			rows[i].FailedShare = float64(s.Requests.Failed) / float64(s.Requests.Offered)
		}
	}
	if k := KneeIndex(rows); k >= 0 {
		rows[k].Knee = true
	}
	return rows
}

// KneeIndex returns the index of the knee of rows (in increasing level
// order), or -1 when there is none.
//
// The rule: the knee is the last level before the first level whose
// throughput gain over the previous level is under 10% (KneeMaxGain) while
// its TTFT p50 rose by more than 25% (KneeMinTTFTRise). Throughput is
// output tokens/s (requests/s when neither level produced output tokens).
// If throughput never flattens that way — it keeps growing, or it flattens
// without TTFT climbing — there is no knee. Past the knee extra load buys
// little throughput and costs latency, so it is the level to pick for
// interactive traffic.
//
// A hosted API at its rate limit answers the excess with 429s rather than
// with a queue, so TTFT may hardly move; refused attempts (429/5xx) rising
// by more than 25% over the previous level (from none: any) therefore
// count like TTFT climbing.
func KneeIndex(rows []SweepRow) int { return KneeIndexFor("", rows) }

// KneeIndexFor is KneeIndex for a sweep of kind "concurrency" or "rate".
// In a rate sweep the offered load is known, so a level whose requests/s
// fall more than 10% short of its level (the offered requests/s: the
// backend no longer keeps up, and a queue grows or requests are refused)
// also counts as flattened. Without it, a rate sweep whose step crosses
// the plateau (100 → 140 req/s against a 117 req/s ceiling: throughput
// still gains 17%) would mark the overloaded level, 140, as the knee.
// Requests/s are the whole system's, so with other workloads running the
// shortfall shows only when the total falls short.
func KneeIndexFor(kind string, rows []SweepRow) int {
	for i := 1; i < len(rows); i++ {
		prev, cur := rows[i-1], rows[i]
		pt, ct, _ := throughputs(prev, cur)
		flat := !grows(pt, ct, KneeMaxGain)
		if kind == "rate" && cur.RequestsPerS < (1-KneeMaxGain)*cur.Level {
			flat = true
		}
		strained := grows(prev.TTFTP50, cur.TTFTP50, KneeMinTTFTRise) ||
			grows(float64(prev.Rejected), float64(cur.Rejected), KneeMinTTFTRise)
		if flat && strained {
			return i - 1
		}
	}
	return -1
}

// MarkKnee sets Knee on the knee row of a sweep of kind (see KneeIndexFor)
// and clears it on the others; it returns the knee's index or -1.
func MarkKnee(kind string, rows []SweepRow) int {
	k := KneeIndexFor(kind, rows)
	for i := range rows {
		rows[i].Knee = i == k
	}
	return k
}

// throughputs returns the throughput of two rows the knee rule compares:
// output tokens/s, or requests/s when neither produced output tokens.
func throughputs(a, b SweepRow) (ta, tb float64, what string) {
	if a.OutputTokensPerS == 0 && b.OutputTokensPerS == 0 {
		return a.RequestsPerS, b.RequestsPerS, "requests/s"
	}
	return a.OutputTokensPerS, b.OutputTokensPerS, "output tokens/s"
}

// kneeOf is the index of the row marked Knee, or -1.
func kneeOf(rows []SweepRow) int {
	for i, r := range rows {
		if r.Knee {
			return i
		}
	}
	return -1
}

// grows reports whether cur exceeds prev by more than share of prev (any
// positive cur counts as growth over a zero prev).
func grows(prev, cur, share float64) bool {
	if prev <= 0 {
		return cur > 0
	}
	return cur > prev*(1+share)
}

// sweepLevelText formats a level with its unit for sentences.
func sweepLevelText(kind string, v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	switch kind {
	case "rate":
		return s + " req/s"
	case "concurrency":
		if v == 1 {
			return s + " concurrent request"
		}
		return s + " concurrent requests"
	}
	return s
}

// WriteSweepTerminal writes a sweep as an aligned table, one row per level,
// the knee marked "◀ knee" (and the pick, when the SLOs move it below the
// knee), followed by sentences naming the level to pick. title says what
// was swept.
func WriteSweepTerminal(w io.Writer, title string, s *SweepInfo) error {
	kind, rows := s.Kind, s.Rows
	fmt.Fprintf(w, "Headroom sweep · %s\n\n", terminalLines(title))
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "no levels")
		return err
	}
	levelHead := kind
	if kind == "rate" {
		levelHead = "offered req/s"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\treq/s\toutput tok/s\tTTFT p50\tTTFT p95\tTPOT p50\tE2E p95\t429/5xx\tSLO met\tcost\t\n", levelHead)
	costs := make([]float64, len(rows))
	for i, r := range rows {
		costs[i] = r.CostUSD
	}
	costCol := USDColumn(costs)
	for i, r := range rows {
		mark := ""
		switch {
		case r.Knee:
			mark = "  ◀ knee"
		case r.Pick:
			mark = "  ◀ pick: holds the SLOs"
		}
		met := fmt.Sprintf("%.1f%%", 100*r.SLOAttainment)
		if r.NoSLO {
			met = "—"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			strconv.FormatFloat(r.Level, 'g', -1, 64), rate(r.RequestsPerS), r.OutputTokensPerS,
			Seconds(r.TTFTP50), Seconds(r.TTFTP95), Seconds(r.TPOTP50), Seconds(r.E2EP95), Refused(r.Rejected, r.Attempts),
			met, costCol[i], mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, line := range SweepAdvice(s) {
		fmt.Fprintln(w, line)
	}
	rule := "  (Knee: the last level before throughput gains < 10% while TTFT p50 or 429/5xx rise > 25%"
	if kind == "rate" {
		rule += ";\n   serving < 90% of the offered rate also counts as flat"
	}
	if s.PickRule != "" {
		rule += ";\n   pick: the knee if it holds the SLOs (≤ 0.1% failing, ≥ 99% meeting them), else the highest level below it that does"
	}
	_, err := fmt.Fprintln(w, rule+".)")
	return err
}

// SweepAdvice says in sentences where a step-load sweep's knee is and
// which level to pick: never one that misses the SLOs when the workloads
// set them (SweepInfo.PickRule).
func SweepAdvice(s *SweepInfo) []string {
	kind, rows := s.Kind, s.Rows
	k, pk := kneeOf(rows), -1
	for i, r := range rows {
		if r.Pick {
			pk = i
		}
	}
	slos := s.PickRule != ""
	met := func(r SweepRow) string {
		return fmt.Sprintf("SLOs met by %.1f%%, %.1f%% failed", 100*r.SLOAttainment, 100*r.FailedShare)
	}
	var out []string
	if k >= 0 && k+1 < len(rows) {
		pick := strconv.FormatFloat(rows[k].Level, 'g', -1, 64)
		if kind == "rate" {
			pick += " req/s"
		}
		switch {
		case !slos || pk == k:
			s := fmt.Sprintf("Throughput flattens after %s; pick %s for interactive traffic", sweepLevelText(kind, rows[k].Level), pick)
			if slos {
				s += fmt.Sprintf(": it holds the SLOs (%s)", met(rows[k]))
			}
			out = append(out, s+".")
		case pk >= 0:
			out = append(out, fmt.Sprintf("Throughput flattens after %s, but %s misses the SLOs (%s); pick %s, the highest level below it that holds them (%s).",
				sweepLevelText(kind, rows[k].Level), pick, met(rows[k]), sweepLevelText(kind, rows[pk].Level), met(rows[pk])))
		default:
			out = append(out, fmt.Sprintf("Throughput flattens after %s, but no level up to it holds the SLOs (at %s: %s); none is safe to pick: add capacity or relax the SLOs.",
				sweepLevelText(kind, rows[k].Level), pick, met(rows[k])))
		}
		next := rows[k+1]
		pt, nt, what := throughputs(rows[k], next)
		strain := "TTFT p50 goes " + Seconds(rows[k].TTFTP50) + " → " + Seconds(next.TTFTP50)
		if next.Rejected > 0 && next.Rejected != rows[k].Rejected {
			strain += " and refused attempts " + Count(rows[k].Rejected) + " → " + Count(next.Rejected)
		}
		if kind == "rate" {
			out = append(out, fmt.Sprintf("  At %s offered, %s req/s are served (%s %s) while %s.",
				sweepLevelText(kind, next.Level), rate(next.RequestsPerS), what, growth(pt, nt), strain))
		} else {
			out = append(out, fmt.Sprintf("  At %s, %s grow %s while %s.", sweepLevelText(kind, next.Level), what, growth(pt, nt), strain))
		}
		return out
	}
	out = append(out, "No knee: throughput did not flatten while TTFT p50 (or 429/5xx) climbed within these levels; extend the range to find the plateau.")
	switch {
	case slos && pk >= 0:
		out = append(out, fmt.Sprintf("The highest level that holds the SLOs is %s (%s).", sweepLevelText(kind, rows[pk].Level), met(rows[pk])))
	case slos:
		out = append(out, "No level holds the SLOs ("+HoldRule+").")
	}
	return out
}

// rate formats a requests/s figure with about three significant digits.
func rate(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// growth formats the relative change from a to b: "+3%", "-1%".
func growth(a, b float64) string {
	if a <= 0 {
		return "from 0"
	}
	g := math.Round(100 * (b/a - 1))
	if g == 0 {
		return "±0%" // not "-0%"
	}
	return fmt.Sprintf("%+.0f%%", g)
}

// sweepColumns are the columns of a sweep CSV.
var sweepColumns = []string{"level", "requests_per_s", "output_tokens_per_s", "ttft_p50_s", "ttft_p95_s", "tpot_p50_s", "e2e_p95_s", "rejected", "knee"}

// WriteSweepCSV writes one row per level.
func WriteSweepCSV(w io.Writer, rows []SweepRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(sweepColumns); err != nil {
		return err
	}
	f := func(v float64) string {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 10, 64)
	}
	for _, r := range rows {
		rec := []string{f(r.Level), f(r.RequestsPerS), f(r.OutputTokensPerS), f(r.TTFTP50), f(r.TTFTP95), f(r.TPOTP50), f(r.E2EP95),
			strconv.FormatInt(r.Rejected, 10), strconv.FormatBool(r.Knee)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
