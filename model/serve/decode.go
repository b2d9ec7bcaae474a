package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"strings"
)

// API is the wire shape a request speaks.
type API uint8

// The APIs served.
const (
	APIChat      API = iota // OpenAI Chat Completions: POST /v1/chat/completions
	APIResponses            // OpenAI Responses: POST /v1/responses
	APIMessages             // Anthropic Messages: POST /v1/messages
)

func (a API) String() string {
	switch a {
	case APIChat:
		return "chat.completions"
	case APIResponses:
		return "responses"
	}
	return "messages"
}

// maxStops is how many stop sequences a request may give (OpenAI's 4;
// Anthropic allows more, but never needs thousands).
const maxStops = 16

// maxTokensAsked bounds max_tokens before an endpoint's own limit applies.
const maxTokensAsked = 1 << 24

// prompt is what the server needs of a request, whatever its shape.
type prompt struct {
	api          API
	model        string
	stream       bool
	includeUsage bool // chat: stream_options.include_usage
	maxTokens    int  // 0: not given
	stops        []string
	input        int    // prompt tokens (the approximation in tokens.go)
	prefixTokens int    // the cacheable prefix
	prefixHash   uint64 // its identity (0: none)
	seed         uint64 // the whole prompt's hash: the answer's seed
	instructions string // responses: echoed back
}

// apiError is a refusal of a request before it reaches the simulation.
type apiError struct {
	status int
	kind   string // invalid_request_error, authentication_error, not_found_error, ...
	code   string // OpenAI's code field
	param  string
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(param, format string, a ...any) *apiError {
	return &apiError{status: 400, kind: "invalid_request_error", param: param, msg: fmt.Sprintf(format, a...)}
}

// tally accumulates a prompt's tokens and hash as its pieces are read.
type tally struct {
	tokens int
	h      hash.Hash64
}

func newTally() tally { return tally{h: fnv.New64a()} }

// add hashes a piece without counting it (a role).
func (t *tally) add(s string) {
	io.WriteString(t.h, s)
	t.h.Write([]byte{0})
}

func (t *tally) text(s string) {
	t.tokens += textTokens(s)
	t.add(s)
}

func (t *tally) raw(b json.RawMessage) {
	t.tokens += textTokens(string(b))
	t.add(string(b))
}

func (t *tally) sum() uint64 { return t.h.Sum64() }

// decode reads a request body of the given API. It never panics; every
// problem is an *apiError naming the field.
func decode(api API, body []byte) (*prompt, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, badRequest("", "the request body is empty; send a JSON object")
	}
	var p *prompt
	var err error
	switch api {
	case APIChat:
		p, err = decodeChat(body)
	case APIResponses:
		p, err = decodeResponses(body)
	default:
		p, err = decodeMessages(body)
	}
	if err != nil {
		return nil, err
	}
	p.api = api
	if p.model == "" {
		return nil, badRequest("model", "model: a model name is required (an endpoint of this server)")
	}
	if p.maxTokens < 0 || p.maxTokens > maxTokensAsked {
		return nil, badRequest("max_tokens", "max_tokens must be from 1 to %d, got %d", maxTokensAsked, p.maxTokens)
	}
	if len(p.stops) > maxStops {
		return nil, badRequest("stop", "at most %d stop sequences, got %d", maxStops, len(p.stops))
	}
	return p, nil
}

// strict unmarshals a JSON object, turning decoder errors into messages
// that name the field and what it must be (jsonerr.go).
func strict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return jsonError("", err)
	}
	if dec.More() {
		return badRequest("", "the body has data after its JSON object")
	}
	return nil
}

func fieldName(f string) string {
	if f == "" {
		return "the body"
	}
	return f
}

// maxTokensOf reads an optional positive integer field.
func maxTokensOf(name string, v *int) (int, error) {
	if v == nil {
		return 0, nil
	}
	if *v < 1 {
		return 0, badRequest(name, "%s must be at least 1, got %d", name, *v)
	}
	return *v, nil
}

// OpenAI Chat Completions.

type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Stop                json.RawMessage `json:"stop"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	N     *int            `json:"n"`
	Tools json.RawMessage `json:"tools"`
}

type chatMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	ToolCalls json.RawMessage `json:"tool_calls"`
}

type contentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
	// CacheControl marks the end of an Anthropic cache prefix.
	CacheControl json.RawMessage `json:"cache_control"`
}

func decodeChat(body []byte) (*prompt, error) {
	var q chatRequest
	if err := strict(body, &q); err != nil {
		return nil, err
	}
	p := &prompt{model: q.Model, stream: q.Stream}
	if q.StreamOptions != nil {
		p.includeUsage = q.StreamOptions.IncludeUsage
	}
	var err error
	if p.maxTokens, err = maxTokensOf("max_tokens", q.MaxTokens); err != nil {
		return nil, err
	}
	if q.MaxCompletionTokens != nil {
		if p.maxTokens, err = maxTokensOf("max_completion_tokens", q.MaxCompletionTokens); err != nil {
			return nil, err
		}
	}
	if q.N != nil && *q.N != 1 {
		return nil, badRequest("n", "n: this server generates one choice; got %d", *q.N)
	}
	if p.stops, err = stopsOf(q.Stop); err != nil {
		return nil, err
	}
	if len(q.Messages) == 0 {
		return nil, badRequest("messages", "messages: at least one message is required")
	}
	t := newTally()
	if len(q.Tools) > 0 && string(q.Tools) != "null" {
		t.raw(q.Tools)
	}
	prefixOpen := true // leading system and developer messages are the prefix
	for i, m := range q.Messages {
		at := fmt.Sprintf("messages[%d]", i)
		switch m.Role {
		case "system", "developer", "user", "assistant", "tool", "function":
		default:
			return nil, badRequest(at+".role", "%s.role must be system, developer, user, assistant or tool, got %q", at, m.Role)
		}
		t.tokens += tokensPerMessage
		t.add(m.Role)
		if m.Name != "" {
			t.text(m.Name)
		}
		if err := contentTokens(&t, m.Content, at+".content", m.Role != "assistant" || len(m.ToolCalls) == 0); err != nil {
			return nil, err
		}
		if len(m.ToolCalls) > 0 && string(m.ToolCalls) != "null" {
			t.raw(m.ToolCalls)
		}
		if prefixOpen && (m.Role == "system" || m.Role == "developer") {
			p.prefixTokens, p.prefixHash = t.tokens, t.sum()
		} else {
			prefixOpen = false
		}
	}
	p.input = t.tokens + tokensReplyPriming
	p.seed = t.sum()
	return p, nil
}

// contentTokens counts a content field: a string, or an array of parts
// (text parts by their text, others by their JSON).
func contentTokens(t *tally, c json.RawMessage, at string, required bool) error {
	s := bytes.TrimSpace(c)
	if len(s) == 0 || string(s) == "null" {
		if required {
			return badRequest(at, "%s is required", at)
		}
		return nil
	}
	switch s[0] {
	case '"':
		var str string
		if err := json.Unmarshal(s, &str); err != nil {
			return jsonError(at, err)
		}
		t.text(str)
		return nil
	case '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(s, &parts); err != nil {
			return badRequest(at, "%s must be a string or an array of content parts", at)
		}
		for j, raw := range parts {
			var part contentPart
			if err := json.Unmarshal(raw, &part); err != nil {
				return partError(fmt.Sprintf("%s[%d]", at, j), err, "an object with a type and, for text, a text")
			}
			switch part.Type {
			case "text", "input_text", "output_text":
				t.text(part.Text)
			case "":
				return badRequest(fmt.Sprintf("%s[%d].type", at, j), "%s[%d].type is required", at, j)
			default:
				t.raw(raw)
			}
		}
		return nil
	}
	return badRequest(at, "%s must be a string or an array of content parts", at)
}

// stopsOf reads a stop field: a string, an array of strings, or null.
func stopsOf(raw json.RawMessage) ([]string, error) {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 || string(s) == "null" {
		return nil, nil
	}
	if s[0] == '"' {
		var one string
		if err := json.Unmarshal(s, &one); err != nil {
			return nil, jsonError("stop", err)
		}
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(s, &many); err != nil {
		return nil, badRequest("stop", "stop must be a string or an array of strings")
	}
	return many, nil
}

// OpenAI Responses.

type responsesRequest struct {
	Model              string          `json:"model"`
	Input              json.RawMessage `json:"input"`
	Instructions       *string         `json:"instructions"`
	MaxOutputTokens    *int            `json:"max_output_tokens"`
	Stream             bool            `json:"stream"`
	Tools              json.RawMessage `json:"tools"`
	PreviousResponseID *string         `json:"previous_response_id"`
}

type responseItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

func decodeResponses(body []byte) (*prompt, error) {
	var q responsesRequest
	if err := strict(body, &q); err != nil {
		return nil, err
	}
	p := &prompt{model: q.Model, stream: q.Stream}
	var err error
	if p.maxTokens, err = maxTokensOf("max_output_tokens", q.MaxOutputTokens); err != nil {
		return nil, err
	}
	if q.PreviousResponseID != nil && *q.PreviousResponseID != "" {
		return nil, badRequest("previous_response_id", "previous_response_id: this server keeps no conversation state; send the whole input")
	}
	t := newTally()
	if len(q.Tools) > 0 && string(q.Tools) != "null" {
		t.raw(q.Tools)
	}
	if q.Instructions != nil && *q.Instructions != "" {
		p.instructions = *q.Instructions
		t.tokens += tokensPerMessage
		t.text(*q.Instructions)
		p.prefixTokens, p.prefixHash = t.tokens, t.sum()
	}
	in := bytes.TrimSpace(q.Input)
	switch {
	case len(in) == 0 || string(in) == "null":
		return nil, badRequest("input", "input is required: a string or an array of input items")
	case in[0] == '"':
		var s string
		if err := json.Unmarshal(in, &s); err != nil {
			return nil, jsonError("input", err)
		}
		t.tokens += tokensPerMessage
		t.text(s)
	case in[0] == '[':
		var items []json.RawMessage
		if err := json.Unmarshal(in, &items); err != nil {
			return nil, badRequest("input", "input must be a string or an array of input items")
		}
		if len(items) == 0 {
			return nil, badRequest("input", "input: at least one item is required")
		}
		prefixOpen := true
		for i, raw := range items {
			at := fmt.Sprintf("input[%d]", i)
			var it responseItem
			if err := json.Unmarshal(raw, &it); err != nil {
				return nil, partError(at, err, "an object with a role and a content")
			}
			t.tokens += tokensPerMessage
			if it.Type != "" && it.Type != "message" {
				t.raw(raw) // tool calls and their outputs, by their JSON
				prefixOpen = false
				continue
			}
			switch it.Role {
			case "system", "developer", "user", "assistant":
			default:
				return nil, badRequest(at+".role", "%s.role must be system, developer, user or assistant, got %q", at, it.Role)
			}
			t.add(it.Role)
			if err := contentTokens(&t, it.Content, at+".content", true); err != nil {
				return nil, err
			}
			if prefixOpen && (it.Role == "system" || it.Role == "developer") {
				p.prefixTokens, p.prefixHash = t.tokens, t.sum()
			} else {
				prefixOpen = false
			}
		}
	default:
		return nil, badRequest("input", "input must be a string or an array of input items")
	}
	p.input = t.tokens + tokensReplyPriming
	p.seed = t.sum()
	return p, nil
}

// Anthropic Messages.

type messagesRequest struct {
	Model         string            `json:"model"`
	MaxTokens     *int              `json:"max_tokens"`
	Messages      []messagesMessage `json:"messages"`
	System        json.RawMessage   `json:"system"`
	StopSequences []string          `json:"stop_sequences"`
	Stream        bool              `json:"stream"`
	Tools         []json.RawMessage `json:"tools"`
}

type messagesMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type cacheMarked struct {
	CacheControl json.RawMessage `json:"cache_control"`
}

func decodeMessages(body []byte) (*prompt, error) {
	var q messagesRequest
	if err := strict(body, &q); err != nil {
		return nil, err
	}
	p := &prompt{model: q.Model, stream: q.Stream, stops: q.StopSequences}
	if q.MaxTokens == nil {
		return nil, badRequest("max_tokens", "max_tokens: Field required")
	}
	var err error
	if p.maxTokens, err = maxTokensOf("max_tokens", q.MaxTokens); err != nil {
		return nil, err
	}
	if len(q.Messages) == 0 {
		return nil, badRequest("messages", "messages: at least one message is required")
	}
	// The cache prefix runs, in the order tools, system, messages, to the
	// last block that carries cache_control.
	t := newTally()
	mark := func() { p.prefixTokens, p.prefixHash = t.tokens, t.sum() }
	marked := func(raw json.RawMessage) bool {
		var c cacheMarked
		return json.Unmarshal(raw, &c) == nil && len(c.CacheControl) > 0 && string(c.CacheControl) != "null"
	}
	for _, tool := range q.Tools {
		t.raw(tool)
		if marked(tool) {
			mark()
		}
	}
	sys := bytes.TrimSpace(q.System)
	switch {
	case len(sys) == 0 || string(sys) == "null":
	case sys[0] == '"':
		var s string
		if err := json.Unmarshal(sys, &s); err != nil {
			return nil, jsonError("system", err)
		}
		t.text(s)
	case sys[0] == '[':
		if err := blockTokens(&t, sys, "system", mark); err != nil {
			return nil, err
		}
	default:
		return nil, badRequest("system", "system must be a string or an array of text blocks")
	}
	for i, m := range q.Messages {
		at := fmt.Sprintf("messages[%d]", i)
		if m.Role != "user" && m.Role != "assistant" {
			return nil, badRequest(at+".role", "%s.role: Input should be 'user' or 'assistant', got %q", at, m.Role)
		}
		t.tokens += tokensPerMessage
		t.add(m.Role)
		c := bytes.TrimSpace(m.Content)
		switch {
		case len(c) == 0 || string(c) == "null":
			return nil, badRequest(at+".content", "%s.content: Field required", at)
		case c[0] == '"':
			var s string
			if err := json.Unmarshal(c, &s); err != nil {
				return nil, jsonError(at+".content", err)
			}
			t.text(s)
		case c[0] == '[':
			if err := blockTokens(&t, c, at+".content", mark); err != nil {
				return nil, err
			}
		default:
			return nil, badRequest(at+".content", "%s.content must be a string or an array of content blocks", at)
		}
	}
	p.input = t.tokens + tokensReplyPriming
	p.seed = t.sum()
	return p, nil
}

// blockTokens counts an array of Anthropic content blocks, marking the
// prefix after each block with cache_control.
func blockTokens(t *tally, raw json.RawMessage, at string, mark func()) error {
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return badRequest(at, "%s must be an array of content blocks", at)
	}
	for j, b := range blocks {
		var part contentPart
		if err := json.Unmarshal(b, &part); err != nil {
			return partError(fmt.Sprintf("%s[%d]", at, j), err, "an object with a type and, for text, a text")
		}
		switch part.Type {
		case "text":
			t.text(part.Text)
		case "":
			return badRequest(fmt.Sprintf("%s[%d].type", at, j), "%s[%d].type: Field required", at, j)
		default:
			t.raw(b)
		}
		if len(part.CacheControl) > 0 && string(part.CacheControl) != "null" {
			mark()
		}
	}
	return nil
}

// apiOfPath finds the API of a request path and the endpoint named by a
// path prefix: "/v1/chat/completions" or "/NAME/v1/chat/completions".
func apiOfPath(path string) (api API, endpoint string, ok bool) {
	for _, s := range []struct {
		suffix string
		api    API
	}{{"/v1/chat/completions", APIChat}, {"/v1/responses", APIResponses}, {"/v1/messages", APIMessages}} {
		if strings.HasSuffix(path, s.suffix) {
			pre := strings.Trim(strings.TrimSuffix(path, s.suffix), "/")
			if strings.Contains(pre, "/") {
				return 0, "", false
			}
			return s.api, pre, true
		}
	}
	return 0, "", false
}
