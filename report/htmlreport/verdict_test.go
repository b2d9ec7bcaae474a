package htmlreport

import (
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
)

func TestHeadlineWhenNothingHolds(t *testing.T) {
	d := fixture()
	v := d.Variants[1]
	v.Summary.Requests = model.RequestCounts{Offered: 100, Completed: 95, Failed: 5}
	v.Summary.Goodput.SLOAttainment = 0.95
	got := strings.Join(headline(d.Variants), "\n")
	want := "No variant holds (at most 0.1% of requests failing and at least 99% meeting their SLOs). The best goodput is “tier 4”'s: 95.0% of requests meet their SLOs and 5.0% fail, at $1,300 (+$65.50 against the base, which completed 5% fewer requests: $13,684 against $13,717 per 1,000 completed)."
	if !strings.Contains(got, want) {
		t.Errorf("headline:\n%s\nlacks:\n%s", got, want)
	}
}

func TestHeadlineNamesBindingGPUResource(t *testing.T) {
	d := fixture()
	r := d.Variants[0]
	r.Backends = r.Backends[1:] // the cluster alone
	r.Backends[0].Cluster.GPUHours = 48
	got := headline(d.Variants[:1])
	if want := "GPU time binds on cluster gpu (2 replicas × TP1 = 2 GPUs): running iterations 95.0% of the time (mean batch 20.0 per replica, peak 60.0 of max 64)."; got[0] != want {
		t.Errorf("got %q, want %q", got[0], want)
	}
	r.Backends[0].Cluster.Preemptions = 12
	r.Backends[0].Cluster.MeanKVUse = 0.8
	r.Findings.Clusters = []model.ClusterFinding{{Backend: "gpu", Bound: model.BoundKVMemory}}
	if got := headline(d.Variants[:1]); !strings.HasPrefix(got[0], "KV memory binds on GPU cluster gpu (2 replicas × TP1 = 2 GPUs): 12 preemptions") {
		t.Errorf("got %q", got[0])
	}
}
