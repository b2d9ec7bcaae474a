package model

// deque is a double-ended queue of request slots (client and backend
// queues, replica waiting queues). It grows by doubling and never shrinks,
// so a steady state pushes and pops without allocating.
type deque struct {
	buf  []int32
	head int
	n    int
}

func (q *deque) len() int { return q.n }

func (q *deque) grow() {
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

func (q *deque) pushBack(v int32) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.buf[(q.head+q.n)%len(q.buf)] = v
	q.n++
}

func (q *deque) pushFront(v int32) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.head = (q.head - 1 + len(q.buf)) % len(q.buf)
	q.buf[q.head] = v
	q.n++
}

func (q *deque) front() int32 { return q.buf[q.head] }

func (q *deque) popFront() int32 {
	v := q.buf[q.head]
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	return v
}
