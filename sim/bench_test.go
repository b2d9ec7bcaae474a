package sim

import (
	"context"
	"math"
	"testing"
)

// benchPending is the number of events kept pending in the steady-state
// benchmarks: a busy simulation of a few hundred servers and in-flight
// requests.
const benchPending = 1000

// benchDeltas is a table of exponential inter-event delays (mean 1 s) so that
// the benchmarks time the queue and not the random number generator. It is
// small, so as not to take the cache from the queue, and its length is a
// power of two so that an index is wrapped with a mask.
var benchDeltas = func() []float64 {
	r := Stream(1, "bench/deltas", 0)
	d := make([]float64, benchMask+1)
	for i := range d {
		d[i] = r.ExpFloat64()
	}
	return d
}()

const benchMask = 1<<8 - 1

// steadyQueue returns a queue holding benchPending events at exponential
// times, which is already the steady state of rescheduling each popped event
// after an exponential delay (the delays are memoryless). A pop followed by
// a push then never needs more storage.
func steadyQueue() *Queue {
	var q Queue
	r := Stream(2, "bench/queue", 0)
	for i := 0; i < benchPending; i++ {
		q.Push(Event{Time: r.ExpFloat64(), Obj: int32(i)})
	}
	return &q
}

// BenchmarkQueuePushPop times one event through a queue in steady state:
// pop the earliest of benchPending events and push one at a random later
// time. ns/op is the cost of one event (a pop plus a push).
func BenchmarkQueuePushPop(b *testing.B) {
	q := steadyQueue()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		e, _ := q.Pop()
		e.Time += benchDeltas[i&benchMask]
		q.Push(e)
		i++
	}
	if q.Len() != benchPending {
		b.Fatalf("Len = %d, want %d", q.Len(), benchPending)
	}
}

// rescheduler is a trivial model: every event it handles schedules the next
// one for the same object after a random delay, until its budget runs out.
type rescheduler struct {
	eng    *Engine
	budget int
	i      int
}

func (r *rescheduler) Handle(e Event) {
	if r.budget <= 0 {
		return
	}
	r.budget--
	r.eng.After(benchDeltas[r.i&benchMask], e.Kind, e.Obj, e.Gen+1)
	r.i++
}

// BenchmarkEngine times one event through Engine.Run with benchPending
// events pending and a Handler that reschedules each event it receives. One
// op is one handled event (the last benchPending ops drain the queue).
func BenchmarkEngine(b *testing.B) { benchEngine(b, benchPending) }

// BenchmarkEngineSmall is BenchmarkEngine with a dozen events pending, as
// in a model whose queue holds its components' events rather than its
// requests' (an M/M/8 queue: the next arrival and eight services; a
// cluster: its replicas' iterations and the next arrival).
func BenchmarkEngineSmall(b *testing.B) { benchEngine(b, 12) }

// benchEngine runs the engine benchmark with pending events pending.
func benchEngine(b *testing.B, pending int) {
	var eng Engine
	r := Stream(3, "bench/engine", 0)
	for i := 0; i < pending; i++ {
		eng.Schedule(r.ExpFloat64(), 0, int32(i), 0)
	}
	h := &rescheduler{eng: &eng, budget: max(b.N-pending, 0)}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	if err := eng.Run(ctx, math.Inf(1), h); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if want := uint64(max(b.N, pending)); eng.Events() != want {
		b.Fatalf("handled %d events, want %d", eng.Events(), want)
	}
}

// TestQueueNoAllocs checks that a queue that has reached its largest size
// never allocates again: a pop followed by a push costs no allocation.
func TestQueueNoAllocs(t *testing.T) {
	q := steadyQueue()
	i := 0
	allocs := testing.AllocsPerRun(10000, func() {
		e, _ := q.Pop()
		e.Time += benchDeltas[i&benchMask]
		q.Push(e)
		i++
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per pop+push in steady state, want 0", allocs)
	}
}

// TestEngineNoAllocs checks the same for a whole engine step: handling an
// event that reschedules itself allocates nothing.
func TestEngineNoAllocs(t *testing.T) {
	var eng Engine
	for i := 0; i < benchPending; i++ {
		eng.Schedule(float64(i)/benchPending, 0, int32(i), 0)
	}
	h := &rescheduler{eng: &eng, budget: math.MaxInt}
	ctx := context.Background()
	// Each call advances the clock by 0.01 s: about ten events.
	until := 0.0
	allocs := testing.AllocsPerRun(100, func() {
		until += 0.01
		if err := eng.Run(ctx, until, h); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per Run step in steady state, want 0", allocs)
	}
	if eng.Pending() != benchPending {
		t.Fatalf("Pending = %d, want %d", eng.Pending(), benchPending)
	}
}

// BenchmarkSketchAdd measures one Add into a warmed-up sketch.
func BenchmarkSketchAdd(b *testing.B) {
	s := NewSketch()
	vals := make([]float64, 1024)
	r := Stream(1, "bench", 0)
	for i := range vals {
		vals[i] = r.ExpFloat64()
		s.Add(vals[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Add(vals[i&1023])
	}
}
