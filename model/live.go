package model

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/headroom-sim/headroom/workloads"
)

// A Live simulation is the scenario's system with its demand taken away:
// requests come from outside (a server's clients), one at a time, and are
// injected at the simulated time the driver has advanced to. Everything
// behind the client is the simulation itself: the gateway, routes,
// providers' limits, caches, concurrency and outages, clusters' batching.
// The driver advances the clock (to a wall clock, say) and is told what
// happens to each request through a LiveObserver.
//
// Every backend (provider, cluster and route) is an endpoint. Each
// endpoint has one live workload per identity a client can present: a
// provider's API key, or with a gateway a tenant or one of its keys. Live
// workloads are clients that never retry, pace or time out, have no
// concurrency cap: the real client does all that.

// liveNever is when a live workload's placeholder demand would arrive: never
// within a horizon (at most 366 days).
const liveNever = 1e12

// liveSlots is how many distinct shared prefixes a live session keeps
// cache state for; the least recently used one is reused past that. Every
// live workload (endpoint and key) is in one prefix group, so a prefix
// cached through one key or endpoint is found through any other, as a
// provider's organization-wide cache and a replica's prefix cache find it.
const liveSlots = 1024

// liveGroup is the prefix group of every live workload.
const liveGroup = "live\x00"

// maxLiveWorkloads bounds endpoints × identities.
const maxLiveWorkloads = 10_000

// Ticket names one injected request until it ends.
type Ticket struct {
	ID  int32
	Gen uint32
}

// LiveRequest is one request to inject.
type LiveRequest struct {
	// Workload is the live workload, from Live.Resolve.
	Workload int
	// Tag is returned with every event of the request.
	Tag uint64
	// Input is the prompt in tokens (at least 1).
	Input int
	// Output is the answer's length in tokens (at least 1, at most
	// MaxTokens when that is set).
	Output int
	// MaxTokens is the client's max_tokens (0: the endpoint's default).
	MaxTokens int
	// Prefix identifies the cacheable prefix (0: none); PrefixTokens is
	// its length (at most Input).
	Prefix       uint64
	PrefixTokens int
	// Batch sends it to the provider's batch lane (its batch API): no rate
	// limits, a turnaround drawn from the provider's batch model, the batch
	// discount. Only a provider endpoint has one.
	Batch bool
	// Priority is its class, PriorityInteractive or PriorityBatch, in a
	// gateway's fair queue and a cluster with order = "priority"; "" is the
	// endpoint's default (that of the scenario's workload sent to it).
	Priority string
	// Content identifies the whole request (prompt and parameters) for a
	// gateway's response cache: a request the gateway answered within its
	// cache's TTL is answered from the cache (0: never cached).
	Content uint64
}

// LimitLevel is one rate-limit dimension of one scope as it stands.
type LimitLevel struct {
	// Scope is "org", "key:NAME", "tenant:NAME" or "tenant-key:TENANT/KEY".
	Scope string
	// Dim is rpm, itpm, otpm, tpm, rpd, tpd, or units for a gateway bucket.
	Dim string
	// Limit is the configured rate: per minute, per day for rpd and tpd.
	Limit float64
	// Capacity is the most that can be taken at once.
	Capacity float64
	// Remaining is what could be taken now (negative after a
	// deduct-after overshoot).
	Remaining float64
	// Reset is the simulated time, in seconds, until it is full again.
	Reset float64
}

// maxLevels is how many levels a LimitView holds: every dimension of an
// org and a key.
const maxLevels = 2 * numDims

// LimitView is the limits that bear on one request, as a value so that it
// can be passed around without allocating.
type LimitView struct {
	N      int
	Levels [maxLevels]LimitLevel
}

// List returns the levels held.
func (v *LimitView) List() []LimitLevel { return v.Levels[:v.N] }

func (v *LimitView) add(l LimitLevel) {
	if v.N < maxLevels {
		v.Levels[v.N] = l
		v.N++
	}
}

// LiveStart says a request began service at a hosted provider: its first
// token comes at FirstToken, its last at Done (simulated seconds).
type LiveStart struct {
	At, FirstToken, Done  float64
	Backend               string
	CacheRead, CacheWrite int // prompt tokens read from and written to the cache
	Limits                LimitView
}

// LiveUsage is what a completed request used.
type LiveUsage struct {
	At                        float64
	Backend                   string
	Input, Output             int
	CacheRead, CacheWrite     int
	CostUSD                   float64
	QueueWait, TTFT, Duration float64 // simulated seconds, from injection
	// FromCache says the gateway's response cache answered it: no backend
	// saw it and it cost nothing.
	FromCache bool
}

// LiveRefusal says a request was refused or failed.
type LiveRefusal struct {
	At float64
	// Reason is the key used in results (rpm, key_itpm, concurrency,
	// overloaded_529, gw_units, ...).
	Reason string
	// Retryable is false when a retry can never succeed (too large, spend
	// cap, lost).
	Retryable bool
	// RetryAfter is the Retry-After the backend gives, in simulated
	// seconds, rounded as it reports it (0: none).
	RetryAfter float64
	Backend    string
	Limits     LimitView
}

// LiveObserver is told what happens to injected requests. It is called on
// the goroutine that drives the Live, from Inject, Abandon and AdvanceTo.
type LiveObserver interface {
	Started(tag uint64, s *LiveStart)
	Completed(tag uint64, u *LiveUsage)
	Failed(tag uint64, f *LiveRefusal)
}

// LiveEndpoint is one backend as a live endpoint.
type LiveEndpoint struct {
	Name string
	// Kind is provider, cluster or route.
	Kind string
	// Model is the provider's model text ("" for clusters and routes).
	Model string
	// MaxOutput is the largest max_tokens accepted.
	MaxOutput int
	// Output is the answer length distribution for requests that do not
	// say: that of the scenario's first workload sent to it.
	Output workloads.Dist
	// Keys are the API keys it accepts; empty: any.
	Keys []string
}

// liveWL says who a live workload is.
type liveWL struct {
	endpoint int
	key      string // the API key presented
}

// liveReq is the driver's record of one request slot.
type liveReq struct {
	tag  uint64
	gen  uint32
	on   bool
	prio int8 // 0: the workload's priority; else classInteractive+1 or classBatch+1
}

// prefixSlots maps a live workload's prefixes to cache slots.
type prefixSlots struct {
	slot map[uint64]int32
	hash []uint64
	used []uint64 // last use, as a counter
}

// liveState is what Sim needs to drive a live run (Sim.driver).
type liveState struct {
	obs      LiveObserver
	reqs     []liveReq
	clus     []Ticket      // requests sent to a cluster, for token progress
	slots    prefixSlots   // shared by every live workload (one prefix group)
	contents []prefixSlots // per live workload: its distinct requests in the gateway's response cache
	useCount uint64
}

// Live is a simulation driven from outside. It is not safe for concurrent
// use: one goroutine drives it.
type Live struct {
	s         *Sim
	st        *liveState
	endpoints []LiveEndpoint
	wls       []liveWL
	byEP      []map[string]int // endpoint -> API key -> workload
	ended     bool
}

// NewLive builds the live form of a validated scenario.
func NewLive(cfg Config, obs LiveObserver) (*Live, error) {
	if _, err := Build(cfg); err != nil { // the scenario as written must be valid
		return nil, err
	}
	cfg.ApplyDefaults()
	l := &Live{}
	lc := cfg
	lc.Workloads = nil
	type ident struct{ key, tenant, gwKey, apiKey string }
	var gwIdents []ident
	if g := cfg.Gateway; g.Enabled() {
		for _, t := range g.Tenants {
			gwIdents = append(gwIdents, ident{tenant: t.Name, apiKey: t.Name})
			for _, k := range t.Keys {
				gwIdents = append(gwIdents, ident{tenant: t.Name, gwKey: k.Name, apiKey: t.Name + "/" + k.Name})
			}
		}
	}
	provs := map[string]*ProviderSpec{}
	for i := range cfg.Providers {
		provs[cfg.Providers[i].Name] = &cfg.Providers[i]
	}
	// With a gateway's response cache, each live workload can repeat any
	// of liveSlots distinct requests (Inject maps a request's content to
	// one of them).
	var repeats RepeatSpec
	if g := cfg.Gateway; g.Enabled() && g.Cache.TTL > 0 {
		repeats.Distinct = liveSlots
	}
	add := func(ep LiveEndpoint, idents []ident) error {
		e := len(l.endpoints)
		l.byEP = append(l.byEP, map[string]int{})
		for _, id := range idents {
			name := ep.Name
			if id.apiKey != "" {
				name += "/" + id.apiKey
			}
			src := sourceWorkload(cfg.Workloads, ep.Name, cfg.Routes)
			tenant := id.tenant
			if tenant == "" {
				tenant = "default"
			}
			lc.Workloads = append(lc.Workloads, WorkloadSpec{Name: name, Route: ep.Name, Key: id.key, Tenant: tenant, GatewayKey: id.gwKey,
				Demand: workloads.DemandSpec{Count: 1, At: liveNever},
				Tokens: workloads.TokenSpec{Input: workloads.Fixed(1), Output: src.Tokens.Output, SharedPrefix: 1, Prefixes: liveSlots, PrefixGroup: liveGroup},
				Client: ClientSpec{Retry: RetrySpec{Preset: "none"}}, SLO: src.SLO, Priority: src.Priority, Repeats: repeats})
			l.byEP[e][id.apiKey] = len(l.wls)
			l.wls = append(l.wls, liveWL{endpoint: e, key: id.apiKey})
			if id.apiKey != "" {
				ep.Keys = append(ep.Keys, id.apiKey)
			}
			if len(l.wls) > maxLiveWorkloads {
				return &workloads.FieldError{Msg: fmt.Sprintf("the scenario has more than %d endpoint and API key pairs to serve", maxLiveWorkloads)}
			}
		}
		ep.Output = sourceWorkload(cfg.Workloads, ep.Name, cfg.Routes).Tokens.Output
		l.endpoints = append(l.endpoints, ep)
		return nil
	}
	for i := range cfg.Providers {
		p := &cfg.Providers[i]
		idents := gwIdents
		if idents == nil {
			idents = []ident{{}}
			if len(p.Keys) > 0 {
				idents = nil
				for _, k := range p.Keys {
					idents = append(idents, ident{key: k.Name, apiKey: k.Name})
				}
			}
		}
		if err := add(LiveEndpoint{Name: p.Name, Kind: "provider", Model: p.Model, MaxOutput: p.MaxOutput}, idents); err != nil {
			return nil, err
		}
	}
	for i := range cfg.Clusters {
		c := &cfg.Clusters[i]
		if c.maxReplicas() == 0 {
			continue // nothing could serve it
		}
		idents := gwIdents
		if idents == nil {
			idents = []ident{{}}
		}
		if err := add(LiveEndpoint{Name: c.Name, Kind: "cluster", MaxOutput: 4096}, idents); err != nil {
			return nil, err
		}
	}
	for i := range cfg.Routes {
		rt := &cfg.Routes[i]
		idents := gwIdents
		maxOut := 0
		var keyed []*ProviderSpec
		for _, full := range rt.Targets {
			n, k := splitTarget(full)
			if p := provs[n]; p != nil {
				maxOut = max(maxOut, p.MaxOutput)
				if k == "" && len(p.Keys) > 0 {
					keyed = append(keyed, p)
				}
			} else {
				maxOut = max(maxOut, 4096)
			}
		}
		if idents == nil {
			idents = []ident{{}}
			if len(keyed) > 0 {
				idents = nil
				for _, k := range keyed[0].Keys {
					all := true
					for _, p := range keyed[1:] {
						found := false
						for _, pk := range p.Keys {
							found = found || pk.Name == k.Name
						}
						all = all && found
					}
					if all {
						idents = append(idents, ident{key: k.Name, apiKey: k.Name})
					}
				}
				if idents == nil {
					idents = []ident{{}} // no key shared by every target: the first key of each
				}
			}
		}
		if g := cfg.Gateway; g != nil && g.MaxOutput > 0 {
			maxOut = min(maxOut, g.MaxOutput)
		}
		if err := add(LiveEndpoint{Name: rt.Name, Kind: "route", MaxOutput: maxOut}, idents); err != nil {
			return nil, err
		}
	}
	if g := cfg.Gateway; g != nil && g.MaxOutput > 0 {
		for i := range l.endpoints {
			l.endpoints[i].MaxOutput = min(l.endpoints[i].MaxOutput, g.MaxOutput)
		}
	}
	if len(lc.Workloads) == 0 {
		return nil, &workloads.FieldError{Key: "provider", Msg: "nothing to serve: the scenario has no provider, no cluster with replicas and no route"}
	}
	s, err := Build(lc)
	if err != nil {
		return nil, fmt.Errorf("model: the scenario's live form: %w", err)
	}
	st := &liveState{obs: obs, slots: newPrefixSlots(), contents: make([]prefixSlots, len(s.wls))}
	s.driver = st
	// The reference stepping keeps every sequence's token count current,
	// which a live stream reads after each event; its results are those of
	// the fast stepping (the equivalence tests).
	s.refStepping, s.noSpans = true, true
	s.ran = true
	s.start()
	l.s, l.st = s, st
	return l, nil
}

// sourceWorkload is the scenario workload whose output lengths and SLO a
// live endpoint takes: the first sent to it, else the first sent to a
// route through it, else the first of all.
func sourceWorkload(ws []WorkloadSpec, name string, routes []RouteSpec) *WorkloadSpec {
	for i := range ws {
		if ws[i].Route == name {
			return &ws[i]
		}
	}
	for _, rt := range routes {
		for _, t := range rt.Targets {
			if n, _ := splitTarget(t); n == name {
				for i := range ws {
					if ws[i].Route == rt.Name {
						return &ws[i]
					}
				}
			}
		}
	}
	return &ws[0]
}

// Endpoints lists the endpoints: providers, clusters, then routes.
func (l *Live) Endpoints() []LiveEndpoint { return l.endpoints }

// WorkloadName is the name a live workload has in the results.
func (l *Live) WorkloadName(wl int) string { return l.s.wls[wl].spec.Name }

// Resolve finds the live workload for an endpoint and the API key a client
// presented. An endpoint with keys takes only those (an unknown one is an
// error naming them, never the key presented, which may be a secret); one
// without takes any key.
func (l *Live) Resolve(endpoint int, apiKey string) (int, error) {
	if endpoint < 0 || endpoint >= len(l.endpoints) {
		return 0, fmt.Errorf("no endpoint %d", endpoint)
	}
	m := l.byEP[endpoint]
	if wl, ok := m[apiKey]; ok {
		return wl, nil
	}
	ep := &l.endpoints[endpoint]
	if len(ep.Keys) == 0 {
		return m[""], nil
	}
	// A gateway key alone names it when no other tenant has one so named.
	found := -1
	for _, k := range ep.Keys {
		if i := strings.IndexByte(k, '/'); i >= 0 && k[i+1:] == apiKey {
			if found >= 0 {
				return 0, fmt.Errorf("this API key is a key of several tenants; present it as TENANT/KEY")
			}
			found = m[k]
		}
	}
	if found >= 0 {
		return found, nil
	}
	return 0, fmt.Errorf("%s does not take this API key; it takes: %s", ep.Name, strings.Join(ep.Keys, ", "))
}

// Now is the simulated time, in seconds since the scenario's start.
func (l *Live) Now() float64 { return l.s.eng.Now() }

// Horizon is the scenario's duration: a live run ends there.
func (l *Live) Horizon() float64 { return l.s.cfg.Duration }

// NextEvent is when the simulation next has something to do, and false if
// nothing is pending before the horizon.
func (l *Live) NextEvent() (float64, bool) {
	t, ok := l.s.eng.NextAt()
	if !ok || t > l.s.cfg.Duration {
		return 0, false
	}
	return t, true
}

// AdvanceTo handles every event up to t (at most the horizon), telling
// the observer what happened.
func (l *Live) AdvanceTo(t float64) {
	t = math.Min(t, l.s.cfg.Duration)
	if t <= l.s.eng.Now() {
		return
	}
	// The context is never cancelled: a live step is short.
	_ = l.s.eng.Run(context.Background(), t, l.s)
}

// Inject sends a request now. Events may reach the observer before it
// returns (an immediate refusal).
func (l *Live) Inject(q LiveRequest) (Ticket, error) {
	s := l.s
	if q.Workload < 0 || q.Workload >= len(s.wls) {
		return Ticket{}, fmt.Errorf("no live workload %d", q.Workload)
	}
	w := s.wls[q.Workload]
	prio := int8(0)
	switch q.Priority {
	case "":
	case PriorityInteractive:
		prio = classInteractive + 1
	case PriorityBatch:
		prio = classBatch + 1
	default:
		return Ticket{}, fmt.Errorf("priority must be %q or %q, got %q", PriorityInteractive, PriorityBatch, q.Priority)
	}
	switch {
	case q.Batch && (w.route != nil || w.targets[0].prov == nil):
		return Ticket{}, fmt.Errorf("%s has no batch API: only a provider has a batch lane", w.targets[0].name)
	case q.Input < 1 || q.Input > 1<<30:
		return Ticket{}, fmt.Errorf("input must be from 1 to 2^30 tokens, got %d", q.Input)
	case q.Output < 1 || q.Output > 1<<30:
		return Ticket{}, fmt.Errorf("output must be from 1 to 2^30 tokens, got %d", q.Output)
	case q.MaxTokens < 0 || q.MaxTokens > 0 && q.Output > q.MaxTokens:
		return Ticket{}, fmt.Errorf("output %d exceeds max_tokens %d", q.Output, q.MaxTokens)
	case q.PrefixTokens < 0 || q.PrefixTokens > q.Input:
		return Ticket{}, fmt.Errorf("the prefix (%d tokens) must be within the input (%d)", q.PrefixTokens, q.Input)
	case l.ended || s.eng.Now() >= s.cfg.Duration:
		return Ticket{}, fmt.Errorf("the simulation has reached its horizon")
	}
	now := s.eng.Now()
	id := s.alloc()
	for int(id) >= len(l.st.reqs) {
		l.st.reqs = append(l.st.reqs, liveReq{})
	}
	r := &s.reqs[id]
	gen := r.gen + 1
	slot, share := 0, 0
	if q.Prefix != 0 && q.PrefixTokens > 0 {
		if sl, ok := l.slotFor(q.Prefix); ok {
			slot, share = sl, q.PrefixTokens
		}
	}
	*r = request{gen: gen, wl: int32(w.idx), input: int32(q.Input), output: int32(q.Output), prefix: int32(slot),
		ask: int32(q.MaxTokens), share: int32(share), arrival: now, lastRsn: -1}
	r.maxTok = int32(askMax(r, w))
	if r.output > r.maxTok {
		r.output = r.maxTok
	}
	r.batch = q.Batch
	if s.gw != nil && s.gw.cacheExp[w.idx] != nil {
		r.content = -1 // not cacheable
		if q.Content != 0 {
			r.content = int32(l.contentSlot(w.idx, q.Content))
		}
	}
	l.st.reqs[id] = liveReq{tag: q.Tag, gen: gen, on: true, prio: prio}
	if w.targets[0].clus != nil || w.route != nil {
		l.st.clus = append(l.st.clus, Ticket{ID: id, Gen: gen})
	}
	w.stats.offered++
	s.ser.offered[s.interval(now)]++
	s.live++
	s.ser.inFlight.Add(now, 1)
	s.attempt(id)
	return Ticket{ID: id, Gen: gen}, nil
}

// Abandon is the client going away: the request is dropped the way a
// client timeout drops it (the gateway releases its slots and its output
// reservation; a backend queue drops it when reached; a running stream is
// finished, billed and counted abandoned), but failed for its own reason,
// client_disconnected, and never sent on to a route's next target. No
// event follows. It reports whether the request was still outstanding.
func (l *Live) Abandon(t Ticket) bool {
	s := l.s
	if int(t.ID) >= len(s.reqs) || int(t.ID) >= len(l.st.reqs) {
		return false
	}
	r := &s.reqs[t.ID]
	lr := &l.st.reqs[t.ID]
	if r.gen != t.Gen || !lr.on || lr.gen != t.Gen {
		return false
	}
	lr.on = false
	if !r.out {
		return false // its refusal is on its way; it fails unobserved
	}
	s.abandon(t.ID, rsDisconnected)
	return true
}

// Tokens calls f with the tokens generated so far by every live request a
// cluster is serving. Hosted requests are not listed: their times are
// known when they start (LiveStart).
func (l *Live) Tokens(f func(tag uint64, generated int)) {
	s := l.s
	keep := l.st.clus[:0]
	for _, t := range l.st.clus {
		r := &s.reqs[t.ID]
		lr := &l.st.reqs[t.ID]
		if r.gen != t.Gen || !lr.on || lr.gen != t.Gen {
			continue
		}
		keep = append(keep, t)
		if r.state == stService && s.wls[r.wl].targets[r.tgt].clus != nil {
			if g := int(s.seqs[t.ID].generated); g > 0 {
				f(lr.tag, g)
			}
		}
	}
	l.st.clus = keep
}

// Results ends the live run and returns its results: interrupted when it
// ended before the horizon.
func (l *Live) Results() *Results {
	l.ended = true
	s := l.s
	now := s.eng.Now()
	interrupted := now < s.cfg.Duration
	if interrupted {
		// Close the interval the run stopped in, as its end would have:
		// its series and the clusters' batch, KV, utilisation and GPU
		// figures cover the part of it that was served.
		if iv := s.interval(now); now > float64(iv)*s.cfg.Interval {
			s.ser.tick(iv, now)
			for _, c := range s.clus {
				s.tickCluster(c, iv, now)
			}
		}
	}
	return s.results(interrupted)
}

// slotFor maps a prefix to a cache slot of the session, reusing the least
// recently used slot that no running cluster sequence holds.
func (l *Live) slotFor(h uint64) (int, bool) {
	ps := &l.st.slots
	l.st.useCount++
	if sl, ok := ps.slot[h]; ok {
		ps.used[sl] = l.st.useCount
		return int(sl), true
	}
	order := make([]int, liveSlots)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return ps.used[order[a]] < ps.used[order[b]] })
	for _, sl := range order {
		if ps.used[sl] != 0 && !l.releaseSlot(sl) {
			continue
		}
		if ps.used[sl] != 0 {
			delete(ps.slot, ps.hash[sl])
		}
		ps.slot[h] = int32(sl)
		ps.hash[sl] = h
		ps.used[sl] = l.st.useCount
		return sl, true
	}
	return 0, false // every slot is held by a running sequence: no caching
}

// newPrefixSlots is an empty slot table of liveSlots slots.
func newPrefixSlots() prefixSlots {
	return prefixSlots{slot: map[uint64]int32{}, hash: make([]uint64, liveSlots), used: make([]uint64, liveSlots)}
}

// contentSlot maps a request's content to one of its workload's distinct
// requests in the gateway's response cache, reusing the least recently
// used one (whose cached answer is forgotten) past liveSlots.
func (l *Live) contentSlot(wl int, h uint64) int {
	ps := &l.st.contents[wl]
	if ps.slot == nil {
		*ps = newPrefixSlots()
	}
	l.st.useCount++
	if sl, ok := ps.slot[h]; ok {
		ps.used[sl] = l.st.useCount
		return int(sl)
	}
	sl := 0
	for i := range ps.used {
		if ps.used[i] < ps.used[sl] {
			sl = i
		}
	}
	if ps.used[sl] != 0 {
		delete(ps.slot, ps.hash[sl])
		l.s.gw.cacheExp[wl][sl] = math.Inf(-1)
	}
	ps.slot[h], ps.hash[sl], ps.used[sl] = int32(sl), h, l.st.useCount
	return sl
}

// classOf is a request's fair-queue class: the one a live request chose,
// else its workload's.
func (st *liveState) classOf(id int32) (int, bool) {
	if int(id) < len(st.reqs) {
		if p := st.reqs[id].prio; p > 0 {
			return int(p - 1), true
		}
	}
	return 0, false
}

// releaseSlot forgets what providers and clusters cached under a slot; it
// fails if a running cluster sequence holds it.
func (l *Live) releaseSlot(sl int) bool {
	s := l.s
	g := int(s.wls[0].cacheGroup)
	key := int64(g)<<24 | int64(sl)
	for _, c := range s.clus {
		for _, rep := range c.replicas {
			if e := rep.prefixes.get(key); e != nil && e.refs > 0 {
				return false
			}
		}
	}
	for _, c := range s.clus {
		for _, rep := range c.replicas {
			if e := rep.prefixes.get(key); e != nil {
				rep.free += int(e.blocks)
				rep.prefixes.del(key)
			}
		}
	}
	for _, p := range s.provs {
		if c := p.cache[g]; sl < len(c) {
			c[sl] = math.Inf(-1)
		}
	}
	return true
}

// observer callbacks (live_hooks.go)

func (st *liveState) take(s *Sim, id int32) (*liveReq, bool) {
	if int(id) >= len(st.reqs) {
		return nil, false
	}
	lr := &st.reqs[id]
	return lr, lr.on && lr.gen == s.reqs[id].gen && st.obs != nil
}

func (st *liveState) started(s *Sim, id int32, e2e float64) {
	lr, ok := st.take(s, id)
	if !ok {
		return
	}
	r := &s.reqs[id]
	t := s.tgt(r)
	now := s.eng.Now()
	ev := LiveStart{At: now, FirstToken: now + r.ttftSvc, Done: now + e2e, Backend: t.name, CacheRead: int(r.read), CacheWrite: int(r.write)}
	s.providerLevels(t, now, &ev.Limits)
	st.obs.Started(lr.tag, &ev)
}

func (st *liveState) done(s *Sim, id int32, t *tokenTally) {
	lr, ok := st.take(s, id)
	if !ok {
		return
	}
	lr.on = false
	r := &s.reqs[id]
	now := s.eng.Now()
	u := LiveUsage{At: now, Backend: s.tgt(r).name, Input: int(r.input), Output: int(r.output), CacheRead: int(t.read), CacheWrite: int(t.write),
		CostUSD: t.costIn + t.costW + t.costR + t.costOut, QueueWait: r.admitted - r.arrival, TTFT: r.admitted + r.ttftSvc - r.arrival, Duration: now - r.arrival,
		FromCache: t.input == 0} // a served request's tally has its input (at least 1); a cache hit's is empty
	st.obs.Completed(lr.tag, &u)
}

func (st *liveState) failed(s *Sim, id int32, reason int) {
	lr, ok := st.take(s, id)
	if !ok {
		return
	}
	lr.on = false
	r := &s.reqs[id]
	now := s.eng.Now()
	w := s.wls[r.wl]
	f := LiveRefusal{At: now, Reason: reasonNames[reason], Retryable: retryable(reason), RetryAfter: r.retryAft}
	if gatewayReason(reason) {
		f.Backend = "gateway"
		s.gatewayLevels(w, now, &f.Limits)
	} else {
		t := s.tgt(r)
		f.Backend = t.name
		s.providerLevels(t, now, &f.Limits)
	}
	st.obs.Failed(lr.tag, &f)
}
