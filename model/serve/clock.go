package serve

import (
	"math"
	"time"
)

// Clock maps wall time to simulated time: the simulation runs Speed times
// faster than the wall clock from Start.
type Clock struct {
	Start time.Time
	Speed float64
}

// Sim is the simulated time at wall time t.
func (c Clock) Sim(t time.Time) float64 {
	return math.Max(0, t.Sub(c.Start).Seconds()*c.Speed)
}

// Now is the simulated time now.
func (c Clock) Now() float64 { return c.Sim(time.Now()) }

// Wall is the wall time at simulated time s.
func (c Clock) Wall(s float64) time.Time {
	return c.Start.Add(time.Duration(s / c.Speed * float64(time.Second)))
}

// WallDuration is how long d simulated seconds last on the wall clock.
func (c Clock) WallDuration(d float64) time.Duration {
	return time.Duration(d / c.Speed * float64(time.Second))
}
