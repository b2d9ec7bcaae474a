package serve

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// The official Go SDKs against the server on loopback: what they parse is
// what the real APIs send.

func openaiClient(url string, opts ...option.RequestOption) openai.Client {
	return openai.NewClient(append([]option.RequestOption{option.WithBaseURL(url + "/v1"), option.WithAPIKey("test")}, opts...)...)
}

func anthropicClient(url string, opts ...aoption.RequestOption) anthropic.Client {
	return anthropic.NewClient(append([]aoption.RequestOption{aoption.WithBaseURL(url), aoption.WithAPIKey("test")}, opts...)...)
}

func TestOpenAIChatSDK(t *testing.T) {
	s := start(t, hosted, Options{Speed: 10})
	c := openaiClient(s.URL)
	ctx := context.Background()
	params := openai.ChatCompletionNewParams{Model: "sonnet", MaxTokens: openai.Int(12),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("be brief"), openai.UserMessage("hello")}}
	var raw *http.Response
	resp, err := c.Chat.Completions.New(ctx, params, option.WithResponseInto(&raw))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].FinishReason != "length" || resp.Usage.CompletionTokens != 12 || textTokens(resp.Choices[0].Message.Content) != 12 {
		t.Fatalf("answer %+v usage %+v", resp.Choices[0], resp.Usage)
	}
	if resp.Usage.PromptTokens < 5 || raw.Header.Get("x-ratelimit-limit-requests") != "1000" || raw.Header.Get("x-ratelimit-remaining-requests") != "999" {
		t.Fatalf("usage %+v, headers %v", resp.Usage, raw.Header)
	}
	// The same prompt, the same answer.
	again, err := c.Chat.Completions.New(ctx, params)
	if err != nil || again.Choices[0].Message.Content != resp.Choices[0].Message.Content {
		t.Fatalf("not deterministic: %q vs %q (%v)", again.Choices[0].Message.Content, resp.Choices[0].Message.Content, err)
	}

	// Streaming, with usage, accumulated by the SDK.
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	params.MaxTokens = openai.Int(30)
	t0 := time.Now()
	stream := c.Chat.Completions.NewStreaming(ctx, params)
	acc := openai.ChatCompletionAccumulator{}
	chunks := 0
	var first time.Duration
	for stream.Next() {
		ch := stream.Current()
		acc.AddChunk(ch)
		if len(ch.Choices) > 0 && ch.Choices[0].Delta.Content != "" {
			if chunks == 0 {
				first = time.Since(t0)
			}
			chunks++
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if chunks != 30 || acc.Usage.CompletionTokens != 30 || textTokens(acc.Choices[0].Message.Content) != 30 {
		t.Fatalf("%d content chunks, usage %+v, text %q", chunks, acc.Usage, acc.Choices[0].Message.Content)
	}
	// TTFT 0.2 s at 10x is 20 ms of wall time; the stream is 0.2 + 29 x 5 ms.
	if first < 15*time.Millisecond || time.Since(t0) < 30*time.Millisecond {
		t.Fatalf("first token after %v, stream took %v: faster than modelled", first, time.Since(t0))
	}

	// A stop sequence cuts the answer.
	params.Stop = openai.ChatCompletionNewParamsStopUnion{OfString: openai.String("\n")}
	params.MaxTokens = openai.Int(40)
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{}
	cut, err := c.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(cut.Choices[0].Message.Content, "\n") || cut.Choices[0].FinishReason != "stop" || cut.Usage.CompletionTokens >= 40 {
		t.Fatalf("stop not honoured: %+v", cut.Choices[0])
	}
}

func TestOpenAIResponsesSDK(t *testing.T) {
	s := start(t, hosted, Options{Speed: 10})
	c := openaiClient(s.URL)
	ctx := context.Background()
	params := responses.ResponseNewParams{Model: "sonnet", Instructions: openai.String("be brief"), MaxOutputTokens: openai.Int(20),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hello")}}
	r, err := c.Responses.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if r.OutputText() == "" || r.Usage.OutputTokens != 20 || r.Status != "incomplete" || r.IncompleteDetails.Reason != "max_output_tokens" {
		t.Fatalf("response %+v", r)
	}
	stream := c.Responses.NewStreaming(ctx, params)
	var text strings.Builder
	var done responses.Response
	kinds := map[string]int{}
	for stream.Next() {
		ev := stream.Current()
		kinds[ev.Type]++
		switch ev.Type {
		case "response.output_text.delta":
			text.WriteString(ev.Delta)
		case "response.completed", "response.incomplete":
			done = ev.Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
		"response.output_text.done", "response.content_part.done", "response.output_item.done"} {
		if kinds[k] != 1 {
			t.Errorf("event %s seen %d times, want once", k, kinds[k])
		}
	}
	if kinds["response.output_text.delta"] != 20 || text.String() != r.OutputText() || done.Usage.OutputTokens != 20 {
		t.Fatalf("streamed %q (%v), want %q", text.String(), kinds, r.OutputText())
	}
}

func TestAnthropicSDK(t *testing.T) {
	s := start(t, hosted, Options{Speed: 10})
	c := anthropicClient(s.URL)
	ctx := context.Background()
	system := strings.Repeat("You answer questions about the quarterly plan. ", 20) // ~240 tokens, over min_tokens
	params := anthropic.MessageNewParams{Model: "sonnet", MaxTokens: 16,
		System:   []anthropic.TextBlockParam{{Text: system, CacheControl: anthropic.NewCacheControlEphemeralParam()}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("what is the plan?"))}}
	var raw *http.Response
	m, err := c.Messages.New(ctx, params, aoption.WithResponseInto(&raw))
	if err != nil {
		t.Fatal(err)
	}
	if m.StopReason != "max_tokens" || m.Usage.OutputTokens != 16 || m.Usage.CacheCreationInputTokens < 200 || m.Usage.CacheReadInputTokens != 0 {
		t.Fatalf("message %+v usage %+v", m.Content, m.Usage)
	}
	if raw.Header.Get("anthropic-ratelimit-requests-limit") != "1000" || raw.Header.Get("anthropic-ratelimit-input-tokens-limit") != "1000000" ||
		raw.Header.Get("request-id") == "" {
		t.Fatalf("headers %v", raw.Header)
	}
	if _, err := time.Parse(time.RFC3339, raw.Header.Get("anthropic-ratelimit-requests-reset")); err != nil {
		t.Fatalf("reset header: %v", err)
	}
	// The second call reads the prefix the first wrote, streamed.
	stream := c.Messages.NewStreaming(ctx, params)
	acc := anthropic.Message{}
	deltas := 0
	for stream.Next() {
		ev := stream.Current()
		if err := acc.Accumulate(ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type == "content_block_delta" {
			deltas++
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if deltas != 16 || acc.Usage.CacheReadInputTokens != m.Usage.CacheCreationInputTokens || acc.Usage.CacheCreationInputTokens != 0 ||
		acc.Content[0].Text != m.Content[0].Text || acc.StopReason != "max_tokens" {
		t.Fatalf("streamed %d deltas, usage %+v, text %q vs %q", deltas, acc.Usage, acc.Content[0].Text, m.Content[0].Text)
	}
	// An unknown model is the SDK's NotFound error.
	params.Model = "opus"
	_, err = c.Messages.New(ctx, params)
	var ae *anthropic.Error
	if !errors.As(err, &ae) || ae.StatusCode != 404 {
		t.Fatalf("unknown model: %v", err)
	}
}

// tight is a provider whose RPM bucket holds two requests and refills one
// every 2 s: 0.5 s of wall time at 4x, so that a stall of the machine
// shorter than that leaves an emptied bucket empty.
const tight = `
name = "tight"
duration = "1h"
[[workload]]
name = "chat"
route = "sonnet"
tokens = { input = 100, output = 5 }
demand = { rate = 1 }

[[provider]]
name = "sonnet"
limits = { rpm = 30, burst = "4s" }
latency = { ttft = { base = "0.1s" }, tpot = { base = "1ms" } }
`

// sent is one HTTP attempt an SDK made, seen by its middleware.
type sent struct {
	out, back  time.Time // sent, and its answer's headers back
	status     int
	retryAfter time.Duration // retry-after-ms, else retry-after
	retryCount string        // x-stainless-retry-count
}

// attempts is an SDK middleware that keeps every attempt.
type attempts struct{ list []sent }

func (a *attempts) middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	s := sent{out: time.Now(), retryCount: req.Header.Get("X-Stainless-Retry-Count")}
	resp, err := next(req)
	s.back = time.Now()
	if resp != nil {
		s.status = resp.StatusCode
		if ms, err := strconv.ParseFloat(resp.Header.Get("Retry-After-Ms"), 64); err == nil {
			s.retryAfter = time.Duration(ms * float64(time.Millisecond))
		} else if sec, err := strconv.ParseFloat(resp.Header.Get("Retry-After"), 64); err == nil {
			s.retryAfter = time.Duration(sec * float64(time.Second))
		}
	}
	a.list = append(a.list, s)
	return resp, err
}

// TestSDKRetriesOn429: the SDKs' own retry logic sees the 429, reads the
// Retry-After the bucket computed, waits it and succeeds.
func TestSDKRetriesOn429(t *testing.T) {
	s := start(t, tight, Options{Speed: 4})
	ctx := context.Background()
	oc := openaiClient(s.URL)
	ac := anthropicClient(s.URL)
	chat := openai.ChatCompletionNewParams{Model: "sonnet", MaxTokens: openai.Int(3),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("x")}}
	// empty sends requests without retries until one is refused (the
	// bucket holds two) and returns the refusal.
	empty := func() *openai.Error {
		t.Helper()
		for i := 0; i < 6; i++ {
			_, err := oc.Chat.Completions.New(ctx, chat, option.WithMaxRetries(0))
			var oe *openai.Error
			if errors.As(err, &oe) {
				return oe
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		t.Fatal("six requests in a row got through a bucket of two")
		return nil
	}
	// Without retries, the 429 and its headers reach the caller.
	if oe := empty(); oe.StatusCode != 429 || oe.Response.Header.Get("retry-after") == "" || oe.Code != "rate_limit_exceeded" {
		t.Fatalf("want a 429 with Retry-After, got %v", oe)
	}
	// With the default retries, each SDK called on an empty bucket is
	// refused, waits the Retry-After and gets through.
	for _, c := range []struct {
		sdk  string
		call func(mw func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error)) error
	}{
		{"openai-go", func(mw func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error)) error {
			_, err := oc.Chat.Completions.New(ctx, chat, option.WithMiddleware(mw))
			return err
		}},
		{"anthropic-sdk-go", func(mw func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error)) error {
			_, err := ac.Messages.New(ctx, anthropic.MessageNewParams{Model: "sonnet", MaxTokens: 3,
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("x"))}}, aoption.WithMiddleware(mw))
			return err
		}},
	} {
		var a attempts
		for try := 1; ; try++ {
			empty()
			emptied := time.Now()
			a = attempts{}
			if err := c.call(a.middleware); err != nil {
				t.Fatalf("%s did not get through by retrying: %v", c.sdk, err)
			}
			if a.list[0].status == 429 {
				break
			}
			// The bucket refilled between emptying it and the call: the
			// machine stalled for a second.
			if try == 3 {
				t.Fatalf("%s: three times the emptied bucket refilled before the next request reached it (sent %v after the refusal)", c.sdk, a.list[0].out.Sub(emptied))
			}
			t.Logf("%s: the emptied bucket refilled before the call reached it (sent %v after the refusal: the machine stalled); again", c.sdk, a.list[0].out.Sub(emptied))
		}
		last := a.list[len(a.list)-1]
		if len(a.list) < 2 || last.status != 200 || last.retryCount != strconv.Itoa(len(a.list)-1) {
			t.Fatalf("%s: attempts %+v: want 429s, then a 200 marked as a retry", c.sdk, a.list)
		}
		for i, r := range a.list[:len(a.list)-1] {
			if r.status != 429 || r.retryAfter <= 0 || r.retryAfter > 501*time.Millisecond {
				t.Fatalf("%s: attempt %d: %d with Retry-After %v; want a 429 with at most the 0.5 s a refill takes", c.sdk, i+1, r.status, r.retryAfter)
			}
			if wait := a.list[i+1].out.Sub(r.back); wait < r.retryAfter {
				t.Fatalf("%s: retried %v after a 429 whose Retry-After was %v", c.sdk, wait, r.retryAfter)
			}
		}
		t.Logf("%s: %d attempts, waited %v for a Retry-After of %v", c.sdk, len(a.list), a.list[1].out.Sub(a.list[0].back), a.list[0].retryAfter)
	}
	if r := s.scrape(t)["headroom_client_retries_total"].sum(); r < 2 {
		t.Fatalf("the server saw %v retries, want at least one per SDK", r)
	}
}
