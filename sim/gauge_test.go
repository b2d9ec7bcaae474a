package sim

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

func TestGaugeHandComputed(t *testing.T) {
	var g Gauge
	mark := func(at, wantMean, wantMax float64) {
		t.Helper()
		mean, mx := g.Mark(at)
		if math.Abs(mean-wantMean) > 1e-12 || mx != wantMax {
			t.Fatalf("Mark(%v) = mean %v, max %v; want %v, %v", at, mean, mx, wantMean, wantMax)
		}
	}

	// Span [0, 6]: 0 until 1, 2 until 3, 5 until 4, 1 until 6.
	// Area 0*1 + 2*2 + 5*1 + 1*2 = 11.
	g.Set(1, 2)
	g.Set(3, 5)
	g.Add(4, -4)
	if g.Level() != 1 {
		t.Fatalf("Level = %v, want 1", g.Level())
	}
	mark(6, 11.0/6, 5)

	// Span [6, 10]: 1 until 7, 0 until 9, 3 until 10. Area 1 + 0 + 3 = 4.
	// The level carried in from the previous span (1) is part of this one.
	g.Set(7, 0)
	g.Set(9, 3)
	mark(10, 1, 3)

	// An empty span reports the current level as its mean.
	mark(10, 3, 3)

	// A span with no change holds the level throughout.
	mark(12, 3, 3)

	// Span [12, 14]: the level is 3 at its start and drops to 1 at once,
	// so its mean is 1, while its max counts the level it started with.
	g.Set(12, 1)
	mark(14, 1, 3)

	// Span [14, 20]: several changes at one instant count only the last
	// for the mean, but every level reached for the max.
	g.Add(15, 4)  // 5
	g.Add(15, 10) // 15, for no time at all
	g.Set(15, 2)
	g.Add(18, -2) // 0
	// Area 1*1 + 2*3 + 0*2 = 7 over 6 s.
	mark(20, 7.0/6, 15)
}

func TestGaugeZero(t *testing.T) {
	var g Gauge
	if mean, mx := g.Mark(0); mean != 0 || mx != 0 {
		t.Fatalf("zero gauge Mark(0) = %v, %v", mean, mx)
	}
	if mean, mx := g.Mark(5); mean != 0 || mx != 0 {
		t.Fatalf("zero gauge Mark(5) = %v, %v", mean, mx)
	}
}

// TestGaugeMatchesReference compares the gauge with a direct computation
// over random step functions with integer times and levels, where float64
// arithmetic is exact.
func TestGaugeMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var g Gauge
		now, level, lastChange := 0.0, 0.0, 0.0
		spanStart, area, mx := 0.0, 0.0, 0.0
		for range rapid.IntRange(0, 60).Draw(t, "steps") {
			now += float64(rapid.IntRange(0, 5).Draw(t, "dt"))
			if rapid.IntRange(0, 4).Draw(t, "op") == 0 {
				area += level * (now - lastChange)
				wantMean := level
				if span := now - spanStart; span > 0 {
					wantMean = area / span
				}
				mean, gotMax := g.Mark(now)
				if mean != wantMean || gotMax != mx {
					t.Fatalf("Mark(%v) = %v, %v; want %v, %v", now, mean, gotMax, wantMean, mx)
				}
				spanStart, lastChange, area, mx = now, now, 0, level
				continue
			}
			next := float64(rapid.IntRange(0, 20).Draw(t, "level"))
			area += level * (now - lastChange)
			lastChange = now
			if rapid.Bool().Draw(t, "add") {
				g.Add(now, next-level)
			} else {
				g.Set(now, next)
			}
			level = next
			mx = math.Max(mx, level)
			if g.Level() != level {
				t.Fatalf("Level = %v, want %v", g.Level(), level)
			}
		}
	})
}

func TestGaugeIntegralSurvivesMark(t *testing.T) {
	var g Gauge
	g.Set(0, 2)
	g.Set(3, 5) // 6 so far
	g.Mark(4)   // +5 = 11
	at4 := g.Integral(4)
	g.Set(6, 1) // +10 = 21
	if got := g.Integral(8); got != 23 {
		t.Fatalf("integral to 8 = %v, want 23", got)
	}
	if mean := (g.Integral(8) - at4) / 4; mean != 3 {
		t.Fatalf("mean over [4, 8] = %v, want 3", mean)
	}
}
