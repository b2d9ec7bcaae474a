package model

import (
	"testing"

	"github.com/headroom-sim/headroom/workloads"
)

// pdConfig is a disaggregated cluster on a measured step table (10 ms an
// iteration plus 10 µs per prefill token), prompts uniform in [500, 3000].
func pdConfig(rate float64, bw float64, latency workloads.Duration) Config {
	c := clusterConfig(rate, 0, 50, "iteration", []float64{1, 256}, []float64{0.010, 0.030}, 256, 100_000)
	c.Duration = 600
	c.Workloads[0].Tokens.Input = workloads.Dist{Kind: workloads.KindUniform, Min: 500, Max: 3000}
	c.Workloads[0].Tokens.MaxTokens = 100
	c.Workloads[0].Demand.Arrivals = workloads.ArrivalSpec{Kind: "poisson"}
	cl := &c.Clusters[0]
	cl.Replicas = 0
	cl.Step.PrefillPerToken = 1e-5
	cl.Prefill = &PoolSpec{Replicas: 2}
	cl.Decode = &PoolSpec{Replicas: 3}
	cl.Transfer = TransferSpec{BandwidthGBs: bw, Latency: latency, BytesPerToken: 131072}
	cl.Price.PerGPUHour = 2
	return c
}

// With an infinite link, TTFT is the prefill pool's step times plus its
// queueing: the same, request for request, as a cluster like the prefill
// pool serving the prompts alone (one output token each).
func TestDisaggInfiniteLinkTTFTIsPrefill(t *testing.T) {
	pd := mustRun(t, pdConfig(20, 1e9, 0))
	ref := pdConfig(20, 1e9, 0)
	ref.Clusters[0].Prefill, ref.Clusters[0].Decode, ref.Clusters[0].Transfer = nil, nil, TransferSpec{}
	ref.Clusters[0].Replicas = 2
	ref.Workloads[0].Tokens.Output = workloads.Fixed(1)
	alone := mustRun(t, ref)
	a, b := pd.Summary.Latency.TTFT, alone.Summary.Latency.TTFT
	// Latencies are recorded at completion: the disaggregated run has the
	// requests still decoding at the end to complete.
	if a.Count > b.Count || b.Count-a.Count > pd.Summary.Requests.InFlightAtEnd {
		t.Fatalf("TTFT counts %d and %d, %d in flight", a.Count, b.Count, pd.Summary.Requests.InFlightAtEnd)
	}
	if a.P50 != b.P50 || a.P99 != b.P99 || a.Max-b.Max > 1e-6 || b.Max-a.Max > 1e-6 {
		t.Errorf("TTFT disaggregated %+v, prefill alone %+v", a, b)
	}
	if q := pd.Summary.Requests; q.Failed != 0 || q.Completed < q.Offered-50 {
		t.Errorf("requests %+v", q)
	}
	cl := pd.Backends[0].Cluster
	if len(cl.Pools) != 2 || cl.Pools[0].Role != "prefill" || cl.Pools[1].Role != "decode" || cl.GPUs != 5 {
		t.Fatalf("pools %+v", cl.Pools)
	}
	within(t, "GPU-hours over both pools", cl.GPUHours, 5*600/3600.0, 1e-9)
	within(t, "GPU cost", pd.Backends[0].Cost.Total, 2*cl.GPUHours, 1e-9)
	within(t, "run cost", pd.Summary.Cost.Total, 2*cl.GPUHours, 1e-9)
	if cl.ITL.Count == 0 || cl.Pools[1].Steps == 0 || cl.Pools[0].Utilization <= 0 {
		t.Errorf("decode pool idle: ITL %+v, pools %+v", cl.ITL, cl.Pools)
	}
}

// A transfer takes prompt tokens × bytes per token ÷ bandwidth + latency,
// and at light load TTFT is one prefill iteration plus the transfer.
func TestDisaggTransferTime(t *testing.T) {
	c := pdConfig(0.5, 50, 0.002)
	c.Workloads[0].Tokens.Input = workloads.Fixed(2000)
	c.Workloads[0].Demand.Arrivals = workloads.ArrivalSpec{Kind: "constant"}
	r := mustRun(t, c)
	tr := r.Backends[0].Cluster.Transfer
	want := 2000*131072/50e9 + 0.002
	within(t, "transfer time (mean)", tr.Time.Mean, want, 1e-9)
	within(t, "transfer time (max)", tr.Time.Max, want, 1e-9)
	if tr.Transfers != r.Summary.Requests.Completed || tr.Bytes != float64(tr.Transfers)*2000*131072 {
		t.Errorf("transfers %+v for %d requests", tr, r.Summary.Requests.Completed)
	}
	prefill := 0.010 + 2000*1e-5
	within(t, "TTFT", r.Summary.Latency.TTFT.Mean, prefill+want, 1e-9)
}

// Decode admission is limited by the decode pool's KV: with a small decode
// cache, prefilled requests wait for blocks (kv_wait) instead of
// overfilling it, and every request still completes or is in flight.
func TestDisaggDecodeKVLimitsAdmission(t *testing.T) {
	c := pdConfig(20, 50, 0.001)
	c.Clusters[0].Decode = &PoolSpec{Replicas: 1}
	c.Clusters[0].KV.Blocks = 2000
	r := mustRun(t, c)
	cl := r.Backends[0].Cluster
	if cl.Transfer.KVWait.Max <= 0 || cl.Pools[1].MeanKVUse < 0.5 {
		t.Errorf("decode KV %.2f used, kv wait %+v: want the decode pool's KV to bind", cl.Pools[1].MeanKVUse, cl.Transfer.KVWait)
	}
	if q := r.Summary.Requests; q.Failed != 0 || q.Offered != q.Completed+q.InFlightAtEnd {
		t.Errorf("requests %+v", q)
	}
}

// poolStepConfig steps constant arrivals from 3 to 30 requests/s at
// t = 600 s on a disaggregated cluster whose pool role is autoscaled on
// the arrival rate (8 requests/s per replica, as the cluster-level step
// test), the other pool fixed.
func poolStepConfig(role string) Config {
	c := pdConfig(0, 1e9, 0)
	c.Duration = 1800
	c.Workloads[0].Demand = workloads.DemandSpec{Unit: "requests/s", Curve: []float64{3, 30, 30}, Every: 600,
		Arrivals: workloads.ArrivalSpec{Kind: "constant"}}
	down := workloads.Duration(300)
	as := &AutoscaleSpec{Metric: MetricArrivalRate, Target: 8, Min: ptr(1), Max: 10, Period: 15,
		UpWindow: 60, DownWindow: &down, Provisioning: 120, ModelLoad: 30}
	cl := &c.Clusters[0]
	cl.Prefill, cl.Decode = &PoolSpec{Replicas: 2}, &PoolSpec{Replicas: 3}
	if role == "prefill" {
		cl.Prefill = &PoolSpec{Replicas: 1, Autoscale: as}
	} else {
		cl.Decode = &PoolSpec{Replicas: 1, Autoscale: as}
	}
	return c
}

// Either pool scales as a cluster does: the step is acted on exactly one
// period plus the up window after it (at 675 s), the new replicas serve
// provisioning + model_load later (825 s), and each pool is billed for
// what it provisioned from the decision. The decode pool's arrivals are
// the prompts handed to it, a prefill iteration after they arrive.
func TestPoolAutoscaleStepDelayIsExact(t *testing.T) {
	for i, role := range []string{"prefill", "decode"} {
		r := mustRun(t, poolStepConfig(role))
		cl := r.Backends[0].Cluster
		p := cl.Pools[i]
		other := cl.Pools[1-i]
		if p.Role != role || p.Autoscale == nil || other.Autoscale != nil || cl.Autoscale != nil {
			t.Fatalf("%s: pools %+v, cluster autoscale %v", role, cl.Pools, cl.Autoscale)
		}
		ev := p.Autoscale.Events
		if len(ev) != 1 || ev[0].AtS != 675 || ev[0].ReadyAtS != 825 || ev[0].From != 1 || ev[0].To != 4 {
			t.Fatalf("%s pool: scale events %+v, want 1 -> 4 at 675 s, ready at 825 s", role, ev)
		}
		within(t, role+" pool GPU-hours", p.GPUHours, (1800+3*(1800-675))/3600.0, 1e-9)
		within(t, "the fixed pool's GPU-hours", other.GPUHours, float64(other.Replicas)*1800/3600, 1e-9)
		within(t, "the cluster's GPU-hours", cl.GPUHours, p.GPUHours+other.GPUHours, 1e-12)
		if p.PeakReplicas != 4 || cl.PeakReplicas != 4+other.Replicas {
			t.Errorf("%s: peak replicas %d (pool) and %d (cluster), want 4 and %d", role, p.PeakReplicas, cl.PeakReplicas, 4+other.Replicas)
		}
		within(t, role+" pool: time under-provisioned", p.Autoscale.UnderProvisionedS, 825-615, 1e-9)
		if q := r.Summary.Requests; q.Failed != 0 || q.Completed < q.Offered-100 {
			t.Errorf("%s: requests %+v", role, q)
		}
	}
}
