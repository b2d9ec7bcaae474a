package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/headroom-sim/headroom/model"
)

// Options tune a Server.
type Options struct {
	// Speed runs the simulated clock this many times faster than the wall
	// clock (latencies, refills, windows and outages alike). Default 1.
	Speed float64
	// MaxBody is the largest request body accepted, in bytes (default 8 MiB).
	MaxBody int64
	// WriteTimeout is how long one write to a client may block before the
	// client is taken as gone (default 30 s).
	WriteTimeout time.Duration
	// ReadTimeout bounds reading a request body (default 30 s).
	ReadTimeout time.Duration
	// Log receives one JSON line per request, when set.
	Log io.Writer
}

func (o *Options) defaults() error {
	if o.Speed == 0 {
		o.Speed = 1
	}
	if !(o.Speed > 0) || math.IsInf(o.Speed, 0) || o.Speed > 1e6 {
		return fmt.Errorf("speed must be a number > 0 and at most 1000000, got %v", o.Speed)
	}
	if o.MaxBody == 0 {
		o.MaxBody = 8 << 20
	}
	if o.MaxBody < 1 {
		return fmt.Errorf("the body limit must be > 0 bytes, got %d", o.MaxBody)
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = 30 * time.Second
	}
	if o.ReadTimeout == 0 {
		o.ReadTimeout = 30 * time.Second
	}
	return nil
}

// Server is a scenario served live. Build it with New, then Start it (or
// Serve it on a listener).
type Server struct {
	opts    Options
	live    *model.Live
	eps     []model.LiveEndpoint
	byName  map[string]int
	byModel map[string][]int
	d       *driver
	m       *metrics
	log     *slog.Logger
	tag     atomic.Uint64
	mux     *http.ServeMux
	once    sync.Once
	started atomic.Bool
	seed    uint64
	batches *batchStore
}

// New builds a live server for a scenario configuration.
func New(cfg model.Config, o Options) (*Server, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	s := &Server{opts: o, byName: map[string]int{}, byModel: map[string][]int{}, seed: cfg.Seed, batches: newBatchStore()}
	d := &driver{cmds: make(chan command, 4096), streams: map[uint64]*stream{}, tickets: map[uint64]model.Ticket{},
		quit: make(chan struct{}), stopped: make(chan struct{}), horizon: make(chan struct{})}
	live, err := model.NewLive(cfg, d)
	if err != nil {
		return nil, err
	}
	d.live = live
	s.live, s.d, s.eps = live, d, live.Endpoints()
	for i, ep := range s.eps {
		s.byName[ep.Name] = i
		if ep.Model != "" && ep.Model != ep.Name {
			s.byModel[ep.Model] = append(s.byModel[ep.Model], i)
		}
	}
	s.m = newMetrics(s.snapshot)
	if o.Log != nil {
		s.log = slog.New(slog.NewJSONHandler(&lockedWriter{w: o.Log}, nil))
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("/", s.handle)
	s.mux.HandleFunc("GET /v1/models", s.models)
	s.mux.HandleFunc("GET /{endpoint}/v1/models", s.models)
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(s.m.reg, promhttp.HandlerOpts{}))
	s.routeBatches()
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	return s, nil
}

// lockedWriter serialises the request log's lines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Endpoint is one served endpoint, for the listing the command prints.
type Endpoint struct {
	Name, Kind, Model string
	Keys              []string
}

// Endpoints lists what the server answers.
func (s *Server) Endpoints() []Endpoint {
	var out []Endpoint
	for _, e := range s.eps {
		out = append(out, Endpoint{Name: e.Name, Kind: e.Kind, Model: e.Model, Keys: e.Keys})
	}
	return out
}

// Horizon is the scenario's duration in simulated seconds.
func (s *Server) Horizon() float64 { return s.live.Horizon() }

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.mux }

// Start starts the simulated clock: t = 0 is now.
func (s *Server) Start() {
	s.once.Do(func() {
		s.d.clock = Clock{Start: time.Now(), Speed: s.opts.Speed}
		s.started.Store(true)
		go s.d.run()
	})
}

// Clock is the server's clock (zero before Start).
func (s *Server) Clock() Clock { return s.d.clock }

// Ended is closed when the simulation reaches the scenario's horizon.
func (s *Server) Ended() <-chan struct{} { return s.d.horizon }

// Stop ends the simulation: streams still open are cut with an error
// event, and the results are assembled as `run` assembles them.
func (s *Server) Stop() *model.Results {
	s.Start()
	select {
	case <-s.d.stopped:
	default:
		select {
		case <-s.d.quit:
		default:
			close(s.d.quit)
		}
		<-s.d.stopped
	}
	return s.d.results
}

// Serve answers on ln until ctx is done or the scenario's horizon is
// reached, then shuts down gracefully: no new connections, in-flight
// streams get up to grace (wall time) to finish, and those still open are
// cut with an error event. It returns the results and the server's error,
// if it failed.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) (*model.Results, error) {
	s.Start()
	hs := &http.Server{Handler: s.mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second,
		ErrorLog: nil, BaseContext: func(net.Listener) context.Context { return context.Background() }}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	var serveErr error
	select {
	case <-ctx.Done():
	case <-s.Ended():
	case serveErr = <-errc:
	}
	gctx, cancel := context.WithTimeout(context.Background(), grace)
	err := hs.Shutdown(gctx)
	cancel()
	res := s.Stop() // cuts what is still streaming
	if err != nil {
		// Give the cut streams a moment to write their error events.
		c2, cancel2 := context.WithTimeout(context.Background(), 2*time.Second)
		if hs.Shutdown(c2) != nil {
			hs.Close()
		}
		cancel2()
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return res, serveErr
	}
	return res, nil
}

// snapshot asks the driver for the simulation's state (nil once stopped).
func (s *Server) snapshot() *model.LiveSnapshot {
	if !s.started.Load() {
		return nil
	}
	reply := make(chan *model.LiveSnapshot, 1)
	select {
	case s.d.cmds <- command{snap: reply}:
	case <-s.d.stopped:
		return nil
	}
	select {
	case snap := <-reply:
		return snap
	case <-s.d.stopped:
		return nil
	}
}

// endpoint finds the endpoint a request names: by path prefix, else by
// its model field (an endpoint's name, or a provider's model if only one
// provider serves it).
func (s *Server) endpoint(pathName, modelName string) (int, *apiError) {
	if pathName != "" {
		if i, ok := s.byName[pathName]; ok {
			return i, nil
		}
		return 0, &apiError{status: 404, kind: "not_found_error", code: "model_not_found",
			msg: fmt.Sprintf("no endpoint %q on this server; it serves: %s", pathName, s.names())}
	}
	if i, ok := s.byName[modelName]; ok {
		return i, nil
	}
	if l := s.byModel[modelName]; len(l) == 1 {
		return l[0], nil
	} else if len(l) > 1 {
		var n []string
		for _, i := range l {
			n = append(n, s.eps[i].Name)
		}
		return 0, badRequest("model", "model %q is served by several endpoints (%s); name one of them as the model, or in the path", modelName, strings.Join(n, ", "))
	}
	return 0, &apiError{status: 404, kind: "not_found_error", code: "model_not_found",
		msg: fmt.Sprintf("The model `%s` does not exist on this server; it serves: %s", modelName, s.names())}
}

func (s *Server) names() string {
	var n []string
	for _, e := range s.eps {
		n = append(n, e.Name)
	}
	return strings.Join(n, ", ")
}

// apiKey is the key a client presents: x-api-key (Anthropic) or a bearer
// token (OpenAI).
func apiKey(r *http.Request) string {
	if k := r.Header.Get("X-Api-Key"); k != "" {
		return k
	}
	a := r.Header.Get("Authorization")
	if len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
		return strings.TrimSpace(a[7:])
	}
	return ""
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	var data []any
	for _, e := range s.eps {
		if r.Header.Get("Anthropic-Version") != "" {
			data = append(data, map[string]any{"type": "model", "id": e.Name, "display_name": e.Name, "created_at": "2025-01-01T00:00:00Z"})
		} else {
			data = append(data, map[string]any{"id": e.Name, "object": "model", "created": 1735689600, "owned_by": "headroom"})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Anthropic-Version") != "" {
		json.NewEncoder(w).Encode(map[string]any{"data": data, "has_more": false})
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

// request is one HTTP request being answered.
type request struct {
	s        *Server
	w        http.ResponseWriter
	r        *http.Request
	api      API
	shape    shape
	id       string
	endpoint string
	key      string
	p        *prompt
	a        answer
	began    bool // the status line and headers are written
	sse      *sse
	status   int
	reason   string
	t0       time.Time // the request's headers were read
	recv     time.Time // its body was read: it has arrived
	priority string    // x-headroom-priority, "" for the endpoint's default
	cached   bool      // answered from the gateway's response cache
	retry    int       // the SDK's x-stainless-retry-count
	at       float64   // the simulated instant the request entered the simulation
	injected bool      // it did (at is set)
	retryAt  float64   // a refusal's Retry-After, in simulated seconds
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	api, pathName, ok := apiOfPath(r.URL.Path)
	q := &request{s: s, w: w, r: r, api: api, t0: time.Now()}
	tag := q.newTag()
	q.shape = shapeOf(api, false)
	if !ok {
		q.fail(&apiError{status: 404, kind: "not_found_error", msg: fmt.Sprintf("no such route %s %s; this server answers POST /v1/chat/completions, /v1/responses and /v1/messages (optionally under /ENDPOINT/), GET /v1/models and /metrics", r.Method, r.URL.Path)})
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		q.fail(&apiError{status: 405, kind: "invalid_request_error", msg: fmt.Sprintf("%s takes POST, not %s", r.URL.Path, r.Method)})
		return
	}
	if !s.started.Load() {
		q.fail(&apiError{status: 503, kind: "api_error", msg: "the server has not started its clock"})
		return
	}
	body, aerr := s.readBody(w, r)
	if aerr != nil {
		q.fail(aerr)
		return
	}
	q.recv = time.Now()
	p, err := decode(api, body)
	if err != nil {
		q.fail(asAPIError(err))
		return
	}
	q.p = p
	q.shape = shapeOf(api, p.includeUsage)
	epi, aerr := s.endpoint(pathName, p.model)
	if aerr != nil {
		q.fail(aerr)
		return
	}
	ep := &s.eps[epi]
	q.endpoint = ep.Name
	s.m.inFlight.WithLabelValues(ep.Name).Inc()
	defer s.m.inFlight.WithLabelValues(ep.Name).Dec()
	q.key = apiKey(r)
	if n, err := strconv.Atoi(r.Header.Get("X-Stainless-Retry-Count")); err == nil && n > 0 {
		q.retry = n
		s.m.retries.WithLabelValues(ep.Name).Inc()
	}
	wl, aerr := s.admit(epi, q.key, p)
	if aerr != nil {
		q.fail(aerr)
		return
	}
	switch h := strings.ToLower(strings.TrimSpace(r.Header.Get("X-Headroom-Priority"))); h {
	case "", model.PriorityInteractive, model.PriorityBatch:
		q.priority = h
	default:
		q.fail(badRequest("", "x-headroom-priority must be %q or %q, got %q", model.PriorityInteractive, model.PriorityBatch, h))
		return
	}
	if aerr := q.plan(ep); aerr != nil {
		q.fail(aerr)
		return
	}
	q.run(wl, tag, ep)
}

// newTag takes the request's tag, the simulation's name for it, and sets
// its id from it.
func (q *request) newTag() uint64 {
	tag := q.s.tag.Add(1)
	q.id = fmt.Sprintf("%016x%08x", q.s.mixTag(tag), tag)
	return tag
}

// mixTag spreads a tag over 64 bits, by the server's seed, for the ids it
// hands out (requests', files' and batches').
func (s *Server) mixTag(tag uint64) uint64 { return s.seed ^ tag*0x9e3779b97f4a7c15 }

// admit checks what a request to endpoint epi must pass before it is
// planned, the same for a request and a batch's: the caller's key must
// be one the endpoint takes, and max_tokens within the endpoint's most
// output. It returns the request's live workload.
func (s *Server) admit(epi int, key string, p *prompt) (int, *apiError) {
	ep := &s.eps[epi]
	wl, err := s.live.Resolve(epi, key)
	if err != nil {
		return 0, &apiError{status: 401, kind: "authentication_error", code: "invalid_api_key", msg: keyRefused(err, key)}
	}
	if p.maxTokens > ep.MaxOutput {
		return 0, badRequest("max_tokens", "max_tokens is too large: %d. %s supports at most %d output tokens", p.maxTokens, ep.Name, ep.MaxOutput)
	}
	return wl, nil
}

func asAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	return badRequest("", "%v", err)
}

// readBody reads the body within the size and time limits.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *apiError) {
	if r.ContentLength > s.opts.MaxBody {
		return nil, &apiError{status: 413, kind: "request_too_large", msg: fmt.Sprintf("the request body is %d bytes; this server takes at most %d", r.ContentLength, s.opts.MaxBody)}
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.opts.ReadTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBody))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return nil, &apiError{status: 413, kind: "request_too_large", msg: fmt.Sprintf("the request body is over %d bytes, the most this server takes", s.opts.MaxBody)}
		}
		return nil, &apiError{status: 400, kind: "invalid_request_error", msg: "could not read the request body: " + err.Error()}
	}
	return body, nil
}

// plan decides the answer: its length (x-headroom-output-tokens, else a
// draw from the endpoint's output distribution seeded by the prompt),
// capped by max_tokens, then cut at a stop sequence.
func (q *request) plan(ep *model.LiveEndpoint) *apiError {
	p := q.p
	limit := ep.MaxOutput
	if p.maxTokens > 0 {
		limit = p.maxTokens
	}
	n := 0
	if h := q.r.Header.Get("X-Headroom-Output-Tokens"); h != "" {
		v, err := strconv.Atoi(h)
		if err != nil || v < 1 || v > maxTokensAsked {
			return badRequest("", "x-headroom-output-tokens must be a whole number from 1 to %d, got %q", maxTokensAsked, h)
		}
		n = v
	} else {
		d := ep.Output
		n = int(math.Round(d.Sample(rand.New(rand.NewPCG(p.seed, hashOf(ep.Name))))))
	}
	n = max(n, 1)
	finish := "stop"
	if n >= limit {
		n, finish = limit, "length"
	}
	text, tokens, stop := cutAtStop(answerText(p.seed, n), p.stops)
	if stop != "" {
		finish = "stop_sequence"
	} else {
		tokens = n
	}
	prefix := map[API]string{APIChat: "chatcmpl-", APIResponses: "resp_", APIMessages: "msg_"}[q.api]
	q.a = answer{id: prefix + q.id, model: p.model, created: time.Now().Unix(), text: text, tokens: tokens, finish: finish,
		stopSeq: stop, instructions: p.instructions, maxTokens: p.maxTokens}
	return nil
}

// run injects the request and answers with what the simulation does.
func (q *request) run(wl int, tag uint64, ep *model.LiveEndpoint) {
	s := q.s
	st := newStream(tag)
	select {
	case s.d.cmds <- command{inject: q.live(wl, tag, ep), at: s.d.clock.Sim(q.recv), st: st}:
	case <-s.d.stopped:
		q.fail(&apiError{status: 503, kind: "api_error", msg: "the server is shutting down"})
		return
	}
	clock := s.d.clock
	var start *model.LiveStart
	sent := 0 // tokens written
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		// Hosted: the next token (all but the last, which comes with the
		// completion) is due at its modelled time.
		if start != nil && q.p.stream && sent < q.a.tokens-1 {
			timer.Reset(time.Until(clock.Wall(tokenTime(start, sent, q.a.tokens))))
		}
		select {
		case e := <-st.ev:
			timer.Stop()
			if !q.injected && e.kind != evCut {
				q.arrived(st.at)
			}
			switch e.kind {
			case evStarted:
				start = &e.start
				if q.p.stream {
					q.begin(start)
					q.flush()
				}
			case evCompleted:
				q.complete(&e.usage, start, &sent)
				return
			case evFailed:
				q.refused(&e.fail)
				return
			case evCut:
				q.fail(&apiError{status: 503, kind: "api_error", msg: e.cut})
				return
			}
		case <-timer.C:
			now := clock.Now()
			for sent < q.a.tokens-1 && tokenTime(start, sent, q.a.tokens) <= now {
				q.shape.delta(q.sse, &q.a, q.a.tokenText(sent))
				sent++
			}
			if q.flush() != nil {
				q.abandon(tag)
				return
			}
		case <-st.wake:
			if !q.p.stream {
				continue
			}
			if !q.began {
				q.begin(nil)
			}
			n := min(int(st.gen.Load()), q.a.tokens-1)
			for ; sent < n; sent++ {
				q.shape.delta(q.sse, &q.a, q.a.tokenText(sent))
			}
			if q.flush() != nil {
				q.abandon(tag)
				return
			}
		case <-q.r.Context().Done():
			q.abandon(tag)
			return
		}
	}
}

// arrived notes the simulated instant the request entered the simulation
// and how long after its arrival that was (0 unless the driver fell
// behind).
func (q *request) arrived(at float64) {
	q.at, q.injected = at, true
	q.s.m.lag.Observe(q.lag().Seconds())
}

// lag is how long after its arrival the request entered the simulation.
func (q *request) lag() time.Duration {
	return max(0, q.s.d.clock.Wall(q.at).Sub(q.recv))
}

// live is the request as the simulation takes it: its tokens, its
// cacheable prefix (for a provider's prompt cache and a cluster's prefix
// cache) and its content (for a gateway's response cache).
func (q *request) live(wl int, tag uint64, ep *model.LiveEndpoint) *model.LiveRequest {
	lr := &model.LiveRequest{Workload: wl, Tag: tag, Input: q.p.input, Output: q.a.tokens, MaxTokens: q.p.maxTokens,
		PrefixTokens: q.p.prefixTokens, Priority: q.priority, Content: q.content(ep)}
	if q.p.prefixHash != 0 {
		lr.Prefix = q.p.prefixHash ^ hashOf(ep.Name)
	}
	return lr
}

// content identifies the whole request for a gateway's response cache:
// the prompt (which also decides the answer), its parameters, the API and
// the endpoint; never 0.
func (q *request) content(ep *model.LiveEndpoint) uint64 {
	return (q.p.seed ^ hashOf(ep.Name, q.api.String(), strconv.Itoa(q.p.maxTokens), strings.Join(q.p.stops, "\x00"))) | 1
}

// tokenTime is when token i of n comes: the first at FirstToken, the last
// at Done, evenly between (the model's constant TPOT of one request).
func tokenTime(st *model.LiveStart, i, n int) float64 {
	if n <= 1 {
		return st.FirstToken
	}
	return st.FirstToken + float64(i)*(st.Done-st.FirstToken)/float64(n-1)
}

func (q *request) abandon(tag uint64) {
	select {
	case q.s.d.cmds <- command{abandon: tag}:
	case <-q.s.d.stopped:
	}
	q.status, q.reason = 499, "client_disconnected"
	q.s.m.record(q.endpoint, q.api, 499)
	q.s.m.refused.WithLabelValues(q.endpoint, "client_disconnected").Inc()
	q.logLine(nil)
}

// headers writes the common response headers.
func (q *request) headers(h http.Header) {
	h.Set("Content-Type", "application/json")
	if q.api == APIMessages {
		h.Set("Request-Id", "req_"+q.id)
	} else {
		h.Set("X-Request-Id", "req_"+q.id)
		h.Set("Openai-Processing-Ms", strconv.FormatInt(time.Since(q.t0).Milliseconds(), 10))
	}
}

// begin writes the status line and headers of a stream, and its opening
// events.
func (q *request) begin(st *model.LiveStart) {
	h := q.w.Header()
	q.headers(h)
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	if st != nil {
		setLimitHeaders(h, q.api, st.Limits.List(), q.s.d.clock, time.Now())
	}
	q.w.WriteHeader(http.StatusOK)
	q.began, q.status = true, 200
	q.sse = &sse{w: q.w, rc: http.NewResponseController(q.w), timeout: q.s.opts.WriteTimeout}
	q.shape.begin(q.sse, &q.a, st, q.p.input)
}

func (q *request) flush() error {
	if q.sse == nil {
		return nil
	}
	return q.sse.flush()
}

// complete answers a completed request.
func (q *request) complete(u *model.LiveUsage, start *model.LiveStart, sent *int) {
	s := q.s
	if u.FromCache && !q.began {
		q.w.Header().Set("X-Headroom-Cache", "hit")
	}
	if q.p.stream {
		if !q.began {
			q.begin(start)
		}
		for ; *sent < q.a.tokens; *sent++ {
			q.shape.delta(q.sse, &q.a, q.a.tokenText(*sent))
		}
		q.shape.end(q.sse, &q.a, u)
		if q.flush() != nil {
			q.status, q.reason = 499, "client_disconnected"
			s.m.record(q.endpoint, q.api, 499)
			q.logLine(u)
			return
		}
	} else {
		h := q.w.Header()
		q.headers(h)
		if start != nil {
			setLimitHeaders(h, q.api, start.Limits.List(), s.d.clock, time.Now())
		}
		q.writeJSON(200, q.shape.body(&q.a, u))
	}
	q.status, q.cached = 200, u.FromCache
	s.m.record(q.endpoint, q.api, 200)
	s.m.completed(q.endpoint, u, time.Since(s.d.clock.Wall(u.At)))
	q.logLine(u)
}

// refused answers a request the simulation refused or failed.
func (q *request) refused(f *model.LiveRefusal) {
	s := q.s
	status := statusOf(f.Reason)
	kind, code := errorKind(q.api, status, f.Reason)
	msg := refusalMessage(f, s.d.clock)
	q.reason, q.retryAt = f.Reason, f.RetryAfter
	s.m.refused.WithLabelValues(q.endpoint, f.Reason).Inc()
	if q.began {
		q.shape.streamError(q.sse, &q.a, kind, code, msg)
		q.flush()
		s.m.record(q.endpoint, q.api, status)
		q.logLine(nil)
		return
	}
	h := q.w.Header()
	q.headers(h)
	setLimitHeaders(h, q.api, f.Limits.List(), s.d.clock, time.Now())
	setRetryAfter(h, f.RetryAfter, s.d.clock)
	if !f.Retryable {
		h.Set("X-Should-Retry", "false")
	}
	q.status = status
	q.writeJSON(status, q.shape.errorBody(status, kind, code, "", msg, "req_"+q.id))
	s.m.record(q.endpoint, q.api, status)
	q.logLine(nil)
}

// fail answers a request the server itself refuses.
func (q *request) fail(e *apiError) {
	s := q.s
	kind := e.kind
	code := e.code
	if q.api != APIMessages {
		switch {
		case e.status == 404:
			kind, code = "invalid_request_error", "model_not_found"
		case e.status == 401:
			kind = "invalid_request_error"
		case e.status >= 500:
			kind = "server_error"
		default:
			kind = "invalid_request_error"
		}
	} else if e.status >= 500 && e.status != 529 {
		kind = "api_error"
	}
	q.reason = "http_" + strconv.Itoa(e.status)
	if q.began {
		q.shape.streamError(q.sse, &q.a, kind, code, e.msg)
		q.flush()
	} else {
		q.headers(q.w.Header())
		if e.status >= 500 {
			q.w.Header().Set("Retry-After", "1")
		}
		q.status = e.status
		q.writeJSON(e.status, q.shape.errorBody(e.status, kind, code, e.param, e.msg, "req_"+q.id))
	}
	s.m.record(q.endpoint, q.api, e.status)
	q.logLine(nil)
}

func (q *request) writeJSON(status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = 500, []byte(`{"error":{"message":"could not encode the response","type":"server_error"}}`)
	}
	rc := http.NewResponseController(q.w)
	_ = rc.SetWriteDeadline(time.Now().Add(q.s.opts.WriteTimeout))
	q.w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	q.w.WriteHeader(status)
	q.w.Write(append(b, '\n'))
	q.began = true
}

// logLine writes the request log's line for this request.
func (q *request) logLine(u *model.LiveUsage) {
	if q.s.log == nil {
		return
	}
	attrs := []slog.Attr{slog.String("id", "req_"+q.id), slog.String("api", q.api.String()), slog.String("path", q.r.URL.Path),
		slog.String("endpoint", q.endpoint), slog.String("key", maskKey(q.key)), slog.String("key_hash", keyHash(q.key)), slog.Int("status", q.status),
		slog.Float64("wall_s", time.Since(q.t0).Seconds())}
	if q.p != nil {
		attrs = append(attrs, slog.Bool("stream", q.p.stream), slog.Int("input_tokens", q.p.input), slog.Int("max_tokens", q.p.maxTokens))
	}
	if q.retry > 0 {
		attrs = append(attrs, slog.Int("client_retry", q.retry))
	}
	if q.injected {
		attrs = append(attrs, slog.Float64("arrived_sim_s", q.at),
			slog.Float64("lag_ms", float64(q.lag().Microseconds())/1000))
	}
	if q.reason != "" {
		attrs = append(attrs, slog.String("reason", q.reason))
	}
	if q.retryAt > 0 {
		attrs = append(attrs, slog.Float64("retry_after_sim_s", q.retryAt))
	}
	if q.priority != "" {
		attrs = append(attrs, slog.String("priority", q.priority))
	}
	if q.cached {
		attrs = append(attrs, slog.Bool("response_cache_hit", true))
	}
	if u != nil {
		attrs = append(attrs, slog.Float64("sim_s", u.At), slog.Int("output_tokens", u.Output), slog.Int("cache_read", u.CacheRead),
			slog.Int("cache_write", u.CacheWrite), slog.Float64("ttft_sim_s", u.TTFT), slog.Float64("e2e_sim_s", u.Duration),
			slog.String("backend", u.Backend), slog.Float64("cost_usd", u.CostUSD))
	}
	q.s.log.LogAttrs(context.Background(), slog.LevelInfo, "request", attrs...)
}
