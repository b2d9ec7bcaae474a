package serve

import (
	"context"
	"errors"
	"net/http"
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

// tight is a provider whose RPM limit binds after two requests.
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
limits = { rpm = 60, burst = "2s" }
latency = { ttft = { base = "0.1s" }, tpot = { base = "1ms" } }
`

// TestSDKRetriesOn429: the SDKs' own retry logic sees the 429, reads the
// Retry-After the bucket computed, waits it and succeeds.
func TestSDKRetriesOn429(t *testing.T) {
	s := start(t, tight, Options{Speed: 4})
	ctx := context.Background()
	oc := openaiClient(s.URL)
	ac := anthropicClient(s.URL)
	for i := 0; i < 2; i++ { // empty the two-request bucket
		if _, err := oc.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "sonnet", MaxTokens: openai.Int(3),
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("x")}}, option.WithMaxRetries(0)); err != nil {
			t.Fatal(err)
		}
	}
	// Without retries, the 429 and its headers reach the caller.
	_, err := oc.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "sonnet", MaxTokens: openai.Int(3),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("x")}}, option.WithMaxRetries(0))
	var oe *openai.Error
	if !errors.As(err, &oe) || oe.StatusCode != 429 || oe.Response.Header.Get("retry-after") == "" || oe.Code != "rate_limit_exceeded" {
		t.Fatalf("want a 429 with Retry-After, got %v", err)
	}
	// With the default retries, the SDK waits and gets through.
	t0 := time.Now()
	if _, err := oc.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "sonnet", MaxTokens: openai.Int(3),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("x")}}); err != nil {
		t.Fatalf("openai-go did not get through by retrying: %v", err)
	}
	wait := time.Since(t0)
	if _, err := ac.Messages.New(ctx, anthropic.MessageNewParams{Model: "sonnet", MaxTokens: 3,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("x"))}}); err != nil {
		t.Fatalf("anthropic-sdk-go did not get through by retrying: %v", err)
	}
	m := s.scrape(t)
	if r := m["headroom_client_retries_total"].sum(); r < 2 {
		t.Fatalf("the server saw %v retries, want at least one per SDK", r)
	}
	if n := m["headroom_requests_total"].sum("code", "429"); n < 3 {
		t.Fatalf("%v 429s, want at least 3", n)
	}
	// A refill of one request takes 1 s, 250 ms of wall time at 4x: the
	// SDK waited for it rather than hammering.
	if wait < 200*time.Millisecond {
		t.Fatalf("openai-go got through after %v, before the bucket refilled", wait)
	}
}
