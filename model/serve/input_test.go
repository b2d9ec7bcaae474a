package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestBadInput: every malformed request gets a clear error in its API's
// shape, never a crash.
func TestBadInput(t *testing.T) {
	s := start(t, hosted, Options{Speed: 10, MaxBody: 4096})
	chat, msgs := s.URL+"/v1/chat/completions", s.URL+"/v1/messages"
	cases := []struct {
		name, url, body string
		status          int
		want            string // in the error message
	}{
		{"not JSON", chat, `{"model": "sonnet", "messages": [`, 400, "not valid JSON"},
		{"empty", chat, ``, 400, "empty"},
		{"trailing data", chat, `{"model":"sonnet","messages":[{"role":"user","content":"x"}]} {}`, 400, "after its JSON"},
		{"wrong type", chat, `{"model":"sonnet","messages":[{"role":"user","content":"x"}],"max_tokens":"ten"}`, 400, "max_tokens"},
		{"no model", chat, `{"messages":[{"role":"user","content":"x"}]}`, 400, "model"},
		{"unknown model", chat, `{"model":"gpt-9","messages":[{"role":"user","content":"x"}]}`, 404, "does not exist"},
		{"unknown path endpoint", s.URL + "/gpt-9/v1/chat/completions", `{"model":"x","messages":[{"role":"user","content":"x"}]}`, 404, "no endpoint"},
		{"no messages", chat, `{"model":"sonnet","messages":[]}`, 400, "at least one"},
		{"bad role", chat, `{"model":"sonnet","messages":[{"role":"wizard","content":"x"}]}`, 400, "role"},
		{"negative max_tokens", chat, `{"model":"sonnet","messages":[{"role":"user","content":"x"}],"max_tokens":-1}`, 400, "at least 1"},
		{"huge max_tokens", chat, `{"model":"sonnet","messages":[{"role":"user","content":"x"}],"max_tokens":5000}`, 400, "too large"},
		{"max_tokens overflow", chat, `{"model":"sonnet","messages":[{"role":"user","content":"x"}],"max_tokens":1e400}`, 400, ""},
		{"n > 1", chat, `{"model":"sonnet","messages":[{"role":"user","content":"x"}],"n":3}`, 400, "one choice"},
		{"oversized", chat, `{"model":"sonnet","messages":[{"role":"user","content":"` + strings.Repeat("a", 5000) + `"}]}`, 413, "at most"},
		{"anthropic no max_tokens", msgs, `{"model":"sonnet","messages":[{"role":"user","content":"x"}]}`, 400, "max_tokens"},
		{"anthropic bad role", msgs, `{"model":"sonnet","max_tokens":5,"messages":[{"role":"system","content":"x"}]}`, 400, "role"},
		{"anthropic block without type", msgs, `{"model":"sonnet","max_tokens":5,"messages":[{"role":"user","content":[{"text":"x"}]}]}`, 400, "type"},
		{"responses no input", s.URL + "/v1/responses", `{"model":"sonnet"}`, 400, "input"},
		{"responses previous id", s.URL + "/v1/responses", `{"model":"sonnet","input":"x","previous_response_id":"resp_1"}`, 400, "state"},
		{"unknown route", s.URL + "/v2/whatever", `{}`, 404, "no such route"},
		{"bad output header", chat, `{"model":"sonnet","messages":[{"role":"user","content":"x"}]}`, 400, "x-headroom-output-tokens"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := []string{}
			if c.name == "bad output header" {
				h = []string{"X-Headroom-Output-Tokens", "lots"}
			}
			resp, body := post(t, c.url, c.body, h...)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, body)
			}
			var e struct {
				Type  string `json:"type"`
				Error struct {
					Message, Type string
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Message == "" || e.Error.Type == "" {
				t.Fatalf("error body %q is not the API's error shape: %v", body, err)
			}
			if strings.HasPrefix(c.url, msgs) && e.Type != "error" {
				t.Fatalf("an Anthropic error without type=error: %s", body)
			}
			if !strings.Contains(e.Error.Message, c.want) {
				t.Fatalf("message %q does not say %q", e.Error.Message, c.want)
			}
		})
	}
	resp, err := http.Get(chat)
	if err != nil || resp.StatusCode != 405 {
		t.Fatalf("GET on a POST route: %v %v", resp.StatusCode, err)
	}
	resp.Body.Close()
}

// keyed has per-key limits under the org limit.
const keyed = `
name = "keys"
duration = "1h"
[[workload]]
name = "chat"
route = "sonnet"
key = "team-a"
tokens = { input = 100, output = 5 }
demand = { rate = 1 }

[[provider]]
name = "sonnet"
limits = { rpm = 100 }
latency = { ttft = { base = "0.05s" } }
[[provider.key]]
name = "team-a"
limits = { rpm = 1, burst = "60s" }
[[provider.key]]
name = "team-b"
limits = { rpm = 50 }
`

// TestPerKeyLimits: the API key names the provider key; its own limit
// binds under the org limit, and other keys are not affected.
func TestPerKeyLimits(t *testing.T) {
	s := start(t, keyed, Options{Speed: 1})
	body := `{"model":"sonnet","max_tokens":2,"messages":[{"role":"user","content":"x"}]}`
	chat := s.URL + "/v1/chat/completions"
	if resp, b := post(t, chat, body, "Authorization", "Bearer team-c"); resp.StatusCode != 401 || !strings.Contains(b, "team-a, team-b") {
		t.Fatalf("unknown key: %d %s", resp.StatusCode, b)
	}
	if resp, b := post(t, chat, body, "Authorization", "Bearer team-a"); resp.StatusCode != 200 {
		t.Fatalf("first request of team-a: %d %s", resp.StatusCode, b)
	}
	resp, b := post(t, chat, body, "Authorization", "Bearer team-a")
	if resp.StatusCode != 429 || !strings.Contains(b, "this API key") || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("second request of team-a: %d %s", resp.StatusCode, b)
	}
	if resp.Header.Get("X-Ratelimit-Limit-Requests") != "1" || resp.Header.Get("X-Ratelimit-Remaining-Requests") != "0" {
		t.Fatalf("headers name the binding key limit: %v", resp.Header)
	}
	if resp, b := post(t, chat, body, "X-Api-Key", "team-b"); resp.StatusCode != 200 {
		t.Fatalf("team-b: %d %s", resp.StatusCode, b)
	}
	m := s.scrape(t)
	if v := m["headroom_limit_refused_total"].sum("scope", "key:team-a", "dimension", "rpm"); v != 1 {
		t.Fatalf("team-a rpm refusals %v, want 1", v)
	}
}

// gatewayed has a gateway whose tenant may hold one stream.
const gatewayed = `
name = "gateway"
duration = "1h"
[[workload]]
name = "chat"
route = "sonnet"
tenant = "support"
tokens = { input = 100, output = 5 }
demand = { rate = 1 }

[[provider]]
name = "sonnet"
latency = { ttft = { base = "0.05s" }, tpot = { base = "20ms" } }

[gateway]
[[gateway.tenant]]
name = "support"
max_streams = 1
`

// TestDisconnectReleasesStream: a client that goes away mid-stream gives
// its gateway stream slot back, so the next client is admitted.
func TestDisconnectReleasesStream(t *testing.T) {
	var log syncBuffer
	s := start(t, gatewayed, Options{Speed: 1, Log: &log})
	chat := s.URL + "/v1/chat/completions"
	body := `{"model":"sonnet","stream":true,"max_tokens":500,"messages":[{"role":"user","content":"x"}]}`
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", chat, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer support")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil { // the stream has begun
		t.Fatal(err)
	}
	short := `{"model":"sonnet","max_tokens":2,"messages":[{"role":"user","content":"x"}]}`
	if r, b := post(t, chat, short, "Authorization", "Bearer support"); r.StatusCode != 429 || !strings.Contains(b, "streams") {
		t.Fatalf("a second stream while one is open: %d %s", r.StatusCode, b)
	}
	cancel()
	resp.Body.Close()
	ok := waitFor(2*time.Second, func() bool {
		r, _ := post(t, chat, short, "Authorization", "Bearer support")
		return r.StatusCode == 200
	})
	if !ok {
		t.Fatal("the stream slot was not released when the client went away")
	}
	m := s.scrape(t)
	if m["headroom_requests_total"].sum("code", "499") != 1 {
		t.Fatalf("the disconnect is not counted: %v", m["headroom_requests_total"].samples)
	}
	if m["headroom_http_in_flight"].sum() != 0 {
		t.Fatal("a handler is still in flight")
	}
	// Its own reason, not a timeout: in the metrics, the log and the results.
	if v := m["headroom_refusals_total"].sum("reason", "client_disconnected"); v != 1 {
		t.Fatalf("refusals by client_disconnected %v, want 1: %v", v, m["headroom_refusals_total"].samples)
	}
	if v := m["headroom_refusals_total"].sum("reason", "timeout"); v != 0 {
		t.Fatalf("a disconnect counted as a timeout in the metrics: %v", v)
	}
	s.ts.Close()
	if !strings.Contains(log.String(), `"status":499`) || !strings.Contains(log.String(), `"reason":"client_disconnected"`) {
		t.Fatalf("the request log does not say the client disconnected:\n%s", log.String())
	}
	res := s.Stop()
	if f := res.Summary.Requests.FailedBy; f["client_disconnected"] != 1 || f["timeout"] != 0 {
		t.Fatalf("results fail the disconnected request as %v, want client_disconnected 1", f)
	}
	if rj := res.Summary.Attempts.Rejected; rj["client_disconnected"] != 1 || rj["timeout"] != 0 {
		t.Fatalf("results count the disconnected attempt as %v", rj)
	}
}

// TestSlowClient: a client that stops reading a long stream is dropped
// after the write timeout; the handler does not hang.
func TestSlowClient(t *testing.T) {
	s := start(t, strings.Replace(hosted, "cache = ", "max_output = 200000\ncache = ", 1), Options{Speed: 1000, WriteTimeout: 300 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetReadBuffer(4096)
	}
	body := `{"model":"sonnet","stream":true,"max_tokens":100000,"messages":[{"role":"user","content":"x"}]}`
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Headroom-Output-Tokens: 100000\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	// Never read. The server's socket buffer fills, a write blocks past
	// its deadline, and the handler gives up.
	time.Sleep(200 * time.Millisecond)
	if !waitFor(20*time.Second, func() bool {
		m := s.scrape(t)
		return m["headroom_requests_total"].sum("code", "499") == 1 && m["headroom_http_in_flight"].sum() == 0
	}) {
		t.Fatalf("the handler of a client that stopped reading is still running: %v %v", s.scrape(t)["headroom_http_in_flight"].samples, s.scrape(t)["headroom_requests_total"].samples)
	}
}

// TestShutdownCutsStreams: Serve's graceful shutdown lets short streams
// finish, cuts the rest with an error event after the grace period, and
// returns whole results.
func TestShutdownCutsStreams(t *testing.T) {
	srv, err := New(configOf(t, hosted), Options{Speed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var offered, inFlight int64
	go func() {
		r, err := srv.Serve(ctx, ln, 300*time.Millisecond)
		if err != nil {
			t.Error(err)
		}
		offered, inFlight = r.Summary.Requests.Offered, r.Summary.Requests.InFlightAtEnd
		close(done)
	}()
	url := "http://" + ln.Addr().String() + "/v1/messages"
	body := `{"model":"sonnet","stream":true,"max_tokens":4000,"messages":[{"role":"user","content":"x"}]}`
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("X-Headroom-Output-Tokens", "4000") // 20 s of tokens at 5 ms
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	time.Sleep(300 * time.Millisecond)
	cancel()
	all, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(all), "event: error") || !strings.Contains(string(all), "shutting down") {
		t.Fatalf("a cut stream did not end with an error event:\n%s", tail(string(all), 300))
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after the grace period")
	}
	if offered != 1 || inFlight != 1 {
		t.Fatalf("results: offered %d, in flight at end %d; want 1 and 1", offered, inFlight)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// slowRoute falls back from a slow hosted API to a GPU pool.
const slowRoute = `
name = "slow route"
duration = "1h"
[[workload]]
name = "chat"
route = "main"
tokens = { input = 50, output = 20 }
demand = { rate = 1 }

[[provider]]
name = "api"
latency = { ttft = { base = "5s" } }

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

// TestDisconnectEndsTheRequest: a client that goes away while a route's
// first target serves it ends the request there: it is not sent on to
// the route's next target (nobody would read the answer) and does not
// cool the target down.
func TestDisconnectEndsTheRequest(t *testing.T) {
	s := start(t, slowRoute, Options{Speed: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	body := `{"model":"main","stream":true,"max_tokens":20,"messages":[{"role":"user","content":"x"}]}`
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+"/v1/chat/completions", strings.NewReader(body))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if !waitFor(2*time.Second, func() bool { return s.scrape(t)["headroom_requests_total"].sum("code", "499") == 1 }) {
		t.Fatal("the disconnect was not seen")
	}
	time.Sleep(100 * time.Millisecond) // the pool would have admitted it within an iteration
	res := s.Stop()
	for _, b := range res.Backends {
		if b.Name == "pool" && b.Attempts != 0 {
			t.Fatalf("the pool got %d attempts after the client left the api", b.Attempts)
		}
	}
	if len(res.Routes) != 1 || res.Routes[0].Fallbacks != 0 {
		t.Fatalf("route results %+v: the disconnected request fell back", res.Routes)
	}
	if f := res.Summary.Requests.FailedBy; f["client_disconnected"] != 1 {
		t.Fatalf("failed by %v, want client_disconnected 1", f)
	}
}
