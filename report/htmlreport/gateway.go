package htmlreport

import (
	"fmt"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// gatewayTable is the gateway's per-tenant figures, variants side by
// side (what a platform team watches per tenant), or nil without a gateway.
func gatewayTable(vs []*model.Results) *table {
	names, queue, cache := report.GatewayParts(vs)
	if len(names) == 0 {
		return nil
	}
	t := &table{Note: "Units are weighted tokens. Refused: attempts the gateway answered with 429, 400 or 503 itself. " +
		"Reserved/used far above 1 means max_tokens far above the real output. Fair-queue wait covers every admitted request of the class."}
	for _, r := range vs {
		t.Head = append(t.Head, report.VariantName(r))
	}
	row := func(label string, f func(*model.Results) string) {
		tr := tableRow{Label: label}
		for _, r := range vs {
			v := "—"
			if r.Gateway != nil {
				v = f(r)
			}
			tr.Cells = append(tr.Cells, tableCell{Value: v})
		}
		t.Rows = append(t.Rows, tr)
	}
	for _, name := range names {
		name := name
		ten := func(f func(*model.GatewayScopeResult) string) func(*model.Results) string {
			return func(r *model.Results) string {
				for i := range r.Gateway.Tenants {
					if r.Gateway.Tenants[i].Name == name {
						return f(&r.Gateway.Tenants[i])
					}
				}
				return "—"
			}
		}
		row(name+": admitted", ten(func(s *model.GatewayScopeResult) string { return fmt.Sprintf("%d of %d", s.Admitted, s.Attempts) }))
		row(name+": refused at the gateway", ten(func(s *model.GatewayScopeResult) string {
			var n int64
			most, by := int64(0), ""
			for k, v := range s.Rejected {
				n += v
				if v > most || v == most && k < by {
					most, by = v, k
				}
			}
			if n == 0 {
				return "0"
			}
			return fmt.Sprintf("%d (most: %s)", n, by)
		}))
		row(name+": reserved / used", ten(func(s *model.GatewayScopeResult) string {
			if s.ReservationToActual <= 0 { // nothing served, nothing used
				return "n/a"
			}
			return fmt.Sprintf("%.2f×", s.ReservationToActual)
		}))
		row(name+": used of quota", ten(func(s *model.GatewayScopeResult) string {
			if s.QuotaUnits == 0 {
				return "no limit"
			}
			return fmt.Sprintf("%.1f%%", 100*s.UsedOfQuota)
		}))
		row(name+": peak streams (cap hits)", ten(func(s *model.GatewayScopeResult) string {
			return fmt.Sprintf("%d (%d)", s.PeakStreams, s.StreamCapHits)
		}))
		row(name+": cost", ten(func(s *model.GatewayScopeResult) string { return fmt.Sprintf("$%.2f", s.CostUSD) }))
	}
	if queue {
		for _, p := range []string{model.PriorityInteractive, model.PriorityBatch} {
			p := p
			row("fair-queue wait p95, "+p, func(r *model.Results) string {
				if r.Gateway.Queue == nil {
					return "no fair queue"
				}
				for _, q := range r.Gateway.Queue.ByPriority {
					if q.Priority == p {
						return fmt.Sprintf("%s (%d shed)", report.Seconds(q.WaitS.P95), q.Shed)
					}
				}
				return "—"
			})
		}
	}
	if cache {
		row("response cache hit rate", func(r *model.Results) string {
			if r.Gateway.Cache == nil {
				return "no cache"
			}
			return fmt.Sprintf("%.1f%%", 100*r.Gateway.Cache.HitRate)
		})
	}
	return t
}
