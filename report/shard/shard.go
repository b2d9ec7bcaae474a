package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one of Count parts of a batch: shard Index (0-based) runs the
// work items k with k mod Count = Index.
type Shard struct {
	Index int
	Count int
}

// MaxShards bounds the shard count.
const MaxShards = 100_000

// Parse parses "I/N": shard I (0-based) of N.
func Parse(s string) (Shard, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Shard{}, fmt.Errorf("invalid shard %q: expected I/N, shard I (from 0) of N, e.g. 0/4", s)
	}
	index, err := strconv.Atoi(strings.TrimSpace(i))
	if err != nil {
		return Shard{}, fmt.Errorf("invalid shard %q: index %q is not a whole number", s, i)
	}
	count, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil {
		return Shard{}, fmt.Errorf("invalid shard %q: count %q is not a whole number", s, n)
	}
	return New(index, count)
}

// New checks and returns shard index of count.
func New(index, count int) (Shard, error) {
	if count < 1 || count > MaxShards {
		return Shard{}, fmt.Errorf("invalid shard count %d: must be from 1 to %d", count, MaxShards)
	}
	if index < 0 || index >= count {
		return Shard{}, fmt.Errorf("invalid shard index %d of %d: must be from 0 to %d", index, count, count-1)
	}
	return Shard{Index: index, Count: count}, nil
}

// Environment variables FromEnv reads.
const (
	// EnvKubernetes is set by a Kubernetes Indexed Job: the pod's
	// completion index, from 0.
	EnvKubernetes = "JOB_COMPLETION_INDEX"
	// EnvSlurmID, EnvSlurmMin and EnvSlurmCount are set by a Slurm job
	// array: this task's id, the array's smallest id and its task count.
	EnvSlurmID    = "SLURM_ARRAY_TASK_ID"
	EnvSlurmMin   = "SLURM_ARRAY_TASK_MIN"
	EnvSlurmCount = "SLURM_ARRAY_TASK_COUNT"
	// EnvSlurmStep is a Slurm array's step (--array=0-14:2 gives 2).
	EnvSlurmStep = "SLURM_ARRAY_TASK_STEP"
)

// FromEnv finds this process's shard from a scheduler's environment (getenv
// is os.Getenv in the CLI). count is the shard count given on the command
// line, 0 if none. A Kubernetes Indexed Job gives the index in
// JOB_COMPLETION_INDEX and count must be given (the Job's completions). A
// Slurm array gives SLURM_ARRAY_TASK_ID, counted from
// SLURM_ARRAY_TASK_MIN (so --array=1-8 works), and the count in
// SLURM_ARRAY_TASK_COUNT; a count given as well must agree. The array must
// be contiguous: a SLURM_ARRAY_TASK_STEP other than 1 is an error.
func FromEnv(getenv func(string) string, count int) (Shard, error) {
	num := func(name string) (int, bool, error) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, true, fmt.Errorf("%s=%q is not a whole number", name, v)
		}
		return n, true, nil
	}
	if index, ok, err := num(EnvKubernetes); ok || err != nil {
		if err != nil {
			return Shard{}, err
		}
		if count == 0 {
			return Shard{}, fmt.Errorf("%s=%d is set (Kubernetes Indexed Job) but not the shard count: give --shards N, the Job's completions", EnvKubernetes, index)
		}
		s, err := New(index, count)
		if err != nil {
			return Shard{}, fmt.Errorf("%s: %w", EnvKubernetes, err)
		}
		return s, nil
	}
	id, ok, err := num(EnvSlurmID)
	if err != nil {
		return Shard{}, err
	}
	if !ok {
		return Shard{}, fmt.Errorf("--shard-from-env: neither %s (Kubernetes Indexed Job) nor %s (Slurm job array) is set", EnvKubernetes, EnvSlurmID)
	}
	lo, _, err := num(EnvSlurmMin)
	if err != nil {
		return Shard{}, err
	}
	if step, haveStep, err := num(EnvSlurmStep); err != nil {
		return Shard{}, err
	} else if haveStep && step != 1 {
		return Shard{}, fmt.Errorf("%s=%d: a strided Slurm array (--array=A-B:%d) skips task ids, so they are not shard indexes; use a contiguous array, such as --array=0-7 for 8 shards", EnvSlurmStep, step, step)
	}
	n, haveN, err := num(EnvSlurmCount)
	if err != nil {
		return Shard{}, err
	}
	switch {
	case haveN && count != 0 && n != count:
		return Shard{}, fmt.Errorf("--shards %d disagrees with %s=%d", count, EnvSlurmCount, n)
	case !haveN && count == 0:
		return Shard{}, fmt.Errorf("%s is set but not %s: give --shards N", EnvSlurmID, EnvSlurmCount)
	case !haveN:
		n = count
	}
	s, err := New(id-lo, n)
	if err != nil {
		return Shard{}, fmt.Errorf("%s=%d (min %d): %w; use a contiguous array such as --array=0-%d", EnvSlurmID, id, lo, err, n-1)
	}
	return s, nil
}

// Items returns the work items of a batch of total items this shard runs,
// in increasing order.
func (s Shard) Items(total int) []int {
	var out []int
	for k := s.Index; k < total; k += s.Count {
		out = append(out, k)
	}
	return out
}

// Len is how many of total work items the shard runs: len(s.Items(total)).
func (s Shard) Len(total int) int {
	if s.Index >= total || s.Count < 1 {
		return 0
	}
	return (total-s.Index-1)/s.Count + 1
}

// String is "I/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }
