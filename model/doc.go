// Package model is the system under study: the clients that issue LLM
// requests, the gateway in front of the backends, the routes across them,
// the hosted APIs that admit, rate-limit, cache, bill and answer requests,
// the self-hosted GPU clusters that batch and serve them, and the
// bookkeeping that turns one simulated run into Results.
//
// # A request's way
//
// Every request passes the same six steps, each in its own file, in this
// order (a step names the function that enters it):
//
//	1 Arrival     arrival.go       arrive, newRequest, issue
//	  │           trace_source.go  open-loop arrivals, closed-loop users, a
//	  │                            job's batch, or a trace's records; counted
//	  │                            as offered
//	  ▼
//	2 Client      client.go        attempt, send
//	  │           timeout.go       a slot of the concurrency cap or the
//	  │           retry.go         client's queue, the pacer, the attempt's
//	  │                            timeout; after a refusal, the retry policy
//	  ▼
//	3 Gateway     gateway.go       gwAdmit, gwDispatch (only with a gateway)
//	  │                            response cache, tenant and key buckets in
//	  │                            weighted units, stream caps, the fair queue
//	  ▼
//	4 Router      router.go        route, pick, reroute
//	  │                            the target of a route (weighted, overflow,
//	  │                            fallback), cooldowns, fallback on refusal
//	  ▼
//	5 Backend     backend.go       sendTo, reject
//	  │           hosted.go        sendHosted: outages, spend cap, limits
//	  │             limiter.go     (RPM, ITPM, OTPM, TPM, RPD, TPD at org and
//	  │             window.go      key level, in pluggable windows), batch
//	  │             provider.go    lane, concurrency, prompt cache, TTFT and
//	  │                            TPOT draws, prices
//	  │           cluster_step.go  sendCluster: a GPU cluster's replicas,
//	  │             cluster_*.go   continuous batching, KV blocks, prefix
//	  │                            cache; its fleet (routing across replicas,
//	  │                            autoscaling, prefill/decode pools, a CPU
//	  │                            tier for the KV cache), schedules, failures
//	  ▼
//	6 Completion  complete.go      complete, fail, finish
//	                               tokens, cost, latencies, goodput, series;
//	                               the record and the client slot freed
//
// A refusal travels back the same way: a backend's reject reaches the
// client after the backend's error latency (evFail), passing the router
// first (reroute: a cooldown, a fallback target); the gateway refuses
// straight to the client. The client's refused backs off and retries
// (step 2 again) or gives the request up (fail). finish hands the freed
// client slot to the next request in the client's queue (step 2) and sets
// a closed-loop user thinking (step 1).
//
// A direct workload takes the same steps in two calls. Its one target is a
// hosted API where nothing refuses, charges or caches (no limit, outage,
// spend cap, concurrency cap, batch lane or usable prompt cache), and
// nothing stands on its way (no gateway, pacer, timeout, route or live
// driver): an M/M/c queue, for one. startDirect (hosted.go) takes its
// request from the client slot straight into service, and doneDirect
// (complete.go) records its completion and frees its slot, skipping the
// checks that cannot apply; every figure goes to the same sums in the same
// order, and TestDirectEqualsGeneral holds the two ways to the same bytes.
// A workload whose one target is a GPU cluster, with nothing on its way,
// is direct too: sendDirect (backend.go) takes a new request's first
// attempt through client, router and the replica's queue in one step, and
// doneDirect (complete.go) records its completion in one, as it does a
// hosted one's (TestClusterDirectEqualsGeneral). Inside a cluster,
// admitPlain, startStep's pure decode case and finishLazy are the common
// cases' short paths, held to the general ones by
// TestAdmitPlainEqualsGeneral and the stepping tests.
//
// # Around the way
//
// sim.go wires a Config into a Sim (Build) and dispatches the engine's
// events (Handle) to the steps above; runner.go runs many (RunAll,
// RunEach); assemble.go turns the accumulators (stats.go, series.go,
// windows.go, demand.go) into Results, and findings.go adds what a run
// found, as data: the model writes no words. live*.go drive the same
// simulation one request at a time from outside (model/serve). Everything
// is deterministic given the seed and replication.
package model
