package workloads

import (
	"math/rand/v2"
	"testing"
)

// TestMinHeap: under interleaved pushes, pops and re-keyings of the top,
// every pop gives the least (key, tie) of what is held, as a linear scan
// of the same values finds it.
func TestMinHeap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	type kv struct {
		key int64
		tie int
	}
	less := func(a, b kv) bool { return a.key < b.key || a.key == b.key && a.tie < b.tie }
	var h minHeap[int64, *kv]
	held := map[int]*kv{} // by tie
	least := func() *kv {
		var m *kv
		for _, x := range held {
			if m == nil || less(*x, *m) {
				m = x
			}
		}
		return m
	}
	for i := 0; i < 20000; i++ {
		switch op := r.IntN(10); {
		case h.Len() > 0 && op < 3:
			want := least()
			if got := h.pop(); got != want {
				t.Fatalf("step %d: popped %+v, want %+v", i, *got, *want)
			}
			delete(held, want.tie)
		case h.Len() > 0 && op < 5:
			top := h.top()
			if top != least() || h.topKey() != top.key {
				t.Fatalf("step %d: top %+v (key %d), want %+v", i, *top, h.topKey(), *least())
			}
			top.key += 1 + r.Int64N(50)
			h.rekeyTop(top.key)
		default:
			x := &kv{r.Int64N(200), i}
			h.push(x.key, x.tie, x)
			held[i] = x
		}
		if h.Len() != len(held) {
			t.Fatalf("step %d: the heap holds %d, want %d", i, h.Len(), len(held))
		}
	}
}
