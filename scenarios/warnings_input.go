package scenarios

import (
	"fmt"
	"math"
	"strconv"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/workloads"
)

// minPrice is the lowest token price that is plausibly per million tokens:
// below it a price was probably written per token.
const minPrice = 0.001

// inputWarnings names values that are valid but probably not what was
// meant: a rate curve that stops before the horizon ends or runs past it,
// a shared prefix longer than most prompts, max_tokens below most
// answers, a price per token where the format wants per million, and a
// cache read dearer than an uncached token.
func (s *Scenario) inputWarnings(d *Scenario, c model.Config) []Warning {
	var out []Warning
	add := func(path, msg string) {
		out = append(out, Warning{File: s.file, Line: s.ix.Line(path), Key: displayKey(path, d.tree), Message: msg})
	}
	for i, w := range c.Workloads {
		at := "workload[" + strconv.Itoa(i) + "]"
		if key, msg := curveCoverage(w.Demand, c.StartClock, c.Duration); msg != "" {
			add(at+".demand."+key, msg)
		}
		tk := w.Tokens
		if tk.Input.IsZero() {
			continue // a trace gives its own tokens
		}
		if m, ok := tk.Input.MedianValue(); ok && float64(tk.SharedPrefix) > m {
			add(at+".tokens.shared_prefix", fmt.Sprintf("%d tokens is more than the input's median (%s), so more than half the prompts are raised to %d tokens; "+
				"input is the whole prompt, shared prefix included: make it at least shared_prefix", tk.SharedPrefix, tokenCount(m), tk.SharedPrefix))
		}
		if m, ok := tk.Output.MedianValue(); ok && tk.MaxTokens > 0 && m > float64(tk.MaxTokens) {
			add(at+".tokens.max_tokens", fmt.Sprintf("%d tokens is less than the output's median (%s), so more than half the answers are cut to %d tokens; "+
				"output is what the model would write uncut and max_tokens the cap the client sends, so if the cut is not meant, lower output or raise max_tokens", tk.MaxTokens, tokenCount(m), tk.MaxTokens))
		}
	}
	for i, p := range c.Providers {
		at := "provider[" + strconv.Itoa(i) + "].price."
		pr := p.Price
		for _, kv := range []struct {
			key string
			v   float64
		}{{"input", pr.Input}, {"output", pr.Output}, {"cache_write", pr.CacheWrite}, {"cache_write_1h", pr.CacheWrite1h}, {"cache_read", pr.CacheRead}} {
			if kv.v > 0 && kv.v < minPrice && inTree(d.tree, at+kv.key) {
				num := strconv.FormatFloat(kv.v, 'f', -1, 64)
				add(at+kv.key, fmt.Sprintf("%s USD per million tokens is below $%g per million: prices are per million tokens, "+
					"so if $%s is per token, write %s", num, minPrice, num, strconv.FormatFloat(kv.v*1e6, 'g', 6, 64)))
			}
		}
		if pr.CacheRead > pr.Input && pr.Input > 0 {
			add(at+"cache_read", fmt.Sprintf("%s is above input (%s): reading a token from the cache costs more than sending it uncached, "+
				"where providers bill cache reads at a fraction of input (Anthropic 0.1×, OpenAI 0.1× to 0.5×); check both prices",
				strconv.FormatFloat(pr.CacheRead, 'g', -1, 64), strconv.FormatFloat(pr.Input, 'g', -1, 64)))
		}
	}
	return out
}

// curveCoverage checks an hourly or curve demand against the horizon
// [0, duration) that starts at clock time start. It returns the key
// ("hourly" or "curve") and what is wrong, or "" when the points fit:
//   - without repeat, the points end before the horizon does while the
//     last is not 0 (a forgotten value: no requests arrive after);
//   - without repeat, fewer than half the points fall after the horizon
//     ends and are never used (points for whole days, run for part of one,
//     are left alone);
//   - with repeat, the pattern's period is neither a whole number of days
//     nor a whole fraction of one, so it drifts against the clock.
func curveCoverage(dm workloads.DemandSpec, start, duration float64) (string, string) {
	key, points, spacing := "hourly", dm.Hourly, 3600.0
	if len(dm.Curve) > 0 {
		key, points, spacing = "curve", dm.Curve, float64(dm.Every)
	}
	n := len(points)
	if n == 0 || dm.Rate != 0 || !(spacing > 0) {
		return "", ""
	}
	from := dm.From.Seconds()
	phase := start - from // the curve's position at t = 0
	end := phase + duration
	period := float64(n) * spacing
	values := fmt.Sprintf("the %d %s values from %s", n, key, workloads.ClockAt(from))
	if key == "curve" {
		values = fmt.Sprintf("the %d curve values every %s from %s", n, workloads.Duration(spacing), workloads.ClockAt(from))
	}
	const day = 86400.0
	if dm.Repeat {
		if (end > period || phase < 0) && !whole(period/day) && !whole(day/period) {
			return key, fmt.Sprintf("%s repeat every %s, which does not divide a day, so each repeat starts at another time of day; "+
				"give values for a whole day (24 hourly values) or a whole fraction of one", values, span(period))
		}
		return "", ""
	}
	ends := fmt.Sprintf("%s cover %s, but the horizon ends %s after %s", values, span(period), span(end), workloads.ClockAt(from))
	if end > period && period > phase && points[n-1] > 0 {
		return key, fmt.Sprintf("%s: no requests arrive in its last %s; write a value (0 for none) for each %s up to the end, or repeat = true",
			ends, span(end-period), map[string]string{"hourly": "hour", "curve": workloads.Duration(spacing).String()}[key])
	}
	used := int(math.Ceil(end/spacing - 1e-9))
	if dm.Shape == workloads.ShapeLinear {
		used++ // the ramp to the next point uses it
	}
	cut := n - max(used, 0)
	if cut > 0 && 2*cut < n && !whole(period/day) {
		for _, v := range points[n-cut:] {
			if v != 0 {
				last := fmt.Sprintf("the last %d are never used; remove them", cut)
				if cut == 1 {
					last = "the last is never used; remove it"
				}
				return key, fmt.Sprintf("%s: %s, or lengthen duration", ends, last)
			}
		}
	}
	return "", ""
}

// span formats a length of time for a curve: in hours when whole ("25h",
// not "1d1h"), else as a duration.
func span(x float64) string {
	if whole(x/3600) && x > 0 {
		return strconv.Itoa(int(math.Round(x/3600))) + "h"
	}
	return workloads.Duration(x).String()
}

// whole reports whether x is a whole number (within rounding).
func whole(x float64) bool { return math.Abs(x-math.Round(x)) < 1e-9*math.Max(1, x) }

// tokenCount formats a median token count for messages: "2500 tokens".
func tokenCount(v float64) string {
	return strconv.FormatFloat(math.Round(v), 'f', 0, 64) + " tokens"
}
