package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// batchTier is a provider with a tight RPM, a batch lane whose turnaround
// is 60 s (0.06 s of wall time at 1000x) and half-price batches.
const batchTier = `
name = "batch test"
duration = "2h"
[[workload]]
name = "chat"
route = "sonnet"
tokens = { input = 1000, output = { dist = "fixed", value = 40 } }
demand = { rate = 1 }

[[provider]]
name = "sonnet"
model = "claude-sonnet-4"
limits = { rpm = 1 }
latency = { ttft = { base = "0.2s" }, tpot = { base = "5ms" } }
price = { input = 3, output = 15, batch_discount = 0.5 }
batch = { turnaround = "60s" }
`

// TestOpenAIBatchSDK: openai-go uploads a JSONL file, creates a batch on
// it, polls until it completes and reads the output file; the batch lane
// ignores the 1-RPM limit and answers each request after the turnaround.
func TestOpenAIBatchSDK(t *testing.T) {
	s := start(t, batchTier, Options{Speed: 1000})
	c := openaiClient(s.URL)
	ctx := context.Background()
	var lines strings.Builder
	for i := 0; i < 5; i++ {
		fmt.Fprintf(&lines, `{"custom_id": "req-%d", "method": "POST", "url": "/v1/chat/completions", "body": {"model": "sonnet", "max_tokens": 8, "messages": [{"role": "user", "content": "question %d"}]}}`+"\n", i, i)
	}
	f, err := c.Files.New(ctx, openai.FileNewParams{File: openai.File(strings.NewReader(lines.String()), "in.jsonl", "application/jsonl"), Purpose: openai.FilePurposeBatch})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Batches.New(ctx, openai.BatchNewParams{InputFileID: f.ID, Endpoint: openai.BatchNewParamsEndpointV1ChatCompletions, CompletionWindow: openai.BatchNewParamsCompletionWindow24h})
	if err != nil {
		t.Fatal(errMsg(err))
	}
	if b.Status != openai.BatchStatusInProgress || b.RequestCounts.Total != 5 {
		t.Fatalf("new batch %+v", b)
	}
	if !waitFor(5*time.Second, func() bool {
		b, err = c.Batches.Get(ctx, b.ID)
		return err == nil && b.Status == openai.BatchStatusCompleted
	}) {
		t.Fatalf("batch not completed: %+v, %v", b, err)
	}
	if b.RequestCounts.Completed != 5 || b.OutputFileID == "" || b.ErrorFileID != "" {
		t.Fatalf("completed batch %+v", b)
	}
	resp, err := c.Files.Content(ctx, b.OutputFileID)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	n := 0
	for sc.Scan() {
		var line struct {
			CustomID string `json:"custom_id"`
			Response struct {
				StatusCode int                   `json:"status_code"`
				Body       openai.ChatCompletion `json:"body"`
			} `json:"response"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line.Response.StatusCode != 200 || line.Response.Body.Usage.CompletionTokens != 8 || textTokens(line.Response.Body.Choices[0].Message.Content) != 8 {
			t.Fatalf("output line %s", sc.Text())
		}
		n++
	}
	if n != 5 {
		t.Fatalf("%d output lines, want 5", n)
	}
	// The batch lane is in the results: five requests at half price, none
	// refused by the 1-RPM limit.
	res := s.Stop()
	if res.Summary.Requests.Completed != 5 || len(res.Summary.Attempts.Rejected) != 0 {
		t.Fatalf("results %+v, rejected %v", res.Summary.Requests, res.Summary.Attempts.Rejected)
	}
	if want := 0.5 * 5 * (float64(res.Summary.Tokens.Input)/5*3 + 8*15) / 1e6; math.Abs(res.Summary.Cost.Total-want) > 1e-9 {
		t.Errorf("cost %v, want %v (half price)", res.Summary.Cost.Total, want)
	}
}

// TestOpenAIBatchErrors: a malformed line is refused when the batch is
// created, naming the file's line; so is a line for a cluster.
func TestOpenAIBatchErrors(t *testing.T) {
	s := start(t, batchTier, Options{Speed: 1000})
	c := openaiClient(s.URL)
	ctx := context.Background()
	for _, tc := range []struct{ file, want string }{
		{"{\"custom_id\": \"a\", \"method\": \"POST\", \"url\": \"/v1/chat/completions\", \"body\": {\"model\": \"sonnet\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}}\n{\"custom_id\": \"a\"}\n", "bad.jsonl line 2: want a unique custom_id, method POST"},
		{"{\"custom_id\": \"a\", \"method\": \"POST\", \"url\": \"/v1/chat/completions\", \"body\": {\"model\": \"nope\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}}\n", "bad.jsonl line 1: The model `nope` does not exist"},
	} {
		f, err := c.Files.New(ctx, openai.FileNewParams{File: openai.File(strings.NewReader(tc.file), "bad.jsonl", "application/jsonl"), Purpose: openai.FilePurposeBatch})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Batches.New(ctx, openai.BatchNewParams{InputFileID: f.ID, Endpoint: openai.BatchNewParamsEndpointV1ChatCompletions, CompletionWindow: openai.BatchNewParamsCompletionWindow24h})
		if err == nil || !strings.Contains(errMsg(err), tc.want) {
			t.Errorf("batch on %q: %v, want %q", tc.file, errMsg(err), tc.want)
		}
	}
}

// TestAnthropicBatchSDK: anthropic-sdk-go creates a message batch, polls
// until it ends and streams its results; a cancelled batch's pending
// requests come back canceled.
func TestAnthropicBatchSDK(t *testing.T) {
	s := start(t, batchTier, Options{Speed: 1000})
	c := anthropicClient(s.URL)
	ctx := context.Background()
	params := anthropic.MessageBatchNewParams{}
	for i := 0; i < 3; i++ {
		params.Requests = append(params.Requests, anthropic.MessageBatchNewParamsRequest{CustomID: fmt.Sprintf("q%d", i),
			Params: anthropic.MessageBatchNewParamsRequestParams{Model: "sonnet", MaxTokens: 6,
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(fmt.Sprintf("question %d", i)))}}})
	}
	b, err := c.Messages.Batches.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if b.ProcessingStatus != anthropic.MessageBatchProcessingStatusInProgress || b.RequestCounts.Processing != 3 {
		t.Fatalf("new batch %+v", b)
	}
	if !waitFor(5*time.Second, func() bool {
		b, err = c.Messages.Batches.Get(ctx, b.ID, anthropic.MessageBatchGetParams{})
		return err == nil && b.ProcessingStatus == anthropic.MessageBatchProcessingStatusEnded
	}) {
		t.Fatalf("batch not ended: %+v, %v", b, err)
	}
	if b.RequestCounts.Succeeded != 3 || b.ResultsURL == "" {
		t.Fatalf("ended batch %+v", b)
	}
	st := c.Messages.Batches.ResultsStreaming(ctx, b.ID, anthropic.MessageBatchResultsParams{})
	n := 0
	for st.Next() {
		r := st.Current()
		if r.Result.Type != "succeeded" || r.Result.Message.Usage.OutputTokens != 6 || r.Result.Message.StopReason != "max_tokens" {
			t.Fatalf("result %+v", r)
		}
		n++
	}
	if err := st.Err(); err != nil || n != 3 {
		t.Fatalf("%d results, %v", n, err)
	}
	// Cancelled before the turnaround: its requests are canceled.
	s2 := start(t, strings.Replace(batchTier, `"60s"`, `"1h"`, 1), Options{Speed: 100})
	c2 := anthropicClient(s2.URL)
	b, err = c2.Messages.Batches.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	b, err = c2.Messages.Batches.Cancel(ctx, b.ID, anthropic.MessageBatchCancelParams{})
	if err != nil || b.ProcessingStatus != anthropic.MessageBatchProcessingStatusEnded || b.RequestCounts.Canceled != 3 {
		t.Fatalf("cancelled batch %+v, %v", b, err)
	}
	// Only a provider has a batch lane; an unknown model is refused.
	bad := params
	bad.Requests = []anthropic.MessageBatchNewParamsRequest{params.Requests[0]}
	bad.Requests[0].Params.Model = "nope"
	if _, err := c.Messages.Batches.New(ctx, bad); err == nil || !strings.Contains(errMsg(err), "does not exist") {
		t.Errorf("unknown model: %v", errMsg(err))
	}
}

// TestPriorityAndResponseCacheLive: behind a gateway with a response
// cache, a repeated request is answered from the cache; a request marked
// x-headroom-priority: batch waits behind interactive ones in the fair
// queue; an unknown priority is a 400.
func TestPriorityAndResponseCacheLive(t *testing.T) {
	scen := hosted + `
[gateway]
cache = { ttl = "10m" }
  [gateway.queue]
  max_in_flight = 1
  [[gateway.tenant]]
  name = "team"
`
	scen = strings.Replace(scen, `route = "sonnet"`, "route = \"sonnet\"\ntenant = \"team\"", 1)
	var log syncBuffer
	s := start(t, scen, Options{Speed: 10, Log: &log})
	c := openaiClient(s.URL, option.WithAPIKey("team"))
	ctx := context.Background()
	params := openai.ChatCompletionNewParams{Model: "sonnet", MaxTokens: openai.Int(5),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("the same question")}}
	var raw *http.Response
	first, err := c.Chat.Completions.New(ctx, params, option.WithResponseInto(&raw))
	if err != nil || raw.Header.Get("X-Headroom-Cache") != "" {
		t.Fatalf("first: %v, cache header %q", err, raw.Header.Get("X-Headroom-Cache"))
	}
	again, err := c.Chat.Completions.New(ctx, params, option.WithResponseInto(&raw))
	if err != nil || raw.Header.Get("X-Headroom-Cache") != "hit" || again.Choices[0].Message.Content != first.Choices[0].Message.Content {
		t.Fatalf("repeat: %v, cache header %q, %q vs %q", err, raw.Header.Get("X-Headroom-Cache"), again.Choices[0].Message.Content, first.Choices[0].Message.Content)
	}
	other := params
	other.MaxTokens = openai.Int(6)
	if _, err := c.Chat.Completions.New(ctx, other, option.WithResponseInto(&raw)); err != nil || raw.Header.Get("X-Headroom-Cache") != "" {
		t.Fatalf("other parameters hit the cache: %v %q", err, raw.Header.Get("X-Headroom-Cache"))
	}
	if _, err := c.Chat.Completions.New(ctx, params, option.WithHeader("X-Headroom-Priority", "urgent")); err == nil || !strings.Contains(errMsg(err), "x-headroom-priority") {
		t.Fatalf("unknown priority: %v", errMsg(err))
	}
	res := s.Stop()
	if res.Gateway == nil || res.Gateway.Cache == nil || res.Gateway.Cache.Hits != 1 {
		t.Fatalf("gateway results %+v", res.Gateway)
	}
	// The hit was answered after the cache's 20 ms, not the provider's
	// 0.2 s + 4 x 5 ms (simulated: the request log's durations).
	s.ts.Close()
	var hit, miss float64
	sc := bufio.NewScanner(bytes.NewReader(log.b.Bytes()))
	for sc.Scan() {
		var l struct {
			E2E float64 `json:"e2e_sim_s"`
			Hit bool    `json:"response_cache_hit"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if l.Hit {
			hit = l.E2E
		} else if miss == 0 {
			miss = l.E2E
		}
	}
	if math.Abs(hit-0.02) > 1e-9 || math.Abs(miss-0.22) > 1e-9 {
		t.Errorf("a cache hit took %v s simulated, the first request %v s; want 0.02 and 0.22", hit, miss)
	}
}

// errMsg is an SDK error's message as the server wrote it.
func errMsg(err error) string {
	var oe *openai.Error
	if errors.As(err, &oe) {
		return oe.Message
	}
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		return ae.RawJSON()
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

// FuzzBatchInput: whatever a batch input file or a message batch holds,
// creating the batch answers 200 or a 4xx with the API's error body, never
// a crash.
func FuzzBatchInput(f *testing.F) {
	f.Add([]byte(`{"custom_id": "a", "method": "POST", "url": "/v1/chat/completions", "body": {"model": "sonnet", "max_tokens": 3, "messages": [{"role": "user", "content": "x"}]}}`), false)
	f.Add([]byte(`{"requests": [{"custom_id": "a", "params": {"model": "sonnet", "max_tokens": 3, "messages": [{"role": "user", "content": "x"}]}}]}`), true)
	f.Add([]byte("{\"custom_id\": \"a\"}\n\n{"), false)
	srv, err := New(configOf(f, batchTier), Options{Speed: 1e6})
	if err != nil {
		f.Fatal(err)
	}
	srv.Start()
	f.Cleanup(func() { srv.Stop() })
	f.Fuzz(func(t *testing.T, data []byte, anthropicShape bool) {
		var req *http.Request
		if anthropicShape {
			req = httptest.NewRequest("POST", "/v1/messages/batches", bytes.NewReader(data))
		} else {
			bs := srv.batches
			bs.mu.Lock()
			id := srv.newID("file-")
			bs.files[id] = &storedFile{id: id, name: "in.jsonl", purpose: "batch", data: data}
			bs.mu.Unlock()
			body := fmt.Sprintf(`{"input_file_id": %q, "endpoint": "/v1/chat/completions", "completion_window": "24h"}`, id)
			req = httptest.NewRequest("POST", "/v1/batches", strings.NewReader(body))
		}
		w := httptest.NewRecorder()
		srv.Handler().ServeHTTP(w, req)
		if w.Code != 200 && (w.Code < 400 || w.Code > 499) {
			t.Fatalf("status %d: %s", w.Code, w.Body.String())
		}
		if !json.Valid(w.Body.Bytes()) {
			t.Fatalf("not JSON: %q", w.Body.String())
		}
	})
}

// TestBatchCarriesCacheKeys: a batch request carries its prompt's
// cacheable prefix and its content as a single request does. Behind a
// gateway's response cache, a second batch repeating the first's
// requests is answered from the cache (each of its three); requests that
// share a system prompt but differ in question do not hit it.
func TestBatchCarriesCacheKeys(t *testing.T) {
	scen := batchTier + `
[gateway]
cache = { ttl = "10m" }
  [[gateway.tenant]]
  name = "team"
`
	scen = strings.Replace(scen, `route = "sonnet"`, "route = \"sonnet\"\ntenant = \"team\"", 1)
	s := start(t, scen, Options{Speed: 1000})
	c := anthropicClient(s.URL, aoption.WithAPIKey("team"))
	ctx := context.Background()
	system := strings.Repeat("You answer questions about the quarterly plan. ", 20)
	batchOf := func(questions ...string) anthropic.MessageBatchNewParams {
		var params anthropic.MessageBatchNewParams
		for i, q := range questions {
			params.Requests = append(params.Requests, anthropic.MessageBatchNewParamsRequest{CustomID: fmt.Sprintf("q%d", i),
				Params: anthropic.MessageBatchNewParamsRequestParams{Model: "sonnet", MaxTokens: 6,
					System:   []anthropic.TextBlockParam{{Text: system, CacheControl: anthropic.NewCacheControlEphemeralParam()}},
					Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(q))}}})
		}
		return params
	}
	run := func(params anthropic.MessageBatchNewParams) {
		t.Helper()
		b, err := c.Messages.Batches.New(ctx, params)
		if err != nil {
			t.Fatal(errMsg(err))
		}
		if !waitFor(5*time.Second, func() bool {
			b, err = c.Messages.Batches.Get(ctx, b.ID, anthropic.MessageBatchGetParams{})
			return err == nil && b.ProcessingStatus == anthropic.MessageBatchProcessingStatusEnded
		}) || b.RequestCounts.Succeeded != int64(len(params.Requests)) {
			t.Fatalf("batch %+v, %v", b, err)
		}
	}
	run(batchOf("first", "second", "third"))
	run(batchOf("first", "second", "third"))
	run(batchOf("fourth", "fifth"))
	res := s.Stop()
	if res.Gateway == nil || res.Gateway.Cache == nil || res.Gateway.Cache.Hits != 3 {
		t.Fatalf("gateway results %+v, want 3 response-cache hits", res.Gateway)
	}
	if res.Summary.Requests.Completed != 8 {
		t.Fatalf("requests %+v, want 8 completed", res.Summary.Requests)
	}
}
