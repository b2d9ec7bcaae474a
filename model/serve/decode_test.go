package serve

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

func TestAnswerTextCountsExactly(t *testing.T) {
	for _, w := range vocabulary {
		if len(w) != bytesPerToken-1 {
			t.Fatalf("vocabulary word %q is not %d bytes", w, bytesPerToken-1)
		}
	}
	for _, n := range []int{1, 2, 15, 16, 17, 1000} {
		a := answerText(uint64(n), n)
		if textTokens(a) != n || len(a) != n*bytesPerToken {
			t.Fatalf("answer of %d tokens counts %d (%d bytes)", n, textTokens(a), len(a))
		}
		if answerText(uint64(n), n) != a {
			t.Fatal("answers are not deterministic")
		}
	}
	text, n, stop := cutAtStop(answerText(3, 40), []string{"\n"})
	if stop != "\n" || strings.Contains(text, "\n") || n != 16 {
		t.Fatalf("cut at newline: %d tokens, %q", n, text)
	}
	if _, n, stop := cutAtStop("abcd", []string{"zz", ""}); stop != "" || n != 1 {
		t.Fatalf("no match: %d %q", n, stop)
	}
}

// TestDecodeCounts checks the token approximation and the cache prefix
// of each shape on requests whose counts are worked out by hand.
func TestDecodeCounts(t *testing.T) {
	// system "12345678" (2 tokens) + user "abcd" (1): 2 messages x 3
	// framing + 3 priming = 12; the prefix is the system message (3 + 2).
	p, err := decode(APIChat, []byte(`{"model":"m","messages":[{"role":"system","content":"12345678"},{"role":"user","content":[{"type":"text","text":"abcd"}]}],"stop":["x","y"],"max_completion_tokens":7}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.input != 12 || p.prefixTokens != 5 || p.prefixHash == 0 || p.maxTokens != 7 || len(p.stops) != 2 {
		t.Fatalf("chat: %+v", p)
	}
	// Anthropic: the prefix ends at the last cache_control block.
	p, err = decode(APIMessages, []byte(`{"model":"m","max_tokens":3,"system":[{"type":"text","text":"12345678","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"abcd"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.input != 2+3+1+3 || p.prefixTokens != 2 {
		t.Fatalf("messages: %+v", p)
	}
	// Without cache_control nothing is cached.
	p, _ = decode(APIMessages, []byte(`{"model":"m","max_tokens":3,"system":"12345678","messages":[{"role":"user","content":"abcd"}]}`))
	if p.prefixTokens != 0 {
		t.Fatalf("messages without cache_control: prefix %d", p.prefixTokens)
	}
	p, err = decode(APIResponses, []byte(`{"model":"m","instructions":"12345678","input":[{"role":"user","content":"abcd"}],"max_output_tokens":4}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.input != 3+2+3+1+3 || p.prefixTokens != 5 || p.maxTokens != 4 {
		t.Fatalf("responses: %+v", p)
	}
	// The same system prompt, the same prefix; a different one, another.
	a, _ := decode(APIChat, []byte(`{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"one"}]}`))
	b, _ := decode(APIChat, []byte(`{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"two"}]}`))
	c, _ := decode(APIChat, []byte(`{"model":"m","messages":[{"role":"system","content":"T"},{"role":"user","content":"one"}]}`))
	if a.prefixHash != b.prefixHash || a.prefixHash == c.prefixHash || a.seed == b.seed {
		t.Fatal("prefix identity does not follow the system prompt")
	}
}

func TestAPIOfPath(t *testing.T) {
	for path, want := range map[string]struct {
		api API
		ep  string
		ok  bool
	}{
		"/v1/chat/completions":       {APIChat, "", true},
		"/sonnet/v1/messages":        {APIMessages, "sonnet", true},
		"/a/b/v1/responses":          {0, "", false},
		"/v1/chat/completions/extra": {0, "", false},
	} {
		api, ep, ok := apiOfPath(path)
		if ok != want.ok || ok && (api != want.api || ep != want.ep) {
			t.Errorf("%s: %v %q %v", path, api, ep, ok)
		}
	}
}

// FuzzDecode: the request decoder never panics, and what it refuses it
// refuses with an API error; what it accepts has sane counts.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","messages":[{"role":"system","content":[{"type":"text","text":"x"}]},{"role":"assistant","content":null,"tool_calls":[{}]}],"stop":"a"}`,
		`{"model":"m","max_tokens":5,"system":[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"image","source":{}}]}],"tools":[{"name":"t","cache_control":{}}]}`,
		`{"model":"m","input":[{"type":"function_call_output","output":"x"},{"role":"developer","content":"d"}],"instructions":"i"}`,
		`{"model":"m","input":"x","max_output_tokens":0}`,
		`[]`, `null`, `{"model":1}`, `{"messages":{}}`,
	} {
		for api := range 3 {
			f.Add(uint8(api), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, api uint8, body []byte) {
		p, err := decode(API(api%3), body)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.status != 400 || ae.msg == "" {
				t.Fatalf("decode error %v is not a 400 with a message", err)
			}
			if g := goWords(ae.msg, string(body)); g != "" {
				t.Fatalf("decode error %q shows Go's %q", ae.msg, g)
			}
			return
		}
		if p.model == "" || p.input < 1 || p.prefixTokens < 0 || p.prefixTokens > p.input || p.maxTokens < 0 || len(p.stops) > maxStops {
			t.Fatalf("accepted a request with %+v", p)
		}
	})
}

// TestAppendJSONString: the token events' string encoder round-trips
// through encoding/json, including the characters JSON must escape.
func TestAppendJSONString(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s")
		var back string
		if err := json.Unmarshal(appendJSONString(nil, s), &back); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("%q came back as %q", s, back)
		}
	})
}
