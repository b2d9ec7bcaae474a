package model

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/headroom-sim/headroom/workloads"
	"pgregory.net/rapid"
)

// runUsers runs cfg with the pool of users, or with an event per thinking
// user (ref), and returns its results as JSON.
func runUsers(t interface{ Fatal(...any) }, cfg Config, ref bool) []byte {
	s, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.refUsers = ref
	r, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// genThink draws a think time of any distribution but the exponential
// (whose pool draws differently): fixed ones (zero included) make wakes
// tie with other events all the time.
func genThink(t *rapid.T) workloads.Dist {
	switch rapid.IntRange(0, 5).Draw(t, "think.kind") {
	case 0:
		return workloads.Fixed(float64(rapid.IntRange(0, 3).Draw(t, "think.fixed")))
	case 1:
		return workloads.Fixed(rapid.Float64Range(0, 10).Draw(t, "think.fixedf"))
	case 2:
		lo := float64(rapid.IntRange(0, 3).Draw(t, "think.min"))
		return workloads.Dist{Kind: workloads.KindUniform, Min: lo, Max: lo + rapid.Float64Range(0.1, 10).Draw(t, "think.width")}
	case 3:
		return workloads.Dist{Kind: workloads.KindLogNormal, Median: rapid.Float64Range(0.1, 5).Draw(t, "think.median"), P95: 12}
	case 4:
		return workloads.Dist{Kind: workloads.KindGamma, Mean: rapid.Float64Range(0.1, 5).Draw(t, "think.mean"), CV: rapid.Float64Range(0.2, 2).Draw(t, "think.cv")}
	}
	return workloads.Dist{Kind: workloads.KindEmpirical, Values: []float64{0, 1, 1, 2, 5}}
}

// TestUserPoolEqualsEventPerUser: on random scenarios, closed-loop users
// with any think time but the exponential give byte-identical results,
// events counted, with the pool of users.go and with an event per
// thinking user: the same draws, the same wakes, in the same order among
// the events of the same time.
func TestUserPoolEqualsEventPerUser(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := genConfig(t)
		closed := false
		for i := range cfg.Workloads {
			w := &cfg.Workloads[i]
			if !w.Demand.Closed() && rapid.Bool().Draw(t, "make closed") {
				w.Demand = workloads.DemandSpec{Users: rapid.IntRange(1, 60).Draw(t, "users")}
			}
			if w.Demand.Closed() {
				w.Demand.Think = genThink(t)
				if w.Demand.Think.MeanValue() == 0 && (w.Route == "gpu" || w.Route == "rt" || cfg.Gateway != nil) {
					w.Demand.Think = workloads.Fixed(0.5) // as genConfig: zero think at zero latency never ends
				}
				closed = true
			}
		}
		if !closed {
			t.Skip("no closed loop")
		}
		got, want := runUsers(t, cfg, false), runUsers(t, cfg, true)
		if !bytes.Equal(got, want) {
			t.Fatalf("pool and event per user differ:\n%s\n%s", got, want)
		}
	})
}

// TestUserPoolStartHoldsNoStatePerUser: users who all start thinking at
// once with a fixed think time are one entry of the pool, and exponential
// ones a group: ten million of them cost no more than ten.
func TestUserPoolStartHoldsNoStatePerUser(t *testing.T) {
	for _, think := range []workloads.Dist{workloads.Fixed(3600), {Kind: workloads.KindExponential, Mean: 3600}} {
		c := mmcConfig(1, 1, 1, 60, 1)
		c.Workloads[0].Demand = workloads.DemandSpec{Users: 10_000_000, Think: think}
		s, err := Build(c)
		if err != nil {
			t.Fatal(err)
		}
		s.start()
		p := s.wls[0].users
		if cap(p.wakes) > 16 || len(p.groups) > 1 || s.eng.Pending() > 2 {
			t.Errorf("%s think: %d wakes, %d groups, %d events pending at the start", think.Kind, cap(p.wakes), len(p.groups), s.eng.Pending())
		}
	}
}

// TestExponentialUsersSameLaw: the groups of exponential users give the
// same results in law as an event per user with its own draws. Over many
// replications of a closed loop that queues (50 users, 8 client slots,
// think 2 s, answers of 0.5 to 1.5 s), the means of the completions, of
// the time in the client's queue and of the TTFT agree within four
// standard errors of their difference, and so do their spreads.
func TestExponentialUsersSameLaw(t *testing.T) {
	if testing.Short() {
		t.Skip("statistical")
	}
	const reps = 300
	measure := func(ref bool) (done, wait, ttft []float64) {
		for rep := 0; rep < reps; rep++ {
			c := mmcConfig(1, 1, 1, 120, 7)
			c.Replication = rep
			c.Workloads[0].Demand = workloads.DemandSpec{Users: 50, Think: workloads.Dist{Kind: workloads.KindExponential, Mean: 2}}
			c.Workloads[0].Client.MaxConcurrency = 8
			c.Providers[0].Latency = LatencySpec{TTFT: TTFTSpec{Base: 0.5, Dist: "exponential"}, TPOT: TPOTSpec{Mean: 0.001}}
			var r Results
			if err := json.Unmarshal(runUsers(t, c, ref), &r); err != nil {
				t.Fatal(err)
			}
			done = append(done, float64(r.Summary.Requests.Completed))
			wait = append(wait, r.Summary.Latency.QueueWait.Mean)
			ttft = append(ttft, r.Summary.Latency.TTFT.Mean)
		}
		return
	}
	pd, pw, pt := measure(false)
	rd, rw, rt := measure(true)
	for _, m := range []struct {
		name      string
		pool, ref []float64
	}{{"completed", pd, rd}, {"queue wait", pw, rw}, {"TTFT", pt, rt}} {
		mp, vp := meanVar(m.pool)
		mr, vr := meanVar(m.ref)
		se := math.Sqrt(vp/reps + vr/reps)
		if math.Abs(mp-mr) > 4*se {
			t.Errorf("%s: mean %.4g with groups, %.4g with an event per user (standard error %.3g)", m.name, mp, mr, se)
		}
		// The variances of two samples of 300 agree within a factor of 1.5
		// but one time in several thousand when they are equal.
		if ratio := vp / vr; ratio > 1.5 || ratio < 1/1.5 {
			t.Errorf("%s: variance %.4g with groups, %.4g with an event per user", m.name, vp, vr)
		}
		t.Logf("%s: %.4g ± %.3g (groups), %.4g ± %.3g (event per user)", m.name, mp, math.Sqrt(vp), mr, math.Sqrt(vr))
	}
}

func meanVar(x []float64) (mean, variance float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		variance += (v - mean) * (v - mean)
	}
	return mean, variance / float64(len(x)-1)
}
