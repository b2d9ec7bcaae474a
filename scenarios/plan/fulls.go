package plan

import (
	"math"
	"sort"
	"sync"

	"github.com/headroom-sim/headroom/model"
)

// keptFull is how many candidates' full first replications the evaluator
// keeps at most (besides those pinned), so that the winner's report reuses
// its first replication instead of running it again.
const keptFull = 8

// fullCache keeps the full results of the first replication of the
// candidates most likely to win: those that hold, cheapest first (and,
// until judged, those whose price floor is cheapest). Its memory is
// bounded by size results, whatever the number of candidates.
type fullCache struct {
	mu     sync.Mutex
	size   int
	m      map[*cand]*model.Results
	pinned map[*cand]bool // kept whatever they measure (the scenario as written)
}

// rank is how unlikely c is to win: its mean cost when it holds, its price
// floor before it is judged, +Inf when it fails.
func (f *fullCache) rank(c *cand, floor func(point) float64) float64 {
	switch {
	case len(c.verdicts) == 0:
		return floor(c.p)
	case c.holds:
		return c.cost
	}
	return math.Inf(1)
}

// choose decides, before a batch runs, which of its candidates keep their
// first replication: with those kept already, the size least likely to
// win (ties in canonical order), plus the pinned. Those displaced are
// dropped. Deciding before the batch, not as results arrive, keeps what is
// reused, and so the simulations counted, independent of the workers.
func (f *fullCache) choose(batch []*cand, floor func(point) float64) map[*cand]bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	type entry struct {
		c    *cand
		rank float64
	}
	var es []entry
	seen := map[*cand]bool{}
	for _, c := range batch {
		if !seen[c] && !f.pinned[c] {
			seen[c] = true
			es = append(es, entry{c, f.rank(c, floor)})
		}
	}
	for c := range f.m {
		if !seen[c] && !f.pinned[c] {
			seen[c] = true
			es = append(es, entry{c, f.rank(c, floor)})
		}
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].rank != es[j].rank {
			return es[i].rank < es[j].rank
		}
		return less(es[i].c, es[j].c)
	})
	keep := map[*cand]bool{}
	for i, e := range es {
		if i < f.size && !math.IsInf(e.rank, 1) {
			keep[e.c] = true
		} else {
			delete(f.m, e.c)
		}
	}
	for _, c := range batch {
		if f.pinned[c] {
			keep[c] = true
		}
	}
	return keep
}

// put keeps r, c's first replication.
func (f *fullCache) put(c *cand, r *model.Results) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.m[c] = r
}

// less orders candidates by their point, then factor.
func less(a, b *cand) bool {
	for i := range a.p {
		if a.p[i] != b.p[i] {
			return a.p[i] < b.p[i]
		}
	}
	return a.factor < b.factor
}

// settle drops the candidates judged to fail (unless pinned).
func (f *fullCache) settle() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k := range f.m {
		if !f.pinned[k] && len(k.verdicts) > 0 && !k.holds {
			delete(f.m, k)
		}
	}
}

// pin keeps c's first replication whatever it measures.
func (f *fullCache) pin(c *cand) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pinned[c] = true
}

// get returns c's first replication's full results, or nil.
func (f *fullCache) get(c *cand) *model.Results {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[c]
}
