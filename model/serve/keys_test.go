package serve

import (
	"strings"
	"testing"
)

func TestMaskKey(t *testing.T) {
	for k, want := range map[string]string{
		"":                             "",
		"sk-proj-abcdefghijklmnop1234": "sk-…1234",
		"sk-ant-api03-xyz-9876":        "sk-…9876",
		"team-a":                       "…-a",
		"abc":                          "…",
	} {
		if got := maskKey(k); got != want {
			t.Errorf("maskKey(%q) = %q, want %q", k, got, want)
		}
	}
	// The first 8 hex digits of SHA-256("a") (sha256sum).
	if keyHash("a") != "ca978112" || keyHash("a") == keyHash("b") {
		t.Fatalf("keyHash(a) = %q, want ca978112, and another for b", keyHash("a"))
	}
}

// TestKeysNeverInClear: the key a client presents is masked in the
// request log and in a 401 body, and the log's key_hash tells keys apart.
func TestKeysNeverInClear(t *testing.T) {
	const secret, other = "sk-proj-abcdefghijklmnop1234", "sk-proj-zyxwvutsrqponm1234"
	var log syncBuffer
	s := start(t, hosted, Options{Speed: 100, Log: &log})
	body := `{"model":"sonnet","max_tokens":2,"messages":[{"role":"user","content":"x"}]}`
	post(t, s.URL+"/v1/chat/completions", body, "Authorization", "Bearer "+secret)
	post(t, s.URL+"/v1/messages", body, "X-Api-Key", other, "Anthropic-Version", "2023-06-01")
	s.ts.Close()
	l := log.String()
	if strings.Contains(l, secret) || strings.Contains(l, other) || strings.Count(l, `"key":"sk-…1234"`) != 2 {
		t.Fatalf("the request log shows the keys, or not their masks:\n%s", l)
	}
	if !strings.Contains(l, keyHash(secret)) || !strings.Contains(l, keyHash(other)) {
		t.Fatalf("the request log cannot tell the two keys apart:\n%s", l)
	}

	k := start(t, keyed, Options{Speed: 1, Log: &log})
	resp, b := post(t, k.URL+"/v1/chat/completions", body, "Authorization", "Bearer "+secret)
	if resp.StatusCode != 401 || strings.Contains(b, secret) || !strings.Contains(b, "sk-…1234") {
		t.Fatalf("an unknown key's 401 shows it in clear, or not its mask: %d %s", resp.StatusCode, b)
	}
	// A short key is masked too, and the keys the scenario names stay readable.
	resp, b = post(t, k.URL+"/v1/chat/completions", body, "Authorization", "Bearer a")
	if resp.StatusCode != 401 || !strings.Contains(b, "it takes: team-a, team-b (API key presented: …)") {
		t.Fatalf("a short unknown key: %d %s", resp.StatusCode, b)
	}
}
