package plan

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/scenarios"
)

// overloadPlan is a self-hosted fleet whose replicas the plan counts, at a
// demand a few replicas fall far behind.
const overloadPlan = `name = "overload"
seed = 5
duration = "5m"
interval = "1m"

[[workload]]
name = "chat"
route = "gpu"
tokens = { input = 200, output = 100 }
demand = { unit = "requests/s", rate = 300 }
client = { retry = "none" }

[[cluster]]
name = "gpu"
replicas = 1
gpu = "L40S"
model = "llama-3.1-8b"
price = { per_gpu_hour = 1.20 }

[plan]
replications = 2
window = "none"

[[plan.target]]
workload = "chat"
metric = "ttft"
percentile = 95
max = "2s"

[[plan.knob]]
key = "cluster.gpu.replicas"
range = "1..32"
monotone = true
`

// TestOverloadedCandidatesFail: under a low in-flight bound, the plan's
// smallest replica counts fall so far behind 300 requests/s that their
// backlog passes it. The plan goes on: they are listed as failing, with
// the reason and no more replications, and the winner is the smallest
// count that holds, the one a plan without the bound (--force) finds by
// simulating them whole.
func TestOverloadedCandidatesFail(t *testing.T) {
	sc, err := scenarios.LoadBytes([]byte(overloadPlan), "overload.toml")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Compile(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	const bound = 5000
	d, err := Run(context.Background(), pr, Options{Workers: 2, MaxInFlight: bound})
	if err != nil {
		t.Fatalf("the plan stopped: %v", err)
	}
	forced, err := Run(context.Background(), pr, Options{Workers: 2, MaxInFlight: -1})
	if err != nil {
		t.Fatal(err)
	}
	if d.Winner == nil || forced.Winner == nil {
		t.Fatal("no winner")
	}
	win := d.Candidates[*d.Winner]
	if fw := forced.Candidates[*forced.Winner]; win.Label != fw.Label {
		t.Errorf("winner %s, without the bound %s", win.Label, fw.Label)
	}
	// The smallest that holds: one replica fewer fails, simulated whole.
	less := fmt.Sprint(mustAtoi(t, win.Values[0]) - 1)
	if c := candidate(t, forced, less); c.Status != "fails" || c.Overloaded != nil {
		t.Errorf("without the bound, replicas=%s is %s (overloaded %v), want it to fail whole", less, c.Status, c.Overloaded)
	}

	var text bytes.Buffer
	if err := report.WriteDecisionTerminal(&text, d); err != nil {
		t.Fatal(err)
	}
	overloaded := 0
	for _, c := range d.Candidates {
		if c.Overloaded == nil {
			continue
		}
		overloaded++
		o := c.Overloaded
		if c.Status != "fails" || len(c.Checks) != 0 || c.Replications != 1 || o.LimitRequests != bound || o.AtS <= 0 || o.AtS >= pr.Settings.HorizonS {
			t.Errorf("%s: status %s, %d checks, %d replications, %+v; want failing after one replication, past %d in the run", c.Label, c.Status, len(c.Checks), c.Replications, o, bound)
		}
		reason := "its backlog passed 5,000 requests in flight at " + o.Clock + ": far short of the demand"
		if got := report.FailReason(d, c); got != reason {
			t.Errorf("%s: reason %q, want %q", c.Label, got, reason)
		}
		if !strings.Contains(text.String(), c.Label+": "+reason) {
			t.Errorf("terminal output lacks %s's reason:\n%s", c.Label, text.String())
		}
		if c.CostUSD.Mean <= 0 || c.CostUSD.Mean >= win.CostUSD.Mean {
			t.Errorf("%s: cost %v, want its GPUs' cost, below the winner's %v", c.Label, c.CostUSD.Mean, win.CostUSD.Mean)
		}
		// Without the bound it is simulated whole and fails on its checks.
		f := candidate(t, forced, c.Values...)
		if f.Overloaded != nil || f.Status != "fails" || len(f.Checks) != len(d.Constraints) || f.Checks[0].Met || !f.Checks[0].Measured {
			t.Errorf("without the bound, %s: status %s, overloaded %v, checks %+v; want it simulated whole, failing", c.Label, f.Status, f.Overloaded, f.Checks)
		}
	}
	if overloaded < 2 {
		t.Errorf("%d candidates overloaded, want the gallop's smallest:\n%s", overloaded, text.String())
	}
	for _, c := range forced.Candidates {
		if c.Overloaded != nil {
			t.Errorf("without the bound, %s overloaded", c.Label)
		}
	}
	if _, err := json.Marshal(d); err != nil {
		t.Errorf("the decision does not write as JSON: %v", err)
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAllOverloaded: when every candidate tried overloads, nothing holds,
// and the answer says so, naming the one that lasted longest.
func TestAllOverloaded(t *testing.T) {
	sc, err := scenarios.LoadBytes([]byte(strings.Replace(overloadPlan, `range = "1..32"`, `range = "1..3"`, 1)), "overload.toml")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Compile(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Run(context.Background(), pr, Options{Workers: 2, MaxInFlight: 5000})
	if err != nil {
		t.Fatalf("the plan stopped: %v", err)
	}
	if d.Winner != nil || d.Nearest != nil || len(d.Candidates) == 0 {
		t.Fatalf("winner %v, nearest %v, %d candidates; want nothing to hold", d.Winner, d.Nearest, len(d.Candidates))
	}
	last := d.Candidates[0]
	for _, c := range d.Candidates {
		if c.Overloaded == nil {
			t.Fatalf("%s did not overload", c.Label)
		}
		if c.Overloaded.AtS > last.Overloaded.AtS {
			last = c
		}
	}
	want := "Nothing holds: none of the " + fmt.Sprint(len(d.Candidates)) + " candidates simulated kept up with the demand; the one that lasted longest, " +
		last.Label + ", failed because " + report.OverloadReason(last.Overloaded) + "."
	if got := report.DecisionAnswer(d); got != want {
		t.Errorf("answer %q, want %q", got, want)
	}
}

// TestMaxLoadPastOverload: a max_load search whose first probes overload
// the fleet goes on and brackets the same factor as without the bound.
func TestMaxLoadPastOverload(t *testing.T) {
	src := strings.Replace(overloadPlan, "replicas = 1\n", "replicas = 9\n", 1)
	src = strings.Replace(src, "[plan]\n", "[plan]\nobjective = \"max_load\"\nmax_factor = 8\n", 1)
	src = src[:strings.Index(src, "[[plan.knob]]")]
	sc, err := scenarios.LoadBytes([]byte(src), "overload.toml")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Compile(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	var factors []float64
	for _, bound := range []int64{5000, -1} {
		d, err := Run(context.Background(), pr, Options{Workers: 2, MaxInFlight: bound})
		if err != nil {
			t.Fatalf("bound %d: %v", bound, err)
		}
		g := d.Growth
		if g == nil || !g.Holds || g.Capped {
			t.Fatalf("bound %d: growth %+v", bound, g)
		}
		factors = append(factors, g.Factor)
		// An overloaded factor fails every constraint at margin −1 exactly.
		over := 0
		for _, p := range g.Points {
			if p.Margin == -1 {
				over++
			}
		}
		if bound > 0 && over == 0 {
			t.Errorf("no factor overloaded under the bound: %+v", g.Points)
		}
	}
	if a, b := factors[0], factors[1]; math.Abs(a-b) > 2*pr.Settings.Precision*b {
		t.Errorf("factor %v under the bound, %v without it: want them within twice the precision %v", a, b, pr.Settings.Precision)
	}
}
