package scenarios

import (
	"fmt"
	"strconv"

	"github.com/headroom-sim/headroom/model"
)

// cacheWarnings names the prompt-cache defaults that change the answer on
// a provider whose cache can hit (it is on, the default, and a sync-lane
// workload routed to it sends a shared prefix at least cache.min_tokens
// long):
// cache reads or writes left unpriced cost nothing, and a tpm limit
// without cache_reads_count exempts cache reads, which OpenAI counts.
func (s *Scenario) cacheWarnings(d *Scenario, c model.Config) []Warning {
	var out []Warning
	add := func(path, msg string) {
		out = append(out, Warning{File: s.file, Line: s.ix.Line(path), Key: displayKey(path, d.tree), Message: msg})
	}
	for i, p := range c.Providers {
		who := cachedBy(c, p)
		if who == "" {
			continue
		}
		at := "provider[" + strconv.Itoa(i) + "]"
		if p.Price.Input > 0 {
			read := inTree(d.tree, at+".price.cache_read")
			write := inTree(d.tree, at+".price.cache_write")
			if float64(p.Cache.TTL) > 300 {
				write = write || inTree(d.tree, at+".price.cache_write_1h")
			}
			var what, give string
			switch {
			case !read && !write:
				what, give = "cache_read and cache_write are not priced: tokens read from or written to the cache cost nothing", "price.cache_read and price.cache_write"
			case !read:
				what, give = "cache_read is not priced: tokens read from the cache cost nothing", "price.cache_read"
			case !write:
				what, give = "cache_write is not priced: tokens written to the cache cost nothing, not the input price", "price.cache_write"
			}
			if what != "" {
				add(at+".price", fmt.Sprintf("the prompt cache is on and %s, but %s; give %s (OpenAI bills cache writes at the input price "+
					"and reads at 0.1× to 0.5× of it, Anthropic writes at 1.25× and reads at 0.1×), or cache.enabled = false", who, what, give))
			}
		}
		lims := []string{at + ".limits"}
		specs := []model.LimitsSpec{p.Limits}
		for j, k := range p.Keys {
			lims, specs = append(lims, at+".key["+strconv.Itoa(j)+"].limits"), append(specs, k.Limits)
		}
		for j, l := range specs {
			if l.TPM > 0 && !l.Weights.Set() && !inTree(d.tree, lims[j]+".cache_reads_count") {
				add(lims[j]+".tpm", fmt.Sprintf("the prompt cache is on and %s, and cache reads are exempt from tpm by default "+
					"(as from Anthropic's ITPM, and as Bedrock settles them), but OpenAI counts cached prompt tokens toward TPM; "+
					"write cache_reads_count = true (OpenAI) or false to say which", who))
			}
		}
	}
	return out
}

// cachedBy names the workloads whose shared prefixes provider p's prompt
// cache can hold ("workload \"bot\" sends a 1800-token shared prefix"), or
// "" when there are none or the cache is off.
func cachedBy(c model.Config, p model.ProviderSpec) string {
	if p.Cache.Enabled != nil && !*p.Cache.Enabled {
		return ""
	}
	var names []string
	first := 0
	for _, w := range c.Workloads {
		if w.Lane == model.LaneBatch || w.Tokens.SharedPrefix < max(p.Cache.MinTokens, 1) || !routesTo(c, w.Route, p.Name, 0) {
			continue
		}
		if len(names) == 0 {
			first = w.Tokens.SharedPrefix
		}
		names = append(names, w.Name)
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("workload %q sends a %d-token shared prefix", names[0], first)
	}
	return fmt.Sprintf("%d workloads send shared prefixes (%q's is %d tokens)", len(names), names[0], first)
}

// routesTo reports whether target (a backend, "backend:key" or a route)
// can send to the backend named name.
func routesTo(c model.Config, target, name string, depth int) bool {
	if splitName(target) == name {
		return true
	}
	if depth > len(c.Routes) {
		return false
	}
	for _, r := range c.Routes {
		if r.Name == target {
			for _, t := range r.Targets {
				if routesTo(c, t, name, depth+1) {
					return true
				}
			}
		}
	}
	return false
}

// inTree reports whether the tree gives a value at canonical path path.
func inTree(tree map[string]any, path string) bool {
	steps, err := parsePath(path)
	if err != nil {
		return false
	}
	var node any = tree
	for _, st := range steps {
		switch n := node.(type) {
		case map[string]any:
			if st.isIdx {
				return false
			}
			v, ok := n[st.key]
			if !ok {
				return false
			}
			node = v
		case []map[string]any:
			if !st.isIdx || st.index >= len(n) {
				return false
			}
			node = n[st.index]
		case []any:
			if !st.isIdx || st.index >= len(n) {
				return false
			}
			node = n[st.index]
		default:
			return false
		}
	}
	return true
}
