package model

import "math"

// GatewayResult is what the gateway did: per tenant and key, its fair
// queue, its response cache and any limiter-store outage.
type GatewayResult struct {
	Tenants []GatewayScopeResult `json:"tenants"`
	Keys    []GatewayScopeResult `json:"keys,omitempty"`
	Queue   *GatewayQueueResult  `json:"queue,omitempty"`
	Cache   *GatewayCacheResult  `json:"cache,omitempty"`
	// FailOpenAdmits counts attempts admitted by local caps while the
	// limiter store was down; FailClosedRejects those refused with 503.
	FailOpenAdmits    int64 `json:"fail_open_admits"`
	FailClosedRejects int64 `json:"fail_closed_rejects"`
}

// GatewayScopeResult is one tenant's or key's figures at the gateway
// (what a platform team watches per tenant). Units are weighted tokens.
type GatewayScopeResult struct {
	Name   string `json:"name"`
	Tenant string `json:"tenant,omitempty"` // for a key, its tenant
	// Attempts reached the gateway (cache hits included); Admitted passed
	// its limits.
	Attempts int64 `json:"attempts"`
	Admitted int64 `json:"admitted"`
	// Rejected counts refusals by reason; RejectedShare divides them by
	// attempts.
	Rejected      map[string]int64   `json:"rejected"`
	RejectedShare map[string]float64 `json:"rejected_share"`
	// Units reserved at admission, used (settled against what was served),
	// refunded, lost (crashed streams without leases) and still held at
	// the end (in flight, or in leases not yet expired).
	UnitsReserved    float64 `json:"units_reserved"`
	UnitsUsed        float64 `json:"units_used"`
	UnitsRefunded    float64 `json:"units_refunded"`
	UnitsLost        float64 `json:"units_lost"`
	UnitsOutstanding float64 `json:"units_outstanding"`
	// QuotaUnits is units_per_min × the horizon in minutes (0: no limit);
	// UsedOfQuota is units_used / quota_units.
	QuotaUnits  float64 `json:"quota_units"`
	UsedOfQuota float64 `json:"used_of_quota"`
	// ReservationToActual is what the requests that were served reserved
	// over what they used: far above 1 means max_tokens is set far above
	// the real output.
	ReservationToActual float64 `json:"reservation_to_actual"`
	StreamCapHits       int64   `json:"stream_cap_hits"`
	PeakStreams         int64   `json:"peak_streams"`
	MaxStreams          int     `json:"max_streams"`
	Crashes             int64   `json:"crashes"`
	LeaseRefunded       float64 `json:"lease_refunded_units"`
	// FairQueueUnits is, per priority class, the units the fair queue
	// dispatched for the tenant (only requests that waited in it).
	FairQueueUnits map[string]float64 `json:"fair_queue_units,omitempty"`
	// CostUSD is what the tenant's workloads cost (tokens and GPU share).
	CostUSD float64 `json:"cost_usd"`
}

// GatewayQueueResult is the fair queue's figures.
type GatewayQueueResult struct {
	MaxInFlight int                     `json:"max_in_flight"`
	PeakQueue   int                     `json:"peak_queue"`
	ByPriority  []GatewayPriorityResult `json:"by_priority"`
}

// GatewayPriorityResult is one priority class in the fair queue. Wait
// covers every admitted request of the class (0 for those that passed
// straight through).
type GatewayPriorityResult struct {
	Priority string    `json:"priority"`
	Queued   int64     `json:"queued"`
	Shed     int64     `json:"shed"`
	WaitS    Quantiles `json:"wait_s"`
}

// GatewayCacheResult is the response cache's figures.
type GatewayCacheResult struct {
	TTLS    float64 `json:"ttl_s"`
	Lookups int64   `json:"lookups"`
	Hits    int64   `json:"hits"`
	HitRate float64 `json:"hit_rate"`
}

var classNames = [numClasses]string{PriorityInteractive, PriorityBatch}

// gatewayResult assembles the gateway's results; tenants' costs come from
// the tenant groups already in res.
func (s *Sim) gatewayResult(res *Results, horizon float64) *GatewayResult {
	g := s.gw
	out := &GatewayResult{FailOpenAdmits: g.st.failOpenAdmits, FailClosedRejects: g.st.failClosed}
	cost := map[string]float64{}
	for _, t := range res.Tenants {
		cost[t.Name] = t.Summary.Cost.Total
	}
	for _, t := range g.tenants {
		sr := scopeResult(t.spec.Name, "", &t.gwScope, t.spec.UnitsPerMin, horizon)
		sr.CostUSD = cost[t.spec.Name]
		if g.maxInFlight > 0 {
			sr.FairQueueUnits = map[string]float64{}
			for c := range t.served {
				sr.FairQueueUnits[classNames[c]] = t.served[c]
			}
		}
		out.Tenants = append(out.Tenants, sr)
		for k, ks := range t.keys {
			out.Keys = append(out.Keys, scopeResult(t.spec.Keys[k].Name, t.spec.Name, ks, t.spec.Keys[k].UnitsPerMin, horizon))
		}
	}
	if g.maxInFlight > 0 {
		q := &GatewayQueueResult{MaxInFlight: g.maxInFlight, PeakQueue: g.st.peakQueue}
		for c := 0; c < numClasses; c++ {
			q.ByPriority = append(q.ByPriority, GatewayPriorityResult{Priority: classNames[c], Queued: g.st.queued[c], Shed: g.st.shed[c], WaitS: quantiles(g.st.wait[c])})
		}
		out.Queue = q
	}
	if g.spec.Cache.TTL > 0 {
		c := &GatewayCacheResult{TTLS: float64(g.spec.Cache.TTL), Lookups: g.st.cacheLookups, Hits: g.st.cacheHits}
		if c.Lookups > 0 {
			c.HitRate = float64(c.Hits) / float64(c.Lookups)
		}
		out.Cache = c
	}
	return out
}

func scopeResult(name, tenant string, sc *gwScope, perMin, horizon float64) GatewayScopeResult {
	st := &sc.st
	r := GatewayScopeResult{Name: name, Tenant: tenant, Attempts: st.attempts, Admitted: st.admitted,
		Rejected: map[string]int64{}, RejectedShare: map[string]float64{},
		UnitsReserved: st.reserved, UnitsUsed: st.actual, UnitsRefunded: st.refunded, UnitsLost: st.lost,
		StreamCapHits: st.streamCapHits, PeakStreams: st.peakStreams, MaxStreams: sc.maxStreams,
		Crashes: st.crashes, LeaseRefunded: st.leaseRefunded}
	r.UnitsOutstanding = math.Max(0, st.reserved-st.actual-st.refunded-st.lost)
	for rs := rsGwUnits; rs <= rsGwCrash; rs++ {
		if n := st.rejected[rs]; n > 0 {
			r.Rejected[reasonNames[rs]] = n
			r.RejectedShare[reasonNames[rs]] = float64(n) / float64(st.attempts)
		}
	}
	if perMin > 0 {
		r.QuotaUnits = perMin * horizon / 60
		r.UsedOfQuota = st.actual / r.QuotaUnits
	}
	if st.actual > 0 {
		r.ReservationToActual = st.reservedServed / st.actual
	}
	return r
}
