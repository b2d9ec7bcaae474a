package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/headroom-sim/headroom/workloads"
)

// FitScenarioOptions shape the scenario a fit writes.
type FitScenarioOptions struct {
	// Name is the scenario's name.
	Name string
	// Route is the backend the workloads name; with WorkloadsOnly the
	// scenario they are pasted into must have it.
	Route string
	// WorkloadsOnly writes only the [[workload]] blocks.
	WorkloadsOnly bool
}

// fitWorkloadName names a fitted workload: the file's base name, and the
// group's value when there are several.
func fitWorkloadName(f *workloads.Fit, g *workloads.FitGroup) string {
	base := strings.TrimSuffix(filepath.Base(f.File), filepath.Ext(f.File))
	base = strings.TrimSuffix(base, ".csv")
	base = strings.TrimSuffix(base, ".jsonl")
	if g.Name == "" && len(f.Groups) == 1 {
		return base
	}
	name := g.Name
	if name == "" {
		name = "(none)"
	}
	return base + "/" + name
}

// WriteFitQuality prints how well each fitted quantity matches the trace.
func WriteFitQuality(w io.Writer, fits []*workloads.Fit) error {
	var b strings.Builder
	for fi, f := range fits {
		if fi > 0 {
			b.WriteString("\n")
		}
		clock := ""
		if f.ClockKnown {
			clock = " from " + workloads.ClockHMS(f.StartClock) + " " + fitZone(f)
		}
		fmt.Fprintf(&b, "headroom fit: %s (%s format): %s requests over %s%s\n", f.File, f.Format, Count(f.Requests), Seconds(f.SpanS), clock)
		for gi := range f.Groups {
			g := &f.Groups[gi]
			fmt.Fprintf(&b, "\nworkload %q: %s requests\n", fitWorkloadName(f, g), Count(g.Requests))
			writeRateQuality(&b, f, g)
			arr := "poisson"
			switch a := g.Demand.Arrivals; a.Kind {
			case workloads.ArrivalGamma:
				arr = fmt.Sprintf("gamma, cv %s", sig4(a.CV))
			case workloads.ArrivalConstant:
				arr = "constant"
			}
			fmt.Fprintf(&b, "  arrivals: the gaps' cv is %s in the curve's time (%s in clock time, where the rate's changes add to it) → %s\n",
				sig3(g.GapCV), sig3(g.RawCV), arr)
			tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprint(tw, "  tokens\t\t")
			for _, q := range workloads.FitQuantileLevels {
				fmt.Fprintf(tw, "p%g\t", 100*q)
			}
			fmt.Fprint(tw, "max error\t\n")
			for _, row := range []struct {
				name string
				tf   workloads.TokenFit
			}{{"input", g.Input}, {"output", g.Output}} {
				fmt.Fprintf(tw, "  %s\ttrace\t", row.name)
				for _, v := range row.tf.Observed {
					fmt.Fprintf(tw, "%s\t", tok(v))
				}
				fmt.Fprint(tw, "\t\n")
				fmt.Fprintf(tw, "\tfitted\t")
				for _, v := range row.tf.Fitted {
					fmt.Fprintf(tw, "%s\t", tok(v))
				}
				fmt.Fprintf(tw, "%.1f%%\t\n", 100*row.tf.MaxRelErr)
			}
			tw.Flush()
			for _, row := range []struct {
				name string
				tf   workloads.TokenFit
			}{{"input", g.Input}, {"output", g.Output}} {
				if row.tf.Lognormal {
					fmt.Fprintf(&b, "  %s: lognormal (median %s, p95 %s), within %.1f%% at every quantile above\n", row.name,
						tok(row.tf.Dist.Median), tok(row.tf.Dist.P95), 100*row.tf.MaxRelErr)
				} else {
					fmt.Fprintf(&b, "  %s: an empirical histogram of %d values, finer in the tail (the best lognormal misses a quantile by %.0f%%)\n", row.name,
						len(row.tf.Dist.Values), 100*row.tf.LognormalErr)
				}
			}
			fmt.Fprintf(&b, "  input and output: correlation of their logarithms %.2f%s\n", g.LogCorrelation, correlationNote(g.LogCorrelation))
			if g.SharedPrefix > 0 {
				fmt.Fprintf(&b, "  prefix reuse in the trace: %.1f%% of prompt tokens could come from an earlier request's blocks → shared_prefix = %d over %d prefixes, which reuses as much; prompts shorter than it are lengthened to it, raising the mean prompt by %.1f%% (a synthetic workload shares one prefix per request: the hit rate carries over, per-conversation histories do not)\n",
					100*g.PrefixShare, g.SharedPrefix, g.Prefixes, 100*g.PromptRaise)
			} else if g.PrefixShare > 0 {
				fmt.Fprintf(&b, "  prefix reuse in the trace: %.1f%% of prompt tokens could come from an earlier request's blocks (not fitted, see the note)\n", 100*g.PrefixShare)
			}
		}
		for _, n := range f.Notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func correlationNote(r float64) string {
	if math.Abs(r) >= 0.2 {
		return " (the fitted workload draws them independently; replay the trace itself where this matters)"
	}
	return " (drawn independently in the fit)"
}

// writeRateQuality describes the rate curve's fit.
func writeRateQuality(b *strings.Builder, f *workloads.Fit, g *workloads.FitGroup) {
	d := g.Demand
	peak, at := 0.0, 0
	for i, v := range g.Observed {
		if v > peak {
			peak, at = v, i
		}
	}
	if f.Folded {
		fmt.Fprintf(b, "  rate: %d points of %s repeating daily, the mean of %.1f days; the days differ from it by %.1f%% on average (weighted by time); busiest interval %s/min at +%s\n",
			len(d.Curve), Seconds(f.EveryS), f.Days, 100*g.DayToDay, sig3(peak), fitAt(f, float64(at)*f.EveryS))
		return
	}
	fmt.Fprintf(b, "  rate: %d points of %s, one per interval of the trace, so every interval's rate is the trace's (to 4 digits); busiest %s/min at %s\n",
		len(d.Curve), Seconds(f.EveryS), sig3(peak), fitAt(f, float64(at)*f.EveryS))
}

// fitAt names a time t seconds into the fitted trace: its clock time in
// the fit's zone and the offset ("09:00:01 UTC, +1h") when the log's clock
// is known, else the offset ("+1h").
func fitAt(f *workloads.Fit, t float64) string {
	if !f.ClockKnown {
		return "+" + Seconds(t)
	}
	return workloads.ClockHMS(math.Mod(math.Floor(f.StartClock)+t, 86400)) + " " + fitZone(f) + ", +" + Seconds(t)
}

// fitZone names the zone of a fit's clock times: "UTC", "America/New_York".
func fitZone(f *workloads.Fit) string {
	if f.Zone == "" {
		return "UTC"
	}
	return f.Zone
}

// utcOffset writes an offset east of UTC in seconds as "UTC-05:00".
func utcOffset(s int) string {
	sign := "+"
	if s < 0 {
		sign, s = "-", -s
	}
	return fmt.Sprintf("UTC%s%02d:%02d", sign, s/3600, s/60%60)
}

func sig3(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

func sig4(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }

// tomlNum writes a number for TOML: integers without a point, others with up
// to four significant digits.
func tomlNum(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// FitScenario writes the TOML scenario whose workloads reproduce the fits.
func FitScenario(fits []*workloads.Fit, o FitScenarioOptions) string {
	var b strings.Builder
	route := o.Route
	if route == "" {
		route = "api"
	}
	var files []string
	for _, f := range fits {
		files = append(files, fmt.Sprintf("%s (%s requests over %s)", filepath.Base(f.File), Count(f.Requests), Seconds(f.SpanS)))
	}
	fmt.Fprintf(&b, "# Fitted by headroom fit to %s.\n", strings.Join(files, ", "))
	first := fits[0]
	if !o.WorkloadsOnly {
		name := o.Name
		if name == "" {
			name = fitWorkloadName(first, &first.Groups[0]) + "-fit"
		}
		fmt.Fprintf(&b, "# The [[provider]] at the end is a placeholder: put your backend there, or paste the\n# [[workload]] blocks into your scenario and set route.\nname = %q\n", name)
		// With the log's clock known (date-times, Unix timestamps, or a
		// format counted from midnight) the run starts at the minute of its
		// first record and the curves at that record's second, so the
		// busiest hour falls where the replay of the log puts it.
		start := 0.0
		if first.ClockKnown {
			start = 60 * math.Floor(first.StartClock/60)
			if z := fitZone(first); z == "UTC" {
				fmt.Fprintf(&b, "# Clock times are UTC: the log's first record was at %s UTC.\n", workloads.ClockHMS(first.StartClock))
			} else {
				fmt.Fprintf(&b, "# Clock times are %s (%s at the log's first record, which was at %s there).\n", z, utcOffset(first.UTCOffsetS), workloads.ClockHMS(first.StartClock))
			}
		}
		duration := 0.0
		folded := false
		for _, f := range fits {
			duration = math.Max(duration, f.SpanS)
			folded = folded || f.Folded
		}
		if folded {
			duration = 86400
		}
		fmt.Fprintf(&b, "start = %q\nduration = %q\ninterval = %q\n", workloads.ClockHMS(start), durationText(math.Ceil(duration/60)*60), durationText(intervalFor(duration)))
	}
	for _, f := range fits {
		for gi := range f.Groups {
			g := &f.Groups[gi]
			writeFitWorkload(&b, f, g, route)
		}
	}
	if !o.WorkloadsOnly {
		fmt.Fprintf(&b, "\n[[provider]]\nname = %q\n# A placeholder hosted API without rate limits: give it your provider's limits, latency and prices.\nlatency = { ttft = { base = \"400ms\", per_input_token = \"0.1ms\" }, tpot = { mean = \"20ms\" } }\n", route)
	}
	return b.String()
}

// intervalFor picks a series interval of about 100 points.
func intervalFor(span float64) float64 {
	for _, iv := range []float64{10, 60, 300, 900, 3600} {
		if span/iv <= 300 {
			return iv
		}
	}
	return 3600
}

func writeFitWorkload(b *strings.Builder, f *workloads.Fit, g *workloads.FitGroup, route string) {
	d := g.Demand
	fmt.Fprintf(b, "\n[[workload]]\nname = %q\nroute = %q\n", fitWorkloadName(f, g), route)
	fmt.Fprintf(b, "[workload.demand]\n# %s requests; %s\n", Count(g.Requests), strings.TrimSpace(rateComment(f)))
	fmt.Fprintf(b, "unit = %q\nevery = %q\nfrom = %q\n", d.Unit, durationText(float64(d.Every)), d.From)
	if d.Repeat {
		b.WriteString("repeat = true\n")
	}
	b.WriteString("curve = [")
	for i, v := range d.Curve {
		if i%12 == 0 {
			b.WriteString("\n  ")
		} else {
			b.WriteString(" ")
		}
		b.WriteString(tomlNum(v))
		b.WriteString(",")
	}
	b.WriteString("\n]\n")
	switch a := d.Arrivals; a.Kind {
	case workloads.ArrivalGamma:
		fmt.Fprintf(b, "arrivals = { kind = \"gamma\", cv = %s } # the gaps' cv in the curve's time\n", tomlNum(a.CV))
	case workloads.ArrivalConstant:
		b.WriteString("arrivals = \"constant\"\n")
	default:
		fmt.Fprintf(b, "arrivals = \"poisson\" # the gaps' cv in the curve's time is %s\n", sig3(g.GapCV))
	}
	b.WriteString("[workload.tokens]\n")
	fmt.Fprintf(b, "# input and output: correlation of their logarithms %.2f in the trace; drawn independently here\n", g.LogCorrelation)
	fmt.Fprintf(b, "input = %s\n", distTOML(g.Input.Dist))
	fmt.Fprintf(b, "output = %s\n", distTOML(g.Output.Dist))
	fmt.Fprintf(b, "max_tokens = %d # the longest output in the trace\n", max(g.MaxOutput, 1))
	if g.SharedPrefix > 0 {
		fmt.Fprintf(b, "# %.1f%% of prompt tokens were reusable from earlier requests' blocks; this reuses as much, lengthening\n# prompts shorter than shared_prefix to it (the mean prompt +%.1f%%)\nshared_prefix = %d\nprefixes = %d\n", 100*g.PrefixShare, 100*g.PromptRaise, g.SharedPrefix, g.Prefixes)
	}
}

func rateComment(f *workloads.Fit) string {
	if f.Folded {
		return fmt.Sprintf("one day of %s points repeating, the mean of %.1f days", Seconds(f.EveryS), f.Days)
	}
	return fmt.Sprintf("one %s point per interval of the trace", Seconds(f.EveryS))
}

// distTOML writes a distribution as an inline table.
func distTOML(d workloads.Dist) string {
	switch d.Kind {
	case workloads.KindFixed:
		return tomlNum(d.Value)
	case workloads.KindLogNormal:
		return fmt.Sprintf("{ dist = \"lognormal\", median = %s, p95 = %s }", tomlNum(d.Median), tomlNum(d.P95))
	case workloads.KindEmpirical:
		var b strings.Builder
		list := func(vs []float64, per int, format func(float64) string) {
			for i, v := range vs {
				if i%per == 0 {
					b.WriteString("\n  ")
				} else {
					b.WriteString(" ")
				}
				b.WriteString(format(v))
				b.WriteString(",")
			}
			b.WriteString("\n]")
		}
		b.WriteString("{ dist = \"empirical\", values = [")
		list(d.Values, 16, tomlNum)
		if len(d.Weights) > 0 {
			b.WriteString(", weights = [")
			list(d.Weights, 12, func(w float64) string { return strconv.FormatFloat(w, 'f', -1, 64) })
		}
		b.WriteString(" }")
		return b.String()
	}
	return d.String()
}

// durationText writes seconds as a scenario duration ("90s", "5m", "1h").
func durationText(s float64) string {
	if s < 60 || s != math.Trunc(s) {
		return strconv.FormatFloat(s, 'f', -1, 64) + "s"
	}
	// Hours, minutes and seconds, as the examples write them: "24h",
	// "3h1m", "15m", "1m30s".
	n := int64(s)
	out := ""
	for _, u := range []struct {
		size int64
		name string
	}{{3600, "h"}, {60, "m"}, {1, "s"}} {
		if q := n / u.size; q > 0 {
			out += strconv.FormatInt(q, 10) + u.name
			n -= q * u.size
		}
	}
	return out
}
