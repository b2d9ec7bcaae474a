package htmlreport

import (
	"fmt"
	"math"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/headroom-sim/headroom/model"
)

// clusterNames lists the GPU clusters of the drawn variants, in the order
// they first appear.
func clusterNames(t timeline) []string {
	var out []string
	for _, r := range t.variants {
		for _, b := range r.Backends {
			if clusterOf(r, b.Name) != nil && !contains(out, b.Name) {
				out = append(out, b.Name)
			}
		}
	}
	return out
}

// clusterOf finds a cluster backend of a variant by name; nil when the
// variant has none of that name or switched it off (no GPU ever
// provisioned).
func clusterOf(r *model.Results, name string) *model.ClusterResult {
	for i := range r.Backends {
		if c := r.Backends[i].Cluster; r.Backends[i].Name == name && c != nil && (c.GPUHours > 0 || r.Backends[i].Attempts > 0) {
			return c
		}
	}
	return nil
}

// perReplicaPeak is the cluster's most running sequences at once in each
// interval over its provisioned replicas: what one replica ran at the
// peak, comparable with max_num_seqs (a per-replica cap) as the cluster's
// total is not. Intervals without replicas are gaps.
func perReplicaPeak(cl *model.ClusterResult, n int) []opts.LineData {
	v := make([]float64, len(cl.Series.BatchMax))
	for i, m := range cl.Series.BatchMax {
		v[i] = math.NaN()
		if i < len(cl.Series.Replicas) && cl.Series.Replicas[i] > 0 {
			v[i] = m / cl.Series.Replicas[i]
		}
	}
	return values(v, 1, n)
}

// batchChart draws a cluster's running batch per replica (the
// time-weighted mean and the peak) against max_num_seqs, and its waiting
// requests.
func batchChart(t timeline, name string, k int) (chartView, error) {
	id := fmt.Sprintf("chart-cluster-%d-batch", k+1)
	c := axisChart{id: id, title: "GPU cluster " + name + ": batch size per replica and waiting requests",
		subtitle: "running sequences per replica (left: mean, and peak dashed; dashed red: max_num_seqs) and requests waiting in the cluster (right)", xName: "clock", yName: "sequences per replica", legend: true, zoom: true}.newLine()
	c.ExtendYAxis(opts.YAxis{Name: "waiting requests", Position: "right"})
	c.SetXAxis(t.clock)
	n := len(t.clock)
	for i, r := range t.variants {
		cl := clusterOf(r, name)
		if cl == nil {
			continue
		}
		var marks []charts.SeriesOpts
		if i == 0 && cl.MaxNumSeqs > 0 {
			marks = limitLines([]markLine{{name: fmt.Sprintf("max_num_seqs %d", cl.MaxNumSeqs), value: float64(cl.MaxNumSeqs)}})
		}
		c.AddSeries(t.label(r, "batch per replica"), values(cl.Series.Batch, 1, n), lineOpts(marks...)...)
		c.AddSeries(t.label(r, "batch peak per replica"), perReplicaPeak(cl, n), lineOpts(dashed())...)
		c.AddSeries(t.label(r, "waiting"), values(cl.Series.Waiting, 1, n), charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), YAxisIndex: 1}),
			charts.WithLineStyleOpts(opts.LineStyle{Width: 1.5, Type: "dotted"}))
	}
	return t.view(id, c, "",
		"Continuous batching: the mean number of sequences each provisioned replica runs, and the peak (the cluster's most at once over its replicas), both against the per-replica cap max_num_seqs; and the requests waiting for a batch slot or KV memory.")
}

// kvChart draws a cluster's KV-cache use and busy share (percent) and its
// preemptions per minute (right axis).
func kvChart(t timeline, name string, k int) (chartView, error) {
	id := fmt.Sprintf("chart-cluster-%d-kv", k+1)
	c := axisChart{id: id, title: "GPU cluster " + name + ": KV cache, utilization and preemptions",
		subtitle: "KV blocks in use and replicas running an iteration (left, %); preemptions per minute (right)", xName: "clock", yName: "%", legend: true, zoom: true}.newLine()
	c.SetGlobalOptions(charts.WithYAxisOpts(opts.YAxis{Name: "%", Min: 0, Max: 100}))
	c.ExtendYAxis(opts.YAxis{Name: "preemptions/min", Position: "right"})
	c.SetXAxis(t.clock)
	n := len(t.clock)
	for _, r := range t.variants {
		cl := clusterOf(r, name)
		if cl == nil {
			continue
		}
		c.AddSeries(t.label(r, "KV use %"), values(cl.Series.KVUse, 100, n), lineOpts()...)
		c.AddSeries(t.label(r, "utilization %"), values(cl.Series.Utilization, 100, n), lineOpts(dashed())...)
		c.AddSeries(t.label(r, "preemptions/min"), perMinute(cl.Series.Preemptions, minutes(r), n),
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), YAxisIndex: 1, Step: "middle"}),
			charts.WithLineStyleOpts(opts.LineStyle{Width: 1, Type: "dotted"}))
	}
	return t.view(id, c, "",
		"KV use near 100% with preemptions means memory binds: sequences are evicted and recomputed. Utilization near 100% with KV to spare means compute binds: the replicas are never idle.")
}
