package serve

import (
	"hash/fnv"
	"math/rand/v2"
	"strings"
)

// The tokenizer approximation. Headroom does not ship a provider's
// tokenizer; it counts one token per four bytes of UTF-8 text, rounded up
// for each piece of text, plus OpenAI's published accounting for chat
// framing: three tokens per message and three that prime the reply. On
// English prose this is within about 10% of cl100k and o200k counts (four
// characters per token is OpenAI's own rule of thumb); on code, CJK text or
// long numbers it can be off by a factor of two. What matters here is that
// the same text always counts the same, and that answers are generated to
// count exactly: every generated token is four bytes.

const (
	bytesPerToken      = 4
	tokensPerMessage   = 3
	tokensReplyPriming = 3
)

// textTokens is the approximate token count of a piece of text.
func textTokens(s string) int { return (len(s) + bytesPerToken - 1) / bytesPerToken }

// vocabulary is what answers are made of: four-byte tokens, a few ending a
// line, so that stop sequences such as "\n" have something to stop at.
var vocabulary = strings.Fields(`the and for you are but not all any can had her was one our out day get has him
his how man new now old see two way who boy did its let put say she too use sim log run set map key bus
top win fit cap low raw hot red job ask end few far yes own per via`)

// answerText is a deterministic answer of n tokens for a prompt: the same
// prompt always gets the same words.
func answerText(seed uint64, n int) string {
	var b strings.Builder
	b.Grow(n * bytesPerToken)
	r := rand.New(rand.NewPCG(seed, 0x68656164726f6f6d))
	for i := 0; i < n; i++ {
		w := vocabulary[r.IntN(len(vocabulary))]
		b.WriteString(w)
		if i%16 == 15 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// cutAtStop truncates an answer at the first stop sequence, as the APIs
// do (the stop sequence is not returned). It returns the text, its length
// in tokens (at least 1: a model emits something before it stops) and the
// stop sequence that matched, "" if none.
func cutAtStop(text string, stops []string) (string, int, string) {
	cut, which := -1, ""
	for _, s := range stops {
		if s == "" {
			continue
		}
		if i := strings.Index(text, s); i >= 0 && (cut < 0 || i < cut) {
			cut, which = i, s
		}
	}
	if cut < 0 {
		return text, len(text) / bytesPerToken, ""
	}
	return text[:cut], max(1, textTokens(text[:cut])), which
}

// hashOf is a 64-bit FNV-1a hash of the parts, separated so that
// ("ab","c") and ("a","bc") differ.
func hashOf(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}
