package loadtest

import (
	"fmt"
	"math"
	"slices"
)

// The hosted provider latency model (see model.LatencySpec) is
//
//	TTFT = (base + per_input_token × uncached input) × F,   TPOT = tpot × G,
//
// with F and G random multipliers of mean 1 (fixed, or lognormal with a
// cv). FitHosted fits it to load-test results:
//
//   - base and per_input_token by least squares of TTFT on input tokens,
//     over every request of the files with per-request rows and the means
//     of the others, weighted by their requests; both are kept >= 0,
//     and per_input_token is fitted only when inputs vary by more than 5%
//     (otherwise it is 0 and base holds the prompt's time);
//   - tpot as the mean TPOT (as defined in the package doc), over the same
//     requests and means;
//   - the cvs from the spread of the logarithm of measured over fitted per
//     request, or, without per-request rows, from p99 (else p90) over the
//     median of a lognormal.

// z99 and z90 are the standard normal quantiles.
const (
	z99 = 2.3263478740408408
	z90 = 1.2815515655446004
)

// HostedFit is a fitted provider latency model and its checks.
type HostedFit struct {
	TTFTBase, TTFTPerToken float64 // seconds, seconds per input token
	TTFTCV                 float64 // lognormal cv of F; 0 means fixed
	TPOT, TPOTCV           float64
	// PerTokenFitted says the inputs varied enough to fit per_input_token.
	PerTokenFitted bool
	// Requests is the number of per-request rows fitted (0: aggregates).
	Requests int
	Levels   []LevelCheck
	Notes    []string
}

// LevelCheck compares a level's measured means and 99th percentiles with
// the fitted model's.
type LevelCheck struct {
	File, Label                   string
	MeanInput                     float64
	TTFTMean, TTFTMeanFit         float64
	TTFTP99, TTFTP99Fit           float64
	TPOTMean, TPOTMeanFit         float64
	TPOTP99, TPOTP99Fit           float64
	Concurrency, Rate, Throughput float64
}

// FitHosted fits the hosted latency model to levels.
func FitHosted(levels []Level) (*HostedFit, error) {
	if len(levels) == 0 {
		return nil, fmt.Errorf("no load-test results to fit")
	}
	f := &HostedFit{}
	// Points (input, TTFT, weight): every request of the levels with
	// per-request rows, and the means of the others, weighted by their
	// request counts.
	var xs, ys, ws []float64
	var rowX, rowY, rowTPOT []float64
	var tpotSum, tpotW float64
	for _, l := range levels {
		if len(l.Requests) > 0 {
			for _, r := range l.Requests {
				xs, ys, ws = append(xs, float64(r.Input)), append(ys, r.TTFT), append(ws, 1)
				rowX, rowY = append(rowX, float64(r.Input)), append(rowY, r.TTFT)
				if !math.IsNaN(r.TPOT) {
					rowTPOT = append(rowTPOT, r.TPOT)
					tpotSum += r.TPOT
					tpotW++
				}
			}
			continue
		}
		w := math.Max(float64(l.Completed), 1)
		if l.Completed == 0 && len(levels) > 1 {
			w = 100
			f.Notes = append(f.Notes, fmt.Sprintf("%s (%s) gives no request count; its means weigh as 100 requests", l.File, l.Label))
		}
		if !math.IsNaN(l.TPOT.Mean) {
			tpotSum += w * l.TPOT.Mean
			tpotW += w
		}
		if math.IsNaN(l.TTFT.Mean) || math.IsNaN(l.MeanInput) {
			f.Notes = append(f.Notes, fmt.Sprintf("%s (%s): no mean TTFT and input tokens, left out of the TTFT fit", l.File, l.Label))
			continue
		}
		xs, ys, ws = append(xs, l.MeanInput), append(ys, l.TTFT.Mean), append(ws, w)
	}
	f.Requests = len(rowX)
	if len(xs) == 0 {
		return nil, fmt.Errorf("no TTFT to fit: the files give neither per-request times nor mean TTFT with mean input tokens")
	}
	a, b, varied := fitLine(xs, ys, ws)
	f.TTFTBase, f.TTFTPerToken, f.PerTokenFitted = a, b, varied
	if !varied {
		f.Notes = append(f.Notes, fmt.Sprintf("every request had about %.0f input tokens, so per_input_token cannot be told apart from base: base includes the prompt's time; measure prompts of several lengths to fit it", weightedMean(xs, ws)))
	}
	if tpotW > 0 {
		f.TPOT = tpotSum / tpotW
	} else {
		f.Notes = append(f.Notes, "no request had two output tokens or more, so TPOT is unknown (0)")
	}
	// The spreads: from the requests when there are any, else from the
	// levels' percentiles.
	if len(rowX) > 0 {
		f.TTFTCV = logCV(rowY, func(i int) float64 { return a + b*rowX[i] })
		f.TPOTCV = logCV(rowTPOT, func(int) float64 { return f.TPOT })
	} else {
		f.TTFTCV = aggregateCV(levels, func(l Level) Stats { return l.TTFT })
		f.TPOTCV = aggregateCV(levels, func(l Level) Stats { return l.TPOT })
	}
	// Checks per level.
	sT, sP := lognormalSigma(f.TTFTCV), lognormalSigma(f.TPOTCV)
	for _, l := range levels {
		c := LevelCheck{File: l.File, Label: l.Label, MeanInput: l.MeanInput, TTFTMean: l.TTFT.Mean, TTFTP99: l.TTFT.P99,
			TPOTMean: l.TPOT.Mean, TPOTP99: l.TPOT.P99, Concurrency: l.Concurrency, Rate: l.Rate, Throughput: l.Throughput}
		c.TTFTMeanFit = a + b*l.MeanInput
		c.TTFTP99Fit = c.TTFTMeanFit * math.Exp(-sT*sT/2+z99*sT)
		if len(l.Requests) > 0 {
			// The model's p99 over this level's prompts, not at their mean.
			preds := make([]float64, len(l.Requests))
			for i, r := range l.Requests {
				preds[i] = a + b*float64(r.Input)
			}
			c.TTFTP99Fit = mixtureQuantile(preds, sT, 0.99)
		}
		c.TPOTMeanFit = f.TPOT
		c.TPOTP99Fit = f.TPOT * math.Exp(-sP*sP/2+z99*sP)
		f.Levels = append(f.Levels, c)
	}
	f.loadNote(levels)
	f.errorNote()
	return f, nil
}

// errorNote states how far the one fitted model is from the measured
// TTFT means when it was fitted across several levels.
func (f *HostedFit) errorNote() {
	worst, at, n := 0.0, -1, 0
	for i, c := range f.Levels {
		if !(c.TTFTMean > 0) || math.IsNaN(c.TTFTMeanFit) {
			continue
		}
		n++
		if e := math.Abs(c.TTFTMeanFit/c.TTFTMean - 1); e > worst {
			worst, at = e, i
		}
	}
	if n < 2 || at < 0 {
		return
	}
	c := f.Levels[at]
	msg := fmt.Sprintf("one latency model fitted across all %d load levels: its TTFT mean is off by up to %+.0f%% (%s, %s)",
		n, 100*(c.TTFTMeanFit/c.TTFTMean-1), c.File, c.Label)
	if worst > 0.25 {
		msg += "; the latency depends on the load, so give only the file of the load you will run (the lightest, for the API's own latency)"
	}
	f.Notes = append(f.Notes, msg)
}

// loadNote warns when latency grows with the load across levels.
func (f *HostedFit) loadNote(levels []Level) {
	if len(levels) < 2 {
		return
	}
	load := func(l Level) float64 {
		switch {
		case l.Concurrency > 0:
			return l.Concurrency
		case l.Rate > 0 && !math.IsInf(l.Rate, 0):
			return l.Rate
		}
		return math.NaN()
	}
	lo, hi := -1, -1
	for i, l := range levels {
		x := load(l)
		if math.IsNaN(x) || math.IsNaN(l.TTFT.Mean) {
			continue
		}
		if lo < 0 || x < load(levels[lo]) {
			lo = i
		}
		if hi < 0 || x > load(levels[hi]) {
			hi = i
		}
	}
	if lo < 0 || lo == hi {
		return
	}
	rl, rh := levels[lo].TTFT.Mean, levels[hi].TTFT.Mean
	// Compare at equal input: scale by the fitted line.
	fl, fh := f.TTFTBase+f.TTFTPerToken*levels[lo].MeanInput, f.TTFTBase+f.TTFTPerToken*levels[hi].MeanInput
	if fl > 0 && fh > 0 && rh/fh > 1.25*rl/fl {
		f.Notes = append(f.Notes, fmt.Sprintf("TTFT grows with load (%s: %.3g s, %s: %.3g s): the API queues requests, and the fitted model has none; fit the levels of the load you will run, or model the API's queue with [provider.concurrency]",
			levels[lo].Label, rl, levels[hi].Label, rh))
	}
}

// fitLine fits y = a + b·x by weighted least squares with a, b >= 0;
// varied reports whether x varied enough (weighted cv > 5%) to fit b.
func fitLine(xs, ys, ws []float64) (a, b float64, varied bool) {
	mx, my := weightedMean(xs, ws), weightedMean(ys, ws)
	var sxx, sxy, sw float64
	for i := range xs {
		dx := xs[i] - mx
		sxx += ws[i] * dx * dx
		sxy += ws[i] * dx * (ys[i] - my)
		sw += ws[i]
	}
	if mx <= 0 || math.Sqrt(sxx/sw)/mx < 0.05 {
		return math.Max(my, 0), 0, false
	}
	b = sxy / sxx
	a = my - b*mx
	switch {
	case b < 0:
		return math.Max(my, 0), 0, true
	case a < 0:
		// Through the origin.
		var sx2, sxy0 float64
		for i := range xs {
			sx2 += ws[i] * xs[i] * xs[i]
			sxy0 += ws[i] * xs[i] * ys[i]
		}
		return 0, math.Max(sxy0/sx2, 0), true
	}
	return a, b, true
}

func weightedMean(v, w []float64) float64 {
	var s, t float64
	for i := range v {
		s += w[i] * v[i]
		t += w[i]
	}
	return s / t
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// logCV is the cv of a mean-1 lognormal multiplier fitted to the ratios
// measured / predicted (ratios of zero or unknown predictions are left
// out). Below 0.02 it is 0 (fixed).
func logCV(v []float64, pred func(i int) float64) float64 {
	var logs []float64
	for i, x := range v {
		p := pred(i)
		if x > 0 && p > 0 {
			logs = append(logs, math.Log(x/p))
		}
	}
	if len(logs) < 2 {
		return 0
	}
	m := mean(logs)
	ss := 0.0
	for _, l := range logs {
		ss += (l - m) * (l - m)
	}
	return cvOfSigma(math.Sqrt(ss / float64(len(logs)-1)))
}

// aggregateCV estimates the cv from the levels' percentiles over medians.
func aggregateCV(levels []Level, get func(Level) Stats) float64 {
	var sig []float64
	for _, l := range levels {
		s := get(l)
		switch {
		case s.P50 > 0 && s.P99 > s.P50:
			sig = append(sig, math.Log(s.P99/s.P50)/z99)
		case s.P50 > 0 && s.P90 > s.P50:
			sig = append(sig, math.Log(s.P90/s.P50)/z90)
		}
	}
	if len(sig) == 0 {
		return 0
	}
	return cvOfSigma(mean(sig))
}

func cvOfSigma(s float64) float64 {
	cv := math.Sqrt(math.Expm1(s * s))
	if cv < 0.02 || math.IsNaN(cv) {
		return 0
	}
	return math.Min(cv, 10)
}

// lognormalSigma is the σ of a lognormal with the given cv.
func lognormalSigma(cv float64) float64 { return math.Sqrt(math.Log1p(cv * cv)) }

// mixtureQuantile is the q-quantile of an equal mixture of lognormals of
// means preds and log-sd sigma (each pred × a mean-1 multiplier), found by
// bisection on the mixture's CDF.
func mixtureQuantile(preds []float64, sigma, q float64) float64 {
	lo, hi := math.Inf(1), 0.0
	for _, p := range preds {
		lo, hi = math.Min(lo, p), math.Max(hi, p)
	}
	if sigma == 0 {
		s := append([]float64(nil), preds...)
		slices.Sort(s)
		return s[min(len(s)-1, int(q*float64(len(s))))]
	}
	lo *= math.Exp(-sigma*sigma/2 - 6*sigma)
	hi *= math.Exp(-sigma*sigma/2 + 6*sigma)
	cdf := func(t float64) float64 {
		sum := 0.0
		for _, p := range preds {
			if p > 0 {
				sum += 0.5 * math.Erfc(-(math.Log(t/p)+sigma*sigma/2)/(sigma*math.Sqrt2))
			} else {
				sum++
			}
		}
		return sum / float64(len(preds))
	}
	for i := 0; i < 60; i++ {
		mid := math.Sqrt(lo * hi)
		if cdf(mid) < q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Sqrt(lo * hi)
}
