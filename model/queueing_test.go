package model

import (
	"math"
	"testing"
)

// erlangC is the probability that an arrival waits in an M/M/c queue with
// offered load a = lambda/mu (a < c).
func erlangC(c int, a float64) float64 {
	term, sum := 1.0, 1.0 // a^k/k! for k = 0
	for k := 1; k < c; k++ {
		term *= a / float64(k)
		sum += term
	}
	top := term * a / float64(c) * float64(c) / (float64(c) - a) // a^c/c! * c/(c-a)
	return top / (sum + top)
}

func TestErlangCKnownValue(t *testing.T) {
	// A textbook value: c = 2, a = 1 gives C = 1/3.
	if got := erlangC(2, 1); math.Abs(got-1.0/3) > 1e-12 {
		t.Fatalf("erlangC(2,1) = %v, want 1/3", got)
	}
}

// TestMMcMatchesErlangC checks the simulated mean wait in the client queue
// of an M/M/c system against the Erlang C formula
// Wq = C(c, a) / (c*mu - lambda), within 1%, averaged over replications
// long enough (about 8 million customers in all) for that to be meaningful.
func TestMMcMatchesErlangC(t *testing.T) {
	if testing.Short() {
		t.Skip("long-run statistical check")
	}
	const (
		lambda = 2.8
		mu     = 1.0
		c      = 4
		hours  = 200
	)
	want := erlangC(c, lambda/mu) / (float64(c)*mu - lambda)
	var sumWait, sumSojourn, n float64
	for seed := uint64(1); seed <= 4; seed++ {
		r := mustRun(t, mmcConfig(lambda, mu, c, hours*3600, seed))
		q := r.Summary.Latency.QueueWait
		sumWait += q.Mean * float64(q.Count)
		sumSojourn += r.Summary.Latency.E2E.Mean * float64(q.Count)
		n += float64(q.Count)
	}
	got := sumWait / n
	if rel := math.Abs(got-want) / want; rel > 0.01 {
		t.Fatalf("mean wait %.5f s, Erlang C %.5f s: off by %.2f%% (> 1%%)", got, want, 100*rel)
	}
	if soj, w := sumSojourn/n, want+1/mu; math.Abs(soj-w)/w > 0.01 {
		t.Fatalf("mean sojourn %.5f s, want %.5f s", soj, w)
	}
	t.Logf("M/M/%d rho=%.2f: simulated Wq %.5f s, Erlang C %.5f s, %.0f customers", c, lambda/(c*mu), got, want, n)
}

// TestLittlesLaw checks L = lambda * W on the time-weighted in-flight series.
func TestLittlesLaw(t *testing.T) {
	r := mustRun(t, mmcConfig(3, 1, 4, 20*3600, 9))
	var l float64
	for _, v := range r.Series.InFlight {
		l += v
	}
	l /= float64(len(r.Series.InFlight))
	lambda := float64(r.Summary.Requests.Offered) / r.DurationS
	w := r.Summary.Latency.E2E.Mean
	if rel := math.Abs(l-lambda*w) / (lambda * w); rel > 0.02 {
		t.Fatalf("L = %.4f, lambda*W = %.4f (%.2f%% apart)", l, lambda*w, 100*rel)
	}
}
