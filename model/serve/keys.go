package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"unicode/utf8"
)

// maskKey is how the server writes an API key a client presented: never
// in clear. A key of 12 characters or more keeps its first 3 and last 4
// ("sk-…abcd", as providers' dashboards show keys); a shorter one only its
// last 2, and one of 4 or fewer nothing ("…"). keyHash tells apart keys
// whose masks agree.
func maskKey(k string) string {
	n := utf8.RuneCountInString(k)
	r := []rune(k)
	switch {
	case n == 0:
		return ""
	case n >= 12:
		return string(r[:3]) + "…" + string(r[n-4:])
	case n > 4:
		return "…" + string(r[n-2:])
	}
	return "…"
}

// keyHash is a stable identity of a presented key that does not reveal
// it: the first 8 hex digits of its SHA-256 ("" for no key).
func keyHash(k string) string {
	if k == "" {
		return ""
	}
	h := sha256.Sum256([]byte(k))
	return hex.EncodeToString(h[:4])
}

// keyRefused is the 401 message for a key an endpoint does not take: the
// simulation's reason, which never quotes the key, and the key masked.
func keyRefused(err error, key string) string {
	if key == "" {
		return err.Error() + " (no API key was presented: send x-api-key or Authorization: Bearer)"
	}
	return fmt.Sprintf("%v (API key presented: %s)", err, maskKey(key))
}
