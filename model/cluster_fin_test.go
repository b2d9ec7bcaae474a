package model

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// The finishers' calendar yields what a sorted list would: after any mix
// of pushes (near, beyond the horizon, far beyond its largest size),
// drains and resets, a drain up to K returns exactly the entries with
// k <= K, and minK is the smallest k left.
func TestFinQueueAgainstReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q finQueue
		var ref []finEntry
		now := int64(rapid.IntRange(0, 1000).Draw(t, "start"))
		q.reset(now)
		for step := range rapid.IntRange(1, 300).Draw(t, "steps") {
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0:
				q.reset(now)
				ref = ref[:0]
			case 1, 2, 3:
				ahead := rapid.SampledFrom([]int64{0, 1, 5, 63, 64, 200, 5000, 100000}).Draw(t, "ahead")
				e := finEntry{k: now + ahead, order: int64(step), id: int32(step)}
				q.push(e)
				ref = append(ref, e)
			default:
				upTo := now + int64(rapid.IntRange(0, 40).Draw(t, "advance"))
				got := q.drain(upTo, nil)
				var want, keep []finEntry
				for _, e := range ref {
					if e.k <= upTo {
						want = append(want, e)
					} else {
						keep = append(keep, e)
					}
				}
				ref = keep
				byID := func(a, b finEntry) int { return int(a.id - b.id) }
				slices.SortFunc(got, byID)
				slices.SortFunc(want, byID)
				if !slices.Equal(got, want) {
					t.Fatalf("drain(%d) = %v, want %v", upTo, got, want)
				}
				now = upTo + 1
			}
			if q.len() != len(ref) {
				t.Fatalf("len %d, want %d", q.len(), len(ref))
			}
			if len(ref) > 0 {
				m := ref[0].k
				for _, e := range ref {
					m = min(m, e.k)
				}
				if q.minK() != m {
					t.Fatalf("minK %d, want %d", q.minK(), m)
				}
			}
		}
	})
}

// drainLive gives, in the same order, the ids of drain's entries whose
// sequence is in the aggregate with the entry's stamp, and leaves the
// queue as drain does.
func TestDrainLiveIsDrainFiltered(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var a, b finQueue
		seqs := make([]seqState, 8)
		now := int64(rapid.IntRange(0, 1000).Draw(t, "start"))
		a.reset(now)
		b.reset(now)
		for step := range rapid.IntRange(1, 300).Draw(t, "steps") {
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0, 1, 2, 3:
				ahead := rapid.SampledFrom([]int64{0, 1, 5, 63, 64, 200, 5000, 100000}).Draw(t, "ahead")
				id := rapid.Int32Range(0, 7).Draw(t, "id")
				sq := &seqs[id]
				sq.lazyGen++
				sq.lazy = true
				e := finEntry{k: now + ahead, order: int64(step), id: id, stamp: sq.lazyGen}
				a.push(e)
				b.push(e)
			case 4:
				sq := &seqs[rapid.IntRange(0, 7).Draw(t, "leave")]
				sq.lazyGen++
				sq.lazy = false
			default:
				upTo := now + int64(rapid.IntRange(0, 40).Draw(t, "advance"))
				var want []int32
				for _, e := range a.drain(upTo, nil) {
					if sq := &seqs[e.id]; sq.lazy && sq.lazyGen == e.stamp {
						want = append(want, e.id)
					}
				}
				got := b.drainLive(upTo, seqs, nil)
				if !slices.Equal(got, want) {
					t.Fatalf("drainLive(%d) = %v, want %v", upTo, got, want)
				}
				now = upTo + 1
			}
			if a.len() != b.len() || a.base != b.base || a.len() > 0 && a.minK() != b.minK() {
				t.Fatalf("queues differ: len %d/%d, base %d/%d", a.len(), b.len(), a.base, b.base)
			}
		}
	})
}

// drain, the reference drainLive is held to, appends to out every entry
// with k <= upTo, in no particular order, and moves base past upTo.
func (q *finQueue) drain(upTo int64, out []finEntry) []finEntry {
	for q.ring > 0 && q.next <= upTo {
		k := q.next
		b := int(k) & (len(q.head) - 1)
		for i := q.head[b]; i >= 0; {
			out = append(out, q.pool[i])
			nx := q.link[i]
			q.link[i] = q.free
			q.free = i
			q.ring--
			i = nx
		}
		q.head[b] = -1
		q.bits[b>>6] &^= 1 << (b & 63)
		q.base = k + 1
		if q.ring > 0 {
			q.next = q.base + int64(q.nextBucket())
		}
	}
	for len(q.far) > 0 && q.far[0].k <= upTo {
		out = append(out, q.far.pop())
	}
	if upTo+1 > q.base {
		q.base = upTo + 1
	}
	// Entries that were beyond the horizon when pushed stay in far until
	// they are due: correct, only slower, and rare (outputs longer than
	// the largest horizon).
	return out
}
