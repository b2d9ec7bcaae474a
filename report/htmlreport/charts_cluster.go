package htmlreport

import (
	"fmt"

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
			if b.Cluster != nil && !contains(out, b.Name) {
				out = append(out, b.Name)
			}
		}
	}
	return out
}

// clusterOf finds a cluster backend of a variant by name.
func clusterOf(r *model.Results, name string) *model.ClusterResult {
	for i := range r.Backends {
		if r.Backends[i].Name == name && r.Backends[i].Cluster != nil {
			return r.Backends[i].Cluster
		}
	}
	return nil
}

// batchChart draws a cluster's running batch (mean per replica and the
// cluster's maximum) and its waiting requests.
func batchChart(t timeline, name string, k int) (chartView, error) {
	id := fmt.Sprintf("chart-cluster-%d-batch", k+1)
	c := axisChart{id: id, title: "GPU cluster " + name + ": batch size and waiting requests",
		subtitle: "running sequences (left: mean per replica, cluster maximum; dashed red: max_num_seqs) and requests waiting (right)", xName: "clock", yName: "sequences", legend: true, zoom: true}.newLine()
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
		c.AddSeries(t.label(r, "batch max (cluster)"), values(cl.Series.BatchMax, 1, n), lineOpts(dashed())...)
		c.AddSeries(t.label(r, "waiting"), values(cl.Series.Waiting, 1, n), charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), YAxisIndex: 1}),
			charts.WithLineStyleOpts(opts.LineStyle{Width: 1.5, Type: "dotted"}))
	}
	return newView(id, c, "",
		"Continuous batching: the mean number of sequences each provisioned replica runs, the most running at once in the whole cluster, and requests waiting for a batch slot or KV memory.")
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
	return newView(id, c, "",
		"KV use near 100% with preemptions means memory binds: sequences are evicted and recomputed. Utilization near 100% with KV to spare means compute binds: the replicas are never idle.")
}
