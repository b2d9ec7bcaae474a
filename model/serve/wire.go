package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/headroom-sim/headroom/model"
)

// answer is what the simulated model says, before it is dressed in an
// API's shape.
type answer struct {
	id           string
	model        string
	created      int64
	text         string
	tokens       int
	finish       string // stop, length or stop_sequence
	stopSeq      string
	instructions string
	maxTokens    int
}

// tokenText is the i-th streamed token of the answer (four bytes, the
// last possibly shorter).
func (a *answer) tokenText(i int) string {
	lo := i * bytesPerToken
	if lo >= len(a.text) {
		return ""
	}
	hi := lo + bytesPerToken
	if i == a.tokens-1 || hi > len(a.text) {
		hi = len(a.text)
	}
	return a.text[lo:hi]
}

// sse writes server-sent events to a client, each flush bounded by a
// write deadline so that a client that stops reading cannot hold the
// handler forever.
type sse struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	err     error
	buf     []byte
}

func (s *sse) event(name string, v any) {
	if s.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		s.err = err
		return
	}
	if name != "" {
		_, s.err = s.w.Write([]byte("event: " + name + "\n"))
	}
	if s.err == nil {
		_, s.err = s.w.Write(append(append([]byte("data: "), b...), '\n', '\n'))
	}
}

// template is an event rendered once around a placeholder, so that a
// token's event costs an append, not a JSON encoding of the whole event.
type template struct {
	name      string
	pre, post []byte
}

const placeholder = `\u0000token\u0000`

// newTemplate renders v, whose one string field holds placeholderValue.
func newTemplate(name string, v any) *template {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	i := bytes.Index(b, []byte(placeholder))
	if i < 0 {
		return nil
	}
	return &template{name: name, pre: b[:i-1], post: b[i+len(placeholder)+1:]}
}

const placeholderValue = "\x00token\x00"

// fill writes the template's event with text in place of the placeholder.
func (s *sse) fill(t *template, text string) {
	if s.err != nil {
		return
	}
	buf := s.buf[:0]
	if t.name != "" {
		buf = append(append(append(buf, "event: "...), t.name...), '\n')
	}
	buf = append(append(buf, "data: "...), t.pre...)
	buf = appendJSONString(buf, text)
	buf = append(append(buf, t.post...), '\n', '\n')
	s.buf = buf
	_, s.err = s.w.Write(buf)
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

func (s *sse) raw(line string) {
	if s.err == nil {
		_, s.err = s.w.Write([]byte(line))
	}
}

func (s *sse) flush() error {
	if s.err != nil {
		return s.err
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	s.err = s.rc.Flush()
	return s.err
}

// shape is one API's wire format.
type shape interface {
	// body is the JSON of a non-streamed answer.
	body(a *answer, u *model.LiveUsage) any
	// begin, delta and end write a streamed answer.
	begin(s *sse, a *answer, st *model.LiveStart, input int)
	delta(s *sse, a *answer, text string)
	end(s *sse, a *answer, u *model.LiveUsage)
	// errorBody is the JSON of an error response; streamError writes an
	// error inside a stream that has begun.
	errorBody(status int, kind, code, param, msg, requestID string) any
	streamError(s *sse, a *answer, kind, code, msg string)
}

func shapeOf(api API, includeUsage bool) shape {
	switch api {
	case APIChat:
		return &chatShape{includeUsage: includeUsage}
	case APIResponses:
		return &responsesShape{}
	}
	return &messagesShape{}
}

// OpenAI Chat Completions.

type chatShape struct {
	includeUsage bool
	tmpl         *template
}

type chatUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
		AudioTokens  int `json:"audio_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
		AudioTokens     int `json:"audio_tokens"`
	} `json:"completion_tokens_details"`
}

func chatUsageOf(u *model.LiveUsage) *chatUsage {
	c := &chatUsage{PromptTokens: u.Input, CompletionTokens: u.Output, TotalTokens: u.Input + u.Output}
	c.PromptTokensDetails.CachedTokens = u.CacheRead
	return c
}

func chatFinish(a *answer) string {
	if a.finish == "length" {
		return "length"
	}
	return "stop"
}

func (c *chatShape) body(a *answer, u *model.LiveUsage) any {
	return map[string]any{
		"id": a.id, "object": "chat.completion", "created": a.created, "model": a.model,
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": a.text, "refusal": nil},
			"logprobs": nil, "finish_reason": chatFinish(a)}},
		"usage": chatUsageOf(u), "service_tier": "default", "system_fingerprint": nil,
	}
}

func (c *chatShape) chunk(a *answer, delta map[string]any, finish any) map[string]any {
	m := map[string]any{"id": a.id, "object": "chat.completion.chunk", "created": a.created, "model": a.model,
		"system_fingerprint": nil, "service_tier": "default",
		"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}}
	if c.includeUsage {
		m["usage"] = nil
	}
	return m
}

func (c *chatShape) begin(s *sse, a *answer, _ *model.LiveStart, _ int) {
	s.event("", c.chunk(a, map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil))
}

func (c *chatShape) delta(s *sse, a *answer, text string) {
	if c.tmpl == nil {
		c.tmpl = newTemplate("", c.chunk(a, map[string]any{"content": placeholderValue}, nil))
	}
	s.fill(c.tmpl, text)
}

func (c *chatShape) end(s *sse, a *answer, u *model.LiveUsage) {
	s.event("", c.chunk(a, map[string]any{}, chatFinish(a)))
	if c.includeUsage {
		s.event("", map[string]any{"id": a.id, "object": "chat.completion.chunk", "created": a.created, "model": a.model,
			"system_fingerprint": nil, "service_tier": "default", "choices": []any{}, "usage": chatUsageOf(u)})
	}
	s.raw("data: [DONE]\n\n")
}

func openAIError(kind, code, param, msg string) any {
	e := map[string]any{"message": msg, "type": kind, "param": nil, "code": nil}
	if code != "" {
		e["code"] = code
	}
	if param != "" {
		e["param"] = param
	}
	return map[string]any{"error": e}
}

func (c *chatShape) errorBody(_ int, kind, code, param, msg, _ string) any {
	return openAIError(kind, code, param, msg)
}

func (c *chatShape) streamError(s *sse, _ *answer, kind, code, msg string) {
	s.event("", openAIError(kind, code, "", msg))
}

// OpenAI Responses.

type responsesShape struct {
	seq int
}

func (r *responsesShape) usage(u *model.LiveUsage) any {
	if u == nil {
		return nil
	}
	return map[string]any{"input_tokens": u.Input, "input_tokens_details": map[string]any{"cached_tokens": u.CacheRead},
		"output_tokens": u.Output, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": u.Input + u.Output}
}

func (r *responsesShape) part(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}, "logprobs": []any{}}
}

func (r *responsesShape) item(a *answer, status string, content []any) map[string]any {
	return map[string]any{"type": "message", "id": "msg_" + a.id[5:], "status": status, "role": "assistant", "content": content}
}

func (r *responsesShape) response(a *answer, status string, output []any, u *model.LiveUsage) map[string]any {
	m := map[string]any{"id": a.id, "object": "response", "created_at": a.created, "status": status, "model": a.model,
		"output": output, "usage": r.usage(u), "error": nil, "incomplete_details": nil, "instructions": nil,
		"max_output_tokens": nil, "parallel_tool_calls": true, "previous_response_id": nil, "temperature": 1.0, "top_p": 1.0,
		"tool_choice": "auto", "tools": []any{}, "text": map[string]any{"format": map[string]any{"type": "text"}},
		"truncation": "disabled", "metadata": map[string]any{}, "store": false, "background": false}
	if a.instructions != "" {
		m["instructions"] = a.instructions
	}
	if a.maxTokens > 0 {
		m["max_output_tokens"] = a.maxTokens
	}
	if status == "completed" && a.finish == "length" {
		m["status"] = "incomplete"
		m["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
	}
	return m
}

func (r *responsesShape) body(a *answer, u *model.LiveUsage) any {
	return r.response(a, "completed", []any{r.item(a, "completed", []any{r.part(a.text)})}, u)
}

func (r *responsesShape) ev(s *sse, typ string, m map[string]any) {
	m["type"] = typ
	m["sequence_number"] = r.seq
	r.seq++
	s.event(typ, m)
}

func (r *responsesShape) begin(s *sse, a *answer, _ *model.LiveStart, _ int) {
	r.ev(s, "response.created", map[string]any{"response": r.response(a, "in_progress", []any{}, nil)})
	r.ev(s, "response.in_progress", map[string]any{"response": r.response(a, "in_progress", []any{}, nil)})
	r.ev(s, "response.output_item.added", map[string]any{"output_index": 0, "item": r.item(a, "in_progress", []any{})})
	r.ev(s, "response.content_part.added", map[string]any{"item_id": "msg_" + a.id[5:], "output_index": 0, "content_index": 0, "part": r.part("")})
}

// responsesDelta is a text delta event (a struct: it is the hot path).
type responsesDelta struct {
	Type           string `json:"type"`
	SequenceNumber int    `json:"sequence_number"`
	ItemID         string `json:"item_id"`
	OutputIndex    int    `json:"output_index"`
	ContentIndex   int    `json:"content_index"`
	Delta          string `json:"delta"`
	Logprobs       []any  `json:"logprobs"`
}

func (r *responsesShape) delta(s *sse, a *answer, text string) {
	s.event("response.output_text.delta", &responsesDelta{Type: "response.output_text.delta", SequenceNumber: r.seq,
		ItemID: "msg_" + a.id[5:], Delta: text, Logprobs: []any{}})
	r.seq++
}

func (r *responsesShape) end(s *sse, a *answer, u *model.LiveUsage) {
	id := "msg_" + a.id[5:]
	r.ev(s, "response.output_text.done", map[string]any{"item_id": id, "output_index": 0, "content_index": 0, "text": a.text, "logprobs": []any{}})
	r.ev(s, "response.content_part.done", map[string]any{"item_id": id, "output_index": 0, "content_index": 0, "part": r.part(a.text)})
	item := r.item(a, "completed", []any{r.part(a.text)})
	r.ev(s, "response.output_item.done", map[string]any{"output_index": 0, "item": item})
	final := r.response(a, "completed", []any{item}, u)
	typ := "response.completed"
	if final["status"] == "incomplete" {
		typ = "response.incomplete"
	}
	r.ev(s, typ, map[string]any{"response": final})
}

func (r *responsesShape) errorBody(_ int, kind, code, param, msg, _ string) any {
	return openAIError(kind, code, param, msg)
}

func (r *responsesShape) streamError(s *sse, a *answer, kind, code, msg string) {
	if code == "" {
		code = kind
	}
	r.ev(s, "error", map[string]any{"code": code, "message": msg, "param": nil})
	resp := r.response(a, "failed", []any{}, nil)
	resp["error"] = map[string]any{"code": "server_error", "message": msg}
	r.ev(s, "response.failed", map[string]any{"response": resp})
}

// Anthropic Messages.

type messagesShape struct {
	tmpl *template
}

func messagesUsage(input, output, read, write int) map[string]any {
	return map[string]any{"input_tokens": input - read - write, "output_tokens": output,
		"cache_creation_input_tokens": write, "cache_read_input_tokens": read, "service_tier": "standard"}
}

func messagesStop(a *answer) (string, any) {
	switch a.finish {
	case "length":
		return "max_tokens", nil
	case "stop_sequence":
		return "stop_sequence", a.stopSeq
	}
	return "end_turn", nil
}

func (m *messagesShape) body(a *answer, u *model.LiveUsage) any {
	reason, seq := messagesStop(a)
	return map[string]any{"id": a.id, "type": "message", "role": "assistant", "model": a.model,
		"content": []any{map[string]any{"type": "text", "text": a.text}}, "stop_reason": reason, "stop_sequence": seq,
		"usage": messagesUsage(u.Input, u.Output, u.CacheRead, u.CacheWrite)}
}

func (m *messagesShape) begin(s *sse, a *answer, st *model.LiveStart, input int) {
	read, write := 0, 0
	if st != nil {
		read, write = st.CacheRead, st.CacheWrite
	}
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": a.id, "type": "message",
		"role": "assistant", "model": a.model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": messagesUsage(input, 1, read, write)}})
	s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
	s.event("ping", map[string]any{"type": "ping"})
}

func (m *messagesShape) delta(s *sse, _ *answer, text string) {
	if m.tmpl == nil {
		m.tmpl = newTemplate("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": placeholderValue}})
	}
	s.fill(m.tmpl, text)
}

func (m *messagesShape) end(s *sse, a *answer, u *model.LiveUsage) {
	reason, seq := messagesStop(a)
	s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	s.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": reason, "stop_sequence": seq},
		"usage": messagesUsage(u.Input, u.Output, u.CacheRead, u.CacheWrite)})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}

func (m *messagesShape) errorBody(_ int, kind, _, _, msg, requestID string) any {
	return map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": msg}, "request_id": requestID}
}

func (m *messagesShape) streamError(s *sse, _ *answer, kind, _, msg string) {
	s.event("error", map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": msg}})
}
