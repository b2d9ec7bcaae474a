package model

import "math"

// window is one rate-limit dimension's counting algorithm. Amounts are in
// the dimension's units (requests, tokens or weighted units).
type window interface {
	// check reports whether n units fit now; if not, wait is the time until
	// they would (assuming nothing else is taken), +Inf if n can never fit.
	check(now, n float64) (ok bool, wait float64)
	// take charges n units (after a successful check, or unconditionally
	// for deduct-after accounting) and returns a ticket for refunds.
	take(now, n float64) uint64
	// refund gives back n units charged under ticket, where the algorithm
	// can still credit them.
	refund(now, n float64, ticket uint64)
	// remaining is what could be taken now (may be negative after an
	// unconditional take).
	remaining(now float64) float64
	// capacity is the most that can ever be taken at once.
	capacity() float64
}

// tokenBucket refills continuously at rate per second up to size, starting
// full: tokens = min(size, tokens + rate*dt).
type tokenBucket struct {
	rate, size float64
	level      float64
	last       float64
}

func newTokenBucket(rate, size float64) *tokenBucket {
	return &tokenBucket{rate: rate, size: size, level: size}
}

func (b *tokenBucket) refill(now float64) {
	if now > b.last {
		b.level = math.Min(b.size, b.level+(now-b.last)*b.rate)
		b.last = now
	}
}

func (b *tokenBucket) check(now, n float64) (bool, float64) {
	if n > b.size {
		return false, math.Inf(1)
	}
	b.refill(now)
	if b.level >= n {
		return true, 0
	}
	return false, (n - b.level) / b.rate
}

func (b *tokenBucket) take(now, n float64) uint64 {
	b.refill(now)
	b.level -= n
	return 0
}

func (b *tokenBucket) refund(now, n float64, _ uint64) {
	b.refill(now)
	b.level = math.Min(b.size, b.level+n)
}

func (b *tokenBucket) remaining(now float64) float64 { b.refill(now); return b.level }
func (b *tokenBucket) capacity() float64             { return b.size }

// fixedWindow counts units in consecutive windows of length w starting at
// offset; the count resets at each boundary.
type fixedWindow struct {
	limit, w, offset float64
	index            int64 // current window number
	used             float64
}

func newFixedWindow(limit, w, offset float64) *fixedWindow {
	return &fixedWindow{limit: limit, w: w, offset: offset, index: math.MinInt64}
}

func (f *fixedWindow) roll(now float64) {
	i := int64(math.Floor((now - f.offset) / f.w))
	if i != f.index {
		f.index = i
		f.used = 0
	}
}

func (f *fixedWindow) check(now, n float64) (bool, float64) {
	if n > f.limit {
		return false, math.Inf(1)
	}
	f.roll(now)
	if f.used+n <= f.limit {
		return true, 0
	}
	next := f.offset + float64(f.index+1)*f.w
	return false, next - now
}

func (f *fixedWindow) take(now, n float64) uint64 {
	f.roll(now)
	f.used += n
	return uint64(f.index)
}

func (f *fixedWindow) refund(now, n float64, ticket uint64) {
	f.roll(now)
	if int64(ticket) == f.index {
		f.used = math.Max(0, f.used-n)
	}
}

func (f *fixedWindow) remaining(now float64) float64 { f.roll(now); return f.limit - f.used }
func (f *fixedWindow) capacity() float64             { return f.limit }

// slidingWindow counts what was taken in the last w seconds, kept in
// sub-windows of w/slidingBuckets: an admission leaves the window at the
// end of its sub-window, so the window is at most 0.1% longer than its
// nominal length and never more permissive. Memory and the cost of a
// Retry-After are bounded by the number of sub-windows, whatever the
// traffic (an exact log would grow with every charge in the window, and a
// day-long window of refused attempts would hold millions).
type slidingWindow struct {
	limit, w float64
	width    float64   // sub-window length
	idx      []int64   // sub-window number of each live bucket, oldest first
	amounts  []float64 // units taken in it
	head     int       // ring position of the oldest bucket
	n        int       // buckets in use
	first    uint64    // sequence number of the oldest bucket
	sum      float64
}

// slidingBuckets is how many sub-windows a sliding window is kept in.
const slidingBuckets = 1024

func newSlidingWindow(limit, w float64) *slidingWindow {
	size := 16
	return &slidingWindow{limit: limit, w: w, width: w / slidingBuckets, idx: make([]int64, size), amounts: make([]float64, size)}
}

// end is when the bucket at ring position i leaves the window.
func (s *slidingWindow) end(i int) float64 { return float64(s.idx[i]+1)*s.width + s.w }

func (s *slidingWindow) expire(now float64) {
	for s.n > 0 && s.end(s.head) <= now {
		s.sum -= s.amounts[s.head]
		s.head = (s.head + 1) % len(s.idx)
		s.n--
		s.first++
	}
	if s.n == 0 {
		s.sum = 0
	}
}

func (s *slidingWindow) check(now, n float64) (bool, float64) {
	if n > s.limit {
		return false, math.Inf(1)
	}
	s.expire(now)
	if s.sum+n <= s.limit {
		return true, 0
	}
	need := s.sum + n - s.limit
	freed := 0.0
	for k := 0; k < s.n; k++ {
		i := (s.head + k) % len(s.idx)
		freed += s.amounts[i]
		if freed >= need-1e-9 {
			return false, s.end(i) - now
		}
	}
	return false, s.w
}

func (s *slidingWindow) take(now, n float64) uint64 {
	s.expire(now)
	b := int64(math.Floor(now / s.width))
	if s.n > 0 {
		last := (s.head + s.n - 1) % len(s.idx)
		if s.idx[last] == b {
			s.amounts[last] += n
			s.sum += n
			return s.first + uint64(s.n-1)
		}
	}
	if s.n == len(s.idx) {
		s.grow()
	}
	i := (s.head + s.n) % len(s.idx)
	s.idx[i] = b
	s.amounts[i] = n
	s.n++
	s.sum += n
	return s.first + uint64(s.n-1)
}

func (s *slidingWindow) grow() {
	size := 2 * len(s.idx)
	t := make([]int64, size)
	a := make([]float64, size)
	for k := 0; k < s.n; k++ {
		i := (s.head + k) % len(s.idx)
		t[k] = s.idx[i]
		a[k] = s.amounts[i]
	}
	s.idx, s.amounts, s.head = t, a, 0
}

func (s *slidingWindow) refund(now, n float64, ticket uint64) {
	s.expire(now)
	if ticket < s.first || ticket >= s.first+uint64(s.n) {
		return
	}
	i := (s.head + int(ticket-s.first)) % len(s.idx)
	d := math.Min(n, s.amounts[i])
	s.amounts[i] -= d
	s.sum -= d
}

func (s *slidingWindow) remaining(now float64) float64 { s.expire(now); return s.limit - s.sum }
func (s *slidingWindow) capacity() float64             { return s.limit }
