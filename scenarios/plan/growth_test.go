package plan

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// growth brackets the largest factor that holds to the precision asked,
// for any threshold: with scores that carry information (a smooth log
// ratio) and with scores that carry none (a step: only the sign).
func TestGrowthBrackets(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		star := math.Exp(rapid.Float64Range(math.Log(0.02), math.Log(50)).Draw(t, "k*"))
		smooth := rapid.Bool().Draw(t, "smooth")
		probe := func(k float64) (bool, float64, error) {
			s := math.Log(star / k)
			if !smooth {
				s = math.Copysign(1, s)
			}
			return k <= star, s, nil
		}
		r, err := growth(probe, 100, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		if !r.holds || r.capped || r.lo > star || r.hi <= star || r.hi/r.lo > 1.01+1e-12 {
			t.Fatalf("k* %v: bracket [%v, %v] holds %v capped %v", star, r.lo, r.hi, r.holds, r.capped)
		}
		// From 1 to the bracket by factors of 4, then at most one more
		// step than bisection of the bracket to 1%.
		gallops := int(math.Ceil(math.Abs(math.Log(star)) / math.Log(gallop)))
		if gallops == 0 {
			gallops = 1
		}
		bisect := int(math.Ceil(math.Log2(math.Log(gallop) / math.Log1p(0.01))))
		if n := len(r.steps); n > 1+gallops+bisect+1 {
			t.Fatalf("k* %v: %d evaluations, bound %d", star, n, 1+gallops+bisect+1)
		}
	})
}

// Within the growth headroom planners meet (up to 16×) the search
// converges to 1% in at most 12 evaluations, and in far fewer when the
// margins are smooth.
func TestGrowthEvaluations(t *testing.T) {
	worst, worstSmooth := 0, 0
	for star := 1.05; star < 16; star *= 1.07 {
		for _, smooth := range []bool{false, true} {
			probe := func(k float64) (bool, float64, error) {
				s := math.Log(star / k)
				if !smooth {
					s = math.Copysign(1, s)
				}
				return k <= star, s, nil
			}
			r, _ := growth(probe, 100, 0.01)
			if smooth {
				worstSmooth = max(worstSmooth, len(r.steps))
			} else {
				worst = max(worst, len(r.steps))
			}
		}
	}
	t.Logf("worst %d, smooth %d", worst, worstSmooth)
	if worst > 12 || worstSmooth > 8 {
		t.Errorf("at most %d evaluations with sign-only scores, %d with smooth ones", worst, worstSmooth)
	}
	// Capped and failing ends.
	r, _ := growth(func(k float64) (bool, float64, error) { return true, 1, nil }, 100, 0.01)
	if !r.capped || r.lo != 100 {
		t.Errorf("always holds: %+v", r)
	}
	r, _ = growth(func(k float64) (bool, float64, error) { return false, -1, nil }, 100, 0.01)
	if r.holds || r.lo != 0.01 {
		t.Errorf("never holds: %+v", r)
	}
}
