package plan

import (
	"fmt"
	"math"
	"sort"
	"sync"
)

// A point is a candidate: one value index per knob.
type point []int

// outcome is what evaluating a candidate found: whether it holds (at the
// stated confidence) and its mean cost.
type outcome struct {
	holds bool
	cost  float64
}

// oracle evaluates candidates for the search.
type oracle interface {
	// eval evaluates one round's candidates, in order. The result may not
	// depend on how the evaluations are spread over processors.
	eval(pts []point) ([]outcome, error)
	// lowerBound is a cost the candidate costs at least (its fixed prices
	// and the GPU-hours it provisions). Along a monotone knob it must not
	// fall as the value grows.
	lowerBound(p point) float64
}

// space is the candidate space: each knob's number of values, and which
// knobs are monotone (a later value never makes a constraint worse).
type space struct {
	sizes []int
	mono  []bool
	// unimodal says the cost along a monotone knob, above the smallest
	// value that holds, falls and then rises, never falls again (token
	// savings from more capacity diminish): the scan upward stops after
	// two rises in a row. Without it the scan goes on while the lower
	// bound allows.
	unimodal bool
}

// index is the candidate's position in the canonical order (the first
// knob varying slowest), which breaks cost ties.
func (s space) index(p point) int {
	k := 0
	for i, v := range p {
		k = k*s.sizes[i] + v
	}
	return k
}

// size is the number of candidates.
func (s space) size() int {
	n := 1
	for _, m := range s.sizes {
		n *= m
	}
	return n
}

// searchResult is what a search found.
type searchResult struct {
	best      point // nil when nothing holds
	bestCost  float64
	evaluated []point // in the order they were evaluated
	holds     []bool
	rounds    int
}

// best is the cheapest holding candidate so far; ties go to the lower
// index.
type best struct {
	cost  float64
	index int
}

func (b best) beats(cost float64, index int) bool {
	return cost < b.cost || (cost == b.cost && index < b.index)
}

// search finds the cheapest candidate that holds, exploiting structure:
//
//   - the non-monotone knobs are enumerated, each combination a lane;
//   - within a lane, for each combination of all monotone knobs but the
//     last (in increasing order), the smallest value of the last that
//     holds is found by galloping (0, 1, 3, 7, ...) and bisection; a
//     combination above one already solved starts below that one's answer,
//     and values below an answer are known to fail;
//   - above that smallest value, values are evaluated for their cost only
//     while their lower bound is below the best cost found: a candidate
//     whose fixed and GPU cost alone is dearer than one that holds is never
//     simulated;
//   - a candidate with one step more of a monotone knob than one that
//     holds, at the same lower bound, is excess and never a candidate:
//     capacity that adds no fixed or GPU cost (a client's concurrency, a
//     free rate limit) is taken at its smallest value that holds, not
//     bought for differences in token costs.
//
// Lanes advance in rounds: each asks for one candidate, the round's
// candidates are evaluated together (so they can run in parallel), and the
// best cost is updated in lane order. The result is a function of the
// space and the oracle's answers alone. exclude lists candidates to treat
// as failing (winners that failed their re-check); by monotonicity, so do
// those with less of every monotone knob.
func search(sp space, or oracle, exclude []point) (*searchResult, error) {
	return searchLanes(sp, or, exclude, nil)
}

// searchLanes is search over the lanes keep accepts (by index, in the
// canonical order of the non-monotone knobs' combinations); nil keeps all.
func searchLanes(sp space, or oracle, exclude []point, keep func(lane int) bool) (*searchResult, error) {
	var cat, mono []int
	for i, m := range sp.mono {
		if m {
			mono = append(mono, i)
		} else {
			cat = append(cat, i)
		}
	}
	// The monotone knob with the most values is the one searched by
	// galloping, bisection and the cost scan; the others are walked.
	if len(mono) > 1 {
		big := 0
		for i, k := range mono {
			if sp.sizes[k] > sp.sizes[mono[big]] {
				big = i
			}
		}
		mono = append(append(append([]int(nil), mono[:big]...), mono[big+1:]...), mono[big])
	}
	combos := product(sp.sizes, cat)
	co := &coordinator{sp: sp, or: or, exclude: exclude, cur: best{cost: math.Inf(1), index: math.MaxInt}}
	var lanes []*lane
	for i, c := range combos {
		if keep != nil && !keep(i) {
			continue
		}
		base := make(point, len(sp.sizes))
		for j, k := range cat {
			base[k] = c[j]
		}
		lanes = append(lanes, &lane{co: co, sp: sp, base: base, mono: mono, ask: make(chan request), reply: make(chan reply), seen: map[int]outcome{}})
	}
	return co.run(lanes)
}

// product lists every combination of the knobs' value indices (the first
// varying slowest).
func product(sizes []int, knobs []int) [][]int {
	out := [][]int{{}}
	for _, k := range knobs {
		var next [][]int
		for _, c := range out {
			for v := 0; v < sizes[k]; v++ {
				next = append(next, append(append([]int(nil), c...), v))
			}
		}
		out = next
	}
	return out
}

type reply struct {
	out  outcome
	best best
}

// coordinator runs the lanes round by round.
type coordinator struct {
	sp      space
	or      oracle
	exclude []point
	cur     best
	res     searchResult
}

func (co *coordinator) run(lanes []*lane) (*searchResult, error) {
	var wg sync.WaitGroup
	for _, l := range lanes {
		wg.Add(1)
		go func(l *lane) {
			defer wg.Done()
			defer close(l.ask)
			l.run(co.cur)
			l.ask <- request{props: l.props} // done: the last proposals
		}(l)
	}
	active := lanes
	var err error
	for len(active) > 0 {
		var pts []point
		var asking []*lane
		for _, l := range active {
			rq, ok := <-l.ask
			if !ok {
				continue
			}
			for _, pr := range rq.props { // in lane order: deterministic
				if co.cur.beats(pr.cost, co.sp.index(pr.p)) {
					co.cur = best{cost: pr.cost, index: co.sp.index(pr.p)}
					co.res.best, co.res.bestCost = pr.p, pr.cost
				}
			}
			if rq.p == nil {
				<-l.ask // wait for it to close
				continue
			}
			pts = append(pts, rq.p)
			asking = append(asking, l)
		}
		if len(pts) == 0 {
			break
		}
		var outs []outcome
		if err == nil {
			outs, err = co.or.eval(pts)
		}
		if err != nil {
			outs = make([]outcome, len(pts)) // let the lanes finish; nothing holds
		} else {
			co.res.rounds++
		}
		for i, p := range pts {
			if co.excluded(p) {
				outs[i].holds = false
			}
			if err == nil {
				co.res.evaluated = append(co.res.evaluated, append(point(nil), p...))
				co.res.holds = append(co.res.holds, outs[i].holds)
			}
		}
		for i, l := range asking {
			if err != nil {
				l.stop = true
			}
			l.reply <- reply{out: outs[i], best: co.cur}
		}
		active = asking
	}
	wg.Wait()
	if err != nil {
		return nil, err
	}
	return &co.res, nil
}

// request is what a lane sends each round: a candidate to evaluate (nil
// when the lane is done) and the candidates it evaluated that hold and
// may win (none is excess), for the best cost.
type request struct {
	p     point
	props []proposal
}

type proposal struct {
	p    point
	cost float64
}

// excluded reports whether p is an excluded candidate or has less of every
// monotone knob than one (and the same other values).
func (co *coordinator) excluded(p point) bool {
	for _, e := range co.exclude {
		below := true
		for i, v := range p {
			if co.sp.mono[i] && v > e[i] || !co.sp.mono[i] && v != e[i] {
				below = false
				break
			}
		}
		if below {
			return true
		}
	}
	return false
}

// lane searches the monotone knobs for one combination of the others.
type lane struct {
	co    *coordinator
	sp    space
	base  point
	mono  []int
	ask   chan request
	reply chan reply
	best  best
	stop  bool
	seen  map[int]outcome // evaluated, by index
	props []proposal      // to send with the next request
}

// eval asks the coordinator to evaluate p in the next round.
func (l *lane) eval(p point) outcome {
	l.ask <- request{p: append(point(nil), p...), props: l.props}
	l.props = nil
	r := <-l.reply
	l.best = r.best
	l.seen[l.sp.index(p)] = r.out
	return r.out
}

// propose offers a candidate that holds and is not excess as the best.
func (l *lane) propose(p point, o outcome) {
	if o.holds {
		l.props = append(l.props, proposal{append(point(nil), p...), o.cost})
	}
}

// pruned reports whether p's lower bound already rules it out.
func (l *lane) pruned(p point) bool {
	lb := l.co.or.lowerBound(p)
	return !l.best.beats(lb, l.sp.index(p))
}

func (l *lane) run(start best) {
	l.best = start
	p := append(point(nil), l.base...)
	if len(l.mono) == 0 {
		if !l.pruned(p) {
			l.propose(p, l.eval(p))
		}
		return
	}
	last := l.mono[len(l.mono)-1]
	n := l.sp.sizes[last]
	rest := l.mono[:len(l.mono)-1]
	// thr holds, for every combination of the other monotone knobs solved
	// so far, the smallest value of the last that holds (n: none does).
	thr := map[string]int{}
	key := func(t []int) string { return fmt.Sprint(t) }
	var solved [][]int
	// Combinations in order of their lower bound, cheapest first, so that a
	// good best is found early (ties in canonical order, which keeps every
	// combination after those it dominates).
	tuples := product(l.sp.sizes, rest)
	floors := make([]float64, len(tuples))
	for i, t := range tuples {
		q := append(point(nil), l.base...)
		for j, k := range rest {
			q[k] = t[j]
		}
		q[last] = 0
		floors[i] = l.co.or.lowerBound(q)
	}
	order := make([]int, len(tuples))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return floors[order[a]] < floors[order[b]] })
	for _, ti := range order {
		t := tuples[ti]
		if l.stop {
			return
		}
		for j, k := range rest {
			p[k] = t[j]
		}
		p[last] = 0
		if l.pruned(p) {
			continue // nothing in this combination is cheap enough
		}
		// Every combination at or below t in each knob that was solved
		// bounds t's answer from above: t has at least as much of each.
		hi := n
		for _, s := range solved {
			if dominates(t, s) {
				hi = min(hi, thr[key(s)])
			}
		}
		lo, up, upHolds := -1, hi, hi < n
		step := 1
		proposed := map[int]bool{}
		for up-lo > 1 && !l.stop {
			var at int
			if up == n { // no upper end yet: gallop, 0, 1, 3, 7, ...
				at = min(n-1, step-1)
				step *= 2
			} else {
				at = lo + (up-lo)/2
			}
			p[last] = at
			if l.pruned(p) {
				up, upHolds = at, false
				continue
			}
			o := l.eval(p)
			if o.holds {
				up, upHolds = at, true
				// It may win now unless one step less of the last knob costs
				// the same to provide (then it may be excess: see below).
				if at == 0 || l.co.or.lowerBound(withLast(p, last, at-1)) != l.co.or.lowerBound(p) {
					if !l.excess(p, last, n, rest, t, thr, key) {
						l.propose(p, o)
						proposed[l.sp.index(p)] = true
					}
				}
			} else {
				lo = at
			}
		}
		if !upHolds {
			if up == n { // nothing holds (a cost cut leaves it unknown)
				thr[key(t)] = n
				solved = append(solved, append([]int(nil), t...))
			}
			continue
		}
		thr[key(t)] = up
		solved = append(solved, append([]int(nil), t...))
		// What the threshold search evaluated at or above the threshold may
		// win, unless it is excess.
		for v := up; v < n; v++ {
			p[last] = v
			if o, ok := l.seen[l.sp.index(p)]; ok && !proposed[l.sp.index(p)] && !l.excess(p, last, up, rest, t, thr, key) {
				l.propose(p, o)
			}
		}
		// Above the smallest value that holds every value holds; they are
		// evaluated only for their cost, while it may still beat the best,
		// and only when they cost more to provide than a candidate with
		// one step less of a monotone knob that holds too: capacity that
		// adds no fixed or GPU cost is not bought for its token costs.
		p[last] = up
		floor := l.co.or.lowerBound(p)
		p[last] = n - 1
		flat := l.co.or.lowerBound(p) == floor
		prev, rises := math.NaN(), 0
		for v := up; v < n && !l.stop; v++ {
			if v > up && flat {
				break // the last knob adds nothing to the bound: every value above is excess
			}
			p[last] = v
			o, ok := l.seen[l.sp.index(p)]
			if !ok {
				if l.pruned(p) {
					break
				}
				if l.excess(p, last, up, rest, t, thr, key) {
					continue
				}
				o = l.eval(p)
				l.propose(p, o)
			}
			// With a unimodal cost, once it has risen it only rises: two
			// rises in a row end the scan (one could be sampling noise).
			if o.holds && l.sp.unimodal {
				if o.cost > prev {
					rises++
				} else {
					rises = 0
				}
				prev = o.cost
				if rises >= 2 {
					break
				}
			}
		}
	}
}

// withLast is p with knob last set to v (a copy).
func withLast(p point, last, v int) point {
	q := append(point(nil), p...)
	q[last] = v
	return q
}

// excess reports whether p has one step more of some monotone knob than a
// candidate that holds and has the same lower bound: more capacity for
// nothing in fixed or GPU cost, which the search does not buy.
func (l *lane) excess(p point, last, up int, rest []int, t []int, thr map[string]int, key func([]int) string) bool {
	lb := l.co.or.lowerBound(p)
	if v := p[last]; v > up && l.co.or.lowerBound(withLast(p, last, v-1)) == lb {
		return true
	}
	for j, k := range rest {
		if t[j] == 0 {
			continue
		}
		below := append([]int(nil), t...)
		below[j]--
		th, ok := thr[key(below)]
		if !ok || p[last] < th {
			continue // not known to hold
		}
		q := append(point(nil), p...)
		q[k]--
		if l.co.or.lowerBound(q) == lb {
			return true
		}
	}
	return false
}

// dominates reports whether a ≥ b in every coordinate.
func dominates(a, b []int) bool {
	for i := range a {
		if a[i] < b[i] {
			return false
		}
	}
	return true
}

// exhaustive evaluates every candidate, for tests: the cheapest that
// holds, among those that are not excess (one step more of a monotone
// knob than a candidate that holds, for the same lower bound).
func exhaustive(sp space, or oracle) (*searchResult, error) {
	res := &searchResult{}
	cur := best{cost: math.Inf(1), index: math.MaxInt}
	for i := 0; i < sp.size(); i++ {
		p := make(point, len(sp.sizes))
		k := i
		for j := len(p) - 1; j >= 0; j-- {
			p[j] = k % sp.sizes[j]
			k /= sp.sizes[j]
		}
		o, err := or.eval([]point{p})
		if err != nil {
			return nil, err
		}
		res.evaluated = append(res.evaluated, p)
		res.holds = append(res.holds, o[0].holds)
		excess := false
		for j, m := range sp.mono {
			if !m || p[j] == 0 {
				continue
			}
			q := append(point(nil), p...)
			q[j]--
			oq, err := or.eval([]point{q})
			if err != nil {
				return nil, err
			}
			if oq[0].holds && or.lowerBound(q) == or.lowerBound(p) {
				excess = true
			}
		}
		if o[0].holds && !excess && cur.beats(o[0].cost, i) {
			cur = best{cost: o[0].cost, index: i}
			res.best, res.bestCost = p, o[0].cost
		}
	}
	return res, nil
}
