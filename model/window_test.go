package model

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

type admission struct{ t, n float64 }

// drive offers random charges at random times to w, taking those that fit,
// and returns what was admitted.
func drive(t *rapid.T, w window, maxN float64) []admission {
	var adm []admission
	now := 0.0
	steps := rapid.IntRange(1, 300).Draw(t, "steps")
	for i := 0; i < steps; i++ {
		now += rapid.Float64Range(0, 5).Draw(t, "dt")
		n := rapid.Float64Range(0, maxN).Draw(t, "n")
		ok, wait := w.check(now, n)
		if ok {
			if wait != 0 {
				t.Fatalf("admitted with wait %v", wait)
			}
			w.take(now, n)
			adm = append(adm, admission{now, n})
		} else if !(wait > 0) {
			t.Fatalf("refused with wait %v", wait)
		}
		if r := w.remaining(now); r > w.capacity()+1e-9 || r < -1e-9 {
			t.Fatalf("remaining %v outside [0, %v]", r, w.capacity())
		}
	}
	return adm
}

// TestTokenBucketNeverExceedsLimitPlusBurst: over any span, admitted units
// are at most the bucket size plus rate times the span.
func TestTokenBucketNeverExceedsLimitPlusBurst(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rate := rapid.Float64Range(0.1, 100).Draw(t, "rate")
		size := rapid.Float64Range(1, 500).Draw(t, "size")
		adm := drive(t, newTokenBucket(rate, size), size*1.2)
		for i := range adm {
			sum := 0.0
			for j := i; j < len(adm); j++ {
				sum += adm[j].n
				if bound := size + rate*(adm[j].t-adm[i].t); sum > bound+1e-6 {
					t.Fatalf("admitted %v in [%v,%v], bound %v", sum, adm[i].t, adm[j].t, bound)
				}
			}
		}
	})
}

// TestSlidingWindowNeverExceedsLimit: any span shorter than the window
// admits at most the limit.
func TestSlidingWindowNeverExceedsLimit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		limit := rapid.Float64Range(1, 500).Draw(t, "limit")
		w := rapid.Float64Range(1, 60).Draw(t, "window")
		adm := drive(t, newSlidingWindow(limit, w), limit*1.2)
		for i := range adm {
			sum := 0.0
			for j := i; j < len(adm) && adm[j].t-adm[i].t < w; j++ {
				sum += adm[j].n
			}
			if sum > limit+1e-6 {
				t.Fatalf("admitted %v within %vs of %v, limit %v", sum, w, adm[i].t, limit)
			}
		}
	})
}

// TestFixedWindowNeverExceedsLimit: each window admits at most the limit.
func TestFixedWindowNeverExceedsLimit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		limit := rapid.Float64Range(1, 500).Draw(t, "limit")
		w := rapid.Float64Range(1, 60).Draw(t, "window")
		off := rapid.Float64Range(0, w).Draw(t, "offset")
		adm := drive(t, newFixedWindow(limit, w, off), limit*1.2)
		per := map[int64]float64{}
		for _, a := range adm {
			k := int64(math.Floor((a.t - off) / w))
			per[k] += a.n
			if per[k] > limit+1e-6 {
				t.Fatalf("window %d admitted %v > %v", k, per[k], limit)
			}
		}
	})
}

// TestRetryAfterIsExact: waiting exactly the reported time makes the
// charge fit (for every window kind), and a moment less does not.
func TestRetryAfterIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		kind := rapid.IntRange(0, 2).Draw(t, "kind")
		var w window
		switch kind {
		case 0:
			w = newTokenBucket(rapid.Float64Range(0.5, 50).Draw(t, "rate"), 100)
		case 1:
			w = newSlidingWindow(100, rapid.Float64Range(1, 60).Draw(t, "w"))
		default:
			w = newFixedWindow(100, rapid.Float64Range(1, 60).Draw(t, "w"), 0)
		}
		now := 0.0
		for i := 0; i < 50; i++ {
			now += rapid.Float64Range(0, 2).Draw(t, "dt")
			n := rapid.Float64Range(1, 100).Draw(t, "n")
			ok, wait := w.check(now, n)
			if ok {
				w.take(now, n)
				continue
			}
			if wait > 1e-3 && kind != 2 {
				if ok3, _ := w.check(now+wait*0.5, n); ok3 {
					t.Fatalf("kind %d: fits at half the Retry-After %v", kind, wait)
				}
			}
			if ok2, _ := w.check(now+wait+1e-6, n); !ok2 {
				t.Fatalf("kind %d: still refused after Retry-After %v", kind, wait)
			}
			now += wait + 1e-6
		}
	})
}

func TestTooLargeNeverFits(t *testing.T) {
	for _, w := range []window{newTokenBucket(1, 10), newSlidingWindow(10, 60), newFixedWindow(10, 60, 0)} {
		if ok, wait := w.check(0, 11); ok || !math.IsInf(wait, 1) {
			t.Fatalf("%T: charge above capacity: ok=%v wait=%v, want refused forever", w, ok, wait)
		}
	}
}

func TestSlidingRefundCreditsTheOriginalEntry(t *testing.T) {
	w := newSlidingWindow(100, 60)
	tk := w.take(0, 80)
	w.refund(10, 50, tk)
	if r := w.remaining(10); math.Abs(r-70) > 1e-9 {
		t.Fatalf("remaining after refund %v, want 70", r)
	}
	if r := w.remaining(61); math.Abs(r-100) > 1e-9 {
		t.Fatalf("remaining after expiry %v, want 100", r)
	}
}
