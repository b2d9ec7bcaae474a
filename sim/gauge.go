package sim

// Gauge integrates a piecewise-constant level over time (queue length,
// requests in flight, KV blocks in use) so its time-weighted mean over any
// span can be read back, along with its maximum.
type Gauge struct {
	level    float64
	last     float64 // time of the last change
	area     float64 // integral of level since the last Mark
	markTime float64
	max      float64 // largest level since the last Mark
	cum      float64 // integral of level since t = 0, up to last
}

// Set moves the gauge to level v at time t (t must not go backwards).
func (g *Gauge) Set(t, v float64) {
	d := g.level * (t - g.last)
	g.area += d
	g.cum += d
	g.last = t
	g.level = v
	if v > g.max {
		g.max = v
	}
}

// Add moves the gauge by dv at time t.
func (g *Gauge) Add(t, dv float64) { g.Set(t, g.level+dv) }

// Level is the current level.
func (g *Gauge) Level() float64 { return g.level }

// Mark closes the span that started at the previous Mark (or t = 0) and
// returns its time-weighted mean and maximum, then starts a new span at t.
func (g *Gauge) Mark(t float64) (mean, max float64) {
	d := g.level * (t - g.last)
	g.area += d
	g.cum += d
	g.last = t
	span := t - g.markTime
	if span > 0 {
		mean = g.area / span
	} else {
		mean = g.level
	}
	max = g.max
	g.area = 0
	g.markTime = t
	g.max = g.level
	return mean, max
}

// Integral is the integral of the level from t = 0 to t (t must not be
// before the last change); Mark does not reset it. The mean over any span
// is the difference of two integrals over its length.
func (g *Gauge) Integral(t float64) float64 { return g.cum + g.level*(t-g.last) }
