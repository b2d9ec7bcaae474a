package scenarios

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/scenarios/schema"
)

// candidates lists values to try for key k whose current value in the
// tree is cur (nil when absent): other values of a list, the other
// boolean, numbers around the current one within the key's range, other
// names, other clock times.
func candidates(k schemaKey, cur any) []any {
	var out []any
	switch {
	case len(k.field.Enum) > 0:
		for _, e := range k.field.Enum {
			if e != cur {
				out = append(out, e)
			}
		}
	case k.t.Kind() == reflect.Bool:
		out = []any{cur != true}
		if cur == nil {
			out = []any{true, false}
		}
	case k.t.Name() == "Clock":
		out = []any{"08:58", "09:00", "09:02", "00:00"}
	case k.t.Kind() == reflect.String:
		out = []any{"", "api", "gpu", "spill", "prod", "staging", "acme", "beta", "k1"}
	case schema.IsRanged(k.t):
		m := 100.0
		if d, ok := cur.(map[string]any); ok {
			for _, p := range []string{"value", "mean", "median", "max"} {
				if f, ok := number(d[p]); ok {
					m = f
					break
				}
			}
		} else if f, ok := number(cur); ok {
			m = f
		}
		out = []any{2 * m, m / 2, map[string]any{"dist": "exponential", "mean": m}}
	case k.t.Kind() == reflect.Slice && k.t.Elem().Kind() == reflect.String:
		if a, ok := cur.([]any); ok && len(a) > 1 {
			out = []any{[]any{a[len(a)-1], a[0]}}
		}
	case k.t.Kind() == reflect.Slice:
		if a, ok := cur.([]any); ok && len(a) > 0 {
			b := slices.Clone(a)
			f, _ := number(b[0])
			b[0] = 2*f + 1
			out = []any{b}
		} else {
			out = []any{[]any{1.0}, []any{5.0, 10.0}}
		}
	default:
		f, ok := number(cur)
		base := []float64{2 * f, f / 2, f + 1, f * 10}
		if !ok || f == 0 {
			base = nil
		}
		var fromRange []float64
		if r := k.field.Range; !r.IsZero() {
			for _, p := range r.Parts {
				if p.Lo == p.Hi {
					fromRange = append(fromRange, p.Lo) // a list of values: 500|503|529
				} else if !math.IsInf(p.Hi, 1) {
					fromRange = append(fromRange, p.Hi/2, p.Hi/10)
				}
			}
		}
		for _, v := range append(append(base, fromRange...), 1, 0.5, 2, 10, 60, 100, 1000, 0.1, 0.01) {
			if k.t.Kind() != reflect.Float64 && v != math.Trunc(v) {
				continue
			}
			if !slices.Contains(out, any(v)) && (!ok || v != f) {
				out = append(out, v)
			}
		}
		if len(out) > 10 {
			out = out[:10]
		}
	}
	return out
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case string:
		if f, err := schema.ParseSeconds(x); err == nil {
			return f, true
		}
	}
	return 0, false
}

// treeValue is the value at a canonical path in a tree, or nil.
func treeValue(tree map[string]any, path string) any {
	steps, err := parsePath(path)
	if err != nil {
		return nil
	}
	var node any = tree
	for _, s := range steps {
		node = child(node, s)
	}
	return node
}

// valueAt is the Go value at canonical path in the decoded scenario d (its
// specs with their defaults), or an invalid Value.
func valueAt(d *Scenario, path string) reflect.Value {
	steps, err := parsePath(path)
	if err != nil {
		return reflect.Value{}
	}
	v := reflect.ValueOf(d).Elem()
	for _, st := range steps {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}
			}
			v = v.Elem()
		}
		switch {
		case st.isIdx && v.Kind() == reflect.Slice && st.index < v.Len():
			v = v.Index(st.index)
		case !st.isIdx && v.Kind() == reflect.Struct:
			fields, _ := schema.Fields(v.Type())
			i := slices.IndexFunc(fields, func(f schema.Field) bool { return f.Key == st.key })
			if i < 0 {
				return reflect.Value{}
			}
			v = v.Field(fields[i].Index)
		default:
			return reflect.Value{}
		}
	}
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	return v
}

// sameValue reports whether the generic value x decodes, as a key of type
// t, to the Go value cur.
func sameValue(t reflect.Type, x any, cur reflect.Value) bool {
	if !cur.IsValid() {
		return false
	}
	holder := reflect.New(reflect.StructOf([]reflect.StructField{{Name: "X", Type: t, Tag: `toml:"x"`}}))
	if errs := schema.Decode(map[string]any{"x": x}, holder.Interface()); len(errs) > 0 {
		return false
	}
	return reflect.DeepEqual(holder.Elem().Field(0).Interface(), cur.Interface())
}

// resultsOf runs configuration c and returns its results as JSON, the
// variant's name left out.
func resultsOf(t *testing.T, c model.Config) []byte {
	t.Helper()
	c.Variant = ""
	b, ok := runShort(t, c)
	if !ok {
		return nil
	}
	var r map[string]any
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	delete(r, "variant")
	b, _ = json.Marshal(r)
	return b
}

// contexts are the overrides, by key, under which a key has an effect that
// every-key.toml alone does not show: the prompt cache and the API key
// matter once the chat workload goes straight to the API, and so on. Both
// the base and the key's values run with them.
var contexts = map[string][]Override{
	"cluster[].kv.watermark":                    {{"cluster.gpu.kv.blocks", 1500}},
	"cluster[].kv.cpu.size_gb":                  {{"cluster.gpu.kv.blocks", 300}},
	"cluster[].routing.load_bound":              {{"cluster.gpu.routing.policy", "prefix"}, {"cluster.gpu.max_num_seqs", 4}, {"cluster.gpu.schedule", []any{}}},
	"cluster[].routing.weights.kv":              {{"cluster.gpu.routing.policy", "weighted"}},
	"cluster[].routing.weights.prefix":          {{"cluster.gpu.routing.policy", "weighted"}},
	"cluster[].routing.weights.queue":           {{"cluster.gpu.routing.policy", "weighted"}},
	"cluster[].routing.weights.session":         {{"cluster.gpu.routing.policy", "weighted"}},
	"cluster[].step.interconnect_efficiency":    {{"cluster.gpu.tensor_parallel", 2}},
	"cluster[].step.collective_latency":         {{"cluster.gpu.tensor_parallel", 2}},
	"cluster[].step.all_reduce":                 {{"cluster.gpu.tensor_parallel", 2}},
	"gateway.outage[].local_fraction":           {{"gateway.tenant.acme.units_per_min", 2_000_000}, {"gateway.tenant.acme.burst", 1_000_000}},
	"provider[].cache.enabled":                  {{"workload.chat.route", "api"}},
	"provider[].cache.min_tokens":               {{"workload.chat.route", "api"}},
	"provider[].cache.refresh":                  {{"workload.chat.route", "api"}, {"provider.api.cache.ttl", "30s"}},
	"provider[].cache.ttl":                      {{"workload.chat.route", "api"}},
	"provider[].price.cache_read":               {{"workload.chat.route", "api"}},
	"provider[].price.cache_write":              {{"workload.chat.route", "api"}},
	"provider[].price.cache_write_1h":           {{"workload.chat.route", "api"}, {"provider.api.cache.ttl", "1h"}},
	"provider[].limits.cache_reads_count":       {{"workload.chat.route", "api"}},
	"provider[].limits.weights.cached_input":    {{"workload.chat.route", "api"}},
	"provider[].key[].limits.cache_reads_count": {{"workload.chat.route", "api"}},
	"provider[].concurrency.queue_limit":        {{"provider.api.concurrency.max", 20}},
	"provider[].concurrency.when_full":          {{"provider.api.concurrency.max", 20}},
	"provider[].max_output":                     {{"workload.digest.tokens.max_tokens", 0}},
	"route[].cooldown":                          {{"cluster.gpu.max_waiting", 2}},
	// Retry-After beyond the cap: the provider's 429s, a cap below them.
	"workload[].client.retry.over_cap": {{"workload.chat.route", "api"}, {"workload.chat.client.retry.retry_after_cap", "1s"}},
	"workload[].key": {{"provider.api.key", []any{map[string]any{"name": "prod", "limits": map[string]any{"rpm": 1800}},
		map[string]any{"name": "staging", "limits": map[string]any{"rpm": 300}}}}},
	"route[].fallback": {{"cluster.gpu.max_waiting", 2}},
	// Two workloads to the prefix-caching cluster in one prefix group.
	"workload[].tokens.prefix_group": {{"workload.chat.tokens.prefix_group", "assistant"}, {"workload.agents.tokens.shared_prefix", 1200},
		{"workload.agents.tokens.prefixes", 2}, {"workload.agents.tokens.prefix_group", "assistant"}},
}

// TestEveryKeyHasAnEffect takes every key of the schema, sets it to other
// valid values, and requires that one of them change the results; or that
// every other value be refused (the key's effect needs another key, and
// its error says which); or that the key's definition say why it does not
// change results (tag effect: names, descriptions, free text). A table's
// effect tag covers its keys: [plan] is read by headroom plan alone, whose
// own test requires each of its keys to change the decision or be refused.
func TestEveryKeyHasAnEffect(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hundreds of short simulations")
	}
	s := everyKey(t)
	base := resultsOf(t, s.configs[0])
	_, decoded, err := s.derive("", nil)
	if err != nil {
		t.Fatal(err)
	}
	// A key has an effect when it has one in any element of the arrays
	// of tables (think in a closed-loop workload, not in an open one).
	generic := func(path string) string { return regexp.MustCompile(`\[\d+\]`).ReplaceAllString(path, "[]") }
	done := map[string]bool{}
	refusedOnly := map[string][]string{}
	tried := map[string][]string{}
	var without []string // tables whose effect tag covers their keys
	for _, k := range walkKeys(reflect.TypeFor[Scenario](), s.tree, "", true) {
		g := generic(k.path)
		if done[g] {
			continue
		}
		if k.field.Effect != "" {
			without = append(without, k.path)
		}
		if strings.HasPrefix(k.path, "variant") || slices.ContainsFunc(without, func(p string) bool {
			return k.path == p || strings.HasPrefix(k.path, p+".") || strings.HasPrefix(k.path, p+"[")
		}) {
			continue
		}
		if k.t.Kind() == reflect.Struct && !schema.IsRanged(k.t) || k.t.Kind() == reflect.Slice && k.t.Elem().Kind() == reflect.Struct {
			continue // a table: its keys are taken one by one
		}
		ctx := contexts[g]
		ref, dec := base, decoded
		if len(ctx) > 0 {
			c, d, err := s.derive("", setEdits(ctx))
			if err != nil {
				t.Fatalf("context of %s: %v", g, err)
			}
			ref, dec = resultsOf(t, c), d
		}
		cur := treeValue(s.tree, k.path)
		changed, accepted := false, 0
		var refusals []string
		for _, v := range candidates(k, cur) {
			if sameValue(k.t, v, valueAt(dec, k.path)) {
				continue // the key's value already: no change expected
			}
			cfgs, err := s.Configs(append(slices.Clip(ctx), Override{Path: k.path, Value: v}))
			if err != nil {
				refusals = append(refusals, err.Error())
				continue
			}
			accepted++
			r := resultsOf(t, cfgs[0])
			if r == nil {
				t.Errorf("%s = %v: the run did not finish", k.path, v)
			}
			if !bytes.Equal(r, ref) {
				changed = true
				break
			}
		}
		switch {
		case changed:
			done[g] = true
			delete(tried, g)
			delete(refusedOnly, g)
		case accepted == 0:
			if _, silentElsewhere := tried[g]; !silentElsewhere {
				refusedOnly[g] = append(refusedOnly[g], refusals...)
			}
		default:
			tried[g] = append(tried[g], k.path)
			delete(refusedOnly, g)
		}
	}
	for _, g := range slices.Sorted(maps.Keys(refusedOnly)) {
		t.Logf("%s: every other value refused; %s", g, strings.Join(refusedOnly[g], " | "))
	}
	t.Logf("%d keys", len(done))
	silent := slices.Sorted(maps.Keys(tried))
	if len(silent) > 0 {
		for _, g := range silent {
			t.Logf("%s: tried at %v", g, tried[g])
		}
		t.Errorf("%d keys accepted other values without changing the results and without a documented reason:\n%s", len(silent), strings.Join(silent, "\n"))
	}
}
