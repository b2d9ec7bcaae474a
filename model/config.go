package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/headroom-sim/headroom/scenarios/schema"
	"github.com/headroom-sim/headroom/sim"
	"github.com/headroom-sim/headroom/workloads"
)

// Config is one complete, concrete scenario ready to simulate.
type Config struct {
	Name        string
	Variant     string
	Seed        uint64
	Replication int
	Duration    float64 // horizon, seconds
	Interval    float64 // width of the reported series, seconds
	StartClock  float64 // clock time of t = 0, seconds after midnight
	Workloads   []WorkloadSpec
	Providers   []ProviderSpec
	Clusters    []ClusterSpec
	Routes      []RouteSpec
	Gateway     *GatewaySpec // nil: no gateway
	// Window, when > 0, is the width in seconds of the windows each
	// workload's results are also given in (GroupResult.Windows): what a
	// plan checks its constraints against in the worst hour.
	Window float64

	// defaulted and checked record that ApplyDefaults and then Validate
	// ran, so that Build does not validate a configuration again. A copy
	// keeps them: change a checked configuration's specs and call
	// ApplyDefaults and Validate again (Seed and Replication may change).
	defaulted, checked bool
}

// maxIntervals bounds the length of the reported series.
const maxIntervals = 1_000_000

func (c *Config) intervals() int {
	return int(math.Ceil(c.Duration/c.Interval - 1e-9))
}

func (c *Config) stream(component string) *rand.Rand {
	return sim.Stream(c.Seed, component, c.Replication)
}

// Validate checks the whole configuration, including cross references.
// Errors are *workloads.FieldError with key paths such as
// "workload[0].route" relative to the scenario root. A configuration that
// passes after ApplyDefaults is marked as checked, and Build trusts it.
func (c *Config) Validate() error {
	c.checked = false
	if err := c.validate(); err != nil {
		return err
	}
	c.checked = c.defaulted
	return nil
}

func (c *Config) validate() error {
	if c.Duration <= 0 || math.IsNaN(c.Duration) || c.Duration > 366*86400 {
		return &workloads.FieldError{Key: "duration", Msg: fmt.Sprintf("must be > 0 and at most 366 days, got %vs", c.Duration)}
	}
	if c.Interval <= 0 || math.IsNaN(c.Interval) {
		return &workloads.FieldError{Key: "interval", Msg: "must be > 0"}
	}
	if c.Duration/c.Interval > maxIntervals {
		return &workloads.FieldError{Key: "interval", Msg: fmt.Sprintf("gives %.0f intervals over the duration; at most %d allowed, use a wider interval", c.Duration/c.Interval, maxIntervals)}
	}
	if len(c.Workloads) == 0 {
		return &workloads.FieldError{Key: "workload", Msg: "no workloads: add at least one [[workload]] with a demand"}
	}
	if len(c.Workloads) > 10_000 || len(c.Providers) > 10_000 {
		return &workloads.FieldError{Key: "workload", Msg: "at most 10000 workloads and 10000 providers"}
	}
	provs := map[string]*ProviderSpec{}
	var names []string
	for i := range c.Providers {
		p := &c.Providers[i]
		if err := p.Validate(); err != nil {
			return workloads.Prefix(fmt.Sprintf("provider[%d]", i), err)
		}
		if provs[p.Name] != nil {
			return &workloads.FieldError{Key: fmt.Sprintf("provider[%d].name", i), Msg: fmt.Sprintf("duplicate provider name %q", p.Name)}
		}
		provs[p.Name] = p
		names = append(names, p.Name)
	}
	clusters := map[string]*ClusterSpec{}
	for i := range c.Clusters {
		cl := &c.Clusters[i]
		if err := cl.Validate(); err != nil {
			return workloads.Prefix(fmt.Sprintf("cluster[%d]", i), err)
		}
		// Catalogue names, memory fit and the step table are checked by
		// building it.
		if _, err := buildCluster(cl, i, 1); err != nil {
			return workloads.Prefix(fmt.Sprintf("cluster[%d]", i), err)
		}
		if provs[cl.Name] != nil || clusters[cl.Name] != nil {
			return &workloads.FieldError{Key: fmt.Sprintf("cluster[%d].name", i), Msg: fmt.Sprintf("duplicate backend name %q (providers and clusters share one namespace)", cl.Name)}
		}
		clusters[cl.Name] = cl
		names = append(names, cl.Name)
	}
	routes := map[string]*RouteSpec{}
	for i := range c.Routes {
		rt := &c.Routes[i]
		at := fmt.Sprintf("route[%d]", i)
		if err := rt.Validate(); err != nil {
			return workloads.Prefix(at, err)
		}
		if provs[rt.Name] != nil || clusters[rt.Name] != nil || routes[rt.Name] != nil {
			return &workloads.FieldError{Key: at + ".name", Msg: fmt.Sprintf("duplicate name %q (providers, clusters and routes share one namespace)", rt.Name)}
		}
		for j, full := range rt.Targets {
			tn, key := splitTarget(full)
			if key != "" {
				p := provs[tn]
				if p == nil {
					return &workloads.FieldError{Key: fmt.Sprintf("%s.targets[%d]", at, j), Msg: fmt.Sprintf("%q: no provider named %q (a \"provider:key\" target names one API key of a provider)", full, tn)}
				}
				var keys []string
				found := false
				for _, k := range p.Keys {
					keys = append(keys, k.Name)
					found = found || k.Name == key
				}
				if !found {
					return &workloads.FieldError{Key: fmt.Sprintf("%s.targets[%d]", at, j), Msg: fmt.Sprintf("provider %q has no key named %q; have: %s%s", tn, key, listNames(keys), schema.DidYouMean(key, keys))}
				}
				continue
			}
			if provs[tn] == nil && clusters[tn] == nil {
				msg := fmt.Sprintf("no provider or cluster named %q; have: %s%s", tn, listNames(names), schema.DidYouMean(tn, names))
				for _, other := range c.Routes {
					if other.Name == tn {
						msg = fmt.Sprintf("%q is a route: a route's targets must be providers or clusters (routes do not nest, so chains cannot loop)", tn)
					}
				}
				return &workloads.FieldError{Key: fmt.Sprintf("%s.targets[%d]", at, j), Msg: msg}
			}
		}
		served := false
		for _, full := range rt.Targets {
			tn, _ := splitTarget(full)
			served = served || provs[tn] != nil || clusters[tn].maxReplicas() > 0
		}
		if !served {
			return &workloads.FieldError{Key: at + ".targets", Msg: "every target is a cluster with zero replicas: nothing could serve this route"}
		}
		routes[rt.Name] = rt
	}
	seen := map[string]bool{}
	groups := map[string]int{} // prefix group -> its first workload
	if c.Gateway != nil {
		if err := c.Gateway.Validate(); err != nil {
			return workloads.Prefix("gateway", err)
		}
	}
	for i := range c.Workloads {
		w := &c.Workloads[i]
		at := fmt.Sprintf("workload[%d]", i)
		if err := w.Validate(); err != nil {
			return workloads.Prefix(at, err)
		}
		if seen[w.Name] {
			return &workloads.FieldError{Key: at + ".name", Msg: fmt.Sprintf("duplicate workload name %q", w.Name)}
		}
		seen[w.Name] = true
		if g := w.Tokens.PrefixGroup; g != "" {
			if j, ok := groups[g]; ok {
				o := &c.Workloads[j]
				if o.Tokens.SharedPrefix != w.Tokens.SharedPrefix || max(o.Tokens.Prefixes, 1) != max(w.Tokens.Prefixes, 1) {
					return &workloads.FieldError{Key: at + ".tokens.prefix_group", Msg: fmt.Sprintf("%q is also workload %q's, whose shared_prefix is %d tokens in %d prefixes; workloads of one group send the same prefixes, so give them the same shared_prefix and prefixes (here %d in %d)", g, o.Name, o.Tokens.SharedPrefix, max(o.Tokens.Prefixes, 1), w.Tokens.SharedPrefix, max(w.Tokens.Prefixes, 1))}
				}
			} else {
				groups[g] = i
			}
		}
		if err := c.checkGatewayWorkload(w, at); err != nil {
			return err
		}
		if err := checkTraceBlocks(w, at, clusters, routes); err != nil {
			return err
		}
		if rt := routes[w.Route]; rt != nil {
			if w.Lane == LaneBatch {
				return &workloads.FieldError{Key: at + ".lane", Msg: "the batch lane needs a provider as the route, not a route"}
			}
			if w.Key != "" {
				for _, full := range rt.Targets {
					tn, k := splitTarget(full)
					if p := provs[tn]; p != nil && k == "" {
						found := false
						for _, k := range p.Keys {
							found = found || k.Name == w.Key
						}
						if !found && len(p.Keys) > 0 {
							return &workloads.FieldError{Key: at + ".key", Msg: fmt.Sprintf("provider %q (in route %q) has no key named %q", p.Name, rt.Name, w.Key)}
						}
					}
				}
			}
			if w.Demand.Closed() && w.Demand.Think.MeanValue() == 0 {
				return &workloads.FieldError{Key: at + ".demand.think", Msg: "closed-loop users behind a route need a think time > 0"}
			}
			continue
		}
		if cl := clusters[w.Route]; cl != nil {
			if cl.maxReplicas() == 0 {
				return &workloads.FieldError{Key: at + ".route", Msg: fmt.Sprintf("cluster %q has zero replicas, so nothing could serve this workload; give it replicas or route elsewhere", cl.Name)}
			}
			if w.Key != "" {
				return &workloads.FieldError{Key: at + ".key", Msg: fmt.Sprintf("cluster %q has no API keys; remove key", cl.Name)}
			}
			if w.Lane == LaneBatch {
				return &workloads.FieldError{Key: at + ".lane", Msg: fmt.Sprintf("cluster %q has no batch API; use priority = \"batch\" instead", cl.Name)}
			}
			if w.Demand.Closed() && w.Demand.Think.MeanValue() == 0 && cl.Step.Kind == "table" && len(cl.Step.Times) > 0 && cl.Step.Times[0] == 0 {
				return &workloads.FieldError{Key: at + ".demand.think", Msg: "zero think time against a zero-time step would loop without time passing"}
			}
			continue
		}
		p := provs[w.Route]
		if p == nil {
			for n := range routes {
				names = append(names, n)
			}
			return &workloads.FieldError{Key: at + ".route", Msg: fmt.Sprintf("no provider, cluster or route named %q; have: %s%s", w.Route, listNames(sortedNames(names)), schema.DidYouMean(w.Route, names))}
		}
		if w.Key != "" {
			var keys []string
			found := false
			for _, k := range p.Keys {
				keys = append(keys, k.Name)
				found = found || k.Name == w.Key
			}
			if !found {
				return &workloads.FieldError{Key: at + ".key", Msg: fmt.Sprintf("provider %q has no key named %q; have: %s%s", p.Name, w.Key, listNames(keys), schema.DidYouMean(w.Key, keys))}
			}
			if w.Lane == LaneBatch {
				return &workloads.FieldError{Key: at + ".key", Msg: "the batch lane skips the rate limits, so a key's limits would not apply; remove key or use the sync lane"}
			}
		}
		if w.Demand.Closed() && w.Demand.Think.MeanValue() == 0 {
			lat := p.Latency.TTFT.Base + p.Latency.TTFT.PerInputToken
			if lat == 0 || p.ErrorTime != nil && *p.ErrorTime == 0 {
				return &workloads.FieldError{Key: at + ".demand.think", Msg: fmt.Sprintf("closed-loop users with zero think time need provider %q to take time to answer (latency.ttft.base > 0 and error_latency > 0), or they would loop without time passing", p.Name)}
			}
		}
		if w.Tokens.MaxTokens > 0 && p.MaxOutput > 0 && w.Tokens.MaxTokens > 10_000_000 {
			return &workloads.FieldError{Key: at + ".tokens.max_tokens", Msg: "must be at most 10000000"}
		}
	}
	return nil
}

// ApplyDefaults fills every unset field with its documented default.
func (c *Config) ApplyDefaults() {
	c.defaulted = true
	for i := range c.Workloads {
		c.Workloads[i].applyDefaults()
	}
	for i := range c.Providers {
		c.Providers[i].applyDefaults()
	}
	for i := range c.Clusters {
		c.Clusters[i].applyDefaults()
	}
	for i := range c.Routes {
		c.Routes[i].applyDefaults()
	}
	if c.Gateway != nil {
		c.Gateway.applyDefaults()
	}
}

// checkGatewayWorkload checks a workload's tenant, gateway key and
// repeats against the gateway.
func (c *Config) checkGatewayWorkload(w *WorkloadSpec, at string) error {
	g := c.Gateway
	if !g.Enabled() {
		if w.GatewayKey != "" {
			return &workloads.FieldError{Key: at + ".gateway_key", Msg: "there is no [gateway] with tenants; remove gateway_key or add a gateway"}
		}
		if w.Repeats.Distinct > 0 {
			return &workloads.FieldError{Key: at + ".repeats", Msg: "repeats only matter to a gateway's response cache; add [gateway.cache] or remove them"}
		}
		return nil
	}
	if w.Demand.Closed() && w.Demand.Think.MeanValue() == 0 {
		return &workloads.FieldError{Key: at + ".demand.think", Msg: "closed-loop users behind a gateway need a think time > 0: the gateway refuses at once, so they would loop without time passing"}
	}
	_, t := g.tenant(w.Tenant)
	if t == nil {
		var names []string
		for _, t := range g.Tenants {
			names = append(names, t.Name)
		}
		return &workloads.FieldError{Key: at + ".tenant", Msg: fmt.Sprintf("with a gateway every workload names one of its tenants; no tenant %q, have: %s%s", w.Tenant, listNames(names), schema.DidYouMean(w.Tenant, names))}
	}
	if w.GatewayKey != "" {
		var keys []string
		for _, k := range t.Keys {
			if k.Name == w.GatewayKey {
				return nil
			}
			keys = append(keys, k.Name)
		}
		return &workloads.FieldError{Key: at + ".gateway_key", Msg: fmt.Sprintf("tenant %q has no key %q; have: %s%s", t.Name, w.GatewayKey, listNames(keys), schema.DidYouMean(w.GatewayKey, keys))}
	}
	return nil
}

// ClockString formats seconds after midnight as "HH:MM", with a day prefix
// ("d2 09:00") past the first day.
func ClockString(start, t float64) string {
	abs := start + t
	day := int(abs / 86400)
	if day > 0 {
		return fmt.Sprintf("d%d %s", day+1, workloads.ClockAt(abs))
	}
	return string(workloads.ClockAt(abs))
}

func sortedNames(n []string) []string { return slices.Sorted(slices.Values(n)) }

// checkTraceBlocks checks that a trace workload's prefix blocks cover
// whole KV blocks of every prefix-caching cluster it can reach, directly
// or through a route.
func checkTraceBlocks(w *WorkloadSpec, at string, clusters map[string]*ClusterSpec, routes map[string]*RouteSpec) error {
	if !w.Demand.IsTrace() {
		return nil
	}
	var reach []*ClusterSpec
	if cl := clusters[w.Route]; cl != nil {
		reach = append(reach, cl)
	}
	if rt := routes[w.Route]; rt != nil {
		for _, full := range rt.Targets {
			if n, _ := splitTarget(full); clusters[n] != nil {
				reach = append(reach, clusters[n])
			}
		}
	}
	block := 0
	for _, cl := range reach {
		if !cl.PrefixCaching {
			continue
		}
		if block == 0 {
			b, err := w.Demand.Trace.BlockTokens()
			if err != nil {
				return &workloads.FieldError{Key: at + ".demand.trace.file", Msg: err.Error()}
			}
			block = b
		}
		bs := cl.KV.BlockSize
		if bs <= 0 {
			bs = defaultKVBlock
		}
		if block%bs != 0 {
			g := gcd(block, bs)
			if w.Demand.Trace.BlockSize == 0 {
				return &workloads.FieldError{Key: at + ".demand.trace.block_size", Msg: fmt.Sprintf("the trace's prefix blocks are %d tokens (the format's), which is not a multiple of cluster %q's kv.block_size %d; prefix reuse is counted in whole KV blocks, so give the cluster a kv.block_size that divides %d (e.g. %d)", block, cl.Name, bs, block, g)}
			}
			return &workloads.FieldError{Key: at + ".demand.trace.block_size", Msg: fmt.Sprintf("is %d tokens, which is not a multiple of cluster %q's kv.block_size %d; prefix reuse is counted in whole KV blocks, so make it a multiple (e.g. block_size = %d) or give the cluster a kv.block_size that divides it (e.g. %d)", block, cl.Name, bs, (block/bs+1)*bs, g)}
		}
	}
	return nil
}

// defaultKVBlock is kv.block_size before ApplyDefaults has set it.
const defaultKVBlock = 16

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
