package report

import (
	"fmt"
	"math"

	"github.com/headroom-sim/headroom/model"
)

// Holding thresholds: a variant holds when at most HoldMaxFailed of its
// requests fail and at least HoldMinSLO of them meet their SLOs.
const (
	HoldMaxFailed = 0.001
	HoldMinSLO    = 0.99
)

// HoldRule states the holding thresholds in words.
const HoldRule = "at most 0.1% of requests failing and at least 99% meeting their SLOs"

// Holds reports whether a run holds: few failures, SLOs met.
func Holds(r *model.Results) bool {
	q := r.Summary.Requests
	if q.Offered == 0 {
		return false
	}
	return float64(q.Failed)/float64(q.Offered) <= HoldMaxFailed && r.Summary.Goodput.SLOAttainment >= HoldMinSLO
}

// CheapestThatHolds names the cheapest variant that holds, or else the
// one with the best goodput, with its cost against the base's (vs[0]).
func CheapestThatHolds(vs []*model.Results) string {
	if len(vs) == 0 {
		return ""
	}
	base := vs[0]
	var cheapest, best *model.Results
	for _, r := range vs {
		if Holds(r) && (cheapest == nil || r.Summary.Cost.Total < cheapest.Summary.Cost.Total) {
			cheapest = r
		}
		if best == nil || r.Summary.Goodput.SLOAttainment > best.Summary.Goodput.SLOAttainment {
			best = r
		}
	}
	vsBase := func(r *model.Results) string {
		if r == base {
			return ""
		}
		d := r.Summary.Cost.Total - base.Summary.Cost.Total
		sign := "+"
		if d < 0 {
			sign, d = "−", -d
		}
		return fmt.Sprintf(" (%s%s against %s%s)", sign, USD(d), quoteVariant(base), fewerCompleted(base, r))
	}
	if cheapest != nil {
		s := fmt.Sprintf("Cheapest change that holds (%s): %s, at %s%s", HoldRule, quoteVariant(cheapest), USD(cheapest.Summary.Cost.Total), vsBase(cheapest))
		if cheapest == base {
			s = fmt.Sprintf("The %s already holds (%s) at %s; no variant is needed", VariantName(base), HoldRule, USD(base.Summary.Cost.Total))
		}
		if best != cheapest && best.Summary.Goodput.SLOAttainment > cheapest.Summary.Goodput.SLOAttainment {
			s += fmt.Sprintf("; %s has the best goodput (%.1f%% meet their SLOs) at %s", quoteVariant(best), 100*best.Summary.Goodput.SLOAttainment, USD(best.Summary.Cost.Total))
		}
		return s + "."
	}
	failed := "-"
	if q := best.Summary.Requests; q.Offered > 0 {
		failed = fmt.Sprintf("%.1f%%", percent(float64(q.Failed), float64(q.Offered)))
	}
	return fmt.Sprintf("No variant holds (%s). The best goodput is %s's: %.1f%% of requests meet their SLOs and %s fail, at %s%s.",
		HoldRule, quoteVariant(best), 100*best.Summary.Goodput.SLOAttainment, failed, USD(best.Summary.Cost.Total), vsBase(best))
}

// fewerCompleted qualifies a cost difference from the base when the base
// completed a different number of requests than r (it failed some, or
// left them in flight): the base's cost is then for other work, so the
// two are set side by side per 1,000 completed requests as well. Empty
// when the counts agree to 0.1%.
func fewerCompleted(base, r *model.Results) string {
	b, v := base.Summary.Requests.Completed, r.Summary.Requests.Completed
	if v == 0 || math.Abs(float64(b-v)) <= 0.001*float64(v) {
		return ""
	}
	if b == 0 {
		return ", which completed no request"
	}
	more := "fewer"
	if b > v {
		more = "more"
	}
	per := func(x *model.Results) string {
		return USD(1000 * x.Summary.Cost.Total / float64(x.Summary.Requests.Completed))
	}
	return fmt.Sprintf(", which completed %.0f%% %s requests: %s against %s per 1,000 completed", 100*math.Abs(float64(v-b))/float64(v), more, per(r), per(base))
}

// quoteVariant names a variant in a sentence.
// VariantRef names a variant in a sentence: "the base", or a named
// variant in quotes without an article (“sales-9am”).
func VariantRef(r *model.Results) string { return quoteVariant(r) }

func quoteVariant(r *model.Results) string {
	if r.Variant == "" {
		return "the base"
	}
	return "“" + r.Variant + "”"
}
