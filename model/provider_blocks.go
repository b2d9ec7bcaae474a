package model

// A hosted provider's prompt cache for requests whose prefixes a trace
// describes (ReplayRecord.Keys). The provider caches a prompt block by
// block: a request reads its longest run of leading whole blocks written or
// refreshed within the TTL, and writes the rest of its whole blocks, as
// automatic prompt caching in fixed increments does. A prompt whose whole
// blocks add up to fewer than min_tokens is neither read nor written.
// Entries are dropped once they expire, so the table holds at most a TTL's
// worth of blocks.

// keyCache is a provider's cached trace blocks: key → last write or
// refresh time.
type keyCache struct {
	at    map[uint64]float64
	sweep int // size at which expired entries are dropped next
}

// promptCacheSplit is cacheSplit for any request: by its trace keys when it
// has them, else by its workload's shared prefix.
func (s *Sim) promptCacheSplit(p *provider, id int32, now float64) (read, write int) {
	r := &s.reqs[id]
	keys, b := s.reqKeys(id)
	if keys == nil {
		return p.cacheSplit(int(r.wl), int(r.prefix), s.sharedPrefix(r), int(r.input), now)
	}
	if !p.cacheOn {
		return 0, 0
	}
	full := min(len(keys), int(r.input)/b)
	if full*b < max(p.cacheMin, 1) {
		return 0, 0
	}
	hit := 0
	if p.kc != nil {
		for hit < full {
			t, ok := p.kc.at[keys[hit]]
			if !ok || now-t > p.cacheTTL {
				break
			}
			hit++
		}
	}
	return hit * b, (full - hit) * b
}

// commitPromptCache is commitCache for any request.
func (s *Sim) commitPromptCache(p *provider, id int32, read, write int, now float64) {
	r := &s.reqs[id]
	keys, b := s.reqKeys(id)
	if keys == nil {
		p.commitCache(int(r.wl), int(r.prefix), read, write, now)
		return
	}
	if read == 0 && write == 0 {
		return
	}
	if p.kc == nil {
		p.kc = &keyCache{at: map[uint64]float64{}, sweep: 1 << 16}
	}
	from := read / b
	if p.refresh {
		from = 0
	}
	for _, k := range keys[from : (read+write)/b] {
		p.kc.at[k] = now
	}
	if len(p.kc.at) >= p.kc.sweep {
		for k, t := range p.kc.at {
			if now-t > p.cacheTTL {
				delete(p.kc.at, k)
			}
		}
		p.kc.sweep = max(2*len(p.kc.at), 1<<16)
	}
}
