package plan

import (
	"reflect"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// fakeOracle is a candidate space with monotone feasibility along the
// monotone knobs (a weighted sum against a threshold that depends on the
// other knobs) and a cost of a lower bound that never falls along them
// plus an arbitrary extra (token costs), so the exact answer is known by
// exhaustive search.
type fakeOracle struct {
	sp      space
	weights []float64 // per knob; 0 for the non-monotone ones
	thresh  map[int]float64
	lbPer   []float64 // lower-bound cost per unit of each knob
	catCost map[int]float64
	extra   map[int]float64
	convex  []float64 // with unimodal: a cost of convex[i]/(1+v) per monotone knob
	mu      sync.Mutex
	calls   int
}

func (f *fakeOracle) catKey(p point) int {
	k := 0
	for i, v := range p {
		if !f.sp.mono[i] {
			k = k*f.sp.sizes[i] + v
		} else {
			k *= f.sp.sizes[i]
		}
	}
	return k
}

func (f *fakeOracle) holds(p point) bool {
	s := 0.0
	for i, v := range p {
		s += f.weights[i] * float64(v)
	}
	return s >= f.thresh[f.catKey(p)]
}

func (f *fakeOracle) lowerBound(p point) float64 {
	lb := f.catCost[f.catKey(p)]
	for i, v := range p {
		lb += f.lbPer[i] * float64(v)
	}
	return lb
}

func (f *fakeOracle) eval(pts []point) ([]outcome, error) {
	f.mu.Lock()
	f.calls += len(pts)
	f.mu.Unlock()
	out := make([]outcome, len(pts))
	for i, p := range pts {
		c := f.lowerBound(p)
		if f.convex != nil {
			for j, v := range p {
				c += f.convex[j] / float64(1+v)
			}
		} else {
			c += f.extra[f.sp.index(p)]
		}
		out[i] = outcome{holds: f.holds(p), cost: c}
	}
	return out, nil
}

func genOracle(t *rapid.T) *fakeOracle {
	n := rapid.IntRange(1, 4).Draw(t, "knobs")
	f := &fakeOracle{thresh: map[int]float64{}, catCost: map[int]float64{}, extra: map[int]float64{}}
	for i := 0; i < n; i++ {
		f.sp.sizes = append(f.sp.sizes, rapid.IntRange(1, 9).Draw(t, "size"))
		m := rapid.Bool().Draw(t, "monotone")
		f.sp.mono = append(f.sp.mono, m)
		w, c := 0.0, 0.0
		if m {
			w = float64(rapid.IntRange(0, 3).Draw(t, "weight"))
			c = float64(rapid.IntRange(0, 4).Draw(t, "unit cost"))
		}
		f.weights = append(f.weights, w)
		f.lbPer = append(f.lbPer, c)
	}
	for k := 0; k < f.sp.size(); k++ {
		f.thresh[k] = float64(rapid.IntRange(0, 30).Draw(t, "threshold"))
		f.catCost[k] = float64(rapid.IntRange(0, 20).Draw(t, "fixed"))
		f.extra[k] = float64(rapid.IntRange(0, 12).Draw(t, "extra"))
	}
	return f
}

// The structured search returns exactly what evaluating every candidate
// returns (the cheapest that holds, ties to the lower index), on random
// small spaces, and evaluates no candidate twice.
func TestSearchEqualsExhaustive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := genOracle(t)
		want, err := exhaustive(f.sp, f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := search(f.sp, f, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.best, want.best) || got.bestCost != want.bestCost {
			t.Fatalf("search found %v (cost %v), exhaustive %v (cost %v)", got.best, got.bestCost, want.best, want.bestCost)
		}
		seen := map[int]bool{}
		for _, p := range got.evaluated {
			if seen[f.sp.index(p)] {
				t.Fatalf("%v evaluated twice", p)
			}
			seen[f.sp.index(p)] = true
		}
		// Deterministic: the same space gives the same evaluations in the
		// same order.
		again, _ := search(f.sp, f, nil)
		if !reflect.DeepEqual(again.evaluated, got.evaluated) {
			t.Fatal("a second search evaluated other candidates")
		}
		// Excluding the winner (a failed re-check) gives the exhaustive answer
		// of a space where it, and every candidate it dominates, fails.
		if want.best != nil {
			g2, _ := search(f.sp, f, []point{want.best})
			w2, _ := exhaustive(f.sp, &excluding{f, want.best})
			if !reflect.DeepEqual(g2.best, w2.best) {
				t.Fatalf("excluding %v: search %v, exhaustive %v", want.best, g2.best, w2.best)
			}
		}
	})
}

// With a cost that is unimodal along every monotone knob (a lower bound
// rising linearly plus token savings that diminish, a/(1+v)), the search
// that stops raising a knob once its cost rises twice returns exactly the
// exhaustive answer.
func TestUnimodalSearchEqualsExhaustive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := genOracle(t)
		f.sp.unimodal = true
		for _, m := range f.sp.mono {
			a := 0.0
			if m {
				a = float64(rapid.IntRange(0, 40).Draw(t, "savings"))
			}
			f.convex = append(f.convex, a)
		}
		want, _ := exhaustive(f.sp, f)
		got, err := search(f.sp, f, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.best, want.best) || got.bestCost != want.bestCost {
			t.Fatalf("search found %v (cost %v), exhaustive %v (cost %v)", got.best, got.bestCost, want.best, want.bestCost)
		}
	})
}

// On one monotone knob of 64 values with three categorical choices, the
// search evaluates a small fraction of the candidates.
func TestSearchUsesFewEvaluations(t *testing.T) {
	f := &fakeOracle{sp: space{sizes: []int{3, 64}, mono: []bool{false, true}}, weights: []float64{0, 1}, lbPer: []float64{0, 10},
		thresh: map[int]float64{}, catCost: map[int]float64{}, extra: map[int]float64{}}
	for c, thr := range []float64{20, 5, 40} {
		for v := 0; v < 64; v++ {
			f.thresh[c*64+v] = thr
			f.extra[c*64+v] = 30
		}
		f.catCost[c*64] = 0
	}
	got, err := search(f.sp, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.best, point{1, 5}) {
		t.Fatalf("best %v, want [1 5]", got.best)
	}
	if len(got.evaluated) > 20 {
		t.Errorf("%d evaluations of 192 candidates", len(got.evaluated))
	}
}

// excluding is an oracle in which ex, and every candidate with the same
// non-monotone values and no more of any monotone knob, fails.
type excluding struct {
	*fakeOracle
	ex point
}

func (e *excluding) eval(pts []point) ([]outcome, error) {
	out, _ := e.fakeOracle.eval(pts)
	for i, p := range pts {
		if dominatedBy(e.sp, p, e.ex) {
			out[i].holds = false
		}
	}
	return out, nil
}
