package model

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

// TestAdmitPlainEqualsGeneral: on random loaded clusters (paged or
// contiguous KV, vLLM or no-evict scheduling, prefix caching on or off,
// chunked prefill or not, failures and schedules) and on random scenarios
// with clusters, admitting through admitPlain gives the same bytes as the
// general admitWaiting, and plain clusters are drawn often enough that the
// path is taken.
func TestAdmitPlainEqualsGeneral(t *testing.T) {
	took := 0
	rapid.Check(t, func(t *rapid.T) {
		var cfg Config
		if rapid.Bool().Draw(t, "loaded?") {
			cfg = genClusterConfig(t)
		} else if cfg = genConfig(t); len(cfg.Clusters) == 0 {
			t.Skip("no cluster")
		}
		plain, s := runSet(t, cfg, func(*Sim) {})
		general, _ := runSet(t, cfg, func(s *Sim) { s.noPlain = true })
		if !bytes.Equal(plain, general) {
			t.Fatalf("admitPlain differs from admitWaiting:\nplain   %s\ngeneral %s", firstDiff(plain, general), firstDiff(general, plain))
		}
		for _, c := range s.clus {
			// admitWaiting's dispatch to admitPlain, on a cluster that
			// admitted requests (a test of the path, not of the flag)
			if c.plainAdmit && len(s.keys) == 0 && !c.isDecodePool() && c.stats.admitted > 0 {
				took++
				break
			}
		}
	})
	if took < 10 {
		t.Fatalf("a plain cluster in only %d draws", took)
	}
}
