package shard

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// Bounds a part's plan must keep to: what run, compare and sweep can
// write. They are checked before anything is allocated from a part's
// numbers.
const (
	// MaxReplications is the most replications of a batch.
	MaxReplications = 100_000
	// MaxVariants is the most variants of a batch.
	MaxVariants = 100_000
	// MaxPoints is the most grid points of a sweep (a sweep's own bound).
	MaxPoints = 10_000
	// MaxItems is the most work items of a batch.
	MaxItems = 1_000_000_000
	// maxIntervals is the longest series (model's bound).
	maxIntervals = 1_000_000
	// maxMagnitude bounds every number of a result, so that sums and
	// squares over replications stay finite.
	maxMagnitude = 1e30
)

// checkPlan reports a plan no command could have written, before its
// numbers size anything.
func checkPlan(p *report.Plan) error {
	switch {
	case p.Replications < 1 || p.Replications > MaxReplications:
		return fmt.Errorf("plan: %d replications, must be from 1 to %d", p.Replications, MaxReplications)
	case len(p.Variants) < 1 || len(p.Variants) > MaxVariants:
		return fmt.Errorf("plan: %d variants, must be from 1 to %d", len(p.Variants), MaxVariants)
	case !p.Summarize && p.Replications > 1:
		return fmt.Errorf("plan: %d replications without a summary", p.Replications)
	}
	seen := map[string]bool{}
	for _, v := range p.Variants {
		if seen[v] {
			return fmt.Errorf("plan: variant %q named twice", v)
		}
		seen[v] = true
	}
	if g := p.Grid; g != nil {
		if len(g.Params) == 0 {
			return fmt.Errorf("plan: a grid without parameters")
		}
		size := 1
		for _, par := range g.Params {
			if len(par.Values) == 0 {
				return fmt.Errorf("plan: grid parameter %q has no values", par.Key)
			}
			if par.Numbers != nil && len(par.Numbers) != len(par.Values) {
				return fmt.Errorf("plan: grid parameter %q has %d numbers for %d values", par.Key, len(par.Numbers), len(par.Values))
			}
			for _, x := range par.Numbers {
				if math.Abs(x) > maxMagnitude {
					return fmt.Errorf("plan: grid parameter %q has the number %g", par.Key, x)
				}
			}
			if size > MaxPoints/len(par.Values) {
				return fmt.Errorf("plan: a grid of more than %d points", MaxPoints)
			}
			size *= len(par.Values)
		}
		if len(g.Points) != size {
			return fmt.Errorf("plan: a grid of %d points, its parameters make %d", len(g.Points), size)
		}
	}
	if err := p.Check(); err != nil {
		return err
	}
	if int64(p.NumPoints())*int64(len(p.Variants))*int64(p.Replications) > MaxItems {
		return fmt.Errorf("plan: %d points × %d variants × %d replications is more than %d work items", p.NumPoints(), len(p.Variants), p.Replications, MaxItems)
	}
	return nil
}

// checkResults reports results that no simulation could have given: a
// negative count, a number beyond any measure, a horizon or interval that
// is not positive, requests that do not add up, or series of the wrong
// length. A replication other than the first may leave out its series and
// details (report.Trim): first is false for those; when present they are
// checked too.
func checkResults(r *model.Results, first bool) error {
	if r.Interrupted {
		return fmt.Errorf("the simulation was interrupted")
	}
	if !(r.DurationS > 0 && r.DurationS <= 366*86400) {
		return fmt.Errorf("duration_s %v, must be > 0 and at most 366 days", r.DurationS)
	}
	if !(r.IntervalS > 0) || r.DurationS/r.IntervalS > maxIntervals {
		return fmt.Errorf("interval_s %v: must be > 0 and give at most %d intervals over duration_s %v", r.IntervalS, maxIntervals, r.DurationS)
	}
	if err := walk(reflect.ValueOf(r).Elem(), "results"); err != nil {
		return err
	}
	if err := checkCounts("summary", &r.Summary); err != nil {
		return err
	}
	for _, g := range [][]model.GroupResult{r.Workloads, r.Tenants, r.Priorities} {
		for _, w := range g {
			if err := checkCounts(w.Name, &w.Summary); err != nil {
				return err
			}
		}
	}
	n := int(math.Ceil(r.DurationS/r.IntervalS - 1e-9))
	if err := seriesLengths(reflect.ValueOf(r.Series), "series", n, !first); err != nil {
		return err
	}
	for _, b := range r.Backends {
		if b.Cluster == nil {
			continue
		}
		if err := seriesLengths(reflect.ValueOf(b.Cluster.Series), "backend "+b.Name+" series", n, false); err != nil {
			return err
		}
	}
	return nil
}

// checkCounts checks that a group's requests add up.
func checkCounts(name string, s *model.Summary) error {
	q := s.Requests
	if q.Completed+q.Failed+q.InFlightAtEnd != q.Offered || q.Offered < 0 {
		return fmt.Errorf("%s: %d offered is not %d completed + %d failed + %d in flight", name, q.Offered, q.Completed, q.Failed, q.InFlightAtEnd)
	}
	return nil
}

// walk checks every number under v: integers >= 0, floats within
// maxMagnitude (JSON carries no NaN or infinity).
func walk(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Int, reflect.Int32, reflect.Int64:
		if v.Int() < 0 {
			return fmt.Errorf("%s is %d, a count cannot be negative", path, v.Int())
		}
	case reflect.Float64:
		if x := v.Float(); math.IsNaN(x) || math.Abs(x) > maxMagnitude {
			return fmt.Errorf("%s is %g, beyond any measure", path, x)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			return walk(v.Elem(), path)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			if err := walk(v.Field(i), path+"."+jsonName(t.Field(i))); err != nil {
				return err
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if err := walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			if err := walk(iter.Value(), path+"."+iter.Key().String()); err != nil {
				return err
			}
		}
	}
	return nil
}

func jsonName(f reflect.StructField) string {
	if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n != "" {
		return n
	}
	return f.Name
}

// seriesLengths checks that every per-interval slice of the series struct
// v has n values; with mayBeEmpty, a series left out whole (every slice
// empty) passes too.
func seriesLengths(v reflect.Value, path string, n int, mayBeEmpty bool) error {
	t := v.Type()
	empty := true
	var bad error
	var check func(v reflect.Value, path string)
	check = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Slice:
			if v.Len() > 0 {
				empty = false
			}
			if et := v.Type().Elem(); et.Kind() == reflect.Struct {
				for i := 0; i < v.Len(); i++ { // per-replica series
					for j := 0; j < et.NumField(); j++ {
						if et.Field(j).Type.Kind() == reflect.Slice {
							check(v.Index(i).Field(j), fmt.Sprintf("%s[%d].%s", path, i, jsonName(et.Field(j))))
						}
					}
				}
				return
			}
			if v.Len() != n && bad == nil {
				bad = fmt.Errorf("%s has %d values, want one per interval: %d", path, v.Len(), n)
			}
		case reflect.Map:
			iter := v.MapRange()
			for iter.Next() {
				check(iter.Value(), path+"."+iter.Key().String())
			}
		}
	}
	for i := 0; i < t.NumField(); i++ {
		check(v.Field(i), path+"."+jsonName(t.Field(i)))
	}
	if mayBeEmpty && empty {
		return nil
	}
	return bad
}
