// Package sim is Headroom's discrete-event kernel: a clock, a typed event
// queue ordered by (time, sequence), named random streams derived from
// (seed, component, replication), and the statistics a simulation needs
// (mergeable quantile sketches and time-weighted gauges).
//
// The kernel knows nothing about LLMs. A model owns its state and tells the
// engine what happens next with Schedule; the engine pops events in order and
// hands each to the model's Handler. Events are plain values: the queue never
// boxes them in interfaces and never allocates per event once it has grown to
// the largest number of pending events.
//
// Ties are broken by the order in which events were scheduled, so a run is a
// pure function of its inputs and seed. A model that keeps occurrences of
// its own out of the queue until they come next stamps each when it
// decides it (Engine.Stamp) and schedules it later in the place the stamp
// holds (Engine.ScheduleStamped), as if it had been scheduled at once. A
// source that always has exactly one occurrence pending (an arrival
// stream) keeps it on a lane beside the heap (Engine.ScheduleLane), in the
// same order and at the cost of a comparison instead of a sift.
package sim
