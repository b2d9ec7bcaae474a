package htmlreport

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// fleetFixture is one variant over six 60 s intervals: an autoscaled
// cluster that scales 1 → 3 at 130 s (ready at 250 s) and back to 1 at
// 310 s, a route that spilled 30 attempts to a hosted API meanwhile, its
// router's spread and prefix cache, and a disaggregated cluster beside it.
func fleetFixture() *report.Document {
	r := &model.Results{Scenario: "fleet", Seed: 1, DurationS: 360, IntervalS: 60, StartClock: "08:00"}
	r.Summary.Requests = model.RequestCounts{Offered: 100, Completed: 100}
	r.Series = model.Series{IntervalS: 60, StartS: []float64{0, 60, 120, 180, 240, 300}, Clock: []string{"08:00", "08:01", "08:02", "08:03", "08:04", "08:05"},
		Offered: []int64{10, 10, 30, 30, 10, 10}, Completed: []int64{10, 10, 30, 30, 10, 10}, CostUSD: []float64{1, 1, 2, 2, 1, 1}, Rejected: map[string][]int64{}}
	auto := &model.ClusterResult{Replicas: 1, GPUs: 1, GPUHours: 0.2, MaxNumSeqs: 64,
		Series: model.ClusterSeries{Replicas: []float64{1, 1, 2.5, 3, 3, 1.5}, Batch: []float64{1, 1, 4, 4, 2, 1}},
		Autoscale: &model.AutoscaleResult{Metric: model.MetricArrivalRate, Target: 8, Min: 1, Max: 4, ScaleUps: 1, ScaleDowns: 1,
			Ready: []float64{1, 1, 1, 1, 2.5, 1.5}, Recommended: []float64{1, 1, 3, 3, 3, 1},
			Events: []model.ScaleEvent{{AtS: 130, Clock: "08:02:10", From: 1, To: 3, Reason: model.ScaleMetric, ReadyAtS: 250},
				{AtS: 310, Clock: "08:05:10", From: 3, To: 1, Reason: model.ScaleMetric}}},
		Routing:     &model.RoutingResult{Policy: model.RoutePrefix, Routed: []int64{50, 30, 20}, MaxOverMean: 1.5},
		PrefixCache: &model.PrefixCacheResult{HitRate: 0.6, GPUHits: 70, CPUHits: 10, Misses: 20}}
	pools := &model.ClusterResult{GPUHours: 0.8, MaxNumSeqs: 64, Series: model.ClusterSeries{Replicas: []float64{4, 4, 4, 4, 4, 4}},
		Pools: []model.PoolResult{{Role: "prefill", Replicas: 2, Utilization: 0.5, MeanKVUse: 0.05, MeanWaiting: 0.2, MeanBatch: 1.5},
			{Role: "decode", Replicas: 2, Utilization: 0.99, MeanKVUse: 0.7, MeanWaiting: 0.1, MeanBatch: 30}},
		Transfer: &model.TransferResult{Transfers: 40, Time: model.Quantiles{P50: 0.03, P95: 0.05, Max: 0.1}, KVWait: model.Quantiles{P95: 0.5, Max: 2}}}
	r.Backends = []model.BackendResult{{Name: "auto", Kind: "cluster", Attempts: 70, Cluster: auto},
		{Name: "pd", Kind: "cluster", Attempts: 0, Cluster: pools}, {Name: "api", Kind: "hosted", Attempts: 30}}
	r.Routes = []model.RouteResult{{Name: "spill", Targets: []model.RouteTarget{{Name: "auto"}, {Name: "api"}}, ScaleUpSpill: 30, ScaleUpSpillCompleted: 30, ScaleUpSpillCostUSD: 0.75,
		ScaleUpSpillSeries: []int64{0, 0, 12, 18, 0, 0}, ScaleUpSpillCostSeries: []float64{0, 0, 0.25, 0.5, 0, 0}}}
	return report.NewDocument("headroom test", report.ScenarioInfo{Name: "fleet"}, []*model.Results{r})
}

// decoded is a chart's option as plain JSON.
func decoded(t *testing.T, v chartView) map[string]any {
	t.Helper()
	var o map[string]any
	if err := json.Unmarshal([]byte(v.Option), &o); err != nil {
		t.Fatal(err)
	}
	return o
}

// seriesNamed finds a series of a decoded option by name.
func seriesNamed(o map[string]any, name string) map[string]any {
	list, _ := o["series"].([]any)
	for _, s := range list {
		if m, ok := s.(map[string]any); ok && m["name"] == name {
			return m
		}
	}
	return nil
}

// values of a series, numbers (from plain values or {"value": ...}) and
// "-" gaps as NaN-free -1.
func numbers(s map[string]any) []float64 {
	var out []float64
	data, _ := s["data"].([]any)
	for _, d := range data {
		if m, ok := d.(map[string]any); ok {
			d = m["value"]
		}
		switch x := d.(type) {
		case float64:
			out = append(out, x)
		default:
			out = append(out, -1)
		}
	}
	return out
}

func TestFleetCharts(t *testing.T) {
	d := fleetFixture()
	out := write(t, d, Options{ECharts: stubRuntime})
	for _, id := range []string{"chart-fleet-replicas", "chart-fleet-spill", "chart-cluster-1-routed", "chart-cluster-1-prefix",
		"chart-cluster-2-pools", "chart-cluster-2-pool-queues", "chart-cluster-2-transfer"} {
		if !strings.Contains(out, `<div class="chart" id="`+id+`">`) {
			t.Errorf("chart %s missing", id)
		}
	}
	tl := newTimeline(d.Variants)

	// Replicas: the provisioned, ready and recommended series as given,
	// and a triangle per scale event at its interval and the count it set.
	v, err := replicasChart(tl)
	if err != nil {
		t.Fatal(err)
	}
	o := decoded(t, v)
	if got := numbers(seriesNamed(o, "recommended")); len(got) != 6 || got[2] != 3 || got[5] != 1 {
		t.Errorf("recommended %v", got)
	}
	up, down := seriesNamed(o, "scale-ups"), seriesNamed(o, "scale-downs")
	if up == nil || down == nil || up["type"] != "scatter" {
		t.Fatalf("scale events %v / %v", up, down)
	}
	pt := up["data"].([]any)[0].(map[string]any)
	if xy := pt["value"].([]any); len(up["data"].([]any)) != 1 || xy[0] != 2.0 || xy[1] != 3.0 || pt["name"] != "08:02:10 the metric: 1 → 3" {
		t.Errorf("scale-up point %v", pt)
	}
	if xy := down["data"].([]any)[0].(map[string]any)["value"].([]any); xy[0] != 5.0 || xy[1] != 1.0 {
		t.Errorf("scale-down point %v", xy)
	}
	// The disaggregated cluster served nothing: only the autoscaled one is drawn.
	if seriesNamed(o, "provisioned") == nil || len(o["series"].([]any)) != 5 {
		t.Errorf("%d series, want provisioned, ready, recommended and the events of the one cluster that served", len(o["series"].([]any)))
	}

	// Spill: per minute (60 s intervals: the counts), the cost cumulated
	// to the total.
	v, err = spillChart(tl)
	if err != nil {
		t.Fatal(err)
	}
	o = decoded(t, v)
	if got := numbers(seriesNamed(o, "spilled attempts")); len(got) != 6 || got[2] != 12 || got[3] != 18 {
		t.Errorf("spilled per minute %v", got)
	}
	if got := numbers(seriesNamed(o, "spill cost ($0.75 in all)")); len(got) != 6 || got[5] != 0.75 || got[2] != 0.25 {
		t.Errorf("spill cost %v", got)
	}

	// Routing and the prefix cache: the counts as given.
	v, _ = routedChart(tl, "auto", 0)
	if got := numbers(seriesNamed(decoded(t, v), "prefix-aware, busiest 1.50× the mean")); len(got) != 3 || got[0] != 50 || got[2] != 20 {
		t.Errorf("routed %v", got)
	}
	v, _ = prefixChart(tl, "auto", 0)
	o = decoded(t, v)
	for name, want := range map[string]float64{"found in GPU memory": 70, "found in the CPU tier (read back)": 10, "recomputed (no replica held it)": 20, "prompt tokens read from the cache %": 60} {
		if got := numbers(seriesNamed(o, name)); len(got) != 1 || got[0] != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}

	// Pools: shares on a linear axis; transfer times in ms spanning more
	// than a decade from 30 ms, on a log axis (zero waits left out).
	for _, c := range []struct {
		fig  int
		log  bool
		want []float64
	}{{0, false, []float64{50, 5, 99, 70}}, {1, false, []float64{0.2, 1.5, 0.1, 30}}, {2, true, []float64{30, 50, 100, -1, 500, 2000}}} {
		v, err := poolsCharts(tl, "pd", 1)[c.fig]()
		if err != nil {
			t.Fatal(err)
		}
		o := decoded(t, v)
		y := o["yAxis"].([]any)[0].(map[string]any)
		if (y["type"] == "log") != c.log {
			t.Errorf("%s: y axis %v, want log %v", v.ID, y["type"], c.log)
		}
		got := numbers(seriesNamed(o, "2:2 pools"))
		if len(got) != len(c.want) {
			t.Fatalf("%s: %v, want %v", v.ID, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: %v, want %v", v.ID, got, c.want)
				break
			}
		}
	}
}

// A run without a fleet (a fixed cluster, no autoscaler, no pools) has
// none of the fleet's charts.
func TestNoFleetCharts(t *testing.T) {
	out := write(t, fixture(), Options{ECharts: stubRuntime})
	for _, id := range []string{"chart-fleet-replicas", "chart-fleet-spill", "chart-cluster-1-routed", "chart-cluster-1-prefix", "chart-cluster-1-pools", "Fleet:"} {
		if strings.Contains(out, id) {
			t.Errorf("page has %s", id)
		}
	}
}

// Long runs are coarsened: the spill adds up, the ready replicas are
// averaged and the recommendation is the last of each merged run.
func TestCoarsenFleetSeries(t *testing.T) {
	n := 2 * maxPoints
	r := &model.Results{DurationS: float64(n), IntervalS: 1}
	r.Series = model.Series{IntervalS: 1, StartS: make([]float64, n), Clock: make([]string, n)}
	for i := range r.Series.StartS {
		r.Series.StartS[i] = float64(i)
	}
	a := &model.AutoscaleResult{Ready: make([]float64, n), Recommended: make([]float64, n)}
	rt := model.RouteResult{ScaleUpSpill: 3, ScaleUpSpillSeries: make([]int64, n), ScaleUpSpillCostSeries: make([]float64, n)}
	for i := 0; i < n; i++ {
		a.Ready[i], a.Recommended[i] = float64(i%2), float64(i)
	}
	rt.ScaleUpSpillSeries[10], rt.ScaleUpSpillSeries[11], rt.ScaleUpSpillCostSeries[11] = 1, 2, 0.5
	r.Backends = []model.BackendResult{{Name: "c", Cluster: &model.ClusterResult{Autoscale: a}}}
	r.Routes = []model.RouteResult{rt}
	c, k := coarsen(r)
	if k != 2 {
		t.Fatalf("merged %d", k)
	}
	ca, cr := c.Backends[0].Cluster.Autoscale, c.Routes[0]
	if ca.Ready[0] != 0.5 || ca.Recommended[0] != 1 || ca.Recommended[maxPoints-1] != float64(n-1) {
		t.Errorf("ready %v, recommended %v … %v", ca.Ready[0], ca.Recommended[0], ca.Recommended[maxPoints-1])
	}
	if cr.ScaleUpSpillSeries[5] != 3 || cr.ScaleUpSpillCostSeries[5] != 0.5 || len(cr.ScaleUpSpillSeries) != maxPoints {
		t.Errorf("spill %v, cost %v", cr.ScaleUpSpillSeries[5], cr.ScaleUpSpillCostSeries[5])
	}
	if a.Recommended[1] != 1 || r.Routes[0].ScaleUpSpillSeries[11] != 2 {
		t.Error("coarsen changed the results it was given")
	}
}
