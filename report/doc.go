// Package report writes simulation results for people and programs: a
// terminal summary a planner reads in ten seconds, JSON in a documented and
// versioned schema, and CSV of the per-interval series. It reads
// model.Results and nothing else; the caller owns files and the terminal.
package report
