package model

// PricePeriods are the seconds of each period a fixed price may be quoted
// per; a month is 730 hours, as cloud price lists count it. "horizon" (0
// here) is the simulated horizon itself: the price covers the whole run.
var PricePeriods = map[string]float64{"hour": 3600, "day": 86400, "month": 730 * 3600, "year": 8760 * 3600, "horizon": 0}

// DefaultCommitmentPer is the period a commitment is quoted per when
// commitment_per is not given.
const DefaultCommitmentPer = "month"

// CommitmentCost is what a fixed price of usd per period costs over
// horizon seconds of a run meant to last duration seconds: prorated by
// time, or for the period "horizon" the share of the run that elapsed
// (all of it unless the run was interrupted).
func CommitmentCost(usd float64, per string, horizon, duration float64) float64 {
	if usd == 0 || horizon <= 0 {
		return 0
	}
	if per == "" {
		per = DefaultCommitmentPer
	}
	secs := PricePeriods[per]
	if secs == 0 { // the horizon
		if duration <= 0 {
			return usd
		}
		secs = duration
	}
	return usd * horizon / secs
}

// commitment is the provider's fixed price over horizon.
func (s *Sim) commitment(p *provider, horizon float64) float64 {
	pr := &p.spec.Price
	return CommitmentCost(pr.Commitment, pr.CommitmentPer, horizon, s.cfg.Duration)
}

// shareCommitments charges each hosted provider's fixed price (its
// [provider.price] commitment, prorated to the horizon) to the provider,
// to the workloads it served in proportion to their tokens there (all of
// it to the first workload that can reach an idle provider, so totals
// add up), and to the cost series, interval by interval. It returns the
// commitments of providers no workload can reach, which the total carries
// as a cluster's unclaimed GPU bill.
func (s *Sim) shareCommitments(horizon float64) (unclaimed float64) {
	for _, p := range s.provs {
		bill := s.commitment(p, horizon)
		if bill == 0 {
			continue
		}
		p.stats.tok.costFixed = bill
		var users []costUser
		for _, w := range s.wls {
			var n int64
			reaches := false
			for i := range w.targets {
				if w.targets[i].prov == p {
					n += w.targets[i].hostTok
					reaches = true
				}
			}
			if reaches {
				users = append(users, costUser{w, n})
			}
		}
		unclaimed += apportion(users, bill, func(w *workload, usd float64) { w.stats.tok.costFixed += usd })
		for i := range s.ser.cost {
			lo := float64(i) * s.cfg.Interval
			if span := min(s.cfg.Interval, horizon-lo); span > 0 {
				s.ser.cost[i] += bill * span / horizon
			}
		}
	}
	return unclaimed
}

// costUser is a workload's claim on a shared bill: the tokens it had
// served by the provider or cluster that bills.
type costUser struct {
	w   *workload
	tok int64
}

// apportion splits bill among users in proportion to their tokens (all of
// it to the first when none had any, so totals add up) and adds each share
// with add. It returns what no user claims: all of bill when there are no
// users, else 0.
func apportion(users []costUser, bill float64, add func(w *workload, usd float64)) (unclaimed float64) {
	if len(users) == 0 {
		return bill
	}
	var tok int64
	for _, u := range users {
		tok += u.tok
	}
	for i, u := range users {
		share := 0.0
		switch {
		case tok > 0:
			share = float64(u.tok) / float64(tok)
		case i == 0:
			share = 1
		}
		add(u.w, bill*share)
	}
	return 0
}
