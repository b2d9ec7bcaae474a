// Package workloads describes what arrives at an LLM deployment: how many
// requests, when, and how many tokens each carries.
//
// A workload is given in a scenario file as a [DemandSpec] (a constant
// rate, an hourly or arbitrary rate curve, a closed loop of users, or a
// one-off job), an [ArrivalSpec] (how bursty the open-loop arrivals are) and
// a [TokenSpec] (prompt and output token distributions, each a [Dist]).
// Durations in scenario files are [Duration] values ("400ms", "5m", "2d" or
// a bare number of seconds).
//
// Open-loop demand is turned into a rate [Curve] in requests per second over
// simulated time; [Curve.Cumulative] and [Curve.Inverse] are exact, closed
// form, so [Arrivals] can generate a renewal process in operational time and
// map it to real time. That time change makes a non-homogeneous Poisson
// process exact, and gives gamma and constant processes the same rate
// profile.
//
// Sampling ([Dist.Sample], [TokenSpec.Sample], [Arrivals.Next]) draws only
// from the *math/rand/v2.Rand it is given (a stream from sim.Stream) and
// never allocates, so a simulation is a pure function of its seed.
//
// Validation reports [FieldError] values whose Key is a path relative to
// the value validated ("hourly[3]", "think.p95"); callers add their own
// context with [Prefix].
package workloads
