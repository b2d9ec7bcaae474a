package model

import (
	"fmt"

	"github.com/headroom-sim/headroom/scenarios/schema"
	"github.com/headroom-sim/headroom/workloads"
)

// Limiter-store outage modes of a gateway.
const (
	FailOpen   = "fail_open"   // enforce conservative local per-node caps
	FailClosed = "fail_closed" // refuse everything with 503
)

// GatewaySpec is the optional gateway between the clients and the router
// (an LLM gateway such as LiteLLM or Envoy AI Gateway): per-tenant and per-key buckets in weighted units with
// reserve-and-refund, stream caps, a deficit-round-robin fair queue with
// priority classes and shedding, limiter-store outages and a response
// cache. Workloads pass through it when they name a tenant it defines.
type GatewaySpec struct {
	// Weights turn tokens into units: input, cached input, output.
	Weights GatewayWeights `toml:"weights" doc:"units per token kind (derive them from measured prefill and decode throughput)"`
	// MaxOutput caps a request's max_tokens at the gateway (the model's
	// largest output); 0 = no cap.
	MaxOutput int `toml:"max_output" unit:"tokens" range:"[0,1073741824]" default:"0: no cap" doc:"the model's largest output: max_tokens above it is rewritten down to it"`
	// LeaseTTL makes reservations leases: a stream whose gateway node
	// crashes is reconciled (refunded down to its actual use) this long
	// after admission. 0 = no leases: a crashed stream's reservation is
	// never refunded.
	LeaseTTL workloads.Duration `toml:"lease_ttl" range:"[0s,366d]" default:"0: no leases" doc:"reservations are leases, reconciled this long after admission if their stream crashed"`
	// CrashRate is the fraction of admitted streams whose gateway node
	// dies before the stream ends: the client gets a 502 and the refund in
	// the node's finally block never runs.
	CrashRate float64 `toml:"crash_rate" range:"[0,1]" default:"0" doc:"share of admitted streams whose gateway node dies before the end (a 502; the refund never runs)"`
	// RetryAfterMin is the smallest Retry-After the gateway sends for a
	// 429 (seconds, rounded up like the seed's math.ceil); default 1.
	RetryAfterMin workloads.Duration `toml:"retry_after_min" range:"(0s,1d]" default:"1s" doc:"the smallest Retry-After of a 429 or store-down 503 (waits are rounded up to whole seconds)"`
	// ErrorLatency is how long the gateway takes to answer a refusal
	// (default 2 ms).
	ErrorLatency workloads.Duration `toml:"error_latency" range:"(0s,1h]" default:"2ms" doc:"time to answer a refusal"`
	Queue        GatewayQueue       `toml:"queue" doc:"the fair queue between admission and the backends"`
	Cache        GatewayCache       `toml:"cache" doc:"a response cache for repeated requests"`
	Outages      []GatewayOutage    `toml:"outage" doc:"limiter-store outages"`
	Tenants      []TenantSpec       `toml:"tenant" doc:"the organisations at the gateway (at least one); every workload names its tenant"`
}

// GatewayWeights are the unit weights of the token kinds (1, 0.25 and 8 in
// a typical setup). Each one left out is 1.
type GatewayWeights struct {
	Input       *float64 `toml:"input" range:"[0,1e6]" default:"1" doc:"units per uncached input token"`
	CachedInput *float64 `toml:"cached_input" range:"[0,1e6]" default:"1" doc:"units per cached input token"`
	Output      *float64 `toml:"output" range:"[0,1e6]" default:"1" doc:"units per output token"`
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
	MaxInFlight int `toml:"max_in_flight" range:"[0,100000000]" default:"0: no fair queue" doc:"requests let through to the backends at once (8 replicas × 64 sequences = 512); the rest wait in the fair queue"`
	// Quantum is the deficit-round-robin quantum in units, per unit of
	// tenant weight.
	Quantum float64 `toml:"quantum" unit:"units" range:"(0,1e15]" default:"50000" doc:"deficit-round-robin units per round per unit of tenant weight"`
	// ShedAfter sheds a class's requests whose queue wait passes it, with
	// 503 (batch is shed, interactive waits, by default); 0 = never.
	ShedAfter GatewayShed `toml:"shed_after" default:"never" doc:"queue-wait target per class, past which a request is shed with a 503"`
	// ShedRetryAfter is the Retry-After sent with a shed 503 (default 60 s).
	ShedRetryAfter workloads.Duration `toml:"shed_retry_after" range:"(0s,1d]" default:"60s" doc:"Retry-After of a shed 503"`
}

// GatewayShed is a queue-wait target per priority class.
type GatewayShed struct {
	Interactive workloads.Duration `toml:"interactive" range:"[0s,366d]" default:"0: never" doc:"queue wait past which an interactive request is shed"`
	Batch       workloads.Duration `toml:"batch" range:"[0s,366d]" default:"0: never" doc:"queue wait past which a batch request is shed"`
}

// GatewayCache is a response cache for repeated requests ("cache recent
// results"). Workloads say how often they repeat (repeats); the hit rate
// follows from the demand, the TTL and the repeats.
type GatewayCache struct {
	TTL     workloads.Duration `toml:"ttl" range:"[0s,366d]" default:"0: no cache" doc:"how long an answer is kept"`
	Latency workloads.Duration `toml:"latency" range:"(0s,1h]" default:"20ms" doc:"time to answer a hit"`
}

// GatewayOutage is a window during which the limiter's shared store is
// down.
type GatewayOutage struct {
	From workloads.Clock    `toml:"from" default:"required" doc:"clock time the store goes down, such as \"10:00\""`
	For  workloads.Duration `toml:"for" range:"(0s,366d]" default:"required" doc:"how long it stays down"`
	Mode string             `toml:"mode" enum:"fail_open|fail_closed" noun:"mode" default:"fail_open" doc:"fail_open: conservative local per-node caps; fail_closed: refuse everything with a 503"`
	// LocalFraction is, for fail_open, the share of each tenant's rate and
	// burst that each node's local bucket allows (default 0.5).
	LocalFraction float64 `toml:"local_fraction" range:"(0,1]" default:"0.5" doc:"fail_open: the share of each tenant's rate and burst a node's local bucket allows"`
}

// TenantSpec is one organisation at the gateway.
type TenantSpec struct {
	Name string `toml:"name" default:"required" doc:"the tenant's name, unique; workloads name it in tenant"`
	// Weight is the tenant's share in the fair queue (default 1).
	Weight      *float64        `toml:"weight" range:"[0.001,1000]" msg:"must be a number from 0.001 to 1000 (the tenant's share of the fair queue; leave it out for 1)" default:"1" doc:"the tenant's share of the fair queue"`
	UnitsPerMin float64         `toml:"units_per_min" unit:"units/min" range:"[0,1e15]" default:"0: no unit limit" doc:"the tenant's bucket refill rate"`
	Burst       float64         `toml:"burst" unit:"units" range:"(0,1e15]" zero:"absent for one minute of units_per_min" default:"one minute of units_per_min" doc:"the bucket size; a reservation above it is a 400"`
	MaxStreams  int             `toml:"max_streams" range:"[0,100000000]" default:"0: no cap" doc:"concurrent streams"`
	Keys        []TenantKeySpec `toml:"key" doc:"the tenant's API keys, limited beneath the tenant"`
}

// TenantKeySpec is one API key of a tenant, limited beneath the tenant.
type TenantKeySpec struct {
	Name        string  `toml:"name" default:"required" doc:"the key's name, unique within the tenant; workloads name it in gateway_key"`
	UnitsPerMin float64 `toml:"units_per_min" unit:"units/min" range:"[0,1e15]" default:"0: no unit limit" doc:"the key's bucket refill rate"`
	Burst       float64 `toml:"burst" unit:"units" range:"(0,1e15]" zero:"absent for one minute of units_per_min" default:"one minute of units_per_min" doc:"the key's bucket size"`
	MaxStreams  int     `toml:"max_streams" range:"[0,100000000]" default:"0: no cap" doc:"concurrent streams of the key"`
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
	if err := schema.Check(g); err != nil {
		return err
	}
	for i, o := range g.Outages {
		if !o.From.IsSet() {
			return fe(fmt.Sprintf("outage[%d].from", i), "must be a clock time such as \"10:00\"")
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
		if t.UnitsPerMin > 0 && t.Burst == 0 {
			return fe(at+".burst", "must be a finite number > 0 when units_per_min is set, got 0")
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
			if k.UnitsPerMin > 0 && k.Burst == 0 {
				return fe(kat+".burst", "must be a finite number > 0 when units_per_min is set, got 0")
			}
		}
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
