package shard

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Shard
	}{{"0/1", Shard{0, 1}}, {"3/8", Shard{3, 8}}, {" 7 / 8 ", Shard{7, 8}}} {
		got, err := Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"3", "expected I/N"},
		{"8/8", "must be from 0 to 7"},
		{"-1/4", "must be from 0 to 3"},
		{"0/0", "must be from 1 to"},
		{"a/4", `index "a" is not a whole number`},
		{"1/four", `count "four" is not a whole number`},
	} {
		if _, err := Parse(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): %v, want %q", c.in, err, c.want)
		}
	}
}

func TestItemsRoundRobin(t *testing.T) {
	if got := (Shard{1, 3}).Items(8); !reflect.DeepEqual(got, []int{1, 4, 7}) {
		t.Errorf("shard 1/3 of 8 items: %v", got)
	}
	if got := (Shard{4, 5}).Items(3); got != nil {
		t.Errorf("a shard beyond the items: %v", got)
	}
	// Every item on exactly one shard.
	seen := map[int]int{}
	for i := 0; i < 4; i++ {
		for _, k := range (Shard{i, 4}).Items(10) {
			seen[k]++
		}
	}
	for k := 0; k < 10; k++ {
		if seen[k] != 1 {
			t.Errorf("item %d on %d shards", k, seen[k])
		}
	}
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnv(t *testing.T) {
	for _, c := range []struct {
		env   map[string]string
		count int
		want  Shard
	}{
		{map[string]string{EnvKubernetes: "2"}, 4, Shard{2, 4}},
		{map[string]string{EnvSlurmID: "3", EnvSlurmCount: "8"}, 0, Shard{3, 8}},
		{map[string]string{EnvSlurmID: "3", EnvSlurmCount: "8", EnvSlurmMin: "1"}, 8, Shard{2, 8}}, // --array=1-8
		{map[string]string{EnvSlurmID: "3", EnvSlurmCount: "8", EnvSlurmStep: "1"}, 0, Shard{3, 8}},
		{map[string]string{EnvSlurmID: "0"}, 2, Shard{0, 2}},
		{map[string]string{EnvKubernetes: "1", EnvSlurmID: "5"}, 2, Shard{1, 2}}, // Kubernetes wins
	} {
		got, err := FromEnv(env(c.env), c.count)
		if err != nil || got != c.want {
			t.Errorf("FromEnv(%v, %d) = %v, %v; want %v", c.env, c.count, got, err, c.want)
		}
	}
	for _, c := range []struct {
		env   map[string]string
		count int
		want  string
	}{
		{nil, 4, "neither JOB_COMPLETION_INDEX"},
		{map[string]string{EnvKubernetes: "2"}, 0, "give --shards N"},
		{map[string]string{EnvKubernetes: "4"}, 4, "JOB_COMPLETION_INDEX: invalid shard index 4 of 4"},
		{map[string]string{EnvKubernetes: "x"}, 4, `JOB_COMPLETION_INDEX="x" is not a whole number`},
		{map[string]string{EnvSlurmID: "3"}, 0, "not SLURM_ARRAY_TASK_COUNT"},
		{map[string]string{EnvSlurmID: "3", EnvSlurmCount: "8"}, 4, "--shards 4 disagrees with SLURM_ARRAY_TASK_COUNT=8"},
		{map[string]string{EnvSlurmID: "12", EnvSlurmCount: "4"}, 0, "use a contiguous array"},
		{map[string]string{EnvSlurmID: "4", EnvSlurmCount: "8", EnvSlurmStep: "2"}, 0, "SLURM_ARRAY_TASK_STEP=2: a strided Slurm array"},
		{map[string]string{EnvSlurmID: "4", EnvSlurmCount: "8", EnvSlurmStep: "x"}, 0, `SLURM_ARRAY_TASK_STEP="x" is not a whole number`},
	} {
		if _, err := FromEnv(env(c.env), c.count); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FromEnv(%v, %d): %v, want %q", c.env, c.count, err, c.want)
		}
	}
}
