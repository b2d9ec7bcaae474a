// Package plan answers a scenario's [plan] table: the cheapest candidate
// that meets every constraint (min_cost), and how far every workload's
// demand can grow before one fails (max_load).
//
// Compile turns the table into a Problem: knobs with their candidate
// values as scenario overrides, and constraints, each over the whole run
// and in its worst window. Search walks the candidates exploiting their
// structure: a monotone knob (more replicas never hurt) is searched by
// galloping and bisection instead of scanned, the other knobs are
// enumerated, and a candidate whose fixed and GPU cost alone exceeds the
// cheapest one found to hold is never simulated. Every candidate runs the
// same replications with the same seeds (common random numbers) and counts
// as holding only at the stated confidence; the winner is re-checked with
// more replications. Run wires the search to the simulator, round by round,
// so the outcome does not depend on how many simulations run at once.
package plan
