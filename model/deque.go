package model

// deque is a double-ended queue of request slots (client and backend
// queues, replica waiting queues). It grows by doubling and never shrinks,
// so a steady state pushes and pops without allocating. Its length is
// always a power of two, so positions wrap with a mask, not a division.
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
		nb[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
	}
	q.buf, q.head = nb, 0
}

func (q *deque) pushBack(v int32) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = v
	q.n++
}

func (q *deque) pushFront(v int32) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.head = (q.head - 1) & (len(q.buf) - 1)
	q.buf[q.head] = v
	q.n++
}

func (q *deque) front() int32 { return q.buf[q.head] }

func (q *deque) popFront() int32 {
	v := q.buf[q.head]
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	return v
}

// arrivalQueue is a client's queue of arrivals waiting for a slot, first
// in, first out. It holds arrival times, not requests: a request's record
// is made when it leaves (Sim.issueIn). Arrivals at the same instant (a
// job's) share one entry, so a job of any size costs one entry. Like
// deque's, its length is a power of two.
type arrivalQueue struct {
	buf  []arrivalRun
	head int
	n    int // entries
	size int // arrivals
}

// arrivalRun is n arrivals at time at.
type arrivalRun struct {
	at float64
	n  int
}

func (q *arrivalQueue) len() int { return q.size }

// push adds n arrivals at time at behind the others.
func (q *arrivalQueue) push(at float64, n int) {
	q.size += n
	if q.n > 0 {
		if last := &q.buf[(q.head+q.n-1)&(len(q.buf)-1)]; last.at == at {
			last.n += n
			return
		}
	}
	if q.n == len(q.buf) {
		size := max(2*len(q.buf), 16)
		nb := make([]arrivalRun, size)
		for i := 0; i < q.n; i++ {
			nb[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = arrivalRun{at, n}
	q.n++
}

// pop removes the first arrival and returns its time.
func (q *arrivalQueue) pop() float64 {
	f := &q.buf[q.head]
	at := f.at
	q.size--
	if f.n--; f.n == 0 {
		q.head = (q.head + 1) & (len(q.buf) - 1)
		q.n--
	}
	return at
}
