package perf

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Param names a fitted roofline parameter.
type Param uint8

// The roofline's fitted parameters.
const (
	ParamComputeEff Param = iota
	ParamBandwidthEff
	ParamOverhead
	ParamOverheadPerLayer
	ParamOverheadPerSeq
	ParamCollectiveLatency
	ParamInterconnectEff
	ParamElementwiseEff
	numParams
)

var paramNames = [numParams]string{"compute_efficiency", "bandwidth_efficiency", "overhead", "overhead_per_layer",
	"overhead_per_seq", "collective_latency", "interconnect_efficiency", "elementwise_efficiency"}

// String is the parameter's scenario key, e.g. "compute_efficiency".
func (p Param) String() string {
	if p < numParams {
		return paramNames[p]
	}
	return fmt.Sprintf("Param(%d)", p)
}

// IsTime reports whether the parameter is a duration in seconds (the
// others are fractions).
func (p Param) IsTime() bool { return p >= ParamOverhead && p <= ParamCollectiveLatency }

// get and set read and write a parameter of r.
// Get is p's value in r.
func (p Param) Get(r *Roofline) float64 { return p.get(r) }

func (p Param) get(r *Roofline) float64 {
	switch p {
	case ParamComputeEff:
		return r.computeEff()
	case ParamBandwidthEff:
		return r.bandwidthEff()
	case ParamOverhead:
		return r.Overhead
	case ParamOverheadPerLayer:
		return r.OverheadPerLayer
	case ParamOverheadPerSeq:
		return r.OverheadPerSeq
	case ParamCollectiveLatency:
		return r.CollectiveLatency
	case ParamInterconnectEff:
		return r.interconnectEff()
	case ParamElementwiseEff:
		return r.elementwiseEff()
	}
	return 0
}

func (p Param) set(r *Roofline, v float64) {
	switch p {
	case ParamComputeEff:
		r.ComputeEff = v
	case ParamBandwidthEff:
		r.BandwidthEff = v
	case ParamOverhead:
		r.Overhead = v
	case ParamOverheadPerLayer:
		r.OverheadPerLayer = v
	case ParamOverheadPerSeq:
		r.OverheadPerSeq = v
	case ParamCollectiveLatency:
		r.CollectiveLatency = v
	case ParamInterconnectEff:
		r.InterconnectEff = v
	case ParamElementwiseEff:
		r.ElementwiseEff = v
	}
	r.k = coeffs{}
}

// Bound is where a fitted parameter may lie.
type Bound struct{ Lo, Hi float64 }

// FitOptions chooses what FitRooflineWith fits.
type FitOptions struct {
	// Free lists the parameters to fit; the others keep the start
	// roofline's values. Empty means DefaultFree of the measurements.
	Free []Param
	// Bounds overrides the bounds of FitBounds for some parameters.
	Bounds map[Param]Bound
	// Folds is the number of cross-validation folds (points are dealt to
	// folds in turn; each fold is predicted by a fit to the others). 0 means
	// 5; 1 or fewer points than 2 × Folds means no cross-validation.
	Folds int
}

// AtBound says that a fitted parameter ended on (within 1 % of the range
// from) one of its bounds: the data push it further than the model allows,
// so another term absorbs the rest and the value carries over to other
// setups less well.
type AtBound struct {
	Param Param
	Value float64
	// Upper is true for the upper bound, false for the lower.
	Upper bool
	Bound float64
}

// RooflineFit is the outcome of FitRooflineWith.
type RooflineFit struct {
	// Roofline is the fitted roofline.
	Roofline Roofline
	// Free is what was fitted; Fixed what was held at the start's values
	// because the measurements cannot tell it (see DefaultFree).
	Free, Fixed []Param
	// Zeroed are the fixed parameters set to 0 because the per-step
	// overhead stands for them (see FitRooflineWith).
	Zeroed []Param
	// Points are the in-sample errors of every usable measurement.
	Points []PointError
	// CV are the cross-validated errors: each point predicted by a fit to
	// the folds without it (nil without cross-validation).
	CV []PointError
	// Folds is the number of cross-validation folds used.
	Folds int
	// AtBounds lists the parameters that ended on a bound (with an
	// explicit free set; the default one holds them instead, see Held).
	AtBounds []AtBound
	// Held lists the parameters the default free set would fit but that
	// were held at the start's values, and why (they are in Fixed too).
	Held []Held
}

// HoldReason is why a parameter was held at its start value.
type HoldReason uint8

const (
	// HoldNotComputeBound: no point is compute-bound, so the compute
	// efficiency would be only a bound.
	HoldNotComputeBound HoldReason = iota + 1
	// HoldNotMemoryBound: no point is memory-bound, likewise for the
	// bandwidth efficiency.
	HoldNotMemoryBound
	// HoldTooFewPoints: more parameters than points.
	HoldTooFewPoints
	// HoldOnBound: fitted, it ended on a bound (At), so the data push it
	// past what the model allows and its value would stand for something
	// else; the others were refitted without it.
	HoldOnBound
)

// Held is a parameter held at its start value and why.
type Held struct {
	Param  Param
	Reason HoldReason
	// At is where the fit put it, for HoldOnBound.
	At AtBound
}

// holdOrder is the order in which parameters are held when there are
// more of them than points: the efficiencies first (the catalogue's are
// better known than a few points tell), the per-step overhead last.
var holdOrder = []Param{ParamComputeEff, ParamBandwidthEff, ParamInterconnectEff, ParamCollectiveLatency,
	ParamOverheadPerSeq, ParamElementwiseEff, ParamOverheadPerLayer, ParamOverhead}

// FitBounds returns the default bounds: efficiencies in [0.05, 1], the
// per-step overhead up to the smallest measured step, the per-layer cost up
// to that over the layers, the per-sequence cost up to 1 ms and the
// collective latency up to 50 µs a ring step.
func FitBounds(r Roofline, ms []Measurement) map[Param]Bound {
	small := math.Inf(1)
	for _, m := range ms {
		small = math.Min(small, m.Seconds)
	}
	if math.IsInf(small, 1) {
		small = 1
	}
	layers := float64(max(r.Model.Layers, 1))
	return map[Param]Bound{
		ParamComputeEff:        {0.05, 1},
		ParamBandwidthEff:      {0.05, 1},
		ParamInterconnectEff:   {0.05, 1},
		ParamElementwiseEff:    {0.05, 1},
		ParamOverhead:          {0, small},
		ParamOverheadPerLayer:  {0, small / layers},
		ParamOverheadPerSeq:    {0, 1e-3},
		ParamCollectiveLatency: {0, 50e-6},
	}
}

// DefaultFree is what the measurements can tell apart. Always the two
// efficiencies (one of them only as a bound when every point is in one
// regime) and, when there are whole steps, the per-step overhead. The
// per-sequence cost needs steps of different sizes; the per-layer cost and
// the element-wise efficiency need operator profiles (PartLinear: the
// norms do not shrink with TP as the GEMMs do), else the first is one
// constant with the per-step overhead and the second one term with the
// compute time per token; the
// collective latency and link efficiency need points at more than one
// tensor-parallel degree above 1, else they are constant with the overhead
// (and the latency a ring all-reduce, whose steps grow with TP: a one-shot
// all-reduce's is constant with it at every TP).
func DefaultFree(start Roofline, ms []Measurement) (free, fixed []Param) {
	steps, linear := false, false
	seqs := map[int]bool{}
	tps := map[int]bool{}
	for _, m := range ms {
		if m.Suspect != "" {
			continue
		}
		tp := m.TP
		if tp == 0 {
			tp = max(start.TP, 1)
		}
		if m.Part == PartLinear {
			linear = true
			continue
		}
		steps = true
		seqs[m.Batch.Seqs()] = true
		if tp > 1 {
			tps[tp] = true
		}
	}
	add := func(ok bool, p Param) {
		if ok {
			free = append(free, p)
		} else {
			fixed = append(fixed, p)
		}
	}
	add(true, ParamComputeEff)
	add(true, ParamBandwidthEff)
	add(steps, ParamOverhead)
	add(linear, ParamOverheadPerLayer)
	add(linear, ParamElementwiseEff)
	add(steps && len(seqs) > 1, ParamOverheadPerSeq)
	// A one-shot all-reduce's latency is the same at every TP, one constant
	// with the overhead; a ring's grows with TP.
	ring := len(tps) > 1 && start.AllReduce.hops(start.GPU, 4) != start.AllReduce.hops(start.GPU, 2)
	add(steps && ring, ParamCollectiveLatency)
	add(steps && len(tps) > 1, ParamInterconnectEff)
	return free, fixed
}

// FitRoofline fits start's efficiencies and overheads to the measurements
// (DefaultFree, FitBounds, no cross-validation) and returns the fitted
// roofline and the per-point errors; see FitRooflineWith.
func FitRoofline(start Roofline, ms []Measurement) (Roofline, []PointError, error) {
	f, err := FitRooflineWith(start, ms, FitOptions{Folds: 1})
	if err != nil {
		return Roofline{}, nil, err
	}
	return f.Roofline, f.Points, nil
}

// FitRooflineWith fits the free parameters of start to the measurements by
// minimising the mean squared relative error, (predicted − measured)² /
// measured², with gonum's Nelder–Mead on parameters mapped into their
// bounds by a logistic, from start's values and a small grid of other
// starting points (so a kink cannot trap it), keeping the best. GPU,
// Model, TP and the fixed parameters are kept. A measurement with its own
// TP is predicted at that TP. Suspect measurements are ignored. It reports
// the in-sample errors, the cross-validated ones and the parameters that
// ended on a bound. With the default free set, a held per-layer cost or
// collective latency that the points cannot tell from the per-step
// overhead is set to zero and the overhead fitted takes its place.
func FitRooflineWith(start Roofline, ms []Measurement, o FitOptions) (RooflineFit, error) {
	if err := start.Validate(); err != nil {
		return RooflineFit{}, err
	}
	if start.TP == 0 {
		start.TP = 1
	}
	pts, err := usable(ms)
	if err != nil {
		return RooflineFit{}, err
	}
	free, fixed := o.Free, []Param(nil)
	var zeroed []Param
	var held []Held
	auto := len(free) == 0
	hold := func(p Param, why HoldReason, at AtBound) {
		if i := slices.Index(free, p); i >= 0 {
			free = slices.Delete(free, i, i+1)
			fixed = append(fixed, p)
			held = append(held, Held{Param: p, Reason: why, At: at})
		}
	}
	if auto {
		free, fixed = DefaultFree(start, pts)
		// An efficiency whose regime no point is in is only a bound, and
		// more parameters than points are not determined.
		compute, memory := regimes(start, pts)
		if !compute {
			hold(ParamComputeEff, HoldNotComputeBound, AtBound{})
		}
		if !memory {
			hold(ParamBandwidthEff, HoldNotMemoryBound, AtBound{})
		}
		for _, p := range holdOrder {
			if len(free) > len(pts) {
				hold(p, HoldTooFewPoints, AtBound{})
			}
		}
		// Held per-step costs that the points cannot tell from the
		// per-step overhead start at zero, so the overhead takes all of it
		// rather than hitting its lower bound under the defaults.
		if slices.Contains(free, ParamOverhead) {
			for _, p := range fixed {
				if p == ParamOverheadPerLayer || p == ParamCollectiveLatency {
					p.set(&start, 0)
					zeroed = append(zeroed, p)
				}
			}
		}
	} else {
		in := map[Param]bool{}
		for _, p := range free {
			if p >= numParams || in[p] {
				return RooflineFit{}, fmt.Errorf("perf: fit: parameter %v given twice or unknown", p)
			}
			in[p] = true
		}
		for p := Param(0); p < numParams; p++ {
			if !in[p] {
				fixed = append(fixed, p)
			}
		}
	}
	bounds := FitBounds(start, pts)
	for p, b := range o.Bounds {
		if !(b.Lo <= b.Hi) || math.IsInf(b.Lo, 0) || math.IsInf(b.Hi, 0) {
			return RooflineFit{}, fmt.Errorf("perf: fit: bounds of %v [%g, %g] are not a finite range", p, b.Lo, b.Hi)
		}
		bounds[p] = b
	}
	// With the default free set, a parameter that ends on a bound is held
	// at its start value (the default) and the others refitted, until
	// none does.
	var fitted Roofline
	var ats []AtBound
	for {
		fitted = start
		if len(free) > 0 {
			if fitted, err = fitPoints(start, pts, free, bounds); err != nil {
				return RooflineFit{}, err
			}
		}
		ats = atBounds(&fitted, free, bounds)
		if !auto || len(ats) == 0 {
			break
		}
		for _, a := range ats {
			hold(a.Param, HoldOnBound, a)
		}
	}
	out := RooflineFit{Roofline: fitted, Free: free, Fixed: fixed, Zeroed: zeroed, Points: pointErrors(&fitted, pts), AtBounds: ats, Held: held}
	folds := o.Folds
	if folds == 0 {
		folds = 5
	}
	if folds > 1 && len(pts) >= 2*folds {
		out.Folds = folds
		out.CV = make([]PointError, len(pts))
		for f := 0; f < folds; f++ {
			var train, test []int
			for i := range pts {
				if i%folds == f {
					test = append(test, i)
				} else {
					train = append(train, i)
				}
			}
			tr := make([]Measurement, len(train))
			for i, j := range train {
				tr[i] = pts[j]
			}
			r := start
			if len(free) > 0 {
				r, err = fitPoints(start, tr, free, bounds)
			}
			if err != nil {
				return RooflineFit{}, fmt.Errorf("perf: cross-validation fold %d: %w", f+1, err)
			}
			for _, j := range test {
				out.CV[j] = pointErrors(&r, pts[j:j+1])[0]
			}
		}
	}
	return out, nil
}

// atBounds lists the free parameters of r on (within 1% of the range of)
// a bound.
func atBounds(r *Roofline, free []Param, bounds map[Param]Bound) []AtBound {
	var out []AtBound
	for _, p := range free {
		b := bounds[p]
		v := p.get(r)
		tol := 0.01 * (b.Hi - b.Lo)
		switch {
		case v >= b.Hi-tol:
			out = append(out, AtBound{Param: p, Value: v, Upper: true, Bound: b.Hi})
		case v <= b.Lo+tol:
			out = append(out, AtBound{Param: p, Value: v, Bound: b.Lo})
		}
	}
	return out
}

// regimes reports whether some point is compute-bound and some
// memory-bound at start's efficiencies.
func regimes(start Roofline, pts []Measurement) (compute, memory bool) {
	for _, m := range pts {
		r := start
		if m.TP > 0 {
			r.TP = m.TP
		}
		r.k = coeffs{}
		var c, mem float64
		if m.Part == PartLinear {
			c, mem = r.blockLinear(m.Batch)
		} else {
			c, mem = r.ComputeTime(m.Batch), r.MemoryTime(m.Batch)
		}
		if c > mem {
			compute = true
		} else {
			memory = true
		}
	}
	return compute, memory
}

// unitPoint is a measurement's roofline terms at unit efficiencies and
// zero overheads, which do not depend on the fitted parameters.
type unitPoint struct {
	c, m, ew, attn, kv, comm float64 // linear compute, linear memory, element-wise, prefill attention, KV, link time
	colls, layers, seqs      float64
	linear                   bool
	y                        float64
}

func unitPoints(start Roofline, pts []Measurement) []unitPoint {
	out := make([]unitPoint, len(pts))
	for i, m := range pts {
		u := start
		if m.TP > 0 {
			u.TP = m.TP
		}
		u.ComputeEff, u.BandwidthEff, u.InterconnectEff, u.ElementwiseEff = 1, 1, 1, 1
		u.Overhead, u.OverheadPerLayer, u.OverheadPerSeq, u.CollectiveLatency = 0, 0, 0, 0
		u.k = coeffs{}
		p := u.Parts(m.Batch)
		if m.Part == PartLinear {
			p.LinearCompute, p.LinearMemory = u.blockLinear(m.Batch)
		}
		colls := 0.0
		if u.TP > 1 {
			colls = 2 * float64(u.Model.Layers) * u.AllReduce.hops(u.GPU, float64(u.TP))
		}
		out[i] = unitPoint{c: p.LinearCompute, m: p.LinearMemory, ew: p.Elementwise, attn: p.Attention, kv: p.KV, comm: p.Comm,
			colls: colls, layers: float64(u.Model.Layers), seqs: float64(m.Batch.Seqs()), linear: m.Part == PartLinear, y: m.Seconds}
	}
	return out
}

// fitGroup is measurements of one GPU and model.
type fitGroup struct {
	start Roofline
	pts   []Measurement
}

// fitPoints minimises the mean squared relative error over the free
// parameters.
func fitPoints(start Roofline, pts []Measurement, free []Param, bounds map[Param]Bound) (Roofline, error) {
	return fitGroups([]fitGroup{{start, pts}}, free, bounds)
}

// fitGroups fits one set of parameters to measurements of several GPUs and
// models; the fixed parameters and the knee are the first group's.
func fitGroups(groups []fitGroup, free []Param, bounds map[Param]Bound) (Roofline, error) {
	start := groups[0].start
	var up []unitPoint
	for _, g := range groups {
		up = append(up, unitPoints(g.start, g.pts)...)
	}
	var v [numParams]float64
	for p := Param(0); p < numParams; p++ {
		v[p] = p.get(&start)
	}
	smooth := start.SmoothKnee
	decode := func(x []float64) [numParams]float64 {
		w := v
		for i, p := range free {
			b := bounds[p]
			w[p] = b.Lo + (b.Hi-b.Lo)/(1+math.Exp(-math.Max(math.Min(x[i], 40), -40)))
		}
		return w
	}
	obj := func(x []float64) float64 {
		w := decode(x)
		ce, be, ie, ee := w[ParamComputeEff], w[ParamBandwidthEff], w[ParamInterconnectEff], w[ParamElementwiseEff]
		var s float64
		for i := range up {
			q := &up[i]
			c, m := q.c/ce, q.m/be
			lin := math.Max(c, m)
			if smooth {
				lin = math.Sqrt(c*c + m*m)
			}
			t := lin + q.ew/ee + q.layers*w[ParamOverheadPerLayer]
			if !q.linear {
				t += w[ParamOverhead] + q.seqs*w[ParamOverheadPerSeq] + q.attn/ce + q.kv/be + q.colls*w[ParamCollectiveLatency] + q.comm/ie
			}
			e := (t - q.y) / q.y
			s += e * e
		}
		return s / float64(len(up))
	}
	inv := func(p Param, val float64) float64 {
		b := bounds[p]
		if b.Hi <= b.Lo {
			return 0
		}
		f := (val - b.Lo) / (b.Hi - b.Lo)
		f = math.Min(math.Max(f, 1e-6), 1-1e-6)
		return math.Log(f / (1 - f))
	}
	x0 := make([]float64, len(free))
	for i, p := range free {
		x0[i] = inv(p, v[p])
	}
	starts := [][]float64{x0}
	// A grid over the efficiencies (the kinks of max() live there), with
	// the times at a tenth and a half of their range.
	for _, ce := range []float64{0.1, 0.4, 0.8} {
		for _, be := range []float64{0.3, 0.6, 0.9} {
			for _, tf := range []float64{0.1, 0.5} {
				x := make([]float64, len(free))
				for i, p := range free {
					switch {
					case p == ParamComputeEff:
						x[i] = inv(p, ce)
					case p == ParamBandwidthEff:
						x[i] = inv(p, be)
					case p == ParamInterconnectEff, p == ParamElementwiseEff:
						x[i] = inv(p, 0.7)
					default:
						b := bounds[p]
						x[i] = inv(p, b.Lo+tf*(b.Hi-b.Lo))
					}
				}
				starts = append(starts, x)
			}
		}
	}
	best, bestF := []float64(nil), math.Inf(1)
	var lastErr error
	for _, s := range starts {
		x, f, err := nelderMead(obj, s)
		if err != nil {
			lastErr = err
			continue
		}
		if f < bestF {
			best, bestF = x, f
		}
	}
	if best == nil {
		return Roofline{}, fmt.Errorf("perf: roofline fit failed: %w", lastErr)
	}
	for range 3 { // restart: Nelder–Mead's simplex can collapse early
		x, f, err := nelderMead(obj, best)
		if err != nil || f >= bestF*(1-1e-12) {
			break
		}
		best, bestF = x, f
	}
	out := start
	w := decode(best)
	for _, p := range free {
		p.set(&out, w[p])
	}
	out.k = coeffs{}
	return out, nil
}

// sortedParams returns ps sorted (for stable output).
func sortedParams(ps []Param) []Param {
	out := append([]Param(nil), ps...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
