package workloads

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/headroom-sim/headroom/sim"
)

// Fitting a trace: the demand and token profile of a synthetic workload
// that reproduces it. A fit reads the trace twice as a stream (no record is
// kept): the first pass counts arrivals per interval and sketches the token
// counts; the second measures the gaps between arrivals in the operational
// time of the fitted rate curve, which is what the arrival process's cv
// means (see Arrivals).

// FitOptions says how to fit.
type FitOptions struct {
	// Every is the rate curve's spacing in seconds; 0 picks one from the
	// span: 1h from 12 h up, 15m from 3 h, 5m from 1 h, 1m from 10 min,
	// else 10s.
	Every float64
	// By fits one workload per value of a record field: "tenant", "model"
	// or "workload"; "" fits one.
	By string
	// Zone is the time zone the fitted clock times are in, when the log
	// has a clock; nil is UTC. Its offset at the first record holds for
	// the whole fit, so a log across a daylight-saving change keeps one
	// clock.
	Zone *time.Location
}

// Limits of a fit.
const (
	maxFitGroups    = 64
	maxFitIntervals = 1_000_000
	maxFitSeenKeys  = 2 << 20 // block keys remembered to measure reuse (about 60 MB)
	fitPrefixRaise  = 0.10    // the most a shared prefix may raise the mean prompt
	fitPoissonBand  = 0.03    // |cv − 1| within this fits poisson
	lognormalFitTol = 0.10    // max relative quantile error for a lognormal
	fitMaxCV        = 100     // the largest gamma cv (ArrivalSpec.CV's range)
	fitMaxPrefixes  = 1 << 24 // the most prefixes (TokenSpec.Prefixes's range)
)

// FitQuantileLevels are the quantiles a token fit is judged on.
var FitQuantileLevels = [...]float64{0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99}

// Fit is a fitted trace.
type Fit struct {
	File, Format string
	// Requests read (after the spec's filter and window) and the span
	// from the first to the last, in seconds.
	Requests int64
	SpanS    float64
	// StartClock is the clock time of the first request (seconds after
	// midnight, in Zone) when ClockKnown.
	StartClock float64
	ClockKnown bool
	// Zone names the time zone of StartClock ("UTC" unless
	// FitOptions.Zone gave another) and UTCOffsetS is its offset east of
	// UTC at the first request, in seconds.
	Zone       string
	UTCOffsetS int
	// EveryS is the rate curve's spacing; Folded says the curve is one
	// day long and repeats, averaged over Days days.
	EveryS float64
	Folded bool
	Days   float64
	Groups []FitGroup
	// Notes say what the fit could not do exactly.
	Notes []string
}

// FitGroup is one fitted workload.
type FitGroup struct {
	// Name is the group's field value ("" when the fit has one group).
	Name     string
	Requests int64
	// Demand is the fitted demand: a curve in requests/min with its
	// spacing, start clock and repeat, and the arrival process.
	Demand DemandSpec
	// Observed and Fitted are the rates per interval of the trace
	// (requests/min), the fitted ones read off the curve; with folding,
	// DayToDay is the mean absolute deviation of the days' rates from the
	// curve, relative to it (0 without folding).
	Observed, Fitted []float64
	DayToDay         float64
	// GapCV is the coefficient of variation of the gaps in the fitted
	// curve's operational time (the fitted gamma cv); RawCV that of the
	// gaps in real time, for comparison.
	GapCV, RawCV float64
	// Input and Output are the token fits; LogCorrelation is the Pearson
	// correlation of log input and log output (a synthetic workload
	// draws them independently).
	Input, Output  TokenFit
	LogCorrelation float64
	// MaxOutput is the longest output seen (the workload's max_tokens).
	MaxOutput int
	// Prefix reuse, when the trace describes prefixes: PrefixShare is the
	// share of prompt tokens a request could reuse from an earlier one
	// (its longest run of leading blocks seen before), SharedPrefix and
	// Prefixes the synthetic stand-in (tokens.shared_prefix: the mean
	// reused tokens; tokens.prefixes: the distinct first blocks reused).
	WithKeys     int64
	PrefixShare  float64
	SharedPrefix int
	Prefixes     int
	// PromptRaise is how much shared_prefix raises the mean prompt
	// (prompts shorter than it are lengthened to it), relative.
	PromptRaise float64
}

// TokenFit is a fitted token distribution and how well it fits.
type TokenFit struct {
	Dist Dist
	// Lognormal says the lognormal fitted within 10% at every quantile
	// of FitQuantileLevels; otherwise Dist is empirical (200 quantiles).
	Lognormal bool
	// Observed and Fitted are the quantiles at FitQuantileLevels;
	// MaxRelErr the largest relative difference.
	Observed, Fitted [len(FitQuantileLevels)]float64
	MaxRelErr        float64
	Mean             float64
	// LognormalErr is the lognormal's largest relative quantile error,
	// even when it was not chosen.
	LognormalErr float64
}

// fitGroup accumulates one group.
type fitGroup struct {
	name            string
	n               int64
	counts          []float64 // arrivals per interval
	in, out         *sim.Sketch
	lin, lin2       float64 // Σ log in, Σ (log in)²
	lout, lout2     float64
	linout          float64
	maxOut          int
	first, last     float64
	prevT, prevS    float64
	gaps            welford
	raw             welford
	curve           *Curve
	keyed           int64
	hitTok, inTok   float64
	firstKeys       map[uint64]int // first-block key → requests that reused it
	fitted          FitGroup
	hasPrev         bool
	observedPerMin  []float64
	coveredInterval []float64
}

// welford accumulates a mean and variance.
type welford struct {
	n       float64
	mean, m float64
}

func (w *welford) add(x float64) {
	w.n++
	d := x - w.mean
	w.mean += d / w.n
	w.m += d * (x - w.mean)
}

func (w *welford) cv() float64 {
	if w.n < 2 || w.mean <= 0 {
		return math.NaN()
	}
	return math.Sqrt(w.m/(w.n-1)) / w.mean
}

// FitTrace fits spec's trace (its filter and window apply; speed, scale
// and loop do not).
func FitTrace(spec TraceSpec, opt FitOptions) (*Fit, error) {
	spec.Speed, spec.Scale, spec.ScaleBy, spec.CopyShift, spec.Loop = 0, 0, "", 0, false
	switch opt.By {
	case "", "tenant", "model", "workload":
	default:
		return nil, fmt.Errorf("fit by %q: allowed: tenant, model, workload", opt.By)
	}
	if math.IsNaN(opt.Every) || opt.Every < 0 || math.IsInf(opt.Every, 0) {
		return nil, fmt.Errorf("fit interval must be a finite duration > 0, got %v", opt.Every)
	}
	f := &Fit{File: spec.Path()}
	groups := map[string]*fitGroup{}
	var order []*fitGroup
	label := func(rec *ReplayRecord) string {
		switch opt.By {
		case "tenant":
			return rec.Tenant
		case "model":
			return rec.Model
		case "workload":
			return rec.Workload
		}
		return ""
	}
	seen := map[uint64]struct{}{}
	seenFull := false

	// Pass 1: counts, tokens, reuse.
	rp, err := OpenReplay(&spec, math.Inf(1), fitRand())
	if err != nil {
		return nil, err
	}
	var span float64
	for {
		rec, err := rp.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			rp.Close()
			return nil, err
		}
		if f.Requests == 0 {
			f.Format = rp.Format()
			f.StartClock, f.ClockKnown = rp.StartClock()
			f.Zone = "UTC"
			if opt.Zone != nil && f.ClockKnown {
				off, err := startOffset(rp, opt.Zone)
				if err != nil {
					rp.Close()
					return nil, err
				}
				f.Zone, f.UTCOffsetS = opt.Zone.String(), off
				f.StartClock = math.Mod(f.StartClock+float64(off)+86400, 86400)
			}
			if opt.By != "" && !hasField(f.Format, spec.Columns, opt.By) {
				rp.Close()
				hint := ""
				if generic(f.Format) {
					hint = "; name it in columns." + opt.By
				}
				return nil, fmt.Errorf("fit by %s: the %s trace has no %s field%s", opt.By, f.Format, opt.By, hint)
			}
		}
		f.Requests++
		span = rec.Time
		name := label(rec)
		g := groups[name]
		if g == nil {
			if len(groups) >= maxFitGroups-1 {
				name = "(other)"
				if g = groups[name]; g == nil {
					f.Notes = append(f.Notes, fmt.Sprintf("more than %d distinct %s values: the rest are fitted together as \"(other)\"", maxFitGroups-1, opt.By))
				}
			}
			if g == nil {
				g = &fitGroup{name: name, in: sim.NewSketch(), out: sim.NewSketch(), first: rec.Time, firstKeys: map[uint64]int{}}
				groups[name] = g
				order = append(order, g)
			}
		}
		g.n++
		g.last = rec.Time
		g.in.Add(float64(rec.Input))
		g.out.Add(float64(rec.Output))
		li, lo := math.Log(float64(rec.Input)), math.Log(float64(rec.Output))
		g.lin += li
		g.lin2 += li * li
		g.lout += lo
		g.lout2 += lo * lo
		g.linout += li * lo
		g.maxOut = max(g.maxOut, rec.Output)
		if len(rec.Keys) > 0 {
			g.keyed++
			b := rp.BlockTokens()
			full := min(len(rec.Keys), rec.Input/b)
			lead := 0
			for lead < full && lead < (rec.Input-1)/b {
				if _, ok := seen[rec.Keys[lead]]; !ok {
					break
				}
				lead++
			}
			g.hitTok += float64(lead * b)
			if lead > 0 {
				g.firstKeys[rec.Keys[0]]++
			}
			for _, k := range rec.Keys {
				if len(seen) >= maxFitSeenKeys {
					if !seenFull {
						seenFull = true
						f.Notes = append(f.Notes, fmt.Sprintf("prefix reuse is measured against the first %d distinct blocks only (a memory bound); later blocks count as new", maxFitSeenKeys))
					}
					break
				}
				seen[k] = struct{}{}
			}
		}
		g.inTok += float64(rec.Input)
	}
	rp.Close()
	if f.Requests < 2 {
		return nil, &TraceError{File: f.File, Msg: fmt.Sprintf("%d requests: a fit needs at least two", f.Requests)}
	}
	f.SpanS = span
	f.EveryS = opt.Every
	if f.EveryS == 0 {
		f.EveryS = autoEvery(span)
	}
	nInt := int(math.Floor(span/f.EveryS)) + 1
	if nInt > maxFitIntervals {
		return nil, fmt.Errorf("%d intervals of %s over the trace's %s; choose a longer interval (at most %d)", nInt, Duration(f.EveryS), Duration(span), maxFitIntervals)
	}
	f.Days = span / 86400
	f.Folded = span >= 2*86400 && math.Mod(86400, f.EveryS) == 0
	if span >= 2*86400 && !f.Folded {
		f.Notes = append(f.Notes, fmt.Sprintf("the trace spans %.1f days but %s does not divide a day, so the curve is not folded into a repeating day", f.Days, Duration(f.EveryS)))
	}
	// The observation window: from the first request to the last plus one
	// mean gap, so the last interval's rate is not inflated.
	end := span + span/float64(f.Requests-1)

	// Pass 1 again for the counts per interval (cheap next to parsing,
	// and it keeps pass 1's memory to the sketches).
	for _, g := range order {
		g.counts = make([]float64, nInt)
	}
	if err := eachRecord(spec, func(rec *ReplayRecord) {
		g := groups[label(rec)]
		if g == nil {
			g = groups["(other)"]
		}
		g.counts[min(int(rec.Time/f.EveryS), nInt-1)]++
	}); err != nil {
		return nil, err
	}
	startClock := 0.0
	if f.ClockKnown {
		startClock = math.Floor(f.StartClock)
	}
	for _, g := range order {
		if err := g.fitCurve(f, end, startClock); err != nil {
			return nil, err
		}
	}
	// Pass 2: gaps in operational time.
	if err := eachRecord(spec, func(rec *ReplayRecord) {
		g := groups[label(rec)]
		if g == nil {
			g = groups["(other)"]
		}
		s := g.curve.Cumulative(rec.Time)
		if g.hasPrev {
			g.gaps.add(s - g.prevS)
			g.raw.add(rec.Time - g.prevT)
		}
		g.prevT, g.prevS, g.hasPrev = rec.Time, s, true
	}); err != nil {
		return nil, err
	}
	for _, g := range order {
		g.finish(f)
		f.Groups = append(f.Groups, g.fitted)
	}
	return f, nil
}

// fitRand is the fixed random stream a fit reads a ServeGen trace with.
func fitRand() *rand.Rand { return rand.New(rand.NewPCG(0xf17, 0x7ace)) }

// eachRecord replays spec and calls fn for every record.
func eachRecord(spec TraceSpec, fn func(*ReplayRecord)) error {
	rp, err := OpenReplay(&spec, math.Inf(1), fitRand())
	if err != nil {
		return err
	}
	defer rp.Close()
	for {
		rec, err := rp.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		fn(rec)
	}
}

// autoEvery picks a curve spacing for a span.
func autoEvery(span float64) float64 {
	switch {
	case span >= 12*3600:
		return 3600
	case span >= 3*3600:
		return 900
	case span >= 3600:
		return 300
	case span >= 600:
		return 60
	}
	return 10
}

// fitCurve turns the counts into the group's rate curve.
func (g *fitGroup) fitCurve(f *Fit, end, startClock float64) error {
	every := f.EveryS
	n := len(g.counts)
	covered := make([]float64, n)
	for i := range covered {
		covered[i] = math.Max(0, math.Min(end, float64(i+1)*every)-float64(i)*every)
	}
	g.observedPerMin = make([]float64, n)
	for i, c := range g.counts {
		if covered[i] > 0 {
			g.observedPerMin[i] = 60 * c / covered[i]
		}
	}
	g.coveredInterval = covered
	var points []float64
	if f.Folded {
		per := int(86400 / every)
		cnt := make([]float64, per)
		cov := make([]float64, per)
		for i := range g.counts {
			cnt[i%per] += g.counts[i]
			cov[i%per] += covered[i]
		}
		points = make([]float64, per)
		for j := range points {
			if cov[j] > 0 {
				points[j] = round4(60 * cnt[j] / cov[j])
			}
		}
	} else {
		points = make([]float64, n)
		for i := range points {
			points[i] = round4(g.observedPerMin[i])
		}
	}
	d := DemandSpec{Unit: UnitPerMinute, Curve: points, Every: Duration(every), From: Clock(ClockHMS(startClock)), Repeat: f.Folded}
	if err := d.Validate(); err != nil {
		return fmt.Errorf("fitted curve for %q: %w", g.name, err)
	}
	c, err := d.BuildCurve(startClock)
	if err != nil {
		return err
	}
	g.curve = c
	g.fitted.Demand = d
	return nil
}

// finish completes a group's fit once both passes are done.
func (g *fitGroup) finish(f *Fit) {
	fg := &g.fitted
	fg.Name, fg.Requests, fg.MaxOutput = g.name, g.n, g.maxOut
	fg.Observed = g.observedPerMin
	fg.Fitted = make([]float64, len(g.counts))
	per := len(fg.Demand.Curve)
	dev, wsum := 0.0, 0.0
	for i := range fg.Fitted {
		fg.Fitted[i] = fg.Demand.Curve[i%per]
		if f.Folded && fg.Fitted[i] > 0 && g.coveredInterval[i] > 0 {
			dev += g.coveredInterval[i] * math.Abs(fg.Observed[i]-fg.Fitted[i]) / fg.Fitted[i]
			wsum += g.coveredInterval[i]
		}
	}
	if wsum > 0 {
		fg.DayToDay = dev / wsum
	}
	fg.GapCV, fg.RawCV = g.gaps.cv(), g.raw.cv()
	switch cv := fg.GapCV; {
	case math.IsNaN(cv):
		fg.Demand.Arrivals = ArrivalSpec{Kind: ArrivalPoisson}
	case math.Abs(cv-1) <= fitPoissonBand:
		fg.Demand.Arrivals = ArrivalSpec{Kind: ArrivalPoisson}
	case cv < 0.01:
		fg.Demand.Arrivals = ArrivalSpec{Kind: ArrivalConstant}
	default:
		fg.Demand.Arrivals = ArrivalSpec{Kind: ArrivalGamma, CV: round4(math.Min(cv, fitMaxCV))}
		if cv > fitMaxCV {
			f.Notes = append(f.Notes, fmt.Sprintf("%s: arrivals are burstier (cv %.0f) than a gamma process can be made here (cv ≤ %d)", groupLabel(g.name), cv, fitMaxCV))
		}
	}
	n := float64(g.n)
	fg.Input = fitTokens(g.in, g.lin/n, math.Sqrt(math.Max(0, g.lin2/n-(g.lin/n)*(g.lin/n))))
	fg.Output = fitTokens(g.out, g.lout/n, math.Sqrt(math.Max(0, g.lout2/n-(g.lout/n)*(g.lout/n))))
	vi, vo := g.lin2/n-(g.lin/n)*(g.lin/n), g.lout2/n-(g.lout/n)*(g.lout/n)
	if vi > 0 && vo > 0 {
		fg.LogCorrelation = (g.linout/n - (g.lin/n)*(g.lout/n)) / math.Sqrt(vi*vo)
	}
	fg.WithKeys = g.keyed
	if g.keyed > 0 && g.inTok > 0 && g.hitTok > 0 {
		fg.PrefixShare = g.hitTok / g.inTok
		vals, ws := distGrid(fg.Input.Dist, g.in)
		sp, meanIn, clamped := sharedPrefixFor(vals, ws, fg.PrefixShare)
		fg.PromptRaise = clamped/meanIn - 1
		if fg.PromptRaise > fitPrefixRaise {
			f.Notes = append(f.Notes, fmt.Sprintf("%s: a shared prefix of %d tokens would reproduce the %.1f%% reuse but lengthen the prompts shorter than it, raising the mean prompt by %.0f%%; the fit leaves shared_prefix out: replay the trace for its prefixes",
				groupLabel(g.name), sp, 100*fg.PrefixShare, 100*fg.PromptRaise))
		} else {
			fg.SharedPrefix = sp
			fg.Prefixes = max(1, min(len(g.firstKeys), fitMaxPrefixes))
		}
	}
}

// sharedPrefixFor finds the shared prefix S with which a synthetic
// workload reuses share of its prompt tokens: S / E[max(X, S)] = share,
// where X is the prompt length (Sample lengthens shorter prompts to S). It
// returns S, E[X] and E[max(X, S)].
func sharedPrefixFor(vals, ws []float64, share float64) (s int, mean, clamped float64) {
	e := func(sp float64) float64 {
		t := 0.0
		for i, v := range vals {
			t += ws[i] * math.Max(v, sp)
		}
		return t
	}
	mean = e(0)
	lo, hi := 0.0, vals[len(vals)-1]/share
	for i := 0; i < 60; i++ {
		mid := (lo + hi) / 2
		if mid < share*e(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	s = int(math.Round(lo))
	return s, mean, e(float64(s))
}

// distGrid discretizes a fitted token distribution on the quantile grid:
// values and weights summing to 1.
func distGrid(d Dist, sk *sim.Sketch) (vals, ws []float64) {
	levels, widths := quantileGrid()
	mu, sigma := d.logNormalParams()
	for i, q := range levels {
		switch d.Kind {
		case KindEmpirical:
			vals = append(vals, weightedQuantile(d.Values, d.Weights, q))
		case KindLogNormal:
			vals = append(vals, math.Exp(mu+sigma*normQuantile(q)))
		case KindFixed:
			vals = append(vals, d.Value)
		default:
			vals = append(vals, sk.Quantile(q))
		}
		ws = append(ws, widths[i])
	}
	return vals, ws
}

// quantileGrid is the grid an empirical fit uses: bins of 1% up to p90,
// 0.1% up to p99, 0.05% above, 200 in all, denser in the tail that
// latency depends on. It returns each bin's middle level and width.
func quantileGrid() (mids, widths []float64) {
	add := func(from, to, step float64) {
		for x := from; x < to-step/2; x += step {
			mids = append(mids, x+step/2)
			widths = append(widths, step)
		}
	}
	add(0, 0.9, 0.01)
	add(0.9, 0.99, 0.001)
	add(0.99, 1, 0.0005)
	return mids, widths
}

// weightedQuantile is the q-quantile of sorted values with weights (equal
// when none): the first value whose cumulative weight reaches q.
func weightedQuantile(vals, ws []float64, q float64) float64 {
	total := 0.0
	for i := range vals {
		total += weightOf(ws, i)
	}
	c := 0.0
	for i, v := range vals {
		c += weightOf(ws, i)
		if c >= q*total-1e-12 {
			return v
		}
	}
	return vals[len(vals)-1]
}

func weightOf(ws []float64, i int) float64 {
	if len(ws) == 0 {
		return 1
	}
	return ws[i]
}

func groupLabel(name string) string {
	if name == "" {
		return "the trace"
	}
	return fmt.Sprintf("%q", name)
}

// fitTokens fits a lognormal by maximum likelihood (mu, sigma of the logs)
// and keeps it when it matches the sketch's quantiles within 10%;
// otherwise it returns an empirical distribution on the quantile grid
// (adjacent bins of equal value merged).
func fitTokens(sk *sim.Sketch, mu, sigma float64) TokenFit {
	var tf TokenFit
	tf.Mean = sk.Mean()
	logn := Dist{Kind: KindLogNormal, Median: round4(math.Exp(mu)), P95: round4(math.Exp(mu + z95*sigma))}
	if sigma == 0 {
		logn = Fixed(math.Round(math.Exp(mu)))
	}
	for i, q := range FitQuantileLevels {
		tf.Observed[i] = sk.Quantile(q)
		fit := math.Exp(mu + sigma*normQuantile(q))
		tf.LognormalErr = math.Max(tf.LognormalErr, math.Abs(fit-tf.Observed[i])/tf.Observed[i])
	}
	if tf.LognormalErr <= lognormalFitTol {
		tf.Dist, tf.Lognormal = logn, true
		for i, q := range FitQuantileLevels {
			tf.Fitted[i] = math.Exp(mu + sigma*normQuantile(q))
		}
	} else {
		mids, widths := quantileGrid()
		var vals, ws []float64
		for i, q := range mids {
			v := math.Max(1, math.Round(sk.Quantile(q)))
			if n := len(vals); n > 0 && vals[n-1] == v {
				ws[n-1] += widths[i]
				continue
			}
			vals, ws = append(vals, v), append(ws, widths[i])
		}
		for i := range ws {
			ws[i] = math.Round(ws[i]*1e6) / 1e6
		}
		tf.Dist = Dist{Kind: KindEmpirical, Values: vals, Weights: ws}
		for i, q := range FitQuantileLevels {
			tf.Fitted[i] = weightedQuantile(vals, ws, q)
		}
	}
	for i := range FitQuantileLevels {
		tf.MaxRelErr = math.Max(tf.MaxRelErr, math.Abs(tf.Fitted[i]-tf.Observed[i])/tf.Observed[i])
	}
	return tf
}

// normQuantile is Φ⁻¹(q).
func normQuantile(q float64) float64 { return math.Sqrt2 * math.Erfinv(2*q-1) }

// round4 rounds to four significant digits.
func round4(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	e := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*e) / e
}

// hasField reports whether records of the format carry a tenant, model or
// workload field.
func hasField(format string, c TraceColumns, field string) bool {
	switch field {
	case "model":
		return format == FormatBurstGPT || generic(format) && c.Model != ""
	case "tenant":
		return generic(format) && c.Tenant != ""
	case "workload":
		return generic(format) && c.Workload != ""
	}
	return false
}

// startOffset is zone's offset east of UTC, in seconds, at the log's
// first record; for a log whose times have no date, the offset the zone
// keeps all year, or an error when it changes with the seasons.
func startOffset(rp *Replay, zone *time.Location) (int, error) {
	if ns, ok := rp.StartTime(); ok {
		_, off := time.Unix(0, ns).In(zone).Zone()
		return off, nil
	}
	_, winter := time.Date(2025, time.January, 15, 12, 0, 0, 0, time.UTC).In(zone).Zone()
	_, summer := time.Date(2025, time.July, 15, 12, 0, 0, 0, time.UTC).In(zone).Zone()
	if winter != summer {
		return 0, fmt.Errorf("the %s log's times count from a midnight of no given date, and %s changes its offset with the seasons, so which offset applies is unknown; name the zone as a fixed offset (such as UTC-05:00)", rp.Format(), zone)
	}
	return winter, nil
}
