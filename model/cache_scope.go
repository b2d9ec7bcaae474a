package model

import "math"

// Prompt caches are scoped as the providers scope them: to the
// organization (OpenAI: "prompt caches are not shared between
// organizations"; Anthropic: per organization, per workspace since
// February 2026; Azure: per subscription; Vertex AI: per project), never
// to an API key. An entry is found by the prompt's content, so what decides
// a hit is whether two requests send the same prefix, not which key sent
// them. Headroom cannot tell from two workloads' token profiles that they
// send the same system prompts, so each workload's shared prefixes are its
// own unless workloads name the same tokens.prefix_group: then they share
// one set of entries, at every provider (across keys and routes) and in a
// cluster's prefix cache (vLLM's automatic prefix caching shares across
// every request of a replica). Trace prefixes (block hashes) are content
// already and are shared whatever the workload.

// setCacheGroup gives a new workload its cache group and, at each
// provider, its prompt-cache entries: its own, or its group's first
// workload's.
func (s *Sim) setCacheGroup(w *workload) {
	w.cacheGroup = int32(w.idx)
	if g := w.spec.Tokens.PrefixGroup; g != "" {
		for _, o := range s.wls {
			if o.spec.Tokens.PrefixGroup == g {
				w.cacheGroup = o.cacheGroup
				break
			}
		}
	}
	prefixes := max(w.spec.Tokens.Prefixes, 1)
	for _, p := range s.provs {
		if int(w.cacheGroup) != w.idx {
			p.cache[w.idx] = p.cache[w.cacheGroup]
			continue
		}
		c := make([]float64, prefixes)
		for j := range c {
			c[j] = math.Inf(-1)
		}
		p.cache[w.idx] = c
	}
}

// prefixKey identifies a request's shared prefix within its cache group,
// in a cluster's prefix cache.
func (s *Sim) prefixKey(r *request) int64 {
	return int64(s.wls[r.wl].cacheGroup)<<24 | int64(r.prefix)
}
