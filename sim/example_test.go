package sim_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/headroom-sim/headroom/sim"
)

// Event kinds of the M/M/1 model.
const (
	arrive uint16 = iota
	depart
)

// mm1 is a single FIFO server with Poisson arrivals (rate lambda) and
// exponential service times (rate mu). It owns its state; the engine only
// tells it what happens when.
type mm1 struct {
	eng        *sim.Engine
	lambda, mu float64
	arrivals   *rand.Rand // one stream per source of randomness, so that
	service    *rand.Rand // changing one leaves the other's draws alone
	inSystem   []float64  // arrival times of the customers present, in order
	count      sim.Gauge  // customers present, over time
	response   *sim.Sketch
}

func (m *mm1) Handle(e sim.Event) {
	now := m.eng.Now()
	switch e.Kind {
	case arrive:
		m.inSystem = append(m.inSystem, now)
		m.count.Add(now, 1)
		if len(m.inSystem) == 1 { // the server was idle
			m.eng.After(m.service.ExpFloat64()/m.mu, depart, 0, 0)
		}
		m.eng.After(m.arrivals.ExpFloat64()/m.lambda, arrive, 0, 0)
	case depart:
		m.response.Add(now - m.inSystem[0])
		m.inSystem = m.inSystem[1:]
		m.count.Add(now, -1)
		if len(m.inSystem) > 0 {
			m.eng.After(m.service.ExpFloat64()/m.mu, depart, 0, 0)
		}
	}
}

// ExampleEngine drives a tiny M/M/1 queue and compares what it measures with
// queueing theory: with utilisation rho = lambda/mu, the mean number in the
// system is rho/(1-rho) and the response time is exponential with rate
// mu-lambda.
func ExampleEngine() {
	const seed, horizon = 1, 50_000.0
	var eng sim.Engine
	m := &mm1{
		eng:      &eng,
		lambda:   0.7,
		mu:       1,
		arrivals: sim.Stream(seed, "mm1/arrivals", 0),
		service:  sim.Stream(seed, "mm1/service", 0),
		response: sim.NewSketch(),
	}
	eng.Schedule(0, arrive, 0, 0)
	if err := eng.Run(context.Background(), horizon, m); err != nil {
		fmt.Println(err)
		return
	}
	meanCount, maxCount := m.count.Mark(eng.Now())
	rho := m.lambda / m.mu
	fmt.Printf("%d events; served %.0f customers by t = %.0f s\n", eng.Events(), m.response.Count(), eng.Now())
	fmt.Printf("mean in system %.2f (theory %.2f), at most %.0f\n", meanCount, rho/(1-rho), maxCount)
	fmt.Printf("mean response  %.2f s (theory %.2f s)\n", m.response.Mean(), 1/(m.mu-m.lambda))
	fmt.Printf("p95 response   %.2f s (theory %.2f s)\n", m.response.Quantile(0.95), math.Log(20)/(m.mu-m.lambda))
	// Output:
	// 69647 events; served 34823 customers by t = 50000 s
	// mean in system 2.33 (theory 2.33), at most 31
	// mean response  3.35 s (theory 3.33 s)
	// p95 response   10.31 s (theory 9.99 s)
}
