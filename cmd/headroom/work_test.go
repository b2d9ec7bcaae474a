package main

import (
	"strings"
	"testing"
)

// Runs that could never finish, or would not fit in memory, are refused
// before they start, with the estimate and the way out; --force lifts the
// memory and work bounds.
func TestWorkEstimateRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"a trillion requests a second", []string{"run", "morning-peak", "--base-only", "--set", "workload.assistant.demand.hourly=[6e13]"},
			[]string{"events in 1 simulation(s)", `the busiest workload, "assistant", issues about`, "the bound is 1e+10 events", "--force"}},
		{"users who never think, answered at once", []string{"run", "email-launch", "--base-only", "--set", "workload.summarize.demand.users=10000000",
			"--set", `workload.summarize.demand.think={dist="fixed",value="1ns"}`, "--set", `provider.frontier.latency={ttft={base="0s"},tpot={mean="0s"}}`},
			[]string{"events in 1 simulation(s)", "the bound is 1e+10 events", "--force"}},
		{"a grid of 10,000 points of 100,000 replications", []string{"sweep", "email-launch", "--param", "workload.summarize.demand.users=1..100+1",
			"--param", "provider.frontier.limits.rpm=1..100+1", "--replications", "100000"},
			[]string{"in 1,000,000,000 simulation(s)", "--force"}},
		{"a job of 100M requests without a client cap", []string{"run", "batch-job", "--base-only", "--set", "workload.summarize-docs.demand.count=100000000",
			"--set", "workload.summarize-docs.client.max_concurrency=0"},
			[]string{"about 41.9 GiB of memory", "up to 100,000,000 requests in flight at once", "the bound is 4.0 GiB", "max_concurrency", "--force"}},
	} {
		code, out, errs := cli(t, c.args...)
		if code != exitBadInput || out != "" {
			t.Errorf("%s: exit %d, stdout %q", c.name, code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: stderr %q lacks %q", c.name, errs, w)
			}
		}
	}
	// The same job behind 16 client slots holds 16 requests: it runs.
	if code, _, errs := cli(t, "run", "batch-job", "--base-only", "--quiet", "--set", "workload.summarize-docs.demand.count=100000000",
		"--set", "workload.summarize-docs.client.max_concurrency=16", "--set", "duration=10m"); code != 0 {
		t.Errorf("a capped job of 100M: exit %d, %s", code, errs)
	}
}

func TestEstimateCheckForce(t *testing.T) {
	e := batchEstimate{items: 1, workers: 1}
	e.Events, e.Bytes = 2*maxEvents, 2*maxBytes
	if e.check(false) == nil {
		t.Error("an estimate beyond both bounds passes")
	}
	if err := e.check(true); err != nil {
		t.Errorf("--force: %v", err)
	}
}
