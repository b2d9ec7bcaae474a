package plan

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/headroom-sim/headroom/scenarios"
)

// erlangC is the probability that an arrival waits in an M/M/c queue with
// offered load a = λ/μ (a < c).
func erlangC(c int, a float64) float64 {
	term, sum := 1.0, 1.0 // a^k/k! for k = 0
	for k := 1; k < c; k++ {
		term *= a / float64(k)
		sum += term
	}
	last := term * a / float64(c) * float64(c) / (float64(c) - a) // a^c/c! · c/(c−a)
	return last / (sum + last)
}

// meanWait is Erlang C's mean wait in queue, Wq = C(c, a)/(cμ − λ).
func meanWait(c int, lambda, mu float64) float64 {
	a := lambda / mu
	if a >= float64(c) {
		return math.Inf(1)
	}
	return erlangC(c, a) / (float64(c)*mu - lambda)
}

// waitQuantile is the wait t with P(W > t) = 1 − q: P(W > t) = C·e^{−(cμ−λ)t}.
func waitQuantile(c int, lambda, mu, q float64) float64 {
	a := lambda / mu
	if a >= float64(c) {
		return math.Inf(1)
	}
	pc := erlangC(c, a)
	if pc <= 1-q {
		return 0
	}
	return math.Log(pc/(1-q)) / (float64(c)*mu - lambda)
}

// mmcPlan is an M/M/c queue (Poisson arrivals at lambda/s, exponential
// service of mean 1 s, a client semaphore of c slots) with a [plan].
func mmcPlan(lambda float64, c int, hours float64, plan string) string {
	return fmt.Sprintf(`name = "mmc"
seed = 11
duration = "%gh"
interval = "1h"

[[workload]]
name = "jobs"
route = "server"
demand = { unit = "requests/s", rate = %g }
tokens = { input = 1, output = 1 }
client = { max_concurrency = %d, retry = "none" }

[[provider]]
name = "server"
  [provider.latency]
  ttft = { base = "1s", dist = "exponential" }

%s`, hours, lambda, c, plan)
}

func runPlan(t *testing.T, src string) *Problem {
	t.Helper()
	sc, err := scenarios.LoadBytes([]byte(src), "mmc.toml")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Compile(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

// TestErlangCStaffing: min_cost over max_concurrency returns exactly the
// smallest c that Erlang C says meets the target, for mean waits and for
// P(wait > t) ≤ 5% (the p95 wait), at several arrival rates; max_load of
// that c returns the arrival rate at which it just meets the mean-wait
// target, within 2%.
//
// The staffing searches run 3 h (the targets sit at least 35% from what c
// and c − 1 give, where 3 h of arrivals at these rates measure the wait
// within a few percent); max_load, whose 2% is against the exact rate, runs
// 12 h. Each (λ, kind) is a parallel subtest.
func TestErlangCStaffing(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical check")
	}
	const mu = 1.0
	for _, lambda := range []float64{2.8, 6.5, 12} {
		// The smallest c at ρ ≤ 0.8, and targets halfway (in log) between
		// what it and one server fewer give, so the answer is exact and
		// not a coin toss of the sampling.
		c := int(math.Ceil(lambda / mu / 0.8))
		for _, kind := range []string{"mean", "p95"} {
			t.Run(fmt.Sprintf("λ=%v/%s", lambda, kind), func(t *testing.T) {
				t.Parallel()
				erlangCase(t, lambda, mu, c, kind)
			})
		}
	}
}

// erlangCase is one staffing check of TestErlangCStaffing.
func erlangCase(t *testing.T, lambda, mu float64, c int, kind string) {
	var at, below float64
	if kind == "mean" {
		at, below = meanWait(c, lambda, mu), meanWait(c-1, lambda, mu)
	} else {
		at, below = waitQuantile(c, lambda, mu, 0.95), waitQuantile(c-1, lambda, mu, 0.95)
	}
	target := math.Sqrt(math.Max(at, 0.02*below) * below)
	want := 1
	for ; ; want++ {
		w := meanWait(want, lambda, mu)
		if kind == "p95" {
			w = waitQuantile(want, lambda, mu, 0.95)
		}
		if w <= target {
			break
		}
	}
	if want != c {
		t.Fatalf("λ %v: Erlang C gives c = %d for target %v, the test meant %d", lambda, want, target, c)
	}
	stat := "percentile = 95"
	if kind == "mean" {
		stat = "mean = true"
	}
	targetTOML := fmt.Sprintf(`[[plan.target]]
metric = "queue_wait"
%s
max = "%gs"
`, stat, target)
	plan := `[plan]
objective = "min_cost"
window = "none"
replications = 4
recheck = 8
screen = 0

` + targetTOML + `
[[plan.knob]]
key = "workload.jobs.client.max_concurrency"
range = "1..40"
monotone = true
`
	pr := runPlan(t, mmcPlan(lambda, 1, 3, plan))
	d, err := Run(context.Background(), pr, Options{Workers: runtime.GOMAXPROCS(0)})
	if err != nil {
		t.Fatal(err)
	}
	if d.Winner == nil {
		t.Fatalf("λ %v %s wait ≤ %.3gs: nothing holds", lambda, kind, target)
	}
	if got := d.Candidates[*d.Winner].Values[0]; got != fmt.Sprint(c) {
		t.Errorf("λ %v, %s wait ≤ %.3gs: plan chose c = %s, Erlang C says %d (Wq %.3g at c, %.3g at c−1)", lambda, kind, target, got, c, at, below)
	}
	if d.Search.Simulations*4 > d.Search.Exhaustive {
		t.Errorf("λ %v: %d simulations, exhaustive %d", lambda, d.Search.Simulations, d.Search.Exhaustive)
	}
	if kind != "mean" {
		return
	}
	// The arrival rate at which c just meets the target.
	lo, hi := lambda, float64(c)*mu
	for i := 0; i < 100; i++ {
		m := (lo + hi) / 2
		if meanWait(c, m, mu) <= target {
			lo = m
		} else {
			hi = m
		}
	}
	growth := `[plan]
objective = "max_load"
window = "none"
replications = 4
screen = 0

` + targetTOML
	pr = runPlan(t, mmcPlan(lambda, c, 12, growth))
	d, err = Run(context.Background(), pr, Options{Workers: runtime.GOMAXPROCS(0)})
	if err != nil {
		t.Fatal(err)
	}
	g := d.Growth
	if g == nil || !g.Holds {
		t.Fatalf("λ %v: no growth found: %+v", lambda, g)
	}
	t.Logf("λ %v, c %d: max_load λ %.4g, Erlang C %.4g (%+.2f%%), %d evaluations", lambda, c, lambda*g.Factor, lo, 100*(lambda*g.Factor/lo-1), g.Evaluations)
	if got := lambda * g.Factor; math.Abs(got/lo-1) > 0.02 {
		t.Errorf("λ %v, c %d, mean wait ≤ %.3gs: max_load gives λ %.4g, Erlang C %.4g (%+.1f%%)", lambda, c, target, got, lo, 100*(got/lo-1))
	}
	if g.Evaluations > 12 {
		t.Errorf("max_load took %d evaluations", g.Evaluations)
	}
}
