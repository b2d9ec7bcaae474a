package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/headroom-sim/headroom/sim"
	"github.com/headroom-sim/headroom/workloads"
)

// Event kinds.
const (
	evArrival  uint16 = iota // Obj = workload
	evSend                   // Obj = request: leaves the pacer, goes to the backend
	evRetry                  // Obj = request: backoff over, re-enters the pacer
	evDone                   // Obj = request: service finished
	evFail                   // Obj = request: error response delivered, client decides
	evTick                   // Obj = interval that just ended
	evStep                   // Obj = replica (Sim.reps): an engine iteration ended
	evCluster                // Obj = cluster; Gen = what happened (cluster_schedule.go)
	evCacheHit               // Obj = request: answered from the gateway's response cache
	evGateway                // Gen = the gateway's shed timer generation
	evLease                  // Obj = gateway lease: a crashed stream's lease expired
	evTimeout                // Obj = request: its attempt's timeout, if still outstanding
	evTransfer               // Obj = request: its KV transfer to a decode pool ended (cluster_disagg.go)
)

// Request states.
const (
	stFree uint8 = iota
	stClientQueue
	stPacing
	stBackoff
	stBackendQueue
	stService
	stGwQueue  // waiting in the gateway's fair queue
	stGwCached // being answered from the gateway's response cache: at no backend
)

// request is one logical request from arrival to its end. Slots are reused.
//
// Its fields fill exactly 128 bytes, two cache lines (the records' array is
// allocated in size classes that are multiples of 64 bytes, so each record
// starts a line): the first holds what every request's way reads from
// arrival to completion (identity, tokens, flags, and the arrival,
// admission and first-token times its latencies are computed from), so
// that a request that has waited in a backend for seconds brings one line
// back into the cache when it completes, not two or three; the second holds
// what only retries, timeouts, prompt caches, gateways and live requests
// read. TestRequestRecordIsTwoLines holds the size.
type request struct {
	// The first line.
	arrival  float64
	admitted float64
	ttftSvc  float64
	gen      uint32
	wl       int32
	input    int32
	output   int32
	attempts int32
	content  int32 // which of the workload's distinct requests (response cache)
	maxTok   int32
	prefix   int32
	state    uint8
	batch    bool
	tgt      int8  // the target of the current attempt (workload.targets)
	gw       uint8 // gateway flags (gateway.go)
	out      bool  // an attempt is outstanding (sent, no answer yet)
	orphan   bool  // abandoned by its client; the backend still holds it
	lastRsn  int16
	// The second line.
	read      int32
	write     int32
	ask       int32 // the client's own max_tokens (live requests; 0: the workload's)
	share     int32 // its shared prefix in tokens (live requests; see sharedPrefix)
	deadline  float64
	gwRes     float64
	gwAt      float64 // admitted by the gateway
	gwQueued  float64 // entered the gateway's fair queue
	prevDelay float64
	retryAft  float64
}

// reqLimits is what a request was charged under each scope, kept apart
// from request so that requests to unlimited backends never touch it.
type reqLimits struct {
	orgCharge charge
	keyCharge charge
	orgTix    [numDims]uint64
	keyTix    [numDims]uint64
}

// workload is a workload's run-time state, including its client.
type workload struct {
	spec    *WorkloadSpec
	idx     int
	targets []target  // the backend, or a route's backends
	route   *route    // nil when the workload names one backend
	gwT     *gwTenant // its tenant at the gateway, or nil
	gwK     int       // its key in gwT.keys, or -1
	rngRep  *rand.Rand
	timeout float64
	zipf    *rand.Zipf
	// fixedTok is set when every request has the same tokens (fixed
	// distributions, one prefix): they are drawn once.
	fixedTok      bool
	fixIn, fixOut int
	batch         bool
	arrivals      *workloads.Arrivals
	lane          sim.Lane // the engine lane of its arrivals, if onLane
	onLane        bool
	// direct is set when its requests go from the client straight into
	// service (startDirect, hosted.go): one direct target, and nothing on
	// the way (no pacer, timeout, gateway, route or live driver).
	direct    bool
	trace     *traceSource // trace replay (trace_source.go), or nil
	closed    bool
	users     *userPool // closed loop: its thinking users (users.go)
	job       bool
	rngTok    *rand.Rand
	tok       workloads.TokenSampler // the spec's tokens, parameters derived once
	tokAhead  tokenDraws             // the next requests' tokens, drawn (token_draws.go)
	rngThink  *rand.Rand
	rngClient *rand.Rand
	retry     retryPolicy
	maxTok    int
	semCap    int
	semUsed   int
	waiting   arrivalQueue // arrivals waiting for a client slot
	paceReq   *tokenBucket
	paceTok   *tokenBucket
	slo       [3]float64
	stats     *groupStats
	win       *windowStats // per-window figures (Config.Window), or nil

	// cacheGroup is the workload whose prompt-cache and prefix-cache
	// entries this one shares (itself, or the first of its prefix_group).
	cacheGroup int32
}

// Sim is one scenario wired for one run.
type Sim struct {
	cfg    Config
	eng    sim.Engine
	wls    []*workload
	provs  []*provider
	clus   []*cluster
	routes []*route
	gw     *gateway   // nil without a gateway
	reps   []*replica // every cluster's replicas, indexed by evStep's Obj
	reqs   []request
	lims   []reqLimits
	seqs   []seqState
	keys   [][]uint64 // prefix keys of trace requests, by request (trace_source.go)
	fatal  error      // a trace error that ended the run
	// refStepping makes clusters step every sequence one by one (the
	// reference the fast stepping is tested against).
	refStepping bool
	// refUsers gives every thinking closed-loop user an event of its own
	// (the reference the pool of users.go is tested against).
	refUsers bool
	// noSpans makes clusters schedule one event per iteration even when
	// a run of iterations could be one span (for the equivalence tests).
	noSpans bool
	// noDirect sends every attempt the general way, through the client's
	// pacer, the gateway and the router, even for direct workloads (for
	// the equivalence tests).
	noDirect bool
	// noTwin keeps the TTFT and queue-wait sketches of a run's only
	// workload apart from the series' (markTwins; for the equivalence
	// tests).
	noTwin bool
	// noPlain admits to plain clusters the general way (admitWaiting),
	// not through admitPlain (for the equivalence tests).
	noPlain bool
	free    []int32
	nInt    int
	lanes   int    // engine lanes given to arrival streams
	ivs     ivSpan // the times of the latest interval looked up (interval.go)
	routed  int64  // attempts that passed the gateway to the router
	live    int64
	ser     *seriesStats
	ran     bool
	driver  *liveState // set when the simulation is driven live (live.go)
	// needLims and needSeqs say whether request slots need their limit
	// charges (a provider has limits) and engine state (a cluster exists).
	needLims, needSeqs bool
	// maxLive bounds the request records in use at once; past it the run
	// stops with a TooManyInFlight.
	maxLive int64
	tooMany *TooManyInFlight
	stopRun context.CancelFunc
}

// DefaultMaxInFlight bounds the requests one simulation holds at once
// (issued and not ended: in service, in a backend queue, backing off or
// pacing; those waiting for a client slot cost almost nothing and do not
// count). A request's record is at most about 400 bytes, so the bound
// holds a simulation's requests to about 4 GB.
const DefaultMaxInFlight = 10_000_000

// TooManyInFlight is the error of a run stopped because more requests
// were in flight at once than its bound allows: the backends fall so far
// behind the demand that the backlog outgrows the memory set aside.
type TooManyInFlight struct {
	Limit int64   // the bound
	At    float64 // simulated time it was passed, seconds
}

func (e *TooManyInFlight) Error() string {
	return fmt.Sprintf("more than %d requests in flight at once at t = %.0fs", e.Limit, e.At)
}

// SetMaxInFlight sets the bound on requests in flight at once (0: the
// default, DefaultMaxInFlight; negative: no bound). Call it before Run.
func (s *Sim) SetMaxInFlight(n int64) {
	switch {
	case n == 0:
		s.maxLive = DefaultMaxInFlight
	case n < 0:
		s.maxLive = math.MaxInt64
	default:
		s.maxLive = n
	}
}

// Build wires a configuration into a simulation. A configuration that
// ApplyDefaults and Validate have checked (as scenarios builds them) is
// used as it is; any other is copied, given its defaults and validated
// first.
func Build(cfg Config) (*Sim, error) {
	cfg.Workloads = append([]WorkloadSpec(nil), cfg.Workloads...)
	cfg.Providers = append([]ProviderSpec(nil), cfg.Providers...)
	cfg.Clusters = append([]ClusterSpec(nil), cfg.Clusters...)
	cfg.Routes = append([]RouteSpec(nil), cfg.Routes...)
	if cfg.Gateway != nil {
		g := CloneGateway(*cfg.Gateway)
		cfg.Gateway = &g
	}
	if !cfg.checked {
		cfg.ApplyDefaults()
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
	}
	if err := checkWindow(cfg.Window, cfg.Duration); err != nil {
		return nil, err
	}
	s := &Sim{cfg: cfg, nInt: cfg.intervals(), maxLive: DefaultMaxInFlight}
	s.needSeqs = len(cfg.Clusters) > 0
	s.ser = newSeriesStats(s.nInt)
	byName := map[string]*provider{}
	for i := range s.cfg.Providers {
		p := newProvider(&s.cfg.Providers[i], i, &s.cfg, len(cfg.Workloads))
		s.needLims = s.needLims || !p.org.empty || len(p.keys) > 0
		s.provs = append(s.provs, p)
		byName[p.spec.Name] = p
	}
	clByName := map[string]*cluster{}
	for i := range s.cfg.Clusters {
		c, err := buildCluster(&s.cfg.Clusters[i], i, s.nInt)
		if err != nil {
			return nil, workloads.Prefix("cluster["+strconv.Itoa(i)+"]", err)
		}
		if err := s.initFleet(c); err != nil {
			return nil, workloads.Prefix("cluster["+strconv.Itoa(i)+"]", err)
		}
		c.replicaBase = len(s.reps)
		s.reps = append(s.reps, c.replicas...)
		c.stats = &backendStats{name: c.spec.Name}
		s.clus = append(s.clus, c)
		clByName[c.spec.Name] = c
	}
	if err := s.addPools(); err != nil {
		return nil, err
	}
	rtByName := map[string]*route{}
	for i := range s.cfg.Routes {
		rt := newRoute(&s.cfg.Routes[i], i, &s.cfg)
		s.routes = append(s.routes, rt)
		rtByName[rt.spec.Name] = rt
	}
	if s.cfg.Gateway.Enabled() {
		s.gw = newGateway(s.cfg.Gateway, &s.cfg)
	}
	for i := range s.cfg.Workloads {
		spec := &s.cfg.Workloads[i]
		w := &workload{spec: spec, idx: i, batch: spec.Lane == LaneBatch, gwK: -1}
		if s.gw != nil {
			ti, ts := s.cfg.Gateway.tenant(spec.Tenant)
			w.gwT = s.gw.tenants[ti]
			for k := range ts.Keys {
				if ts.Keys[k].Name == spec.GatewayKey {
					w.gwK = k
				}
			}
		}
		if rp := spec.Repeats; rp.Distinct > 0 {
			w.rngRep = cfg.stream("workload/" + spec.Name + "/repeats")
			if rp.Zipf > 1 {
				w.zipf = rand.NewZipf(w.rngRep, rp.Zipf, 1, uint64(rp.Distinct-1))
			}
		}
		names := []string{spec.Route}
		if rt := rtByName[spec.Route]; rt != nil {
			w.route, names = rt, rt.names
		}
		for _, full := range names {
			n, keyName := splitTarget(full)
			if keyName == "" {
				keyName = spec.Key
			}
			t := target{name: full, prov: byName[n], clus: clByName[n], key: -1, maxTok: spec.Tokens.MaxTokens}
			if t.clus != nil {
				t.bstats, t.errTime = t.clus.stats, defaultErrorLatency
				if t.maxTok <= 0 {
					t.maxTok = 4096
				}
			} else {
				t.bstats, t.errTime = t.prov.stats, t.prov.errTime
				if t.maxTok <= 0 {
					t.maxTok = t.prov.spec.MaxOutput
				}
				if len(t.prov.keys) > 0 {
					t.key = 0
					for k, ks := range t.prov.spec.Keys {
						if ks.Name == keyName {
							t.key = k
						}
					}
				}
			}
			w.targets = append(w.targets, t)
		}
		base := "workload/" + spec.Name
		w.rngTok = cfg.stream(base + "/tokens")
		w.tok = w.spec.Tokens.Sampler()
		w.rngThink = cfg.stream(base + "/think")
		w.rngClient = cfg.stream(base + "/client")
		w.closed = spec.Demand.Closed()
		if w.closed {
			w.users = newUserPool(&spec.Demand)
		}
		w.job = spec.Demand.IsJob()
		if spec.Demand.IsTrace() {
			if err := s.buildTrace(w); err != nil {
				return nil, workloads.Prefix("workload["+strconv.Itoa(i)+"]", err)
			}
		} else if !w.closed && !w.job {
			curve, err := spec.Demand.BuildCurve(cfg.StartClock)
			if err != nil {
				return nil, workloads.Prefix("workload["+strconv.Itoa(i)+"].demand", err)
			}
			w.arrivals = workloads.NewArrivals(curve, spec.Demand.Arrivals, cfg.stream(base+"/arrivals"))
			if w.onLane = s.lanes < maxArrivalLanes; w.onLane {
				w.lane = s.eng.NewLane()
				s.lanes++
			}
		}
		if tk := spec.Tokens; tk.Input.Kind == workloads.KindFixed && tk.Output.Kind == workloads.KindFixed && tk.Prefixes <= 1 {
			w.fixedTok = true
			w.fixIn, w.fixOut, _ = tk.Sample(nil)
		}
		w.retry = compileRetry(spec.Client.Retry)
		w.maxTok = w.targets[0].maxTok
		for _, t := range w.targets {
			w.maxTok = max(w.maxTok, t.maxTok)
		}
		if s.gw != nil && s.cfg.Gateway.MaxOutput > 0 {
			// The gateway rewrites max_tokens down to the model's largest output.
			w.maxTok = min(w.maxTok, s.cfg.Gateway.MaxOutput)
			for k := range w.targets {
				w.targets[k].maxTok = min(w.targets[k].maxTok, s.cfg.Gateway.MaxOutput)
			}
		}
		w.semCap = spec.Client.MaxConcurrency
		w.timeout = float64(spec.Client.Timeout)
		if pc := spec.Client.Pace; pc.RequestsPerMin > 0 {
			w.paceReq = newTokenBucket(pc.RequestsPerMin/60, pc.Burst)
		}
		if pc := spec.Client.Pace; pc.TokensPerMin > 0 {
			w.paceTok = newTokenBucket(pc.TokensPerMin/60, math.Max(pc.TokenBurst, 1))
		}
		w.slo = [3]float64{float64(spec.SLO.TTFT), float64(spec.SLO.TPOT), float64(spec.SLO.E2E)}
		w.stats = newGroupStats()
		w.stats.sloSet = w.slo != [3]float64{}
		w.win = newWindowStats(s.cfg.Window, s.cfg.Duration)
		s.setCacheGroup(w)
		s.wls = append(s.wls, w)
	}
	return s, nil
}

// Run simulates to the horizon and returns the results. If ctx is cancelled
// first it returns the partial results, marked interrupted, and
// sim.ErrInterrupted. A Sim runs once.
func (s *Sim) Run(ctx context.Context) (*Results, error) {
	if s.ran {
		return nil, errors.New("model: a Sim runs only once; Build another")
	}
	s.ran = true
	ctx, cancel := s.guard(ctx)
	defer cancel()
	s.start()
	return s.finishRun(s.endTraces(s.eng.Run(ctx, s.cfg.Duration, s)))
}

// guard derives the context a run looks at, which the model cancels itself
// when too many requests are in flight.
func (s *Sim) guard(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, s.stopRun = context.WithCancel(ctx)
	return ctx, s.stopRun
}

// finishRun returns the results of a run that ended with err: partial and
// marked interrupted when it did not reach the horizon, with a
// *TooManyInFlight when that is why.
func (s *Sim) finishRun(err error) (*Results, error) {
	if s.fatal != nil {
		return nil, err
	}
	if s.tooMany != nil {
		return s.results(true), s.tooMany
	}
	return s.results(err != nil), err
}

func (s *Sim) start() {
	s.markDirect()
	s.markTwins()
	for _, w := range s.wls {
		if !s.startArrivals(w) {
			return // the run stops with the error
		}
	}
	for _, c := range s.clus {
		s.startCluster(c)
	}
	// Interval ticks are scheduled one at a time, so they add one pending
	// event rather than one per interval to the heap.
	s.scheduleTick(0)
}

// scheduleTick schedules the end of interval i, if there is one.
func (s *Sim) scheduleTick(i int) {
	if i < s.nInt {
		s.eng.Schedule(math.Min(float64(i+1)*s.cfg.Interval, s.cfg.Duration), evTick, int32(i), 0)
	}
}

// Handle dispatches one event (sim.Handler). A cluster's iteration ends
// (two events in three there) are tested first; every other kind has its
// case, so that the switch is a jump table: a host's arrivals and
// completions reach theirs in the same few instructions, where a search
// tested them one after another. A request's event is live only if the
// request is still the one that scheduled it (its gen).
func (s *Sim) Handle(e sim.Event) {
	if e.Kind == evStep {
		rep := s.reps[e.Obj]
		if rep.gen == e.Gen {
			if rep.span.on {
				s.endSpan(rep.cl, rep)
			} else {
				s.endStep(rep.cl, rep)
			}
		}
		return
	}
	switch e.Kind {
	case evArrival:
		s.arrive(s.wls[e.Obj], e.Gen)
	case evSend:
		if s.current(e) {
			s.ser.queue.Add(s.eng.Now(), -1)
			s.send(e.Obj)
		}
	case evRetry:
		if s.current(e) {
			s.ser.queue.Add(s.eng.Now(), -1)
			s.attempt(e.Obj)
		}
	case evDone:
		if s.current(e) {
			s.done(e.Obj)
		}
	case evFail:
		if s.current(e) {
			s.refusalDelivered(e.Obj)
		}
	case evTick:
		s.ser.tick(int(e.Obj), s.eng.Now())
		for _, c := range s.clus {
			s.tickCluster(c, int(e.Obj), s.eng.Now())
		}
		s.scheduleTick(int(e.Obj) + 1)
	case evCluster:
		s.clusterEvent(s.clus[e.Obj], e.Gen)
	case evCacheHit:
		if s.current(e) {
			s.complete(e.Obj, &tokenTally{})
		}
	case evGateway:
		s.gwShed(e.Gen)
	case evLease:
		s.gwLeaseExpired(e.Obj)
	case evTimeout:
		if r := &s.reqs[e.Obj]; s.current(e) && r.out && r.deadline == s.eng.Now() {
			s.timeout(e.Obj)
		}
	case evTransfer:
		if s.current(e) {
			s.transferDone(e.Obj)
		}
	}
}

// current reports whether a request's event e is the one its request
// scheduled last: the record is still that request (its gen).
func (s *Sim) current(e sim.Event) bool { return s.reqs[e.Obj].gen == e.Gen }

func (s *Sim) alloc() int32 {
	if n := len(s.free); n > 0 {
		id := s.free[n-1]
		s.free = s.free[:n-1]
		return id
	}
	if int64(len(s.reqs)) >= s.maxLive && s.tooMany == nil {
		// Every slot is in use: this many requests are in flight at once.
		s.tooMany = &TooManyInFlight{Limit: s.maxLive, At: s.eng.Now()}
		if s.stopRun != nil {
			s.stopRun()
		}
	}
	s.reqs = append(s.reqs, request{})
	if s.needLims {
		s.lims = append(s.lims, reqLimits{})
	}
	if s.needSeqs {
		s.seqs = append(s.seqs, seqState{})
	}
	return int32(len(s.reqs) - 1)
}
