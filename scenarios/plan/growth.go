package plan

import "math"

// loadProbe evaluates the scenario with every workload's demand multiplied
// by factor: whether every constraint holds, and the smallest score (the
// log of the allowed amount over the measured one, > 0 when it holds).
type loadProbe func(factor float64) (holds bool, score float64, err error)

// growthStep is one factor tried.
type growthStep struct {
	factor float64
	holds  bool
	score  float64
}

// growthResult brackets the largest factor that holds: lo holds, hi fails,
// hi/lo ≤ 1 + precision, unless capped (maxFactor held) or !holds (even
// 1/maxFactor failed).
type growthResult struct {
	lo, hi float64
	holds  bool
	capped bool
	steps  []growthStep
}

// gallop is the factor galloping multiplies or divides by until the
// bracket is found.
const gallop = 4

// growth finds the largest demand factor that holds, assuming that more
// demand never helps: from 1 it gallops by 4 (up while it holds, down
// while it fails) to bracket the answer, then narrows the bracket in log
// space with the ITP method (Oliveira and Takahashi, 2020): interpolate on
// the scores, truncate, and project into the bisection's guarantee, so it
// needs at most one evaluation more than bisection and far fewer when the
// scores are smooth.
func growth(probe loadProbe, maxFactor, precision float64) (*growthResult, error) {
	res := &growthResult{}
	try := func(k float64) (bool, float64, error) {
		h, s, err := probe(k)
		if err != nil {
			return false, 0, err
		}
		// The score's sign decides nothing; holds does.
		if h && s < 0 || !h && s >= 0 {
			s = 0
			if !h {
				s = -1e-9
			}
		}
		res.steps = append(res.steps, growthStep{k, h, s})
		return h, s, nil
	}
	h, s, err := try(1)
	if err != nil {
		return nil, err
	}
	lo, hi, slo, shi := 1.0, 1.0, s, s
	if h {
		for {
			k := math.Min(lo*gallop, maxFactor)
			if k <= lo {
				res.lo, res.hi, res.holds, res.capped = lo, lo, true, true
				return res, nil
			}
			ok, sk, err := try(k)
			if err != nil {
				return nil, err
			}
			if !ok {
				hi, shi = k, sk
				break
			}
			lo, slo = k, sk
		}
	} else {
		for {
			k := math.Max(hi/gallop, 1/maxFactor)
			if k >= hi {
				res.lo, res.hi, res.holds = hi, hi, false
				return res, nil
			}
			ok, sk, err := try(k)
			if err != nil {
				return nil, err
			}
			if ok {
				lo, slo = k, sk
				break
			}
			hi, shi = k, sk
		}
	}
	// ITP on g(x) = −score at x = ln factor: g(a) ≤ 0 < g(b).
	a, b := math.Log(lo), math.Log(hi)
	ga, gb := -slo, -shi
	eps := math.Log1p(precision) / 2
	nHalf := math.Ceil(math.Log2((b - a) / (2 * eps)))
	nMax := nHalf + 1
	k1, k2 := 0.2/(b-a), 2.0
	for j := 0.0; b-a > 2*eps; j++ {
		half := (a + b) / 2
		r := eps*math.Pow(2, nMax-j) - (b-a)/2
		delta := k1 * math.Pow(b-a, k2)
		xf := half
		if gb != ga {
			xf = (a*gb - b*ga) / (gb - ga)
		}
		sigma := math.Copysign(1, half-xf)
		xt := half
		if delta <= math.Abs(half-xf) {
			xt = xf + sigma*delta
		}
		x := half - sigma*r
		if math.Abs(xt-half) <= r {
			x = xt
		}
		x = math.Min(math.Max(x, a), b)
		if x == a || x == b {
			x = half
		}
		ok, sx, err := try(math.Exp(x))
		if err != nil {
			return nil, err
		}
		if ok {
			a, ga = x, -sx
		} else {
			b, gb = x, -sx
		}
	}
	res.lo, res.hi, res.holds = math.Exp(a), math.Exp(b), true
	return res, nil
}
