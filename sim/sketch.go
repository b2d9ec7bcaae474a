package sim

import "math"

// SketchAccuracy is the relative accuracy of every quantile Headroom
// reports: a reported p95 is within 1% of the exact 95th percentile of the
// values recorded, as numpy.percentile computes it by default (see
// Sketch.Quantile).
const SketchAccuracy = 0.01

// subBits is how many mantissa bits select a bucket within a power of two:
// 64 buckets per octave, each at most 1/64 of its lower bound wide, so the
// bucket midpoint is within 1/128 (0.78%) of any value in it.
const subBits = 6

// shift drops the mantissa bits below the sub-bucket bits.
const shift = 52 - subBits

// minTracked is the smallest value given a bucket; smaller ones count as
// zero (a nanosecond, for durations in seconds).
const minTracked = 1e-9

// Sketch records a distribution of non-negative values in bounded memory
// with a relative-error guarantee, and merges exactly. It is a log-linear
// histogram in the manner of HdrHistogram and DDSketch: a value's bucket
// is read off the bits of its float64 representation (exponent and top
// mantissa bits), which costs a shift, where DDSketch's pluggable mapping
// and store interfaces cost about 15-50 ns per value on the hot path
// (measured: about a quarter of the time per simulated request). Counts are
// kept densely between the smallest and largest bucket seen. The exact sum,
// minimum and maximum are kept beside it; the count is the buckets' and
// zeros' counts added up when asked for, which spares Add a store.
type Sketch struct {
	counts []uint64 // counts[i] is bucket offset+i
	offset int
	zeros  uint64
	sum    float64
	min    float64
	max    float64
}

// NewSketch returns an empty sketch with SketchAccuracy.
func NewSketch() *Sketch {
	return &Sketch{min: math.Inf(1), max: math.Inf(-1)}
}

// bucketOf is the bucket index of v > 0.
func bucketOf(v float64) int { return int(math.Float64bits(v) >> shift) }

// bucketValue is the midpoint of bucket i.
func bucketValue(i int) float64 {
	lo := math.Float64frombits(uint64(i) << shift)
	hi := math.Float64frombits(uint64(i+1) << shift)
	return (lo + hi) / 2
}

// Add records v. Negative values (and -0) are clamped to 0. NaN and +Inf
// are ignored, so that the exact count, sum, minimum and maximum always
// describe the same values as the quantiles.
func (s *Sketch) Add(v float64) {
	if v >= minTracked && v <= math.MaxFloat64 {
		// The common case, a finite value with a bucket, in a few
		// predictable branches; the rest is addRest.
		s.sum += v
		if v < s.min {
			s.min = v
		}
		if v > s.max {
			s.max = v
		}
		i := bucketOf(v) - s.offset
		if uint(i) < uint(len(s.counts)) {
			s.counts[i]++
			return
		}
		s.counts[s.grow(i+s.offset)]++
		return
	}
	s.addRest(v)
}

// TryAdd is Add's most common case, small enough to be inlined: when v
// lies strictly between the minimum and the maximum recorded, is at least
// minTracked and has a bucket in the dense range, it records v (which
// changes only the sum and that bucket's count, exactly as Add would) and
// reports true; otherwise it records nothing and reports false, and the
// caller calls Add. A caller that records values on a hot path writes
// `if !sk.TryAdd(v) { sk.Add(v) }`, which spares most values a call.
func (s *Sketch) TryAdd(v float64) bool {
	i := bucketOf(v) - s.offset
	if uint(i) >= uint(len(s.counts)) || !(v > s.min && v < s.max && v >= minTracked) {
		return false
	}
	s.sum += v
	s.counts[i]++
	return true
}

// TryAddN is AddN's common case, small enough to be inlined: when n is not
// 0, v is finite and at least minTracked and its bucket is in the dense
// range, it records v n times (the sum, minimum, maximum and bucket count,
// by the same operations as AddN) and reports true; otherwise it records
// nothing and reports false, and the caller calls AddN. A caller that
// records many values, such as an engine iteration's time once for each
// sequence that decodes in it, writes `if !sk.TryAddN(v, n) { sk.AddN(v, n) }`.
func (s *Sketch) TryAddN(v float64, n uint64) bool {
	i := bucketOf(v) - s.offset
	if !(v >= minTracked && v <= math.MaxFloat64) || n == 0 || uint(i) >= uint(len(s.counts)) {
		return false
	}
	s.sum += v * float64(n)
	if v < s.min {
		s.min = v
	}
	if v > s.max {
		s.max = v
	}
	s.counts[i] += n
	return true
}

// addRest is Add of a value below minTracked (zero, negative, -0), NaN or
// +Inf: every value it records is a zero.
func (s *Sketch) addRest(v float64) {
	if !(v <= math.MaxFloat64) { // NaN or +Inf
		return
	}
	if v <= 0 {
		v = 0
	}
	s.sum += v
	if v < s.min {
		s.min = v
	}
	if v > s.max {
		s.max = v
	}
	s.zeros++
}

// AddN records v n times (a value seen by n observers at once, such as one
// engine iteration's time as the gap between tokens of each of its n
// decoding sequences). Like Add, but the sum grows by v·n in one step.
func (s *Sketch) AddN(v float64, n uint64) {
	if n == 0 || !(v <= math.MaxFloat64) {
		return
	}
	if v <= 0 {
		v = 0
	}
	s.sum += v * float64(n)
	if v < s.min {
		s.min = v
	}
	if v > s.max {
		s.max = v
	}
	if v < minTracked {
		s.zeros += n
		return
	}
	i := bucketOf(v) - s.offset
	if uint(i) >= uint(len(s.counts)) {
		i = s.grow(i + s.offset)
	}
	s.counts[i] += n
}

// grow extends the dense range to cover bucket b and returns its position.
func (s *Sketch) grow(b int) int {
	if len(s.counts) == 0 {
		s.counts = make([]uint64, 64)
		s.offset = b - 32
		return b - s.offset
	}
	lo, hi := s.offset, s.offset+len(s.counts)
	if b < lo {
		lo = b - (hi-lo)/2
	} else {
		hi = b + 1 + (hi-lo)/2
	}
	nc := make([]uint64, hi-lo)
	copy(nc[s.offset-lo:], s.counts)
	s.counts, s.offset = nc, lo
	return b - s.offset
}

// Count is the number of values recorded.
func (s *Sketch) Count() float64 { return float64(s.n()) }

// n is the number of values recorded: the zeros and the buckets' counts.
// (As a float64 it is exactly the count a float64 incremented on every Add
// would hold, below 2^53 values.)
func (s *Sketch) n() uint64 {
	t := s.zeros
	for _, c := range s.counts {
		t += c
	}
	return t
}

// Sum is the exact sum of the values recorded.
func (s *Sketch) Sum() float64 { return s.sum }

// Mean is the exact mean, or 0 when empty.
func (s *Sketch) Mean() float64 {
	n := s.n()
	if n == 0 {
		return 0
	}
	return s.sum / float64(n)
}

// Max is the exact largest value, or 0 when empty.
func (s *Sketch) Max() float64 {
	if s.n() == 0 {
		return 0
	}
	return s.max
}

// Min is the exact smallest value, or 0 when empty.
func (s *Sketch) Min() float64 {
	if s.n() == 0 {
		return 0
	}
	return s.min
}

// Quantile returns the q-quantile (0..1) within SketchAccuracy, by the
// definition load testers use: numpy.percentile's default ("linear"), which
// vLLM's `vllm bench serve` and NVIDIA's genai-perf report. With n values
// sorted x[0] ≤ … ≤ x[n-1] and h = q·(n−1), it is
// x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]). Here x[0] and x[n-1] are the exact
// minimum and maximum, and every other x[r] is the midpoint of the bucket
// holding rank r, clamped to them (a zero is the minimum). q ≤ 0 gives the
// minimum, q ≥ 1 the maximum, an empty sketch 0. It is non-decreasing in q,
// allocates nothing and reads the buckets once.
func (s *Sketch) Quantile(q float64) float64 {
	n := s.n()
	if n == 0 {
		return 0
	}
	if q <= 0 {
		return s.min
	}
	if q >= 1 || n == 1 {
		return s.max
	}
	h := q * float64(n-1)
	r := uint64(h) // ⌊h⌋: h ≥ 0
	if r >= n-1 {  // q rounded up to 1
		return s.max
	}
	lo, hi := s.adjacent(r, n)
	if f := h - float64(r); f > 0 {
		return lo + f*(hi-lo)
	}
	return lo
}

// adjacent returns the values of 0-based ranks r and r+1 (r+1 < n) as
// Quantile reads them.
func (s *Sketch) adjacent(r, n uint64) (lo, hi float64) {
	var v [2]float64
	k, want := 0, r
	seen := s.zeros
	for ; k < 2 && want < seen; k, want = k+1, want+1 {
		v[k] = s.min
	}
	for i := 0; k < 2 && i < len(s.counts); i++ {
		c := s.counts[i]
		if c == 0 {
			continue
		}
		seen += c
		if want >= seen {
			continue
		}
		b := math.Min(math.Max(bucketValue(i+s.offset), s.min), s.max)
		for ; k < 2 && want < seen; k, want = k+1, want+1 {
			v[k] = b
		}
	}
	if r == 0 {
		v[0] = s.min
	}
	if r+1 == n-1 {
		v[1] = s.max
	}
	return v[0], v[1]
}

// Merge adds every value recorded in o to s.
func (s *Sketch) Merge(o *Sketch) {
	if o == nil || o.n() == 0 {
		return
	}
	if len(o.counts) > 0 {
		s.grow0(o.offset)
		s.grow0(o.offset + len(o.counts) - 1)
		base := o.offset - s.offset
		for i, c := range o.counts {
			s.counts[base+i] += c
		}
	}
	s.zeros += o.zeros
	s.sum += o.sum
	s.min = math.Min(s.min, o.min)
	s.max = math.Max(s.max, o.max)
}

// grow0 makes sure bucket b is inside the dense range.
func (s *Sketch) grow0(b int) {
	if i := b - s.offset; uint(i) >= uint(len(s.counts)) || len(s.counts) == 0 {
		s.grow(b)
	}
}

// SketchSum is a Sketch's sum kept alone: Add adds to it exactly what
// Sketch.Add adds to a sketch's sum (nothing for NaN or +Inf, zero for a
// value at or below zero, the value otherwise). A sketch that is the merge
// of parts (values recorded by interval, say) has the parts' counts,
// minimum and maximum exactly, but its sum is theirs added in another
// order; SetSum gives it the sum of its values in the order they were
// recorded, from a SketchSum that saw them all, so that it equals the
// sketch that recorded them one by one.
type SketchSum float64

// Add adds v as Sketch.Add adds it to the sum.
func (s *SketchSum) Add(v float64) {
	if v <= math.MaxFloat64 {
		if v <= 0 {
			v = 0
		}
		*s += SketchSum(v)
	}
}

// SetSum replaces the sketch's sum with sum (see SketchSum).
func (s *Sketch) SetSum(sum SketchSum) { s.sum = float64(sum) }
