package model

import "fmt"

// gatewayVerdict says in words what the gateway did to each tenant: the
// limit that refused it most, a reservation far above real use (seed 004:
// "needs a note about max_tokens, not a bigger quota"), shed requests and
// the response cache.
func gatewayVerdict(r *Results) []string {
	g := r.Gateway
	if g == nil {
		return nil
	}
	var out []string
	for _, t := range g.Tenants {
		most, by := int64(0), ""
		for k, v := range t.Rejected {
			if v > most || v == most && k < by {
				most, by = v, k
			}
		}
		if most > 0 {
			out = append(out, fmt.Sprintf("Gateway: tenant %s had %.1f%% of its attempts refused, most by %s (%d).", t.Name, 100*float64(sumRejected(t.Rejected))/float64(t.Attempts), by, most))
		}
		if t.ReservationToActual >= 3 {
			out = append(out, fmt.Sprintf("Gateway: tenant %s reserves %.1f× the units it uses: its max_tokens is far above its real output; lowering it admits more at once without a bigger quota.", t.Name, t.ReservationToActual))
		}
		if t.UnitsLost > 0 {
			out = append(out, fmt.Sprintf("Gateway: %d crashed streams of tenant %s left %.0f reserved units unrefunded; leases (lease_ttl) would reconcile them.", t.Crashes, t.Name, t.UnitsLost))
		}
	}
	if q := g.Queue; q != nil {
		for _, p := range q.ByPriority {
			if p.Shed > 0 {
				out = append(out, fmt.Sprintf("Gateway: %d %s requests were shed (503) after waiting past their target in the fair queue.", p.Shed, p.Priority))
			}
		}
	}
	if c := g.Cache; c != nil && c.Lookups > 0 {
		out = append(out, fmt.Sprintf("Gateway: the response cache answered %.1f%% of lookups (%d of %d).", 100*c.HitRate, c.Hits, c.Lookups))
	}
	if g.FailClosedRejects > 0 {
		out = append(out, fmt.Sprintf("Gateway: %d attempts refused with 503 while the limiter store was down (fail closed).", g.FailClosedRejects))
	}
	if g.FailOpenAdmits > 0 {
		out = append(out, fmt.Sprintf("Gateway: %d attempts admitted by local caps while the limiter store was down (fail open).", g.FailOpenAdmits))
	}
	return out
}

func sumRejected(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}
