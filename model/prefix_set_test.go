package model

import (
	"iter"
	"testing"

	"pgregory.net/rapid"
)

// prefixSet holds what a map would through any sequence of puts, gets and
// deletes (keys drawn from a small range, so that probe runs collide,
// wrap and shift back).
func TestPrefixSetIsAMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var p prefixSet
		m := map[int64]*prefixEntry{}
		keys := rapid.Int64Range(-40, 40)
		for i, n := 0, rapid.IntRange(0, 400).Draw(t, "ops"); i < n; i++ {
			k := keys.Draw(t, "key") << rapid.SampledFrom([]int{0, 24, 40}).Draw(t, "shift")
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				if m[k] == nil {
					e := &prefixEntry{key: k}
					m[k] = e
					p.put(e)
				}
			case 1:
				delete(m, k)
				p.del(k)
			case 2:
				if rapid.IntRange(0, 30).Draw(t, "clear?") == 0 {
					clear(m)
					p.clear()
				}
			}
			if p.get(k) != m[k] || p.n != len(m) {
				t.Fatalf("key %d: set has %v (%d entries), map %v (%d)", k, p.get(k), p.n, m[k], len(m))
			}
		}
		seen := 0
		for k, e := range p.all() {
			if m[k] != e {
				t.Fatalf("set yields key %d that the map does not hold", k)
			}
			seen++
		}
		for k, e := range m {
			if p.get(k) != e {
				t.Fatalf("key %d lost", k)
			}
		}
		if seen != len(m) {
			t.Fatalf("set yields %d entries, map holds %d", seen, len(m))
		}
	})
}

// all yields every entry by key, in no particular order (the tests'
// view of the table; the simulation only gets, puts and deletes).
func (p *prefixSet) all() iter.Seq2[int64, *prefixEntry] {
	return func(yield func(int64, *prefixEntry) bool) {
		for _, e := range p.slots {
			if e != nil && !yield(e.key, e) {
				return
			}
		}
	}
}
