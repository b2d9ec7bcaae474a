package htmlreport

import (
	"fmt"
	"math"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// The fleet's charts: replicas over time with the autoscaler's scale
// events, the hosted spill while replicas start, and per cluster the load
// spread over its replicas, its prefix-cache hits by tier and, for a
// disaggregated cluster, its pools and KV transfers.

// scaledCluster is one variant's cluster whose replica count moves: an
// autoscaler, a schedule or a failure.
type scaledCluster struct {
	r    *model.Results
	name string
	c    *model.ClusterResult
}

// scaledClusters lists, variant by variant, the clusters that served
// requests, when any of them has an autoscaler or a count of replicas
// that moves (a fixed fleet beside them is the comparison); none
// otherwise.
func scaledClusters(t timeline) []scaledCluster {
	var out []scaledCluster
	moves := false
	for _, r := range t.variants {
		for _, b := range r.Backends {
			c := clusterOf(r, b.Name)
			if c == nil || b.Attempts == 0 {
				continue
			}
			moves = moves || c.Autoscale != nil || varies(c.Series.Replicas)
			out = append(out, scaledCluster{r, b.Name, c})
		}
	}
	if !moves {
		return nil
	}
	return out
}

// varies reports whether a series takes more than one value.
func varies(v []float64) bool {
	for _, x := range v {
		if x != v[0] {
			return true
		}
	}
	return false
}

// hasSpill reports whether any drawn variant spilled past a cluster
// scaling up.
func hasSpill(t timeline) bool {
	for _, r := range t.variants {
		for _, rt := range r.Routes {
			if rt.ScaleUpSpill > 0 {
				return true
			}
		}
	}
	return false
}

// replicasChart draws every moving cluster's replicas over time: those
// provisioned (billed), those ready to serve and the autoscaler's
// recommendation, with its scale events as triangles (up, or down) at the
// count they set.
func replicasChart(t timeline) (chartView, error) {
	const id = "chart-fleet-replicas"
	scaled := scaledClusters(t)
	names := map[string]bool{}
	for _, s := range scaled {
		names[s.name] = true
	}
	c := axisChart{id: id, title: "Replicas over time",
		subtitle: "provisioned (billed, starting ones included), ready to serve (dashed) and the autoscaler's recommendation (dotted); triangles: scale events", xName: "clock", yName: "replicas", legend: true, zoom: true}.newLine()
	c.SetXAxis(t.clock)
	n := len(t.clock)
	var events []map[string]any
	for _, s := range scaled {
		metric := func(m string) string {
			if len(names) > 1 {
				return s.name + " " + m
			}
			return m
		}
		c.AddSeries(t.label(s.r, metric("provisioned")), values(s.c.Series.Replicas, 1, n), lineOpts()...)
		a := s.c.Autoscale
		if a == nil {
			continue
		}
		c.AddSeries(t.label(s.r, metric("ready")), values(a.Ready, 1, n), lineOpts(dashed())...)
		c.AddSeries(t.label(s.r, metric("recommended")), values(a.Recommended, 1, n),
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), Step: "end"}),
			charts.WithLineStyleOpts(opts.LineStyle{Width: 1, Type: "dotted"}))
		var up, down []any
		for _, e := range a.Events {
			i := int(e.AtS / s.r.Series.IntervalS)
			if i >= n {
				continue
			}
			p := map[string]any{"value": []any{i, e.To}, "name": fmt.Sprintf("%s %s: %d → %d", report.Clock(s.r, e.AtS), eventWords(e.Reason), e.From, e.To)}
			if e.To > e.From {
				up = append(up, p)
			} else {
				down = append(down, p)
			}
		}
		for _, ev := range []struct {
			what   string
			data   []any
			rotate int
		}{{"scale-ups", up, 0}, {"scale-downs", down, 180}} {
			if len(ev.data) == 0 {
				continue
			}
			events = append(events, map[string]any{"type": "scatter", "name": t.label(s.r, metric(ev.what)), "data": ev.data,
				"symbol": "triangle", "symbolSize": 11, "symbolRotate": ev.rotate, "z": 3,
				"tooltip": map[string]any{"trigger": "item", "formatter": "{b}"}})
		}
	}
	return newSizedView(id, c, "replicas",
		"A scale-up's replicas are billed from the decision (provisioning and loading the model) and serve once ready; the gap between the recommendation and the ready line is time spent short of replicas, which an overflow route fills from a hosted API. A fixed fleet or a schedule is drawn by its provisioned line alone.",
		viewSpec{owner: t.owner, byVariant: true, tweaks: []func(option){func(o option) { o.setSeries(append(o.series(), events...)) }}})
}

// eventWords says why a scale event happened.
func eventWords(reason string) string {
	switch reason {
	case model.ScaleMetric:
		return "the metric"
	case model.ScaleSchedule:
		return "the schedule"
	case model.ScaleCold:
		return "a cold start"
	}
	return reason
}

// spillChart draws the attempts an overflow route sent to a hosted API
// while a cluster was short of replicas, per minute, and what they cost,
// cumulated (right axis).
func spillChart(t timeline) (chartView, error) {
	const id = "chart-fleet-spill"
	c := axisChart{id: id, title: "Hosted spill while replicas start",
		subtitle: "attempts an overflow route sent to a hosted API while the cluster scaled up (bars, per minute) and their cost so far (line, right)", xName: "clock", yName: "attempts/min", legend: true, zoom: true}.newBar()
	c.ExtendYAxis(opts.YAxis{Name: "USD", Position: "right"})
	c.SetXAxis(t.clock)
	n := len(t.clock)
	line := charts.NewLine()
	line.SetXAxis(t.clock)
	for _, r := range t.variants {
		routes := 0
		for _, rt := range r.Routes {
			if rt.ScaleUpSpill > 0 {
				routes++
			}
		}
		m := minutes(r)
		for _, rt := range r.Routes {
			if rt.ScaleUpSpill == 0 {
				continue
			}
			metric := func(s string) string {
				if routes > 1 {
					return rt.Name + " " + s
				}
				return s
			}
			c.AddSeries(t.label(r, metric("spilled attempts")), perMinuteBars(rt.ScaleUpSpillSeries, m, n))
			line.AddSeries(t.label(r, metric(fmt.Sprintf("spill cost ($%.2f in all)", rt.ScaleUpSpillCostUSD))), cumulative(rt.ScaleUpSpillCostSeries, n),
				charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), YAxisIndex: 1, Step: "end"}), charts.WithLineStyleOpts(opts.LineStyle{Width: 1.5}))
		}
	}
	c.Overlap(line)
	// Zoomed to the spill, which lasts minutes of a day: a bar per
	// interval would be a hairline on the whole run (scrolling zooms out).
	first, last := -1, -1
	for _, r := range t.variants {
		for _, rt := range r.Routes {
			for i, v := range rt.ScaleUpSpillSeries {
				if v > 0 {
					if first < 0 || i < first {
						first = i
					}
					last = max(last, i)
				}
			}
		}
	}
	pad := max(12, last-first+1)
	zoom := func(o option) {
		zs, _ := o["dataZoom"].([]any)
		for _, z := range zs {
			if m, ok := z.(map[string]any); ok && first >= 0 {
				m["startValue"], m["endValue"] = max(0, first-pad), min(n-1, last+pad)
			}
		}
	}
	note := "Without the spill these requests would have waited for the new replicas (or been refused); with it they were served at once at the hosted API's token prices. The cost line ends at what the spill cost over the run."
	if first >= 0 && (first > pad || last+pad < n-1) {
		note += " The chart opens zoomed to the spill, " + t.clock[max(0, first-pad)] + " to " + t.clock[min(n-1, last+pad)] + "; scroll over it to zoom out."
	}
	return newSizedView(id, c, "", note, viewSpec{owner: t.owner, byVariant: true, tweaks: []func(option){zoom}})
}

// routedChart draws how many requests the cluster's router sent to each
// replica, one group of bars per replica.
func routedChart(t timeline, name string, k int) (chartView, error) {
	id := fmt.Sprintf("chart-cluster-%d-routed", k+1)
	most := 0
	pools := false
	for _, r := range t.variants {
		if cl := clusterOf(r, name); cl != nil && cl.Routing != nil {
			most = max(most, len(cl.Routing.Routed))
			pools = pools || len(cl.Pools) > 0
		}
	}
	sub := "requests sent to each replica over the run"
	if pools {
		sub += " (the prefill pool's, for a disaggregated variant)"
	}
	c := axisChart{id: id, title: "GPU cluster " + name + ": requests routed to each replica", subtitle: sub,
		xName: "replica", yName: "requests", legend: true}.newBar()
	labels := make([]string, most)
	for i := range labels {
		labels[i] = fmt.Sprint(i + 1)
	}
	c.SetXAxis(labels)
	for _, r := range t.variants {
		cl := clusterOf(r, name)
		if cl == nil || cl.Routing == nil || len(cl.Routing.Routed) < 2 {
			continue
		}
		rt := cl.Routing
		data := make([]opts.BarData, most)
		for i := range data {
			data[i] = opts.BarData{Value: "-"}
			if i < len(rt.Routed) {
				data[i] = opts.BarData{Value: rt.Routed[i]}
			}
		}
		metric := fmt.Sprintf("busiest %.2f× the mean", rt.MaxOverMean)
		if p := policyLabel(rt.Policy); !strings.Contains(report.VariantName(r), p) {
			metric = p + ", " + metric
		}
		c.AddSeries(t.label(r, metric), data)
	}
	return t.view(id, c, "requests",
		"An even spread is not the goal in itself: prefix-aware routing loads the replicas that hold a prompt's prefix more, and wins if its hit rate and first-token times say so. Replicas an autoscaler started late, or stopped early, had less time to take requests.")
}

// policyLabel names a routing policy in a legend.
func policyLabel(p string) string {
	switch p {
	case model.RouteLeastWork:
		return "least work"
	case model.RouteRoundRobin:
		return "round robin"
	case model.RoutePowerOfTwo:
		return "power of two"
	case model.RouteLeastKV:
		return "least KV"
	case model.RoutePrefix:
		return "prefix-aware"
	}
	return p
}

// hasRouting reports whether any variant's cluster spread requests over
// several replicas.
func hasRouting(t timeline, name string) bool {
	for _, r := range t.variants {
		if cl := clusterOf(r, name); cl != nil && cl.Routing != nil && len(cl.Routing.Routed) > 1 {
			return true
		}
	}
	return false
}

// hasPrefixCache reports whether any variant's cluster looked prefixes up.
func hasPrefixCache(t timeline, name string) bool {
	for _, r := range t.variants {
		if cl := clusterOf(r, name); cl != nil && cl.PrefixCache != nil && cl.PrefixCache.GPUHits+cl.PrefixCache.CPUHits+cl.PrefixCache.Misses > 0 {
			return true
		}
	}
	return false
}

// prefixChart draws, variant by variant, where requests found their shared
// prefix (stacked: GPU memory, the CPU tier, nowhere) and the share of
// prompt tokens read from the cache (right axis).
func prefixChart(t timeline, name string, k int) (chartView, error) {
	id := fmt.Sprintf("chart-cluster-%d-prefix", k+1)
	c := axisChart{id: id, title: "GPU cluster " + name + ": prefix-cache hits by tier",
		subtitle: "requests with a shared prefix by where they found it (stacked bars) and the share of prompt tokens read from the cache (diamonds, right axis)", xName: "", yName: "requests", legend: true}.newBar()
	c.ExtendYAxis(opts.YAxis{Name: "% of prompt tokens", Position: "right", Min: 0, Max: 100})
	var labels []string
	var gpu, cpu, miss []opts.BarData
	var rate []opts.LineData
	for _, r := range t.variants {
		cl := clusterOf(r, name)
		if cl == nil || cl.PrefixCache == nil {
			continue
		}
		pc := cl.PrefixCache
		labels = append(labels, report.VariantName(r))
		gpu = append(gpu, opts.BarData{Value: pc.GPUHits})
		cpu = append(cpu, opts.BarData{Value: pc.CPUHits})
		miss = append(miss, opts.BarData{Value: pc.Misses})
		rate = append(rate, opts.LineData{Value: math.Round(1000*pc.HitRate) / 10})
	}
	c.SetXAxis(labels)
	stack := charts.WithBarChartOpts(opts.BarChart{Stack: "tiers", BarCategoryGap: "40%"})
	c.AddSeries("found in GPU memory", gpu, stack)
	if hasValue(cpu) {
		c.AddSeries("found in the CPU tier (read back)", cpu, stack)
	}
	c.AddSeries("recomputed (no replica held it)", miss, stack)
	const rateName = "prompt tokens read from the cache %"
	line := charts.NewLine()
	line.SetXAxis(labels)
	line.AddSeries(rateName, rate,
		charts.WithLineChartOpts(opts.LineChart{YAxisIndex: 1}),
		charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "right", Formatter: "{c}%"}))
	c.Overlap(line)
	// The share is a point per variant, not a trend between them.
	dots := func(o option) {
		for _, s := range o.series() {
			if s["name"] == rateName {
				s["type"], s["symbol"], s["symbolSize"] = "scatter", "diamond", 14
				delete(s, "lineStyle")
				if l, ok := s["label"].(map[string]any); ok { // readable over a bar
					l["backgroundColor"], l["padding"], l["borderRadius"], l["color"], l["textBorderWidth"], l["fontSize"] = "#ffffff", []any{2, 5}, 3, "#333333", 0, 12
					l["lineHeight"] = 16
				}
			}
		}
	}
	return newSizedView(id, c, "", "A hit in GPU memory skips the prefix's prefill; one in the CPU tier reads its KV back over the host link instead, slower but far cheaper than recomputing it. Routing decides how often a request lands on a replica that holds its prefix.",
		viewSpec{tweaks: []func(option){dots}})
}

// hasValue reports whether any bar is a non-zero number.
func hasValue(d []opts.BarData) bool {
	for _, x := range d {
		if v, ok := x.Value.(int64); ok && v != 0 {
			return true
		}
	}
	return false
}

// hasPools reports whether any variant's cluster is disaggregated.
func hasPools(t timeline, name string) bool {
	for _, r := range t.variants {
		if cl := clusterOf(r, name); cl != nil && len(cl.Pools) > 0 {
			return true
		}
	}
	return false
}

// poolFigures draws one figure of each pool (the categories), a bar per
// disaggregated variant; on a log axis when the figures span more than a
// decade.
func poolFigures(t timeline, name, id, title, subtitle, yName, unit, note string, logOK bool, cats []string, fig func(c *model.ClusterResult) []float64) (chartView, error) {
	lo, hi := math.Inf(1), 0.0
	for _, r := range t.variants {
		if cl := clusterOf(r, name); cl != nil && len(cl.Pools) > 0 {
			for _, v := range fig(cl) {
				if v > 0 {
					lo, hi = min(lo, v), max(hi, v)
				}
			}
		}
	}
	// A log axis only from 1 up: ECharts draws a bar on a log axis from 1,
	// so a smaller value would hang below it.
	yType, axis := "value", opts.YAxis{Name: yName}
	if logOK && hi >= 10*lo && lo >= 1 {
		yType = "log"
		axis = opts.YAxis{Name: yName + " (log scale)", Type: yType, Min: math.Pow(10, math.Floor(math.Log10(lo)))}
		note += " A missing bar is zero."
	}
	c := axisChart{id: id, title: title, subtitle: subtitle, yName: axis.Name, legend: true}.newBar()
	c.SetGlobalOptions(charts.WithYAxisOpts(axis))
	format := "{c}"
	if unit == "%" {
		format = "{c}%"
	}
	c.SetXAxis(cats)
	for _, r := range t.variants {
		cl := clusterOf(r, name)
		if cl == nil || len(cl.Pools) == 0 {
			continue
		}
		vals := fig(cl)
		data := make([]opts.BarData, len(vals))
		for i, v := range vals {
			data[i] = opts.BarData{Value: "-"}
			if v > 0 || yType == "value" && !math.IsNaN(v) {
				data[i] = opts.BarData{Value: round3(v)}
			}
		}
		c.AddSeries(t.label(r, poolsLabel(cl)), data, charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "top", Formatter: format}))
	}
	return t.view(id, c, unit, note)
}

// poolsLabel names a variant's pools by their replicas, "4:4 pools".
func poolsLabel(c *model.ClusterResult) string {
	return fmt.Sprintf("%d:%d pools", pool(c, "prefill").Replicas, pool(c, "decode").Replicas)
}

// pool returns a cluster's pool of a role.
func pool(c *model.ClusterResult, role string) model.PoolResult {
	for _, p := range c.Pools {
		if p.Role == role {
			return p
		}
	}
	return model.PoolResult{}
}

// poolsCharts draws a disaggregated cluster's pools: their busy time and
// KV use, their queues and batches, and the KV transfers between them.
func poolsCharts(t timeline, name string, k int) []func() (chartView, error) {
	return []func() (chartView, error){
		func() (chartView, error) {
			return poolFigures(t, name, fmt.Sprintf("chart-cluster-%d-pools", k+1), "GPU cluster "+name+": prefill and decode pools",
				"share of time the pool's replicas run iterations, and of its KV blocks in use (means over the run)", "%", "%",
				"A pool near 100% busy is the one to grow; the decode pool's KV binds when prefilled requests wait for its blocks (next charts).", false,
				[]string{"prefill: running iterations", "prefill: KV in use", "decode: running iterations", "decode: KV in use"},
				func(c *model.ClusterResult) []float64 {
					p, d := pool(c, "prefill"), pool(c, "decode")
					return []float64{100 * p.Utilization, 100 * p.MeanKVUse, 100 * d.Utilization, 100 * d.MeanKVUse}
				})
		},
		func() (chartView, error) {
			return poolFigures(t, name, fmt.Sprintf("chart-cluster-%d-pool-queues", k+1), "GPU cluster "+name+": pool queues and batches",
				"requests waiting in each pool (decode: for a slot or for KV blocks to receive a transfer) and sequences running per replica (means over the run)", "requests, sequences", "",
				"Requests waiting at the prefill pool have not had their first token; those waiting at the decode pool have it and wait for the next.", false,
				[]string{"prefill: waiting", "prefill: batch per replica", "decode: waiting", "decode: batch per replica"},
				func(c *model.ClusterResult) []float64 {
					p, d := pool(c, "prefill"), pool(c, "decode")
					return []float64{p.MeanWaiting, p.MeanBatch, d.MeanWaiting, d.MeanBatch}
				})
		},
		func() (chartView, error) {
			return poolFigures(t, name, fmt.Sprintf("chart-cluster-%d-transfer", k+1), "GPU cluster "+name+": KV transfers from prefill to decode",
				"a transfer's time (KV bytes ÷ bandwidth + latency) and the wait for decode KV blocks before it, per request", "milliseconds", "ms",
				"Time to first token includes both. A wait for decode blocks means the decode pool's memory is full: more decode replicas, or a larger share of their memory for KV.", true,
				[]string{"transfer p50", "transfer p95", "transfer max", "wait for decode KV p50", "wait p95", "wait max"},
				func(c *model.ClusterResult) []float64 {
					x := c.Transfer
					if x == nil {
						return nil
					}
					return []float64{1e3 * x.Time.P50, 1e3 * x.Time.P95, 1e3 * x.Time.Max, 1e3 * x.KVWait.P50, 1e3 * x.KVWait.P95, 1e3 * x.KVWait.Max}
				})
		},
	}
}

// round3 rounds a bar's value to three significant digits, as its label
// shows it.
func round3(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	p := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}
