package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// gpus is one replica whose iteration takes 20 ms alone and 30 ms with
// 64 sequences (interpolated between).
const gpus = `
name = "gpus"
duration = "1h"
[[workload]]
name = "chat"
route = "pool"
tokens = { input = 50, output = 20 }
demand = { rate = 1 }

[[cluster]]
name = "pool"
replicas = 1
max_num_seqs = 64
  [cluster.step]
  kind = "table"
  batches = [1, 64]
  times = ["20ms", "30ms"]
  [cluster.kv]
  blocks = 100000
`

// streamDeltas streams one chat request and returns when each content
// chunk arrived, after t0.
func streamDeltas(t *testing.T, url string, tokens int, t0 time.Time, model ...string) []time.Duration {
	name := "pool"
	if len(model) > 0 {
		name = model[0]
	}
	body := `{"model":"` + name + `","stream":true,"max_tokens":` + itoa(tokens) + `,"messages":[{"role":"user","content":"x"}]}`
	req, _ := http.NewRequest("POST", url+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("X-Headroom-Output-Tokens", itoa(tokens))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer resp.Body.Close()
	var at []time.Duration
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"content":"`) && !strings.Contains(sc.Text(), `"content":""`) {
			at = append(at, time.Since(t0))
		}
	}
	return at
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestClusterStreamsFromTheBatch: a cluster's tokens come as its
// iterations end, and concurrent requests share iterations (continuous
// batching), so two streams take barely longer than one.
func TestClusterStreamsFromTheBatch(t *testing.T) {
	var log syncBuffer
	s := start(t, gpus, Options{Speed: 1, Log: &log})
	t0 := time.Now()
	one := streamDeltas(t, s.URL, 20, t0)
	alone := time.Since(t0)
	if len(one) != 20 {
		t.Fatalf("%d chunks, want 20", len(one))
	}
	// 20 iterations of 20 ms: the first token after the prefill
	// iteration, the last after about 400 ms. Lateness only adds to the
	// wall times; the upper bound catches a stall, not a load.
	if one[0] < 15*time.Millisecond || alone < 380*time.Millisecond || alone > 3*time.Second {
		t.Fatalf("first token at %v, stream took %v; want about 20 ms and 400 ms", one[0], alone)
	}
	if spread := one[19] - one[0]; spread < 300*time.Millisecond {
		t.Fatalf("tokens came in a burst (%v from first to last), not as the iterations ended", spread)
	}
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); streamDeltas(t, s.URL, 20, time.Now()) }()
	}
	wg.Wait()
	m := s.scrape(t)
	if m["headroom_kv_blocks"].sum("backend", "pool") != 100000 || m["headroom_backend_admitted_total"].sum("backend", "pool") != 3 {
		t.Fatalf("cluster metrics: %v %v", m["headroom_kv_blocks"].samples, m["headroom_backend_admitted_total"].samples)
	}
	// Batched, each of the two took its 20 iterations at about 20 ms,
	// whenever it arrived; one behind the other, the second would have
	// taken twice as long. The simulated durations say which, whatever
	// the machine's load.
	s.ts.Close()
	var e2e []float64
	sc := bufio.NewScanner(bytes.NewReader(log.b.Bytes()))
	for sc.Scan() {
		var l struct {
			E2E float64 `json:"e2e_sim_s"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		e2e = append(e2e, l.E2E)
	}
	if len(e2e) != 3 || e2e[0] < 0.38 || e2e[0] > 0.42 || max(e2e[1], e2e[2]) > 1.5*e2e[0] {
		t.Fatalf("simulated durations %v s: alone about 0.4 s, and two concurrent streams not batched", e2e)
	}
}

// TestHorizon: at the scenario's end the session is over: open streams are
// cut and new requests refused.
func TestHorizon(t *testing.T) {
	s := start(t, strings.Replace(hosted, `duration = "1h"`, `duration = "2s"`, 1), Options{Speed: 2})
	select {
	case <-s.Ended():
	case <-time.After(5 * time.Second):
		t.Fatal("a 2 s scenario at 2x did not end within 5 s")
	}
	resp, body := post(t, s.URL+"/v1/chat/completions", `{"model":"sonnet","max_tokens":2,"messages":[{"role":"user","content":"x"}]}`)
	if resp.StatusCode != 503 || !strings.Contains(body, "end of the scenario") {
		t.Fatalf("after the horizon: %d %s", resp.StatusCode, body)
	}
	if r := s.Stop(); r.Interrupted {
		t.Fatal("a session that reached its horizon says it was interrupted")
	}
}

// hybrid is a hosted API in an outage, and a route that falls back from
// it to a GPU pool.
const hybrid = `
name = "hybrid"
duration = "1h"
[[workload]]
name = "chat"
route = "main"
tokens = { input = 50, output = 20 }
demand = { rate = 1 }

[[provider]]
name = "api"
latency = { ttft = { base = "0.1s" } }
[[provider.outage]]
after = "0s"
duration = "1h"
status = 529

[[cluster]]
name = "pool"
replicas = 1
  [cluster.step]
  kind = "table"
  batches = [1, 64]
  times = ["10ms", "20ms"]
  [cluster.kv]
  blocks = 100000

[[route]]
name = "main"
targets = ["api", "pool"]
`

// TestOutageAndFallback: the provider answers 529 overloaded during its
// outage; the route behind it falls back to the cluster, which streams.
func TestOutageAndFallback(t *testing.T) {
	s := start(t, hybrid, Options{Speed: 1})
	resp, body := post(t, s.URL+"/v1/messages", `{"model":"api","max_tokens":5,"messages":[{"role":"user","content":"x"}]}`)
	if resp.StatusCode != 529 || !strings.Contains(body, `"overloaded_error"`) || resp.Header.Get("X-Should-Retry") != "" {
		t.Fatalf("during the outage: %d %s", resp.StatusCode, body)
	}
	deltas := streamDeltas(t, s.URL, 10, time.Now(), "main")
	if len(deltas) != 10 {
		t.Fatalf("the route streamed %d tokens, want 10 from the pool", len(deltas))
	}
	m := s.scrape(t)
	if m["headroom_backend_admitted_total"].sum("backend", "pool") != 1 || m["headroom_backend_refused_total"].sum("backend", "api") != 2 {
		t.Fatalf("admitted %v, refused %v", m["headroom_backend_admitted_total"].samples, m["headroom_backend_refused_total"].samples)
	}
}
