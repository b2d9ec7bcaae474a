package model

// ring is a FIFO of request slots that grows by doubling and never shrinks,
// so a steady state pushes and pops without allocating.
type ring struct {
	buf  []int32
	head int
	n    int
}

func (q *ring) len() int { return q.n }

func (q *ring) push(v int32) {
	if q.n == len(q.buf) {
		size := 2 * len(q.buf)
		if size == 0 {
			size = 16
		}
		nb := make([]int32, size)
		for i := 0; i < q.n; i++ {
			nb[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.n)%len(q.buf)] = v
	q.n++
}

func (q *ring) pop() (int32, bool) {
	if q.n == 0 {
		return 0, false
	}
	v := q.buf[q.head]
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	return v, true
}
