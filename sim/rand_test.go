package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func draws(r *rand.Rand, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = r.Uint64()
	}
	return out
}

func TestStreamReproducible(t *testing.T) {
	for _, c := range []struct {
		seed uint64
		comp string
		rep  int
	}{
		{0, "", 0},
		{1, "workload/arrivals", 0},
		{42, "workload/tokens", 7},
		{1<<64 - 1, "gpu/3", -1},
	} {
		a := draws(Stream(c.seed, c.comp, c.rep), 1000)
		b := draws(Stream(c.seed, c.comp, c.rep), 1000)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("Stream(%d, %q, %d) draw %d: %x then %x", c.seed, c.comp, c.rep, i, a[i], b[i])
			}
		}
	}
}

// TestStreamGolden pins the derivation of streams: a change here changes
// every simulation result for a given seed, which must be deliberate.
func TestStreamGolden(t *testing.T) {
	got := draws(Stream(1, "workload/arrivals", 0), 3)
	want := []uint64{0xa0aa3ea821b60fc0, 0x1bdab369fdc19750, 0x8224d7bce0f5cb0b}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Stream(1, \"workload/arrivals\", 0) = %#x, want %#x", got, want)
		}
	}
}

// TestStreamsDistinct checks that streams differing in seed, component or
// replication differ, and that none of them overlaps another over its first
// few hundred draws (a shared 64-bit value is as good as impossible between
// independent streams, and would show one stream is a shift of another).
func TestStreamsDistinct(t *testing.T) {
	seeds := []uint64{0, 1, 2, 3, 0xdeadbeef, 1 << 63}
	comps := []string{"", "a", "b", "ab", "ba", "workload/arrivals", "workload/tokens", "gpu/0", "gpu/1"}
	reps := []int{0, 1, 2, 3, -1, 1000}
	const n = 128
	owner := make(map[uint64]string, len(seeds)*len(comps)*len(reps)*n)
	for _, s := range seeds {
		for _, c := range comps {
			for _, r := range reps {
				name := fmt.Sprintf("Stream(%d, %q, %d)", s, c, r)
				for i, v := range draws(Stream(s, c, r), n) {
					if prev, ok := owner[v]; ok {
						t.Fatalf("%s draw %d = %#x, already drawn by %s", name, i, v, prev)
					}
					owner[v] = name
				}
			}
		}
	}
}

// chiSquare bins n values of next (in [0,1)) into k equal bins and returns
// Pearson's statistic against the uniform distribution.
func chiSquare(k, n int, next func() float64) float64 {
	bins := make([]int, k)
	for range n {
		bins[int(next()*float64(k))]++
	}
	want := float64(n) / float64(k)
	var x2 float64
	for _, b := range bins {
		d := float64(b) - want
		x2 += d * d / want
	}
	return x2
}

// chiSquareLimit is far in the upper tail of the chi-square distribution with
// df degrees of freedom (mean df, standard deviation sqrt(2 df)): about seven
// standard deviations, so only a real defect trips it. The seeds are fixed,
// so the tests cannot flake either way.
func chiSquareLimit(df int) float64 {
	return float64(df) + 7*math.Sqrt(2*float64(df))
}

// TestStreamUniform is a sanity check of uniformity along one stream, and
// across streams: the first draws of many replications, of many seeds and of
// many components, where a weak seed derivation would show first.
func TestStreamUniform(t *testing.T) {
	const k = 64
	limit := chiSquareLimit(k - 1)
	check := func(name string, x2 float64) {
		t.Helper()
		t.Logf("%s: chi-square %.1f (%d bins, limit %.1f)", name, x2, k, limit)
		if x2 > limit {
			t.Errorf("%s: chi-square %.1f with %d bins exceeds %.1f", name, x2, k, limit)
		}
	}
	for _, comp := range []string{"workload/arrivals", "x"} {
		r := Stream(7, comp, 0)
		check("along "+comp, chiSquare(k, 100_000, r.Float64))
	}
	rep, seed, comp := 0, uint64(0), 0
	check("across replications", chiSquare(k, 20_000, func() float64 {
		rep++
		return Stream(7, "workload/arrivals", rep).Float64()
	}))
	check("across seeds", chiSquare(k, 20_000, func() float64 {
		seed++
		return Stream(seed, "workload/arrivals", 0).Float64()
	}))
	check("across components", chiSquare(k, 20_000, func() float64 {
		comp++
		return Stream(7, fmt.Sprintf("gpu/%d", comp), 0).Float64()
	}))
}
