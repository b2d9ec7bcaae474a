package model

import (
	"math"
	"testing"

	"github.com/headroom-sim/headroom/workloads"
)

// fleetConfig is n replicas with a flat 10 ms iteration and ample KV.
func fleetConfig(n int, policy string) Config {
	c := clusterConfig(10, 200, 20, "iteration", []float64{1, 256}, []float64{0.010, 0.010}, 256, 1_000_000)
	c.Clusters[0].Replicas = n
	c.Clusters[0].Routing.Policy = policy
	return c
}

// Round robin spreads requests exactly evenly: every replica gets the
// same count, give or take the last round.
func TestRoundRobinExactlyEven(t *testing.T) {
	c := fleetConfig(4, RouteRoundRobin)
	c.Workloads[0].Demand.Arrivals = workloads.ArrivalSpec{Kind: "poisson"}
	r := mustRun(t, c)
	rt := r.Backends[0].Cluster.Routing
	lo, hi := rt.Routed[0], rt.Routed[0]
	var sum int64
	for _, v := range rt.Routed {
		lo, hi = min(lo, v), max(hi, v)
		sum += v
	}
	if hi-lo > 1 || sum != r.Backends[0].Attempts {
		t.Fatalf("round robin routed %v (%d attempts), want counts within one of each other", rt.Routed, r.Backends[0].Attempts)
	}
	if lw := mustRun(t, fleetConfig(4, RouteLeastWork)).Backends[0].Cluster.Routing; lw.Routed[0] <= lw.Routed[3] {
		t.Errorf("least work, with ties to the first replica, should favour replica 0 at light load: %v", lw.Routed)
	}
}

// mg1Config is a fleet of n single-server replicas (max_num_seqs 1) fed
// Poisson arrivals at lambda per second: each request takes output × 10 ms,
// its output exponential with mean 100 tokens (rounded, at least 1).
func mg1Config(n int, lambda float64, policy string, seed uint64) Config {
	c := clusterConfig(lambda, 1, 100, "iteration", []float64{1}, []float64{0.010}, 1, 1_000_000)
	c.Seed = seed
	c.Duration, c.Interval = 40000, 4000
	c.Workloads[0].Tokens.Output = workloads.Dist{Kind: workloads.KindExponential, Mean: 100}
	c.Workloads[0].Tokens.MaxTokens = 100000
	c.Workloads[0].Demand.Arrivals = workloads.ArrivalSpec{Kind: "poisson"}
	c.Clusters[0].Replicas = n
	c.Clusters[0].Routing.Policy = policy
	return c
}

// serviceMoments are E[S] and E[S²] of output × 10 ms, output the
// exponential of mean 100 rounded to the nearest integer, at least 1.
func serviceMoments() (m1, m2 float64) {
	cdf := func(x float64) float64 { return 1 - math.Exp(-x/100) }
	for k := 1; k < 20000; k++ {
		lo, hi := float64(k)-0.5, float64(k)+0.5
		if k == 1 {
			lo = 0
		}
		p := cdf(hi) - cdf(lo)
		s := 0.010 * float64(k)
		m1 += p * s
		m2 += p * s * s
	}
	return m1, m2
}

// Random routing splits Poisson arrivals into independent Poisson streams,
// so each replica is an M/G/1 queue and its mean wait is Pollaczek-
// Khinchine's λE[S²] / 2(1−ρ). The power of two choices (the supermarket
// model: Mitzenmacher; Vvedenskaya, Dobrushin and Karpelevich) cuts the
// wait several-fold at 80% load; joining the shortest queue cuts it more.
func TestPowerOfTwoBeatsRandom(t *testing.T) {
	if testing.Short() {
		t.Skip("long queueing run")
	}
	const n = 8
	m1, m2 := serviceMoments()
	lambda := 0.8 * n / m1
	wait := func(policy string) float64 {
		var sum float64
		for seed := uint64(1); seed <= 2; seed++ {
			sum += mustRun(t, mg1Config(n, lambda, policy, seed)).Summary.Latency.QueueWait.Mean
		}
		return sum / 2
	}
	per := lambda / n
	pk := per * m2 / (2 * (1 - per*m1))
	random := wait(RouteRandom)
	within(t, "random routing's mean wait against Pollaczek-Khinchine", random, pk, 0.10)
	p2 := wait(RoutePowerOfTwo)
	jsq := wait(RouteLeastWork)
	t.Logf("mean wait: random %.3fs (M/G/1 %.3fs), power of two %.3fs, least work %.3fs", random, pk, p2, jsq)
	if p2 > random/3 {
		t.Errorf("power of two waits %.3fs, want under a third of random's %.3fs", p2, random)
	}
	if jsq >= p2 {
		t.Errorf("joining the shortest queue waits %.3fs, want less than power of two's %.3fs", jsq, p2)
	}
}

// prefixFleet is prefixes of 512 tokens (half of each 1,024-token
// prompt) on n replicas with ample KV memory, for 80 s.
func prefixFleet(n, prefixes int, policy string, rate float64) Config {
	c := clusterConfig(rate, 1024, 20, "iteration", []float64{1, 256}, []float64{0.010, 0.030}, 256, 1_000_000)
	c.Duration = 80
	c.Workloads[0].Tokens.SharedPrefix = 512
	c.Workloads[0].Tokens.Prefixes = prefixes
	c.Workloads[0].Demand.Arrivals = workloads.ArrivalSpec{Kind: "poisson"}
	c.Clusters[0].Replicas = n
	c.Clusters[0].PrefixCaching = true
	c.Clusters[0].Routing.Policy = policy
	return c
}

// Prefix-aware routing on N prefixes and N replicas with ample memory
// reaches the hit rate of one prefix per replica: measured against N
// single-replica clusters each serving one prefix, where a prefix is
// computed only by the requests that find it not yet registered. Least
// work computes every prefix on every replica.
func TestPrefixRoutingOnePrefixPerReplica(t *testing.T) {
	const n = 8
	var aware, lw PrefixCacheResult
	var read, input, misses int64
	for seed := uint64(1); seed <= 3; seed++ {
		c := prefixFleet(n, n, RoutePrefix, 10)
		c.Seed = seed
		pc := mustRun(t, c).Backends[0].Cluster.PrefixCache
		aware.HitRate += pc.HitRate / 3
		aware.Misses += pc.Misses
		c.Clusters[0].Routing.Policy = RouteLeastWork
		pc = mustRun(t, c).Backends[0].Cluster.PrefixCache
		lw.HitRate += pc.HitRate / 3
		lw.Misses += pc.Misses
		// The reference: one cluster per prefix, an n-th of the rate each.
		for k := 0; k < n; k++ {
			c := prefixFleet(1, 1, RouteLeastWork, 10.0/n)
			c.Seed = seed*100 + uint64(k)
			b := mustRun(t, c).Backends[0]
			read += b.Tokens.CacheRead
			input += b.Tokens.Input
			misses += b.Cluster.PrefixCache.Misses
		}
	}
	ref := float64(read) / float64(input)
	if math.Abs(aware.HitRate-ref) > 0.003 {
		t.Errorf("prefix-aware hit rate %.4f, one prefix per replica %.4f", aware.HitRate, ref)
	}
	if aware.Misses > misses+3*n/2 {
		t.Errorf("prefix-aware routing recomputed prefixes %d times, one prefix per replica %d", aware.Misses, misses)
	}
	if lw.Misses < 4*aware.Misses || lw.HitRate > ref-0.01 {
		t.Errorf("least work: hit rate %.4f with %d recomputed prefixes, prefix-aware %d: every replica should compute every prefix", lw.HitRate, lw.Misses, aware.Misses)
	}
	t.Logf("hit rate: prefix-aware %.4f (%d misses), one per replica %.4f (%d), least work %.4f (%d)", aware.HitRate, aware.Misses, ref, misses, lw.HitRate, lw.Misses)
}

// Session affinity keeps a session on one replica: with as many sessions
// as replicas each replica computes only its sessions' prefixes, and
// rendezvous hashing moves only the departing replica's sessions.
func TestSessionAffinity(t *testing.T) {
	r := mustRun(t, prefixFleet(4, 4, RouteSession, 20)).Backends[0].Cluster
	if r.PrefixCache.Misses > 8 {
		t.Errorf("session affinity recomputed prefixes %d times, want about one per session", r.PrefixCache.Misses)
	}
	reps := make([]*replica, 8)
	for i := range reps {
		reps[i] = &replica{idx: i}
	}
	moved := 0
	for key := int64(0); key < 1000; key++ {
		a := sessionPick(key, reps)
		b := sessionPick(key, append(append([]*replica(nil), reps[:3]...), reps[4:]...))
		if a != b {
			if a.idx != 3 {
				t.Fatalf("session %d moved from replica %d when replica 3 left", key, a.idx)
			}
			moved++
		}
	}
	if moved < 80 || moved > 170 {
		t.Errorf("%d of 1000 sessions on the departed replica, want about 125", moved)
	}
}

// With a stale view of load (a refresh period longer than the gaps
// between arrivals) least-work routing herds: every request between two
// refreshes goes to the replica that looked least loaded, so queues form
// that a current view avoids.
func TestStaleLoadHerds(t *testing.T) {
	c := fleetConfig(4, RouteLeastWork)
	c.Clusters[0].MaxNumSeqs = 4
	c.Workloads[0].Demand.Rate = 50
	c.Workloads[0].Demand.Arrivals = workloads.ArrivalSpec{Kind: "poisson"}
	c.Clusters[0].Routing.Refresh = 1
	stale := mustRun(t, c)
	c.Clusters[0].Routing.Refresh = 0
	fresh := mustRun(t, c)
	sw, fw := stale.Summary.Latency.QueueWait.Mean, fresh.Summary.Latency.QueueWait.Mean
	if sw < 5*fw {
		t.Errorf("stale view mean wait %.4fs, fresh %.4fs: herding should queue far more", sw, fw)
	}
	t.Logf("mean queue wait: stale %.4fs, fresh %.4fs", sw, fw)
}
