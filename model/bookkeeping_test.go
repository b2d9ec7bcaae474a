package model

import (
	"math"
	"testing"

	"github.com/headroom-sim/headroom/workloads"
)

// gpuCluster is a cluster of n replicas with a table step model.
func gpuCluster(name string, n int, price float64) ClusterSpec {
	return ClusterSpec{Name: name, Replicas: n, MaxNumSeqs: 8, KV: KVSpec{Blocks: 1000, BlockSize: 16},
		Step:  StepSpec{Kind: "table", Per: "iteration", Batches: []float64{1, 64}, Times: []workloads.Duration{0.01, 0.05}},
		Price: ClusterPrice{PerGPUHour: price}}
}

// Two replicas, one failing and losing what it held: every attempt is
// admitted or refused, once.
func TestAttemptsAddUpWithLostRequests(t *testing.T) {
	c := mmcConfig(20, 1, 0, 600, 3)
	c.Providers = nil
	c.Workloads[0].Route = "gpu"
	c.Workloads[0].Tokens = workloads.TokenSpec{Input: workloads.Fixed(200), Output: workloads.Fixed(50)}
	cl := gpuCluster("gpu", 2, 2)
	cl.Failures = []FailureSpec{{After: 120, Duration: 60, Replica: 1, Requests: "lose"}, {After: 400, Duration: 30, Replica: 0}}
	c.Clusters = []ClusterSpec{cl}
	r := mustRun(t, c)
	b := r.Backends[0]
	lost, failed := b.Rejected["replica_lost"], b.Rejected["replica_failure"]
	if lost == 0 || failed == 0 {
		t.Fatalf("no requests lost (%d) or refused (%d) by the failures: %v", lost, failed, b.Rejected)
	}
	var rej int64
	for _, v := range b.Rejected {
		rej += v
	}
	if b.Attempts != b.Admitted+rej {
		t.Errorf("attempts %d != admitted %d + refused %d (of which %d lost, %d replica failures)", b.Attempts, b.Admitted, rej, lost, failed)
	}
}

// A provisioned cluster that no workload uses is billed, and every cost
// figure says so: the summary (which the verdict reads), the backends and
// the series.
func TestIdleClusterCostAgrees(t *testing.T) {
	c := mmcConfig(2, 1, 0, 3600, 1)
	c.Providers[0].Price = PriceSpec{Input: 3, Output: 15}
	c.Workloads[0].Tokens = workloads.TokenSpec{Input: workloads.Fixed(1000), Output: workloads.Fixed(100)}
	c.Clusters = []ClusterSpec{gpuCluster("spare", 2, 2)} // 2 replicas × 1 GPU × 1 h × $2
	r := mustRun(t, c)
	total := r.Summary.Cost.Total
	var backends, series, gpu float64
	for _, b := range r.Backends {
		backends += b.Cost.Total
		gpu += b.Cost.GPU
	}
	for _, v := range r.Series.CostUSD {
		series += v
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, b) }
	if !near(gpu, 4) || !near(r.Summary.Cost.GPU, 4) {
		t.Errorf("GPU cost: backends %v, summary %v; want $4.00", gpu, r.Summary.Cost.GPU)
	}
	if !near(backends, total) || !near(series, total) || total < 4 {
		t.Errorf("total %v, backends %v, series %v", total, backends, series)
	}
}
