package serve

import (
	"math"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/headroom-sim/headroom/model"
)

// metrics are the server's Prometheus series: counters kept by the
// handlers, and the simulation's state (bucket levels, occupancy) read
// from the driver at each scrape.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	refused  *prometheus.CounterVec
	inFlight *prometheus.GaugeVec
	tokens   *prometheus.CounterVec
	retries  *prometheus.CounterVec
	overhead prometheus.Histogram
	lag      prometheus.Histogram
	ttft     *prometheus.HistogramVec
}

func newMetrics(snapshot func() *model.LiveSnapshot) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "headroom_requests_total",
		Help: "HTTP requests answered, by endpoint, API and status code."}, []string{"endpoint", "api", "code"})
	m.refused = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "headroom_refusals_total",
		Help: "Requests refused or failed by the simulation, by endpoint and reason (the results' reason keys)."}, []string{"endpoint", "reason"})
	m.inFlight = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "headroom_http_in_flight",
		Help: "HTTP requests being handled, by endpoint."}, []string{"endpoint"})
	m.tokens = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "headroom_tokens_total",
		Help: "Tokens of completed requests, by endpoint and kind (input, output, cache_read, cache_write)."}, []string{"endpoint", "kind"})
	m.retries = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "headroom_client_retries_total",
		Help: "Requests that the official SDKs marked as retries (x-stainless-retry-count > 0), by endpoint."}, []string{"endpoint"})
	m.overhead = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "headroom_overhead_seconds",
		Help:    "Wall time between the modelled end of a request and the server finishing its answer.",
		Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16)})
	m.lag = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "headroom_arrival_lag_seconds",
		Help:    "Wall time between a request's arrival at the server and its entry into the simulation (how late the server took it).",
		Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16)})
	m.ttft = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "headroom_modelled_ttft_seconds",
		Help:    "Modelled time to first token of completed requests, in simulated seconds, by endpoint.",
		Buckets: prometheus.ExponentialBuckets(0.01, 2, 14)}, []string{"endpoint"})
	m.reg.MustRegister(m.requests, m.refused, m.retries, m.inFlight, m.tokens, m.overhead, m.lag, m.ttft, &simCollector{snapshot: snapshot})
	return m
}

// simCollector exports the simulation's state at scrape time.
type simCollector struct {
	snapshot func() *model.LiveSnapshot
}

var (
	bucketLabels    = []string{"backend", "scope", "dimension"}
	descSimTime     = prometheus.NewDesc("headroom_sim_time_seconds", "Simulated time since the scenario's start.", nil, nil)
	descSimInFlight = prometheus.NewDesc("headroom_sim_in_flight", "Requests in the simulation (queued or in service).", nil, nil)
	descRemaining   = prometheus.NewDesc("headroom_limit_remaining", "What a rate limit would admit now, in its units (requests, tokens or gateway units).", bucketLabels, nil)
	descCapacity    = prometheus.NewDesc("headroom_limit_capacity", "The most a rate limit admits at once (its bucket or window size).", bucketLabels, nil)
	descRate        = prometheus.NewDesc("headroom_limit_rate", "A rate limit's configured rate (per minute; per day for rpd and tpd).", bucketLabels, nil)
	descReset       = prometheus.NewDesc("headroom_limit_reset_seconds", "Simulated seconds until a rate limit is full again.", bucketLabels, nil)
	descUsed        = prometheus.NewDesc("headroom_limit_used_total", "Units a rate limit has charged (admissions and their settlement).", bucketLabels, nil)
	descLimRefused  = prometheus.NewDesc("headroom_limit_refused_total", "Attempts a rate limit refused.", bucketLabels, nil)
	descInService   = prometheus.NewDesc("headroom_backend_in_service", "Requests a backend is serving.", []string{"backend"}, nil)
	descQueued      = prometheus.NewDesc("headroom_backend_queued", "Requests waiting at a backend.", []string{"backend"}, nil)
	descAdmitted    = prometheus.NewDesc("headroom_backend_admitted_total", "Attempts a backend admitted.", []string{"backend"}, nil)
	descBRefused    = prometheus.NewDesc("headroom_backend_refused_total", "Attempts a backend refused.", []string{"backend"}, nil)
	descKVUsed      = prometheus.NewDesc("headroom_kv_blocks_used", "A cluster's KV blocks in use.", []string{"backend"}, nil)
	descKVBlocks    = prometheus.NewDesc("headroom_kv_blocks", "A cluster's KV blocks on provisioned replicas.", []string{"backend"}, nil)
)

func (c *simCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descSimTime, descSimInFlight, descRemaining, descCapacity, descRate, descReset, descUsed,
		descLimRefused, descInService, descQueued, descAdmitted, descBRefused, descKVUsed, descKVBlocks} {
		ch <- d
	}
}

func (c *simCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.snapshot()
	if s == nil {
		return
	}
	g := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	k := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	g(descSimTime, s.Now)
	g(descSimInFlight, float64(s.InFlight))
	for _, b := range s.Buckets {
		l := []string{b.Backend, b.Scope, b.Dim}
		g(descRemaining, b.Remaining, l...)
		g(descCapacity, b.Capacity, l...)
		g(descRate, b.Limit, l...)
		g(descReset, b.Reset, l...)
		k(descUsed, b.Used, l...)
		k(descLimRefused, float64(b.Refused), l...)
	}
	for _, b := range s.Backends {
		g(descInService, float64(b.InService), b.Name)
		g(descQueued, float64(b.Queued), b.Name)
		k(descAdmitted, float64(b.Admitted), b.Name)
		k(descBRefused, float64(b.Refused), b.Name)
		if b.KVBlocks > 0 {
			g(descKVUsed, float64(b.KVUsed), b.Name)
			g(descKVBlocks, float64(b.KVBlocks), b.Name)
		}
	}
}

// record counts one finished HTTP request.
func (m *metrics) record(endpoint string, api API, code int) {
	m.requests.WithLabelValues(endpoint, api.String(), strconv.Itoa(code)).Inc()
}

// completed counts a completed request's tokens and how late it was.
func (m *metrics) completed(endpoint string, u *model.LiveUsage, late time.Duration) {
	m.tokens.WithLabelValues(endpoint, "input").Add(float64(u.Input))
	m.tokens.WithLabelValues(endpoint, "output").Add(float64(u.Output))
	m.tokens.WithLabelValues(endpoint, "cache_read").Add(float64(u.CacheRead))
	m.tokens.WithLabelValues(endpoint, "cache_write").Add(float64(u.CacheWrite))
	m.overhead.Observe(max(0, late.Seconds()))
	m.ttft.WithLabelValues(endpoint).Observe(toNanos(u.TTFT))
}

// toNanos rounds simulated seconds to the nanosecond, dropping the float
// error of a difference of times (0.020000000000000018 is 0.02).
func toNanos(s float64) float64 { return math.Round(s*1e9) / 1e9 }
