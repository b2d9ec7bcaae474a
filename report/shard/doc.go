// Package shard splits a batch of simulations (report.Plan: grid points ×
// variants × replications, in canonical order) across processes or
// machines, and merges what they ran back into one document.
//
// Shard I of N runs the work items k with k mod N = I, round robin: items
// next to each other (the replications of one point, the points of a
// sweep's cheap or expensive region) land on different shards, so shards
// take about the same time. Each shard writes a part file: a header naming
// the batch (plan, scenario hash, seed, shard, shard count) and the full
// results of its items. Merge checks that the parts belong together and
// cover every shard exactly once, and returns the results in canonical
// order, so report.Assemble gives the bytes a single process would.
package shard
