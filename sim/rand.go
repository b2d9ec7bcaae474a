package sim

import (
	"hash/fnv"
	"math/rand/v2"
)

// Stream returns a random stream for one component of one replication. The
// stream depends only on (seed, component, replication), so two scenarios
// that differ in one limit draw the same arrivals and token counts from
// their "workload/..." streams: common random numbers, so the difference
// between variants is the change and not the noise.
func Stream(seed uint64, component string, replication int) *rand.Rand {
	h := fnv.New64a()
	_, _ = h.Write([]byte(component))
	c := h.Sum64()
	s1 := splitmix(seed ^ splitmix(c))
	s2 := splitmix(s1 ^ splitmix(uint64(replication)+0x9e3779b97f4a7c15))
	return rand.New(rand.NewPCG(s1, s2))
}

// splitmix is the SplitMix64 finaliser, used to spread seed bits.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
