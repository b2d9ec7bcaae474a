package model

import (
	"testing"

	"pgregory.net/rapid"
)

// TestModAndBlocksForWithoutDivision: the power-of-two shortcuts of mod and
// blocksFor give what the division gives, for every block size in range
// and any count, negative ones included.
func TestModAndBlocksForWithoutDivision(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bs := rapid.IntRange(1, 4096).Draw(t, "bs")
		if rapid.Bool().Draw(t, "pow2") {
			bs = 1 << rapid.IntRange(0, 12).Draw(t, "log2")
		}
		a := rapid.Int64Range(-1<<40, 1<<40).Draw(t, "a")
		want := a % int64(bs)
		if want < 0 {
			want += int64(bs)
		}
		if got := mod(a, int64(bs)); got != want {
			t.Fatalf("mod(%d, %d) = %d, want %d", a, bs, got, want)
		}
		tokens := rapid.IntRange(-10000, 1<<30).Draw(t, "tokens")
		if got, want := blocksFor(tokens, bs), (tokens+bs-1)/bs; got != want {
			t.Fatalf("blocksFor(%d, %d) = %d, want %d", tokens, bs, got, want)
		}
	})
}
