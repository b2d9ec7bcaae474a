package sim

// Event is one scheduled occurrence. Kind, Obj and Gen are the model's to
// interpret: typically Kind selects the handler, Obj indexes a component or a
// request slot, and Gen lets a model ignore an event made stale by a later
// decision (compare it with the slot's current generation).
type Event struct {
	Time float64 // simulated seconds since t = 0
	seq  uint64
	Kind uint16
	Obj  int32
	Gen  uint32
}

// Queue is a 4-ary min-heap of events ordered by (Time, sequence). It is
// written by hand rather than with container/heap because container/heap
// moves elements through interface values, which allocates on every push.
type Queue struct {
	items []Event
	next  uint64
}

// Len reports the number of pending events.
func (q *Queue) Len() int { return len(q.items) }

// Push schedules e. Events pushed with equal times pop in push order.
func (q *Queue) Push(e Event) {
	e.seq = q.next
	q.next++
	q.items = append(q.items, e)
	q.up(len(q.items) - 1)
}

// Peek returns the earliest event without removing it. ok is false when the
// queue is empty.
func (q *Queue) Peek() (e Event, ok bool) {
	if len(q.items) == 0 {
		return Event{}, false
	}
	return q.items[0], true
}

// Pop removes and returns the earliest event. ok is false when the queue is
// empty.
func (q *Queue) Pop() (e Event, ok bool) {
	n := len(q.items)
	if n == 0 {
		return Event{}, false
	}
	top := q.items[0]
	last := q.items[n-1]
	q.items = q.items[:n-1]
	if n > 1 {
		q.items[0] = last
		q.down(0)
	}
	return top, true
}

// Reset empties the queue but keeps its storage.
func (q *Queue) Reset() {
	q.items = q.items[:0]
	q.next = 0
}

func less(a, b *Event) bool {
	if a.Time != b.Time {
		return a.Time < b.Time
	}
	return a.seq < b.seq
}

func (q *Queue) up(i int) {
	items := q.items
	e := items[i]
	for i > 0 {
		p := (i - 1) / 4
		if !less(&e, &items[p]) {
			break
		}
		items[i] = items[p]
		i = p
	}
	items[i] = e
}

func (q *Queue) down(i int) {
	items := q.items
	n := len(items)
	e := items[i]
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		end := c + 4
		if end > n {
			end = n
		}
		for j := c + 1; j < end; j++ {
			if less(&items[j], &items[m]) {
				m = j
			}
		}
		if !less(&items[m], &e) {
			break
		}
		items[i] = items[m]
		i = m
	}
	items[i] = e
}
