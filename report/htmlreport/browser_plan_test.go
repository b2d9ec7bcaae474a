package htmlreport_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/report/htmlreport"
	"github.com/headroom-sim/headroom/scenarios"
	"github.com/headroom-sim/headroom/scenarios/plan"
)

// planPage is a small staffing plan: servers 1..10 for a queue at 2.8
// arrivals/s and 1 s of service, p95 wait ≤ 1 s, then the growth left.
const planPage = `name = "staffing"
seed = 5
duration = "2h"
interval = "10m"

[[workload]]
name = "jobs"
route = "server"
demand = { unit = "requests/s", rate = 2.8 }
tokens = { input = 100, output = 1 }
client = { max_concurrency = 1, retry = "none" }
slo = { ttft = "10s" }

[[provider]]
name = "server"
  [provider.latency]
  ttft = { base = "1s", dist = "exponential" }
  [provider.price]
  input = 1.0

[plan]
objective = ["min_cost", "max_load"]
replications = 2
recheck = 4

[[plan.target]]
metric = "queue_wait"
percentile = 95
max = "1s"

[[plan.knob]]
name = "servers"
key = "workload.jobs.client.max_concurrency"
range = "1..10"
prices = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
per = "day"
monotone = true
`

// TestBrowserPlanReport: a plan's page draws the cost against latency of
// every candidate with the feasible frontier, the winner's margins, the
// growth search and the winner's own charts, without a script error.
func TestBrowserPlanReport(t *testing.T) {
	browserTools(t)
	needRuntime(t)
	sc, err := scenarios.LoadBytes([]byte(planPage), "staffing.toml")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := plan.Compile(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := plan.Run(context.Background(), pr, plan.Options{Workers: 2, Generator: "headroom test"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := htmlreport.WriteDecision(&b, d, htmlreport.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	out := inBrowser(t, b.Bytes())
	for _, want := range []string{"Cheapest that holds", "Candidates simulated", "The winner's key figures", "The winner: latency",
		"its replication 0, all workloads together", "(the 95% bound over 4 replications)"} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("page text lacks %q:\n%.800s", want, out.Text)
		}
	}
	wantLog(t, out, "chart-plan-frontier", "yAxis", 0)
	found := map[string]bool{}
	for _, c := range out.Charts {
		found[c.ID] = true
	}
	for _, id := range []string{"chart-plan-frontier", "chart-plan-margins", "chart-plan-growth"} {
		if !found[id] {
			t.Errorf("no chart %s", id)
		}
	}
}
