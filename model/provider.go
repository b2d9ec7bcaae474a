package model

import (
	"math"
	"math/rand/v2"
)

// provider is a hosted API endpoint at run time.
type provider struct {
	spec   *ProviderSpec
	idx    int
	org    *limitSet
	keys   []*limitSet
	lat    latencyModel
	rngLat *rand.Rand
	rngOut *rand.Rand
	rngBat *rand.Rand

	// concurrency
	conCap   int
	conUsed  int
	conQueue bool
	conQ     deque

	// prompt cache: last write or refresh time per (workload, prefix)
	cacheOn  bool
	cacheTTL float64
	cacheMin int
	refresh  bool
	cache    [][]float64
	kc       *keyCache // trace prefix blocks (provider_blocks.go), or nil

	outages []outage
	errTime float64
	spent   float64
	batchQ  float64 // input tokens enqueued in the batch lane

	stats *backendStats
	// priced is set when some token has a price: an unpriced provider's
	// requests cost exactly zero, and their tallies skip the cost sums.
	priced bool
}

type outage struct {
	start, end float64
	reason     int
	fraction   float64
}

// latencyModel draws TTFT and TPOT.
type latencyModel struct {
	ttftBase, ttftPerTok float64
	ttftKind             uint8
	ttftSigma            float64
	tpot                 float64
	tpotKind             uint8
	tpotSigma            float64
}

func stageKind(dist string, cv float64) (uint8, float64) {
	switch dist {
	case "exponential":
		return 1, 0
	case "lognormal":
		return 2, math.Sqrt(math.Log(1 + cv*cv))
	}
	return 0, 0
}

// factor draws a mean-1 multiplier.
func factor(kind uint8, sigma float64, r *rand.Rand) float64 {
	switch kind {
	case 1:
		return r.ExpFloat64()
	case 2:
		return math.Exp(sigma*r.NormFloat64() - sigma*sigma/2)
	}
	return 1
}

func (l *latencyModel) ttft(uncached int, r *rand.Rand) float64 {
	return (l.ttftBase + l.ttftPerTok*float64(uncached)) * factor(l.ttftKind, l.ttftSigma, r)
}

func (l *latencyModel) tpotDraw(r *rand.Rand) float64 {
	return l.tpot * factor(l.tpotKind, l.tpotSigma, r)
}

func newProvider(spec *ProviderSpec, idx int, cfg *Config, nWorkloads int) *provider {
	p := &provider{spec: spec, idx: idx}
	p.org = newLimitSet(spec.Limits, cfg.StartClock)
	for _, k := range spec.Keys {
		p.keys = append(p.keys, newLimitSet(k.Limits, cfg.StartClock))
	}
	tk, ts := stageKind(spec.Latency.TTFT.Dist, spec.Latency.TTFT.CV)
	pk, ps := stageKind(spec.Latency.TPOT.Dist, spec.Latency.TPOT.CV)
	p.lat = latencyModel{ttftBase: float64(spec.Latency.TTFT.Base), ttftPerTok: float64(spec.Latency.TTFT.PerInputToken),
		ttftKind: tk, ttftSigma: ts, tpot: float64(spec.Latency.TPOT.Mean), tpotKind: pk, tpotSigma: ps}
	p.rngLat = cfg.stream("provider/" + spec.Name + "/latency")
	p.rngOut = cfg.stream("provider/" + spec.Name + "/outage")
	p.rngBat = cfg.stream("provider/" + spec.Name + "/batch")
	if spec.ErrorTime != nil {
		p.errTime = float64(*spec.ErrorTime)
	}
	pr := spec.Price
	p.priced = pr.Input != 0 || pr.Output != 0 || pr.CacheWrite != 0 || pr.CacheWrite1h != 0 || pr.CacheRead != 0
	p.conCap = spec.Concurrency.Max
	p.conQueue = spec.Concurrency.WhenFull == "queue"
	p.cacheOn = spec.Cache.Enabled == nil || *spec.Cache.Enabled
	p.cacheTTL = float64(spec.Cache.TTL)
	p.cacheMin = spec.Cache.MinTokens
	p.refresh = spec.Cache.Refresh == nil || *spec.Cache.Refresh
	p.cache = make([][]float64, nWorkloads)
	for _, o := range spec.Outages {
		start := float64(o.After)
		if o.At.IsSet() {
			start = math.Mod(o.At.Seconds()-cfg.StartClock+86400, 86400)
		}
		r := rsOverloaded
		switch o.Status {
		case 503:
			r = rsUnavailable
		case 500:
			r = rsServerError
		}
		p.outages = append(p.outages, outage{start: start, end: start + float64(o.Duration), reason: r, fraction: o.Fraction})
	}
	p.stats = newBackendStats(spec.Name, p, cfg.intervals())
	return p
}

// outageAt reports the failure reason for an attempt sent now, or -1.
func (p *provider) outageAt(now float64) int {
	for i := range p.outages {
		o := &p.outages[i]
		if now >= o.start && now < o.end {
			if o.fraction >= 1 || p.rngOut.Float64() < o.fraction {
				return o.reason
			}
		}
	}
	return -1
}

// cacheSplit decides how a request's prompt meets the cache: tokens read,
// tokens written. It does not change the cache; commitCache does.
func (p *provider) cacheSplit(wl, prefix, sharedPrefix, input int, now float64) (read, write int) {
	if !p.cacheOn || sharedPrefix < p.cacheMin || sharedPrefix <= 0 {
		return 0, 0
	}
	n := sharedPrefix
	if n > input {
		n = input
	}
	c := p.cache[wl]
	if prefix < len(c) && now-c[prefix] <= p.cacheTTL {
		return n, 0
	}
	return 0, n
}

func (p *provider) commitCache(wl, prefix, read, write int, now float64) {
	if read == 0 && write == 0 {
		return
	}
	c := p.cache[wl]
	if write > 0 || p.refresh {
		c[prefix] = now
	}
}

// retryAfterHeader rounds a computed wait the way the provider reports it.
func (p *provider) retryAfterHeader(wait float64) float64 {
	switch p.spec.Limits.RetryAfter {
	case "none":
		return 0
	case "ms":
		return math.Ceil(wait*1000) / 1000
	}
	if wait <= 0 {
		return 0
	}
	return math.Max(1, math.Ceil(wait-1e-9))
}

// price returns the USD cost of a completed request's tokens.
func (p *provider) price(uncached, write, read, out int, batch bool) (in, cw, cr, o float64) {
	pr := &p.spec.Price
	wp := pr.CacheWrite
	if p.cacheTTL > 300 && pr.CacheWrite1h > 0 {
		wp = pr.CacheWrite1h
	}
	m := 1e-6
	if batch {
		m *= 1 - pr.BatchDiscount
	}
	return float64(uncached) * pr.Input * m, float64(write) * wp * m, float64(read) * pr.CacheRead * m, float64(out) * pr.Output * m
}
