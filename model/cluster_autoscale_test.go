package model

import (
	"math"
	"testing"

	"github.com/headroom-sim/headroom/workloads"
)

// autoscaleConfig steps constant arrivals from before to after (requests
// per second) at t = 600 s, on a cluster autoscaled on the arrival rate.
func autoscaleConfig(before, after float64, as AutoscaleSpec) Config {
	c := clusterConfig(0, 200, 20, "iteration", []float64{1, 256}, []float64{0.010, 0.030}, 256, 1_000_000)
	c.Duration = 1800
	c.Workloads[0].Demand = workloads.DemandSpec{Unit: "requests/s", Curve: []float64{before, after, after}, Every: 600,
		Arrivals: workloads.ArrivalSpec{Kind: "constant"}}
	c.Clusters[0].Replicas = 1
	c.Clusters[0].Price.PerGPUHour = 2
	c.Clusters[0].Autoscale = &as
	return c
}

// A step in demand is acted on exactly one evaluation period plus the up
// window after it (the first period wholly after the step recommends the
// rise; the window must then hold it), and the new replicas serve
// provisioning + model_load later. Until then the cluster is short of
// replicas, and the results say for how long.
func TestAutoscaleStepDelayIsExact(t *testing.T) {
	down := workloads.Duration(300)
	c := autoscaleConfig(3, 30, AutoscaleSpec{Metric: MetricArrivalRate, Target: 8, Min: ptr(1), Max: 10, Period: 15,
		UpWindow: 60, DownWindow: &down, Provisioning: 120, ModelLoad: 30})
	r := mustRun(t, c)
	as := r.Backends[0].Cluster.Autoscale
	if len(as.Events) != 1 {
		t.Fatalf("scale events %+v, want one scale-up", as.Events)
	}
	ev := as.Events[0]
	if ev.AtS != 600+15+60 || ev.ReadyAtS != 600+15+60+120+30 || ev.From != 1 || ev.To != 4 || ev.Reason != ScaleMetric {
		t.Fatalf("scale event %+v, want 1 -> 4 at 675 s, ready at 825 s", ev)
	}
	within(t, "time under-provisioned", as.UnderProvisionedS, 825-615, 1e-9)
	within(t, "replica-seconds short", as.ReplicaSecondsShort, 3*(825-615), 1e-9)
	// The ready series: 1 replica until 825 s, then 4 (60 s intervals).
	if as.Ready[12] != 1 || as.Ready[13] != 1+3*15.0/60 || as.Ready[14] != 4 {
		t.Errorf("ready replicas %v around 825 s, want 1, 1.75, 4", as.Ready[12:16])
	}
	// Billed from the decision: 1 replica for 1800 s, 3 more from 675 s.
	within(t, "GPU-hours", r.Backends[0].Cluster.GPUHours, (1800+3*(1800-675))/3600.0, 1e-9)
	if p := r.Backends[0].Cluster.PeakReplicas; p != 4 {
		t.Errorf("peak replicas %d, want 4", p)
	}
}

// The down window holds a fall until every recommendation of the window
// calls for it; the cooldown spaces actions.
func TestAutoscaleDownWindowAndCooldown(t *testing.T) {
	down := workloads.Duration(120)
	c := autoscaleConfig(30, 3, AutoscaleSpec{Metric: MetricArrivalRate, Target: 8, Min: ptr(1), Max: 10, Period: 15,
		DownWindow: &down, Cooldown: 0})
	c.Clusters[0].Replicas = 4
	r := mustRun(t, c)
	ev := r.Backends[0].Cluster.Autoscale.Events
	if len(ev) != 1 || ev[0].AtS != 600+15+120 || ev[0].To != 1 {
		t.Fatalf("scale events %+v, want 4 -> 1 at 735 s", ev)
	}
	// Up and down in turn: a cooldown of 10 minutes spaces them.
	zero := workloads.Duration(0)
	c = autoscaleConfig(3, 30, AutoscaleSpec{Metric: MetricArrivalRate, Target: 8, Min: ptr(1), Max: 10, Period: 15, DownWindow: &zero, Cooldown: 600})
	c.Workloads[0].Demand.Curve = []float64{30, 3, 30}
	ev = mustRun(t, c).Backends[0].Cluster.Autoscale.Events
	if len(ev) < 2 {
		t.Fatalf("scale events %+v, want at least two", ev)
	}
	for i := 1; i < len(ev); i++ {
		if ev[i].AtS-ev[i-1].AtS < 600 {
			t.Errorf("actions at %.0f s and %.0f s, closer than the 600 s cooldown", ev[i-1].AtS, ev[i].AtS)
		}
	}
}

// Scale to zero: an idle cluster holds no replica and costs nothing; the
// first request starts one and waits provisioning + model_load for it.
func TestAutoscaleColdStart(t *testing.T) {
	c := clusterConfig(0, 200, 20, "iteration", []float64{1, 256}, []float64{0.010, 0.030}, 256, 1_000_000)
	c.Duration = 3600
	c.Workloads[0].Demand = workloads.DemandSpec{Count: 10, At: 1000}
	c.Clusters[0].Replicas = 0
	c.Clusters[0].Price.PerGPUHour = 2
	down := workloads.Duration(60)
	c.Clusters[0].Autoscale = &AutoscaleSpec{Metric: MetricWaiting, Target: 1, Min: ptr(0), Max: 4, Period: 15, DownWindow: &down,
		Provisioning: 30, ModelLoad: 10}
	r := mustRun(t, c)
	cl := r.Backends[0].Cluster
	as := cl.Autoscale
	if as.ColdStarts != 1 || as.Events[0].Reason != ScaleCold || as.Events[0].AtS != 1000 {
		t.Fatalf("events %+v, want a cold start at 1000 s", as.Events)
	}
	q := r.Summary.Requests
	if q.Completed != 10 {
		t.Fatalf("requests %+v", q)
	}
	if ttft := r.Summary.Latency.TTFT; ttft.P50 < 40 || ttft.Max > 41 {
		t.Errorf("TTFT %+v, want the 40 s cold start plus service", ttft)
	}
	last := as.Events[len(as.Events)-1]
	if last.To != 0 {
		t.Fatalf("last event %+v, want a scale to zero", last)
	}
	// Billed only from the cold start to the scale to zero.
	on := 0.0
	prev := 0.0
	n := 0
	for _, e := range as.Events {
		on += float64(n) * (e.AtS - prev)
		prev, n = e.AtS, e.To
	}
	within(t, "GPU-hours", cl.GPUHours, on/3600, 1e-9)
	// Ten requests waiting at the first evaluation call for four replicas.
	// The last evaluation to see them waiting is at 1050 s (they wait until
	// 1040 s and finish within a second); from 1065 s every one recommends
	// zero, and the 60 s down window holds the fall until 1125 s.
	if last.AtS != 1125 || as.PeakReplicas != 4 {
		t.Errorf("events %+v: want 4 replicas at most, back to zero at 1125 s", as.Events)
	}
}

// A schedule sets the floor: the autoscaler never goes below it, and a
// cluster below it scales up when the entry applies.
func TestAutoscaleScheduleFloor(t *testing.T) {
	c := autoscaleConfig(3, 3, AutoscaleSpec{Metric: MetricArrivalRate, Target: 8, Min: ptr(1), Max: 10, Period: 15})
	c.Duration = 3 * 3600
	c.Interval = 600
	c.Clusters[0].Schedule = []ScheduleSpec{{At: "01:00", Replicas: 3}, {At: "02:00", Replicas: 1}}
	r := mustRun(t, c)
	as := r.Backends[0].Cluster.Autoscale
	if len(as.Events) < 2 || as.Events[0].AtS != 3600 || as.Events[0].To != 3 || as.Events[0].Reason != ScaleSchedule {
		t.Fatalf("events %+v, want a schedule raise to 3 at 01:00", as.Events)
	}
	down := as.Events[1]
	if down.AtS < 7200 || down.To != 1 {
		t.Errorf("event %+v, want a metric fall to 1 after the floor drops at 02:00", down)
	}
	for i := 6; i < 12; i++ {
		if as.Ready[i] != 3 {
			t.Errorf("ready replicas %v from 01:00 to 02:00, want 3", as.Ready[6:12])
			break
		}
	}
}

// With an overflow route, what arrives while the cluster is short of
// replicas goes to the hosted API, and the route says what that cost.
func TestAutoscaleSpillToHosted(t *testing.T) {
	c := autoscaleConfig(3, 60, AutoscaleSpec{Metric: MetricWaiting, Target: 2, Min: ptr(1), Max: 10, Period: 15, Provisioning: 120, ModelLoad: 60})
	c.Clusters[0].MaxNumSeqs = 4
	c.Providers = []ProviderSpec{{Name: "api", Price: PriceSpec{Input: 3, Output: 15},
		Latency: LatencySpec{TTFT: TTFTSpec{Base: 0.3}, TPOT: TPOTSpec{Mean: 0.01}}}}
	c.Routes = []RouteSpec{{Name: "spill", Strategy: StrategyOverflow, Targets: []string{"gpu", "api"}, OverflowWaiting: 4}}
	c.Workloads[0].Route = "spill"
	r := mustRun(t, c)
	rt := r.Routes[0]
	var api BackendResult
	for _, b := range r.Backends {
		if b.Name == "api" {
			api = b
		}
	}
	if rt.ScaleUpSpill == 0 || rt.ScaleUpSpillCompleted == 0 || rt.ScaleUpSpillCostUSD <= 0 {
		t.Fatalf("route %+v: want spill while the cluster scales up", rt)
	}
	if rt.ScaleUpSpillCostUSD > api.Cost.Total+1e-9 || rt.ScaleUpSpill > rt.Targets[1].Sent {
		t.Errorf("spill %d costing %.4f, hosted got %d costing %.4f", rt.ScaleUpSpill, rt.ScaleUpSpillCostUSD, rt.Targets[1].Sent, api.Cost.Total)
	}
	as := r.Backends[1].Cluster.Autoscale
	if as.ScaleUps == 0 || as.PeakReplicas < 3 {
		t.Errorf("autoscaler %+v, want a scale-up", as)
	}
	// The series add up to the totals, and spill happens only while the
	// cluster is short: from the first scale-up decision until its
	// replicas serve (provisioning 120 s + model load 60 s later).
	var n int64
	var cost float64
	for i, v := range rt.ScaleUpSpillSeries {
		n += v
		cost += rt.ScaleUpSpillCostSeries[i]
		start, end := float64(i)*c.Interval, float64(i+1)*c.Interval
		if v > 0 && !shortDuring(as, start, end) {
			t.Errorf("%d attempts spilled in [%gs, %gs), when no scale-up was pending", v, start, end)
		}
	}
	if n != rt.ScaleUpSpill || math.Abs(cost-rt.ScaleUpSpillCostUSD) > 1e-9*math.Max(1, cost) {
		t.Errorf("spill series add to %d attempts and $%.6f, totals %d and $%.6f", n, cost, rt.ScaleUpSpill, rt.ScaleUpSpillCostUSD)
	}
	if q := r.Summary.Requests; q.Failed != 0 {
		t.Errorf("requests %+v", q)
	}
	t.Logf("spill: %d attempts, %d completed, $%.4f; hosted total $%.4f", rt.ScaleUpSpill, rt.ScaleUpSpillCompleted, rt.ScaleUpSpillCostUSD, api.Cost.Total)
}

// Every metric drives the count the right way on a step up.
func TestAutoscaleEveryMetricScalesUp(t *testing.T) {
	for _, m := range []struct {
		metric string
		target float64
	}{{MetricWaiting, 1}, {MetricKVUse, 0.05}, {MetricRunning, 4}, {MetricUtilization, 0.5}, {MetricArrivalRate, 8}} {
		c := autoscaleConfig(2, 60, AutoscaleSpec{Metric: m.metric, Target: m.target, Min: ptr(1), Max: 8, Period: 15})
		c.Clusters[0].MaxNumSeqs = 8
		c.Clusters[0].KV.Blocks = 1000
		as := mustRun(t, c).Backends[0].Cluster.Autoscale
		if as.ScaleUps == 0 || as.PeakReplicas < 2 || as.PeakReplicas > 8 || math.IsNaN(as.ReplicaSecondsShort) {
			t.Errorf("%s: %+v", m.metric, as)
		}
	}
}

// shortDuring reports whether a scale-up was pending (decided, its
// replicas not yet serving) at some time in [start, end).
func shortDuring(as *AutoscaleResult, start, end float64) bool {
	for _, e := range as.Events {
		if e.To > e.From && e.AtS < end && e.ReadyAtS >= start {
			return true
		}
	}
	return false
}
