package workloads

import "cmp"

// minHeap is a binary min-heap of values of T keyed by (K, a tie-break):
// the trace reader's sort window holds rows by (time, line) and the
// replay its streams by (next record's time, stream index). Keys are
// unique in both, so the pop order does not depend on the heap's layout.
// The keys sit in the heap, compared in place: container/heap's interface
// calls, or a comparison function, made a sort window's reading up to a
// third slower (BenchmarkTraceSortWindow).
type minHeap[K cmp.Ordered, T any] struct {
	items []heapItem[K, T]
}

type heapItem[K cmp.Ordered, T any] struct {
	key K
	tie int
	v   T
}

func (a *heapItem[K, T]) before(b *heapItem[K, T]) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	return a.tie < b.tie
}

// Len is how many values the heap holds.
func (h *minHeap[K, T]) Len() int { return len(h.items) }

// top is the least value; the heap must not be empty.
func (h *minHeap[K, T]) top() T { return h.items[0].v }

// topKey is the least key.
func (h *minHeap[K, T]) topKey() K { return h.items[0].key }

// push adds v under (key, tie).
func (h *minHeap[K, T]) push(key K, tie int, v T) {
	h.items = append(h.items, heapItem[K, T]{key, tie, v})
	s := h.items
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s[i].before(&s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

// pop removes and returns the least value; the heap must not be empty.
func (h *minHeap[K, T]) pop() T {
	s := h.items
	top := s[0].v
	n := len(s) - 1
	s[0] = s[n]
	s[n] = heapItem[K, T]{}
	h.items = s[:n]
	h.down()
	return top
}

// rekeyTop gives the least value a new, larger key and restores the order.
func (h *minHeap[K, T]) rekeyTop(key K) {
	h.items[0].key = key
	h.down()
}

func (h *minHeap[K, T]) down() {
	s := h.items
	n := len(s)
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && s[r].before(&s[l]) {
			m = r
		}
		if !s[m].before(&s[i]) {
			return
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
}
