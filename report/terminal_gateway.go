package report

import (
	"fmt"

	"github.com/headroom-sim/headroom/model"
)

// gatewayRows adds the gateway's per-tenant rows to the terminal table
// when any variant ran through a gateway.
func gatewayRows(d *Document, row func(string, func(*model.Results) string)) {
	tenants, queue, cache := GatewayParts(d.Variants)
	if len(tenants) == 0 {
		return
	}
	tenant := func(r *model.Results, name string) *model.GatewayScopeResult {
		if r.Gateway == nil {
			return nil
		}
		for i := range r.Gateway.Tenants {
			if r.Gateway.Tenants[i].Name == name {
				return &r.Gateway.Tenants[i]
			}
		}
		return nil
	}
	cell := func(name string, f func(*model.GatewayScopeResult) string) func(*model.Results) string {
		return func(r *model.Results) string {
			if t := tenant(r, name); t != nil {
				return f(t)
			}
			return "—"
		}
	}
	for _, name := range tenants {
		row("gateway tenant "+name, cell(name, func(t *model.GatewayScopeResult) string { return Count(t.Admitted) + " admitted" }))
		row("  refused at the gateway", cell(name, func(t *model.GatewayScopeResult) string { return pct(sum(t.Rejected), t.Attempts) }))
		row("  reserved / used units", cell(name, func(t *model.GatewayScopeResult) string {
			if t.ReservationToActual <= 0 { // nothing served, nothing used
				return "n/a"
			}
			return fmt.Sprintf("%.2f×", t.ReservationToActual)
		}))
		row("  used of quota", cell(name, func(t *model.GatewayScopeResult) string {
			if t.QuotaUnits == 0 {
				return "no limit"
			}
			return fmt.Sprintf("%.0f%%", 100*t.UsedOfQuota)
		}))
		row("  peak streams (cap hits)", cell(name, func(t *model.GatewayScopeResult) string {
			return fmt.Sprintf("%d (%d)", t.PeakStreams, t.StreamCapHits)
		}))
		row("  tenant cost", cell(name, func(t *model.GatewayScopeResult) string { return USD(t.CostUSD) }))
	}
	if queue {
		for _, p := range []string{model.PriorityInteractive, model.PriorityBatch} {
			p := p
			row("fair-queue wait p95 "+p, func(r *model.Results) string {
				if r.Gateway == nil || r.Gateway.Queue == nil {
					return "—"
				}
				for _, q := range r.Gateway.Queue.ByPriority {
					if q.Priority == p {
						return Seconds(q.WaitS.P95) + fmt.Sprintf(" (%d shed)", q.Shed)
					}
				}
				return "—"
			})
		}
	}
	if cache {
		row("response cache hit rate", func(r *model.Results) string {
			if r.Gateway == nil || r.Gateway.Cache == nil {
				return "—"
			}
			return fmt.Sprintf("%.1f%%", 100*r.Gateway.Cache.HitRate)
		})
	}
}

// GatewayParts lists the gateway tenants of any of the variants, in order
// of first appearance, and whether any had a fair queue or a response
// cache.
func GatewayParts(vs []*model.Results) (tenants []string, queue, cache bool) {
	seen := map[string]bool{}
	for _, r := range vs {
		if r.Gateway == nil {
			continue
		}
		queue = queue || r.Gateway.Queue != nil
		cache = cache || r.Gateway.Cache != nil
		for _, t := range r.Gateway.Tenants {
			if !seen[t.Name] {
				seen[t.Name] = true
				tenants = append(tenants, t.Name)
			}
		}
	}
	return tenants, queue, cache
}
