package model

import (
	"math"
	"strconv"
)

// Reading limits as they stand, for rate-limit headers and metrics. These
// read the windows without changing them (a refill or an expiry computed
// here is not stored), so looking never alters a decision.

// level is a window's remaining amount and time until full at now.
func level(w window, now float64) (remaining, reset float64) {
	switch b := w.(type) {
	case *tokenBucket:
		lv := b.level
		if now > b.last {
			lv = math.Min(b.size, lv+(now-b.last)*b.rate)
		}
		return lv, math.Max(0, (b.size-lv)/b.rate)
	case *fixedWindow:
		i := int64(math.Floor((now - b.offset) / b.w))
		used := b.used
		if i != b.index {
			used = 0
		}
		if used <= 0 {
			return b.limit, 0
		}
		return b.limit - used, b.offset + float64(i+1)*b.w - now
	case *slidingWindow:
		sum, last := 0.0, math.Inf(-1)
		for k := 0; k < b.n; k++ {
			i := (b.head + k) % len(b.idx)
			if end := b.end(i); end > now {
				sum += b.amounts[i]
				last = math.Max(last, end)
			}
		}
		if sum <= 0 {
			return b.limit, 0
		}
		return b.limit - sum, last - now
	}
	return w.remaining(now), 0
}

// tidy rounds away the float error a limit's arithmetic leaves (a bucket
// of 1000/60 per second over 60 s holds 1000.0000000000001): a figure
// within a billionth of a whole number is that number, any other keeps 12
// significant digits. Headers and metrics read limits through it; the
// windows themselves are not changed.
func tidy(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	if r := math.Round(x); math.Abs(x-r) <= 1e-9*math.Max(1, math.Abs(x)) {
		return r
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
	return v
}

// tidyLevel is a level with its figures tidied.
func tidyLevel(l LimitLevel) LimitLevel {
	l.Limit, l.Capacity, l.Remaining, l.Reset = tidy(l.Limit), tidy(l.Capacity), tidy(l.Remaining), tidy(l.Reset)
	return l
}

// scopeLevels appends every limited dimension of a scope.
func scopeLevels(ls *limitSet, scope string, now float64, v *LimitView) {
	for d := 0; d < numDims; d++ {
		w := ls.win[d]
		if w == nil {
			continue
		}
		rem, reset := level(w, now)
		v.add(tidyLevel(LimitLevel{Scope: scope, Dim: dimNames[d], Limit: ls.limits[d], Capacity: w.capacity(), Remaining: rem, Reset: reset}))
	}
}

// providerLevels lists the limits of a target provider: its org's, then
// its key's. A cluster has none.
func (s *Sim) providerLevels(t *target, now float64, v *LimitView) {
	p := t.prov
	if p == nil {
		return
	}
	scopeLevels(p.org, "org", now, v)
	if t.key >= 0 {
		scopeLevels(p.keys[t.key], "key:"+p.spec.Keys[t.key].Name, now, v)
	}
}

// gatewayLevels lists a workload's gateway buckets: its tenant's and its
// key's.
func (s *Sim) gatewayLevels(w *workload, now float64, v *LimitView) {
	if w.gwT == nil {
		return
	}
	addScope := func(sc *gwScope, scope string) {
		if sc.bucket == nil {
			return
		}
		rem, reset := level(sc.bucket, now)
		v.add(tidyLevel(LimitLevel{Scope: scope, Dim: "units", Limit: sc.bucket.rate * 60, Capacity: sc.bucket.size, Remaining: rem, Reset: reset}))
	}
	addScope(&w.gwT.gwScope, "tenant:"+w.gwT.spec.Name)
	if w.gwK >= 0 {
		addScope(w.gwT.keys[w.gwK], "tenant-key:"+w.gwT.spec.Name+"/"+w.gwT.spec.Keys[w.gwK].Name)
	}
}

// BucketLevel is one limit of one backend or gateway scope, with what it
// has admitted so far.
type BucketLevel struct {
	// Backend is the provider's name, or "gateway".
	Backend string
	LimitLevel
	// Used is the units charged so far (admissions and their
	// settlements), for providers' limits.
	Used float64
	// Refused counts attempts refused by this limit.
	Refused int64
}

// BackendLevel is a backend's occupancy.
type BackendLevel struct {
	Name string
	// InService is requests being served; Queued those waiting at it
	// (a provider's concurrency queue, a cluster's replicas' queues).
	InService, Queued int
	// KVUsed and KVBlocks are a cluster's KV blocks in use and in all.
	KVUsed, KVBlocks int
	// Admitted and Refused count attempts.
	Admitted, Refused int64
}

// LiveSnapshot is the state of a live run, for metrics.
type LiveSnapshot struct {
	Now      float64
	InFlight int64
	Buckets  []BucketLevel
	Backends []BackendLevel
}

// Snapshot fills snap with the current state, reusing its slices.
func (l *Live) Snapshot(snap *LiveSnapshot) {
	s := l.s
	now := s.eng.Now()
	snap.Now, snap.InFlight = now, s.live
	snap.Buckets, snap.Backends = snap.Buckets[:0], snap.Backends[:0]
	for _, p := range s.provs {
		for si := range p.stats.scopes {
			sc := &p.stats.scopes[si]
			var v LimitView
			scopeLevels(sc.set, sc.name, now, &v)
			for _, lv := range v.List() {
				d := dimIndex(lv.Dim)
				used := 0.0
				for _, u := range sc.dims[d].usePer {
					used += u
				}
				snap.Buckets = append(snap.Buckets, BucketLevel{Backend: p.spec.Name, LimitLevel: lv, Used: tidy(used), Refused: sc.dims[d].rejected})
			}
		}
		var rej int64
		for _, n := range p.stats.rejected {
			rej += n
		}
		snap.Backends = append(snap.Backends, BackendLevel{Name: p.spec.Name, InService: p.conUsed, Queued: p.conQ.len(), Admitted: p.stats.admitted, Refused: rej})
	}
	for _, c := range s.clus {
		b := BackendLevel{Name: c.spec.Name, Admitted: c.stats.admitted}
		for _, n := range c.stats.rejected {
			b.Refused += n
		}
		for _, rep := range c.replicas {
			b.InService += len(rep.running)
			b.Queued += rep.waitingLen()
			if rep.state != repDown {
				b.KVBlocks += c.blocks
				b.KVUsed += c.blocks - rep.free
			}
		}
		snap.Backends = append(snap.Backends, b)
	}
	if g := s.gw; g != nil {
		for _, t := range g.tenants {
			add := func(sc *gwScope, scope string) {
				if sc.bucket == nil {
					return
				}
				rem, reset := level(sc.bucket, now)
				snap.Buckets = append(snap.Buckets, BucketLevel{Backend: "gateway", Used: tidy(sc.st.actual),
					LimitLevel: tidyLevel(LimitLevel{Scope: scope, Dim: "units", Limit: sc.bucket.rate * 60, Capacity: sc.bucket.size, Remaining: rem, Reset: reset}),
					Refused:    sc.st.rejected[rsGwUnits] + sc.st.rejected[rsGwKeyUnits]})
			}
			add(&t.gwScope, "tenant:"+t.spec.Name)
			for k, ks := range t.keys {
				add(ks, "tenant-key:"+t.spec.Name+"/"+t.spec.Keys[k].Name)
			}
		}
	}
}

func dimIndex(name string) int {
	for d, n := range dimNames {
		if n == name {
			return d
		}
	}
	return 0
}
