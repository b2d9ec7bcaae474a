package serve

import (
	"encoding/json"
	"strings"
	"testing"
)

// goTerms are what an error from Go's decoder or type system shows and a
// client must never read.
var goTerms = []string{"serve.", "[]", "struct", "json:", "cannot unmarshal", "Go ", "map[", "RawMessage", "*int", "int64", "float64", "interface"}

// goWords returns the first Go term in msg that the request did not
// itself contain (a role or key echoed back is the client's own text), or "".
func goWords(msg, body string) string {
	for _, g := range goTerms {
		if strings.Contains(msg, g) && !strings.Contains(body, g) {
			return g
		}
	}
	return ""
}

// TestBadBodiesInTheAPIsErrorFormat: a body of the wrong shape gets a 400
// in the API's own error format that names the field and what it must be,
// never a Go type or a decoder message.
func TestBadBodiesInTheAPIsErrorFormat(t *testing.T) {
	s := start(t, hosted, Options{Speed: 1})
	for _, c := range []struct {
		path, body string
		param      string // the field the message must name
		want       string // what it must say is allowed
	}{
		{"/v1/chat/completions", `{"model":"sonnet","messages":"x"}`, "messages", "an array of objects"},
		{"/v1/chat/completions", `{"model":"sonnet","messages":[{"role":"user","content":"x"}],"max_tokens":"5"}`, "max_tokens", "a whole number"},
		{"/v1/chat/completions", `{"model":"sonnet","messages":[{"role":"user","content":"x"}],"max_tokens":1.5}`, "max_tokens", "a whole number"},
		{"/v1/chat/completions", `{"model":"sonnet","messages":[{"role":5,"content":"x"}]}`, "messages.role", "a string"},
		{"/v1/chat/completions", `{"model":"sonnet","messages":[{"role":"user","content":[{"type":7}]}]}`, "messages[0].content[0].type", "a string"},
		{"/v1/chat/completions", `{"model":"sonnet","messages":[{"role":"user","content":[5]}]}`, "messages[0].content[0]", "an object with a type"},
		{"/v1/chat/completions", `{"model":"sonnet","messages":[{"role":"user","content":"x"}],"stream":"yes"}`, "stream", "true or false"},
		{"/v1/chat/completions", `{"model":"sonnet","messages":[{"role":"user","content":"x"}],"stop":[1]}`, "stop", "a string or an array of strings"},
		{"/v1/chat/completions", `{"model":["sonnet"]}`, "model", "a string"},
		{"/v1/chat/completions", `[1, 2]`, "", "the body must be an object"},
		{"/v1/chat/completions", `{"model":"sonnet",`, "", "not valid JSON"},
		{"/v1/responses", `{"model":"sonnet","input":[7]}`, "input[0]", "an object with a role and a content"},
		{"/v1/responses", `{"model":"sonnet","input":"x","max_output_tokens":{}}`, "max_output_tokens", "a whole number"},
		{"/v1/responses", `{"model":"sonnet","input":"x","instructions":3}`, "instructions", "a string"},
		{"/v1/messages", `{"model":"sonnet","max_tokens":"x","messages":[]}`, "max_tokens", "a whole number"},
		{"/v1/messages", `{"model":"sonnet","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":4}]}]}`, "messages[0].content[0].text", "a string"},
		{"/v1/messages", `{"model":"sonnet","max_tokens":5,"system":{"a":1},"messages":[{"role":"user","content":"x"}]}`, "system", "a string or an array of text blocks"},
		{"/v1/messages", `{"model":"sonnet","max_tokens":5,"stop_sequences":"x","messages":[{"role":"user","content":"x"}]}`, "stop_sequences", "an array of strings"},
		{"/v1/messages", `{"model":"sonnet","max_tokens":5,"messages":[{"role":"user","content":"x"}],"tools":{}}`, "tools", "an array"},
	} {
		resp, b := post(t, s.URL+c.path, c.body, "Anthropic-Version", "2023-06-01")
		if resp.StatusCode != 400 {
			t.Errorf("%s %s: status %d, want 400: %s", c.path, c.body, resp.StatusCode, b)
			continue
		}
		var msg, kind string
		if c.path == "/v1/messages" {
			var e struct {
				Type  string `json:"type"`
				Error struct {
					Type    string `json:"type"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(b), &e); err != nil || e.Type != "error" {
				t.Errorf("%s: not an Anthropic error body: %s", c.body, b)
				continue
			}
			msg, kind = e.Error.Message, e.Error.Type
		} else {
			var e struct {
				Error *struct {
					Message string  `json:"message"`
					Type    string  `json:"type"`
					Param   *string `json:"param"`
					Code    *string `json:"code"`
				} `json:"error"`
			}
			var raw map[string]map[string]json.RawMessage
			if err := json.Unmarshal([]byte(b), &e); err != nil || e.Error == nil || json.Unmarshal([]byte(b), &raw) != nil {
				t.Errorf("%s: not an OpenAI error body: %s", c.body, b)
				continue
			}
			for _, k := range []string{"message", "type", "param", "code"} {
				if _, ok := raw["error"][k]; !ok {
					t.Errorf("%s: the OpenAI error has no %q: %s", c.body, k, b)
				}
			}
			msg, kind = e.Error.Message, e.Error.Type
			if c.param != "" && (e.Error.Param == nil || *e.Error.Param != c.param) {
				t.Errorf("%s: param %v, want %q", c.body, e.Error.Param, c.param)
			}
			if strings.Contains(msg, " must be ") && strings.Contains(msg, ", got ") && (e.Error.Code == nil || *e.Error.Code != "invalid_type") {
				t.Errorf("%s: a field of the wrong type has code %v, want invalid_type", c.body, e.Error.Code)
			}
		}
		if kind != "invalid_request_error" {
			t.Errorf("%s: error type %q", c.body, kind)
		}
		if !strings.Contains(msg, c.param) || !strings.Contains(msg, c.want) {
			t.Errorf("%s: message %q does not name %q and say %q", c.body, msg, c.param, c.want)
		}
		if g := goWords(msg, c.body); g != "" {
			t.Errorf("%s: message %q shows Go's %q", c.body, msg, g)
		}
	}
}
