package model

import (
	"fmt"
	"math"

	"github.com/headroom-sim/headroom/workloads"
)

// Limiter-store outage modes of a gateway.
const (
	FailOpen   = "fail_open"   // enforce conservative local per-node caps
	FailClosed = "fail_closed" // refuse everything with 503
)

// GatewaySpec is the optional gateway between the clients and the router
// (seed 004): per-tenant and per-key buckets in weighted units with
// reserve-and-refund, stream caps, a deficit-round-robin fair queue with
// priority classes and shedding, limiter-store outages and a response
// cache. Workloads pass through it when they name a tenant it defines.
type GatewaySpec struct {
	// Weights turn tokens into units: input, cached input, output.
	Weights GatewayWeights `toml:"weights"`
	// MaxOutput caps a request's max_tokens at the gateway (the model's
	// largest output); 0 = no cap.
	MaxOutput int `toml:"max_output"`
	// LeaseTTL makes reservations leases: a stream whose gateway node
	// crashes is reconciled (refunded down to its actual use) this long
	// after admission. 0 = no leases: a crashed stream's reservation is
	// never refunded.
	LeaseTTL workloads.Duration `toml:"lease_ttl"`
	// CrashRate is the fraction of admitted streams whose gateway node
	// dies before the stream ends: the client gets a 502 and the refund in
	// the node's finally block never runs.
	CrashRate float64 `toml:"crash_rate"`
	// RetryAfterMin is the smallest Retry-After the gateway sends for a
	// 429 (seconds, rounded up like the seed's math.ceil); default 1.
	RetryAfterMin workloads.Duration `toml:"retry_after_min"`
	// ErrorLatency is how long the gateway takes to answer a refusal
	// (default 2 ms).
	ErrorLatency workloads.Duration `toml:"error_latency"`
	Queue        GatewayQueue       `toml:"queue"`
	Cache        GatewayCache       `toml:"cache"`
	Outages      []GatewayOutage    `toml:"outage"`
	Tenants      []TenantSpec       `toml:"tenant"`
}

// GatewayWeights are the unit weights of the token kinds (seed 004:
// 1, 0.25 and 8).
// Each one left out is 1.
type GatewayWeights struct {
	Input       *float64 `toml:"input"`
	CachedInput *float64 `toml:"cached_input"`
	Output      *float64 `toml:"output"`
}

// values returns the weights with defaults applied.
func (w GatewayWeights) values() (in, cached, out float64) {
	v := func(p *float64) float64 {
		if p == nil {
			return 1
		}
		return *p
	}
	return v(w.Input), v(w.CachedInput), v(w.Output)
}

// GatewayQueue is the fair queue between admission and the backends.
type GatewayQueue struct {
	// MaxInFlight is how many requests the gateway lets through to the
	// backends at once (the fleet's slots: 8 replicas × 64 = 512); beyond
	// it requests wait in the fair queue. 0 = no queue: straight through.
	MaxInFlight int `toml:"max_in_flight"`
	// Quantum is the deficit-round-robin quantum in units, per unit of
	// tenant weight (seed 004: 50,000).
	Quantum float64 `toml:"quantum"`
	// ShedAfter sheds a class's requests whose queue wait passes it, with
	// 503 (batch is shed, interactive waits, by default); 0 = never.
	ShedAfter GatewayShed `toml:"shed_after"`
	// ShedRetryAfter is the Retry-After sent with a shed 503 (default 60 s).
	ShedRetryAfter workloads.Duration `toml:"shed_retry_after"`
}

// GatewayShed is a queue-wait target per priority class.
type GatewayShed struct {
	Interactive workloads.Duration `toml:"interactive"`
	Batch       workloads.Duration `toml:"batch"`
}

// GatewayCache is a response cache for repeated requests (seed 002: "cache
// recent results"). Workloads say how often they repeat (tokens.distinct);
// the hit rate follows from the demand, the TTL and the repeats.
type GatewayCache struct {
	TTL     workloads.Duration `toml:"ttl"`     // 0 = no cache
	Latency workloads.Duration `toml:"latency"` // time to answer a hit (default 20 ms)
}

// GatewayOutage is a window during which the limiter's shared store is
// down.
type GatewayOutage struct {
	From string             `toml:"from"` // clock time, "10:00"
	For  workloads.Duration `toml:"for"`
	Mode string             `toml:"mode"` // fail_open (default) | fail_closed
	// LocalFraction is, for fail_open, the share of each tenant's rate and
	// burst that each node's local bucket allows (default 0.5).
	LocalFraction float64 `toml:"local_fraction"`
}

// TenantSpec is one organisation at the gateway.
type TenantSpec struct {
	Name string `toml:"name"`
	// Weight is the tenant's share in the fair queue (default 1).
	Weight      *float64        `toml:"weight"`
	UnitsPerMin float64         `toml:"units_per_min"` // 0 = no unit limit
	Burst       float64         `toml:"burst"`         // bucket size in units (default one minute)
	MaxStreams  int             `toml:"max_streams"`   // concurrent streams; 0 = no cap
	Keys        []TenantKeySpec `toml:"key"`
}

// TenantKeySpec is one API key of a tenant, limited beneath the tenant.
type TenantKeySpec struct {
	Name        string  `toml:"name"`
	UnitsPerMin float64 `toml:"units_per_min"`
	Burst       float64 `toml:"burst"`
	MaxStreams  int     `toml:"max_streams"`
}

// IsZero reports whether nothing of the gateway is set.
func (g *GatewaySpec) IsZero() bool {
	return g.Weights == (GatewayWeights{}) && g.MaxOutput == 0 && g.LeaseTTL == 0 && g.CrashRate == 0 && g.RetryAfterMin == 0 && g.ErrorLatency == 0 &&
		g.Queue == (GatewayQueue{}) && g.Cache == (GatewayCache{}) && len(g.Outages) == 0 && len(g.Tenants) == 0
}

// Enabled reports whether a gateway is configured.
func (g *GatewaySpec) Enabled() bool { return g != nil }

func (g *GatewaySpec) applyDefaults() {
	if g.RetryAfterMin == 0 {
		g.RetryAfterMin = 1
	}
	if g.ErrorLatency == 0 {
		g.ErrorLatency = 0.002
	}
	if g.Queue.Quantum == 0 {
		g.Queue.Quantum = 50_000
	}
	if g.Queue.ShedRetryAfter == 0 {
		g.Queue.ShedRetryAfter = 60
	}
	if g.Cache.Latency == 0 {
		g.Cache.Latency = 0.02
	}
	for i := range g.Outages {
		o := &g.Outages[i]
		if o.Mode == "" {
			o.Mode = FailOpen
		}
		if o.LocalFraction == 0 {
			o.LocalFraction = 0.5
		}
	}
	for i := range g.Tenants {
		t := &g.Tenants[i]
		if t.Weight == nil {
			one := 1.0
			t.Weight = &one
		}
		if t.Burst == 0 {
			t.Burst = t.UnitsPerMin
		}
		for j := range t.Keys {
			k := &t.Keys[j]
			if k.Burst == 0 {
				k.Burst = k.UnitsPerMin
			}
		}
	}
}

// Validate checks the gateway on its own.
func (g *GatewaySpec) Validate() error {
	fe := func(k, f string, a ...any) error { return &workloads.FieldError{Key: k, Msg: fmt.Sprintf(f, a...)} }
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	wi, wc, wo := g.Weights.values()
	for _, f := range []struct {
		k string
		v float64
	}{{"weights.input", wi}, {"weights.cached_input", wc}, {"weights.output", wo}} {
		if f.v < 0 || !finite(f.v) {
			return fe(f.k, "must be a finite number >= 0, got %v", f.v)
		}
	}
	if g.MaxOutput < 0 {
		return fe("max_output", "must be >= 0 (0 = no cap), got %d", g.MaxOutput)
	}
	if g.LeaseTTL < 0 {
		return fe("lease_ttl", "must be >= 0 (0 = no leases)")
	}
	if !(g.CrashRate >= 0 && g.CrashRate <= 1) {
		return fe("crash_rate", "must be a fraction between 0 and 1, got %v", g.CrashRate)
	}
	if g.RetryAfterMin < 0 {
		return fe("retry_after_min", "must be a duration > 0 (default 1s)")
	}
	if g.ErrorLatency < 0 {
		return fe("error_latency", "must be a duration > 0")
	}
	q := g.Queue
	if q.MaxInFlight < 0 {
		return fe("queue.max_in_flight", "must be >= 0 (0 = no fair queue), got %d", q.MaxInFlight)
	}
	if !(q.Quantum > 0) || !finite(q.Quantum) {
		return fe("queue.quantum", "must be a finite number > 0 (units per round per unit of weight), got %v", q.Quantum)
	}
	if q.ShedAfter.Batch < 0 || q.ShedAfter.Interactive < 0 || q.ShedRetryAfter < 0 {
		return fe("queue.shed_after", "durations must be >= 0")
	}
	if g.Cache.TTL < 0 || g.Cache.Latency < 0 {
		return fe("cache", "ttl and latency must be >= 0")
	}
	for i, o := range g.Outages {
		at := fmt.Sprintf("outage[%d]", i)
		if _, err := workloads.ParseClock(o.From); err != nil {
			return fe(at+".from", "must be a clock time such as \"10:00\": %v", err)
		}
		if !(o.For > 0) {
			return fe(at+".for", "must be a duration > 0, such as \"15m\"")
		}
		if !oneOf(o.Mode, FailOpen, FailClosed) {
			return fe(at+".mode", "must be %q or %q, got %q", FailOpen, FailClosed, o.Mode)
		}
		if !(o.LocalFraction > 0 && o.LocalFraction <= 1) {
			return fe(at+".local_fraction", "must be a fraction in (0, 1], got %v", o.LocalFraction)
		}
	}
	if len(g.Tenants) == 0 {
		return fe("tenant", "a gateway needs at least one [[gateway.tenant]]: every workload names its tenant")
	}
	seen := map[string]bool{}
	for i, t := range g.Tenants {
		at := fmt.Sprintf("tenant[%d]", i)
		if t.Name == "" {
			return fe(at+".name", "must be set")
		}
		if seen[t.Name] {
			return fe(at+".name", "duplicate tenant %q", t.Name)
		}
		seen[t.Name] = true
		if t.Weight != nil && !(*t.Weight >= 0.001 && *t.Weight <= 1000) {
			return fe(at+".weight", "must be a number from 0.001 to 1000 (the tenant's share of the fair queue; leave it out for 1), got %v", *t.Weight)
		}
		if err := checkBucket(at, t.UnitsPerMin, t.Burst, t.MaxStreams); err != nil {
			return err
		}
		keys := map[string]bool{}
		for j, k := range t.Keys {
			kat := fmt.Sprintf("%s.key[%d]", at, j)
			if k.Name == "" {
				return fe(kat+".name", "must be set")
			}
			if keys[k.Name] {
				return fe(kat+".name", "duplicate key %q in tenant %q", k.Name, t.Name)
			}
			keys[k.Name] = true
			if err := checkBucket(kat, k.UnitsPerMin, k.Burst, k.MaxStreams); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkBucket(at string, rate, burst float64, streams int) error {
	if rate < 0 || math.IsNaN(rate) || math.IsInf(rate, 0) {
		return &workloads.FieldError{Key: at + ".units_per_min", Msg: fmt.Sprintf("must be a finite number >= 0 (0 = no limit), got %v", rate)}
	}
	if burst < 0 || math.IsNaN(burst) || math.IsInf(burst, 0) || (rate > 0 && burst == 0) {
		return &workloads.FieldError{Key: at + ".burst", Msg: fmt.Sprintf("must be a finite number > 0 when units_per_min is set, got %v", burst)}
	}
	if streams < 0 {
		return &workloads.FieldError{Key: at + ".max_streams", Msg: fmt.Sprintf("must be >= 0 (0 = no cap), got %d", streams)}
	}
	return nil
}

// tenant finds a tenant by name.
func (g *GatewaySpec) tenant(name string) (int, *TenantSpec) {
	for i := range g.Tenants {
		if g.Tenants[i].Name == name {
			return i, &g.Tenants[i]
		}
	}
	return -1, nil
}

// CloneGateway copies a gateway spec deeply enough that defaults applied
// to the copy do not reach the caller's.
func CloneGateway(g GatewaySpec) GatewaySpec {
	g.Outages = append([]GatewayOutage(nil), g.Outages...)
	g.Tenants = append([]TenantSpec(nil), g.Tenants...)
	for i := range g.Tenants {
		g.Tenants[i].Keys = append([]TenantKeySpec(nil), g.Tenants[i].Keys...)
	}
	return g
}
