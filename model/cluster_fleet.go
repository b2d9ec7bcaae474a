package model

// initFleet gives a built cluster its router, autoscaler and CPU tiers.
func (s *Sim) initFleet(c *cluster) error {
	spec := c.spec
	c.rt = newRouter(spec, &s.cfg, len(c.replicas))
	if spec.Autoscale != nil {
		c.as = newAutoscaler(spec.Autoscale, s.nInt)
	}
	if t := spec.KV.CPU; t != nil {
		bpt := t.BytesPerToken
		if bpt == 0 {
			_, m, err := spec.hardware()
			if err != nil {
				return err
			}
			bpt = m.KVBytesPerToken()
		}
		for _, rep := range c.replicas {
			rep.tier = newKVTier(t, c.bs, bpt)
		}
	}
	return nil
}

// fleetResult adds the fleet's results to a cluster's.
func (s *Sim) fleetResult(c *cluster, cr *ClusterResult, horizon float64) {
	cr.Routing = c.routingResult()
	cr.PrefixCache = c.prefixResult(&c.stats.tok)
	if c.pd != nil && c.pd.prefill {
		s.pdResults(c, cr, horizon)
	}
	if c.as != nil && c.pd == nil { // a pool's autoscaler is in its pool's result
		cr.Autoscale = c.autoscaleResult(horizon)
		cr.PeakReplicas = c.as.peak
		cr.PeakGPUs = c.as.peak * c.spec.TensorParallel
	}
}
