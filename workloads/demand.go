package workloads

import (
	"fmt"
	"math"
	"strings"

	"github.com/headroom-sim/headroom/scenarios/schema"
)

// maxCurvePoints bounds an hourly or curve demand, far beyond anything
// real, so that a typo cannot make a simulation run out of memory. The
// limits on users and count are their keys' ranges.
const maxCurvePoints = 1_000_000

// Rate units accepted in DemandSpec.Unit.
const (
	UnitPerSecond = "requests/s"
	UnitPerMinute = "requests/min"
	UnitPerHour   = "requests/hour"
)

// Curve shapes accepted in DemandSpec.Shape.
const (
	ShapeStep   = "step"
	ShapeLinear = "linear"
)

// DemandSpec is what arrives for one workload. Exactly one mode is given:
//
//   - Rate: a constant open-loop rate;
//   - Hourly: one rate per hour starting at clock time From;
//   - Curve: one rate per Every starting at clock time From;
//   - Users: a closed loop of users who each think (Think), send a request,
//     wait for the answer, and repeat;
//   - Count: a one-off job of Count requests all issued at time At;
//   - Trace: a request log replayed record by record (TraceSpec).
//
// Open-loop rates are in Unit. Hourly and Curve points are joined by Shape
// and may Repeat; Arrivals sets how bursty open-loop arrivals are.
type DemandSpec struct {
	Unit     string      `toml:"unit" enum:"requests/s|requests/min|requests/hour" noun:"unit" default:"requests/min" doc:"unit of rate, hourly and curve (open loop only)"`
	Rate     float64     `toml:"rate" unit:"requests per unit (requests/min unless unit says otherwise)" range:"[0,1e15]" doc:"open loop at a constant rate"`
	Hourly   []float64   `toml:"hourly" unit:"requests per unit (requests/min unless unit says otherwise)" range:"[0,1e15]" doc:"open loop, one rate per hour starting at from; not all zero, at most 1,000,000 points"`
	Curve    []float64   `toml:"curve" unit:"requests per unit (requests/min unless unit says otherwise)" range:"[0,1e15]" doc:"open loop, one rate per every starting at from; as hourly"`
	Every    Duration    `toml:"every" range:"[0s,366d]" doc:"spacing of the curve points (required with curve), e.g. \"15m\""`
	From     Clock       `toml:"from" default:"00:00" doc:"clock time of the first hourly or curve point"`
	Shape    string      `toml:"shape" enum:"step|linear" noun:"shape" default:"step" doc:"step: each point holds for one spacing; linear: rates are interpolated between points, the last holding for one spacing"`
	Repeat   bool        `toml:"repeat" doc:"repeat the points with period points × spacing (24 hourly points repeat daily, at any start)"`
	Arrivals ArrivalSpec `toml:"arrivals" default:"poisson" doc:"burstiness of open-loop arrivals: \"poisson\", \"constant\" or { kind = \"gamma\", cv = 2.0 }"`
	Users    int         `toml:"users" range:"(0,10000000]" zero:"0 for another demand mode" doc:"closed loop: each user thinks, sends, waits for the answer (or the failure) and repeats"`
	Think    Dist        `toml:"think" unit:"seconds" range:"[0s,366d]" doc:"closed loop: think time between an answer and the user's next request (required with users); each user starts with one"`
	Count    int         `toml:"count" range:"(0,100000000]" zero:"0 for another demand mode" doc:"a one-off job: count requests, all issued at at"`
	At       Duration    `toml:"at" range:"[0s,inf)" default:"0s" doc:"when the job's requests are issued, after t = 0"`
	Trace    *TraceSpec  `toml:"trace" doc:"a request log replayed record by record: { file = \"...\", format = \"...\" } and its transforms (see the trace keys)"`
}

// IsTrace reports whether the demand replays a trace.
func (d *DemandSpec) IsTrace() bool { return d.Trace != nil }

// Closed reports whether the demand is a closed loop of users.
func (d *DemandSpec) Closed() bool { return d.Users > 0 }

// IsJob reports whether the demand is a one-off job of Count requests.
func (d *DemandSpec) IsJob() bool { return d.Count > 0 }

// modes lists the demand modes that are set, by TOML key.
func (d *DemandSpec) modes() []string {
	var set []string
	if d.Rate != 0 {
		set = append(set, "rate")
	}
	if len(d.Hourly) > 0 {
		set = append(set, "hourly")
	}
	if len(d.Curve) > 0 {
		set = append(set, "curve")
	}
	if d.Users != 0 {
		set = append(set, "users")
	}
	if d.Count != 0 {
		set = append(set, "count")
	}
	if d.Trace != nil {
		set = append(set, "trace")
	}
	return set
}

// unitSeconds returns the length in seconds of the unit's time base.
func unitSeconds(unit string) (float64, bool) {
	switch unit {
	case UnitPerSecond:
		return 1, true
	case "", UnitPerMinute:
		return 60, true
	case UnitPerHour:
		return 3600, true
	}
	return 0, false
}

// Validate checks that exactly one mode is given and that its values are
// sensible. Errors are *FieldError values keyed by TOML key relative to
// the demand table ("hourly[3]", "think.p95", "users").
func (d *DemandSpec) Validate() error {
	if err := schema.Check(d); err != nil {
		return err
	}
	set := d.modes()
	switch len(set) {
	case 0:
		return &FieldError{Msg: "no demand given; set exactly one of rate, hourly, curve, users, count, trace"}
	case 1:
	default:
		return fieldErrorf(set[1], "cannot be combined with %s; set exactly one of rate, hourly, curve, users, count, trace (got %s)", set[0], strings.Join(set, ", "))
	}
	mode := set[0]
	open := mode == "rate" || mode == "hourly" || mode == "curve"
	points := mode == "hourly" || mode == "curve"

	// Keys that belong to other modes must not be set.
	notFor := func(key string) error {
		return fieldErrorf(key, "does not apply to %s demand", mode)
	}
	if !open {
		if d.Unit != "" {
			return notFor("unit")
		}
		if d.Arrivals != (ArrivalSpec{}) {
			return notFor("arrivals")
		}
	}
	if !points {
		switch {
		case d.From.IsSet():
			return notFor("from")
		case d.Shape != "":
			return notFor("shape")
		case d.Repeat:
			return notFor("repeat")
		}
	}
	if mode != "curve" && d.Every != 0 {
		if mode == "hourly" {
			return fieldErrorf("every", "does not apply to hourly demand (its points are 1h apart); use curve with every for other spacings")
		}
		return notFor("every")
	}
	if mode != "users" && !d.Think.IsZero() {
		return notFor("think")
	}
	if mode != "count" && d.At != 0 {
		return notFor("at")
	}

	if open {
		if err := d.Arrivals.Validate(); err != nil {
			return Prefix("arrivals", err)
		}
	}

	switch mode {
	case "hourly":
		return validatePoints("hourly", d.Hourly)
	case "curve":
		if err := validatePoints("curve", d.Curve); err != nil {
			return err
		}
		if d.Every == 0 {
			return fieldErrorf("every", "missing; curve needs the spacing of its points, e.g. every = \"15m\"")
		}
	case "users":
		if d.Think.IsZero() {
			return fieldErrorf("think", "missing; users need a think time between an answer and their next request, e.g. think = \"30s\" or { dist = \"exponential\", mean = \"30s\" }")
		}
		if err := d.Think.Validate(); err != nil {
			return Prefix("think", err)
		}
	case "trace":
		if err := d.Trace.Validate(); err != nil {
			return Prefix("trace", err)
		}
	}
	return nil
}

// validatePoints checks the points of an hourly or curve demand.
func validatePoints(key string, points []float64) error {
	if len(points) > maxCurvePoints {
		return fieldErrorf(key, "has %d points; at most %d allowed", len(points), maxCurvePoints)
	}
	anyPositive := false
	for _, v := range points {
		if v > 0 {
			anyPositive = true
		}
	}
	if !anyPositive {
		return fieldErrorf(key, "all %d points are zero, so nothing would arrive; at least one must be > 0", len(points))
	}
	return nil
}

// BuildCurve returns the open-loop rate curve in requests per second over
// simulated time t, where t = 0 is clock time startClock seconds after
// midnight of day 0. Rate mode gives a constant.
//
// Hourly and curve points are anchored at clock time From on day 0: the
// curve's position at simulated time t is startClock + t − From, with days
// counting forward, so t may span many days. Consequently:
//
//   - From later than startClock: the curve starts From − startClock seconds
//     into the simulation;
//   - From earlier than startClock: the curve started before t = 0, and its
//     points before startClock are in the past;
//   - without Repeat the rate is 0 before the first point and after the
//     last point's spacing ends;
//   - with Repeat the points form a periodic pattern with period
//     len·spacing, anchored at From and extending both ways, so 24 hourly
//     points from "08:00" give the same daily profile at any start clock
//     (before 08:00 on day 0 the rate is that of the previous day's cycle).
//
// It returns an error for invalid or closed-loop/job demand, or a
// startClock that is not finite and >= 0.
func (d *DemandSpec) BuildCurve(startClock float64) (*Curve, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if math.IsNaN(startClock) || math.IsInf(startClock, 0) || startClock < 0 {
		return nil, fmt.Errorf("start clock must be a finite number of seconds >= 0, got %v", startClock)
	}
	if d.Closed() || d.IsJob() || d.IsTrace() {
		return nil, fmt.Errorf("demand is a closed loop, a job or a trace; it has no rate curve")
	}
	unit, _ := unitSeconds(d.Unit)
	if d.Rate != 0 || (len(d.Hourly) == 0 && len(d.Curve) == 0) {
		return Constant(d.Rate / unit), nil
	}
	points, spacing := d.Hourly, 3600.0
	if len(d.Curve) > 0 {
		points, spacing = d.Curve, float64(d.Every)
	}
	from := d.From.Seconds()
	perSecond := make([]float64, len(points))
	for i, v := range points {
		perSecond[i] = v / unit
	}
	c, err := newCurve(perSecond, spacing, d.Shape == ShapeLinear, d.Repeat, startClock-from)
	if err != nil {
		return nil, fmt.Errorf("building demand curve: %w", err)
	}
	return c, nil
}
