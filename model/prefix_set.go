package model

import "math/bits"

// prefixSet is a replica's resident prefix-cache entries by key: an open
// addressing hash table with linear probing and backward-shift deletion.
// A replica looks an entry up at every admission and release, and Go's
// map took about a tenth of a cluster request's time doing it; this table
// finds one in a multiplication and a probe or two. It grows by doubling
// (at half full) and never shrinks, so a steady state allocates nothing.
type prefixSet struct {
	slots []*prefixEntry // nil: empty; a power of two long
	shift uint8          // 64 - log2(len(slots))
	n     int
}

// home is key's first slot.
func (p *prefixSet) home(key int64) int {
	return int(uint64(key) * 0x9e3779b97f4a7c15 >> p.shift)
}

// get returns the entry of key, or nil.
func (p *prefixSet) get(key int64) *prefixEntry {
	if p.n == 0 {
		return nil
	}
	mask := len(p.slots) - 1
	for i := p.home(key); ; i = (i + 1) & mask {
		e := p.slots[i]
		if e == nil || e.key == key {
			return e
		}
	}
}

// put adds e, whose key must have no entry.
func (p *prefixSet) put(e *prefixEntry) {
	if 2*(p.n+1) > len(p.slots) {
		p.grow()
	}
	p.insert(e)
	p.n++
}

func (p *prefixSet) insert(e *prefixEntry) {
	mask := len(p.slots) - 1
	i := p.home(e.key)
	for p.slots[i] != nil {
		i = (i + 1) & mask
	}
	p.slots[i] = e
}

// grow doubles the table (to 8 slots at first) and rehashes.
func (p *prefixSet) grow() {
	old := p.slots
	n := max(8, 2*len(old))
	p.slots = make([]*prefixEntry, n)
	p.shift = uint8(64 - bits.TrailingZeros(uint(n)))
	for _, e := range old {
		if e != nil {
			p.insert(e)
		}
	}
}

// del removes the entry of key, if any, shifting back the entries of its
// probe run so that every entry stays reachable from its home slot.
func (p *prefixSet) del(key int64) {
	if p.n == 0 {
		return
	}
	mask := len(p.slots) - 1
	i := p.home(key)
	for {
		e := p.slots[i]
		if e == nil {
			return
		}
		if e.key == key {
			break
		}
		i = (i + 1) & mask
	}
	p.slots[i] = nil
	p.n--
	for j := (i + 1) & mask; p.slots[j] != nil; j = (j + 1) & mask {
		// The entry at j may fill the hole at i unless its home lies
		// cyclically within (i, j].
		if h := p.home(p.slots[j].key); (j-h)&mask >= (j-i)&mask {
			p.slots[i], p.slots[j] = p.slots[j], nil
			i = j
		}
	}
}

// clear removes every entry.
func (p *prefixSet) clear() {
	clear(p.slots)
	p.n = 0
}
