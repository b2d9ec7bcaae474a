// Package model is the system under study: the clients that issue LLM
// requests, the hosted APIs that admit, rate-limit, cache, bill and answer
// them, and the bookkeeping that turns one simulated run into Results.
//
// A request's way is Arrival -> Client -> Backend -> Completion. The client
// holds a concurrency semaphore, an optional pacing bucket and a retry
// policy. A hosted backend checks every limit dimension it has (RPM, ITPM,
// OTPM, TPM, RPD, TPD, at org and key level) with a pluggable window
// (continuous token bucket, fixed window, sliding window), reserves output
// tokens at admission and reconciles them at completion, applies prompt
// caching, draws TTFT and TPOT, and prices the tokens.
//
// Build wires a Config into a Sim; Sim.Run drives a sim.Engine to the
// horizon. Everything is deterministic given the seed and replication.
package model
