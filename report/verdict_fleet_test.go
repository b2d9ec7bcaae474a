package report

import (
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
)

// A plain cluster gets no fleet line; an autoscaled, prefix-routed,
// disaggregated one says what each part did, and an overflow route what
// spilled while replicas started.
func TestFleetLines(t *testing.T) {
	plain := model.BackendResult{Name: "gpu", Cluster: &model.ClusterResult{Routing: &model.RoutingResult{Policy: model.RouteLeastWork},
		PrefixCache: &model.PrefixCacheResult{HitRate: 0.5}}}
	r := &model.Results{}
	if got := fleetLines(r, plain); len(got) != 0 {
		t.Fatalf("plain cluster: %q", got)
	}
	b := model.BackendResult{Name: "gpu", Cluster: &model.ClusterResult{
		Routing:     &model.RoutingResult{Policy: model.RoutePrefix, MaxOverMean: 1.07},
		PrefixCache: &model.PrefixCacheResult{HitRate: 0.84, GPUTokens: 70, CPUTokens: 30, CPUHits: 3, CPUReadS: 2, Misses: 68},
		Autoscale: &model.AutoscaleResult{Metric: model.MetricArrivalRate, Target: 8, ScaleUps: 2, ScaleDowns: 4, PeakReplicas: 5, UnderProvisionedS: 480,
			Events: []model.ScaleEvent{{AtS: 28830, From: 1, To: 4, ReadyAtS: 29070}}},
		Pools:    []model.PoolResult{{Role: "prefill", Replicas: 4, TensorParallel: 1, Utilization: 0.88}, {Role: "decode", Replicas: 4, TensorParallel: 1}},
		Transfer: &model.TransferResult{Transfers: 10, Time: model.Quantiles{Mean: 0.035, P95: 0.054}, KVWait: model.Quantiles{Max: 2, P95: 1}}}}
	got := strings.Join(fleetLines(r, b), "\n")
	for _, want := range []string{"autoscaled on the arrival rate (target 8 requests/s per replica): 2 scale-ups and 4 scale-downs, at most 5 replicas",
		"short of replicas for 8m00s", "first scale-up at 08:00:30 (1 → 4), serving from 08:04:30", "routes by prefix affinity", "1.07× the mean",
		"84% of prompt tokens", "30% of them from the CPU tier", "68 requests recomputed", "prefill pool 4 × TP1, running iterations 88%",
		"KV transfers take 35ms on average (p95 54ms)", "waiting for decode KV blocks up to 2.0s"} {
		if !strings.Contains(got, want) {
			t.Errorf("fleet lines lack %q:\n%s", want, got)
		}
	}
	r.Routes = []model.RouteResult{{Name: "spill", Targets: []model.RouteTarget{{Name: "gpu"}, {Name: "api"}}, ScaleUpSpill: 9, ScaleUpSpillCompleted: 8, ScaleUpSpillCostUSD: 1.5}}
	if s := spillLines(r); len(s) != 1 || !strings.Contains(s[0], "sent 9 attempts past gpu") || !strings.Contains(s[0], "$1.50") {
		t.Errorf("spill lines %q", s)
	}
}
