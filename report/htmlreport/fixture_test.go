package htmlreport

import (
	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// fixture is a small document with two variants, a hosted API whose
// limits refuse, and a GPU cluster.
func fixture() *report.Document {
	r := &model.Results{Scenario: "s", Seed: 1, DurationS: 240, IntervalS: 60, StartClock: "09:00"}
	r.Summary.Requests = model.RequestCounts{Offered: 100, Completed: 90, Failed: 8, InFlightAtEnd: 2, FailedBy: map[string]int64{"itpm": 8}}
	r.Summary.Attempts = model.AttemptCounts{Total: 150, Retries: 50, Rejected: map[string]int64{"itpm": 40, "rpm": 10}, RetriesPerRequest: 0.5}
	q := model.Quantiles{Count: 90, Mean: 1.5, P50: 1.2, P90: 2.5, P95: 3.4, P99: 6, Max: 9}
	r.Summary.Latency = model.LatencySet{TTFT: q, E2E: q, QueueWait: q, TPOT: q}
	r.Summary.Cost.Total = 1234.5
	r.Summary.Goodput.SLOAttainment = 0.9
	r.Workloads = []model.GroupResult{{Name: "chat", Summary: r.Summary}}
	r.Verdict = []string{"api ITPM limit 800k binds."}
	cluster := &model.ClusterResult{Replicas: 2, GPUs: 2, GPUHours: 0.13, MaxNumSeqs: 64, Utilization: 0.95, MeanBatch: 20, PeakBatch: 60,
		Series: model.ClusterSeries{Batch: []float64{10, 20, 30, 20}, BatchMax: []float64{20, 40, 60, 40}, KVUse: []float64{0.1, 0.5, 0.9, 0.4},
			Waiting: []float64{0, 1, 5, 0}, Preemptions: []int64{0, 0, 3, 0}, Utilization: []float64{0.5, 0.9, 1, 0.8},
			CostUSD: []float64{0.1, 0.1, 0.1, 0.1}, CostPerHour: []float64{6, 6, 6, 6}}}
	r.Backends = []model.BackendResult{
		{Name: "api", Kind: "hosted", Limits: []model.LimitResult{
			{Scope: "org", Dimension: "rpm", Limit: 2000, Rejected: 10, FirstRejectS: 130, PeakUse: 1.1},
			{Scope: "org", Dimension: "itpm", Limit: 800000, Rejected: 40, FirstRejectS: 65, PeakUse: 1.2, Binding: true},
		}},
		{Name: "gpu", Kind: "cluster", Cluster: cluster},
	}
	r.Series = model.Series{IntervalS: 60, StartS: []float64{0, 60, 120, 180}, Clock: []string{"09:00", "09:01", "09:02", "09:03"},
		Offered: []int64{20, 30, 30, 20}, Completed: []int64{20, 25, 25, 20}, Failed: []int64{0, 3, 5, 0}, Retries: []int64{0, 20, 30, 0},
		InFlight: []float64{2, 5, 8, 3}, QueueLength: []float64{0, 2, 4, 0}, TTFTP95: []float64{1, 3.4, 5, 0}, TTFTP50: []float64{0.5, 1.2, 2, 0},
		QueueWaitP95: []float64{0, 2, 4, 0}, InputTokens: []int64{1000, 2000, 2000, 1000}, OutputTokens: []int64{100, 200, 200, 100},
		CostUSD: []float64{0.5, 1, 1, 0.5}, Rejected: map[string][]int64{"rpm": {0, 0, 10, 0}, "itpm": {0, 15, 25, 0}}}
	itpm := &model.LimitRef{Backend: "api", Scope: "org", Dimension: "itpm"}
	clusters := []model.ClusterFinding{{Backend: "gpu", Bound: model.BoundCompute}}
	r.Findings = model.Findings{FirstToBind: itpm, MostRefused: itpm, Tightest: itpm, Clusters: clusters}
	v := *r
	v.Variant = "tier 4"
	v.Findings = model.Findings{Tightest: itpm, Clusters: clusters}
	v.Summary.Requests = model.RequestCounts{Offered: 100, Completed: 100}
	v.Summary.Goodput.SLOAttainment = 1
	v.Summary.Cost.Total = 1300
	v.Summary.Attempts = model.AttemptCounts{Total: 100, Rejected: map[string]int64{}}
	v.Backends = []model.BackendResult{{Name: "api", Kind: "hosted", Limits: []model.LimitResult{
		{Scope: "org", Dimension: "rpm", Limit: 4000, FirstRejectS: -1, PeakUse: 0.5},
		{Scope: "org", Dimension: "itpm", Limit: 2000000, FirstRejectS: -1, PeakUse: 0.6},
	}}, r.Backends[1]}
	return report.NewDocument("headroom test", report.ScenarioInfo{Name: "s", Description: "a test", File: "s.toml"}, []*model.Results{r, &v})
}
