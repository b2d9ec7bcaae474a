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
