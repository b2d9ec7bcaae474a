package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/headroom-sim/headroom/model/loadtest"
)

// WriteLoadTestLevels lists what was read from load-test files, one line
// per level, in Headroom's definitions (TTFT, TPOT after the first token,
// E2E), with the conversions made.
func WriteLoadTestLevels(w io.Writer, levels []loadtest.Level) error {
	var b strings.Builder
	fmt.Fprintf(&b, "headroom calibrate: %d load level(s) read\n\n", len(levels))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "REQUESTS\tIN\tOUT\tREQ/S\tTTFT MEAN\tTTFT P99\tTPOT MEAN\tTPOT P99\tE2E MEAN\t  LEVEL\n")
	for _, l := range levels {
		n := Count(int64(l.Completed))
		if l.Completed == 0 {
			n = "—"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t  %s: %s (%s)\n", n, tokOrDash(l.MeanInput), tokOrDash(l.MeanOutput),
			numOrDash(l.Throughput), secOrDash(l.TTFT.Mean), secOrDash(l.TTFT.P99), secOrDash(l.TPOT.Mean), secOrDash(l.TPOT.P99), secOrDash(l.E2E.Mean),
			filepath.Base(l.File), l.Label, l.Tool)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, l := range levels {
		for _, n := range l.Notes {
			if !seen[n] {
				seen[n] = true
				fmt.Fprintf(&b, "  note (%s): %s\n", l.Tool, n)
			}
		}
		if l.Failed > 0 {
			fmt.Fprintf(&b, "  note: %s (%s): %s failed requests left out\n", filepath.Base(l.File), l.Label, Count(int64(l.Failed)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func secOrDash(s float64) string {
	if math.IsNaN(s) {
		return "—"
	}
	return Seconds(s)
}

func tokOrDash(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return tok(v)
}

func numOrDash(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// WriteHostedCalibration prints a hosted latency fit: the fitted model
// against every level, notes, and the [provider.latency] block to paste.
func WriteHostedCalibration(w io.Writer, f *loadtest.HostedFit) error {
	var b strings.Builder
	src := "the levels' means"
	if f.Requests > 0 {
		src = Count(int64(f.Requests)) + " requests"
	}
	fmt.Fprintf(&b, "\nHosted latency model fitted to %s: TTFT = (base + per_input_token × input) × F, TPOT = tpot × G\n\n", src)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "TTFT MEAN\tFITTED\tTTFT P99\tFITTED\tTPOT MEAN\tFITTED\tTPOT P99\tFITTED\t  LEVEL\n")
	for _, c := range f.Levels {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t  %s\n", secOrDash(c.TTFTMean), withErr(c.TTFTMeanFit, c.TTFTMean), secOrDash(c.TTFTP99), withErr(c.TTFTP99Fit, c.TTFTP99),
			secOrDash(c.TPOTMean), withErr(c.TPOTMeanFit, c.TPOTMean), secOrDash(c.TPOTP99), withErr(c.TPOTP99Fit, c.TPOTP99), filepath.Base(c.File)+": "+c.Label)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range f.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	b.WriteString("\nPaste into the [[provider]] block:\n\n")
	b.WriteString(HostedLatencyTOML(f))
	_, err := io.WriteString(w, b.String())
	return err
}

// withErr is a fitted value with its error against the measured one.
func withErr(fit, measured float64) string {
	if math.IsNaN(fit) {
		return "—"
	}
	if math.IsNaN(measured) || measured == 0 {
		return Seconds(fit)
	}
	return fmt.Sprintf("%s (%+.0f%%)", Seconds(fit), 100*(fit/measured-1))
}

// HostedLatencyTOML is the [provider.latency] block of a fit.
func HostedLatencyTOML(f *loadtest.HostedFit) string {
	stage := func(key string, base, perTok, cv float64, withPer bool) string {
		parts := []string{fmt.Sprintf("%s = %q", key, durationTOML(base))}
		if withPer {
			parts = append(parts, fmt.Sprintf("per_input_token = %q", durationTOML(perTok)))
		}
		if cv > 0 {
			parts = append(parts, `dist = "lognormal"`, "cv = "+strconv.FormatFloat(round3(cv), 'f', -1, 64))
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	var b strings.Builder
	b.WriteString("[provider.latency]\n")
	fmt.Fprintf(&b, "ttft = %s\n", stage("base", f.TTFTBase, f.TTFTPerToken, f.TTFTCV, f.TTFTPerToken > 0))
	fmt.Fprintf(&b, "tpot = %s\n", stage("mean", f.TPOT, 0, f.TPOTCV, false))
	return b.String()
}

func round3(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 3, 64), 64)
	return v
}

// durationTOML writes seconds as a duration in the largest unit that keeps
// the number at least 1, to four significant digits ("312.4ms", "41.2us").
func durationTOML(s float64) string {
	if !(s > 0) || math.IsInf(s, 0) {
		return "0s"
	}
	for _, u := range []struct {
		name string
		size float64
	}{{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}} {
		if s >= u.size || u.name == "ns" {
			return strconv.FormatFloat(round4sig(s/u.size), 'f', -1, 64) + u.name
		}
	}
	return "0s"
}

func round4sig(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return v
}
