package schema

import "testing"

// TestDidYouMeanPrefix: a name that begins several candidates suggests
// them all; one near spelling suggests it alone; nothing close, nothing.
func TestDidYouMeanPrefix(t *testing.T) {
	names := []string{"anthropic-python", "none", "openai-go", "openai-node", "openai-python"}
	for s, want := range map[string]string{
		"openai":        `; did you mean "openai-go", "openai-node" or "openai-python"?`,
		"anthropic":     `; did you mean "anthropic-python"?`,
		"openai-pyhton": `; did you mean "openai-python"?`,
		"zzz":           "",
		"op":            "",
	} {
		if got := DidYouMean(s, names); got != want {
			t.Errorf("DidYouMean(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestDidYouMeanSpellings: the ways people write a rate unit suggest the
// allowed one ("rps" is no edit of "requests/s"); they suggest nothing
// where that value is not allowed, and an allowed value is left alone.
func TestDidYouMeanSpellings(t *testing.T) {
	units := []string{"requests/s", "requests/min", "requests/hour"}
	for s, want := range map[string]string{
		"rps":                `; did you mean "requests/s"?`,
		"QPS":                `; did you mean "requests/s"?`,
		"rpm":                `; did you mean "requests/min"?`,
		"requests per  hour": `; did you mean "requests/hour"?`,
		"req/h":              `; did you mean "requests/hour"?`,
		"requests/second":    `; did you mean "requests/s"?`,
		"tokens/s":           "",
	} {
		if got := DidYouMean(s, units); got != want {
			t.Errorf("DidYouMean(%q) = %q, want %q", s, got, want)
		}
	}
	if got := DidYouMean("rps", []string{"rpm", "itpm", "otpm"}); got != `; did you mean "rpm"?` {
		t.Errorf("a key, not a unit: %q", got)
	}
}
