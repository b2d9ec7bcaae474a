package model

import "math"

// Offered demand at a limit: what the traffic asks of each rate-limit
// dimension, whether or not the limit lets it through. Peak use (units
// admitted) can never show demand far above a limit, since a token bucket
// admits at most (interval + burst)/interval of it; demand can. A request
// counts once, at the first attempt that reaches a hosted backend's
// limits, in the interval it arrived in (so a client queue or pacer that
// delays it does not hide it), and in the units the limit charges: one
// request, its input as the provider counts it, and its real output (not
// the max_tokens reservation, as peak use is net of refunds). Requests the
// gateway refuses before any backend, and retries, do not count.

// offerDemand records request id's demand on provider p's org limits
// (org is the charge already computed for them) and, when the target
// names one, its key's limits. uncached, write and read split its input
// as the cache decided.
func (s *Sim) offerDemand(p *provider, key int, id int32, org *charge, uncached, write, read int) {
	r := &s.reqs[id]
	iv := s.interval(r.arrival)
	if !p.org.empty {
		p.stats.demand(0, iv, org, int(r.output))
	}
	if key >= 0 {
		c := p.keys[key].chargeFor(uncached, write, read, int(r.maxTok))
		p.stats.demand(key+1, iv, &c, int(r.output))
	}
}

// demand adds one request's units to a scope's demand in interval iv.
func (b *backendStats) demand(scope, iv int, c *charge, out int) {
	s := &b.scopes[scope]
	o := float64(out)
	for d := 0; d < numDims; d++ {
		ds := &s.dims[d]
		if s.set.win[d] == nil || iv < 0 || iv >= len(ds.demandPer) {
			continue
		}
		v := c.amount(d)
		switch d {
		case dimOTPM:
			v = o
		case dimTPM, dimTPD:
			v += (o - c.outRes) * c.wOut
		}
		ds.demandPer[iv] += v
	}
}

// peakShare returns the largest per-interval amount in per as a share of
// a per-minute limit (each interval scaled by its width, the last may be
// partial) and the start of that interval; for a per-day limit, the total
// over limit × days simulated (at least one) and 0.
func peakShare(per []float64, limit, interval, duration float64, perDay bool) (share, at float64) {
	if limit <= 0 {
		return 0, 0
	}
	if perDay {
		sum := 0.0
		for _, v := range per {
			sum += v
		}
		return sum / (limit * math.Max(1, duration/86400)), 0
	}
	scale := limit * interval / 60
	for i, v := range per {
		span := interval
		if end := float64(i+1) * interval; end > duration {
			span = duration - float64(i)*interval
		}
		if span <= 0 {
			continue
		}
		if u := v / (scale * span / interval); u > share {
			share, at = u, float64(i)*interval
		}
	}
	return share, at
}
