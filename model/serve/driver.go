package serve

import (
	"sync/atomic"
	"time"

	"github.com/headroom-sim/headroom/model"
)

// event kinds a stream receives from the driver.
const (
	evStarted = iota + 1
	evCompleted
	evFailed
	evCut // the server ended the request: horizon reached, shutting down, or it could not be injected
)

// event is one thing that happened to a request.
type event struct {
	kind  int
	start model.LiveStart
	usage model.LiveUsage
	fail  model.LiveRefusal
	cut   string
}

// stream is a request in flight, shared by its handler and the driver.
// The driver sends at most three events (started, then completed, failed
// or cut), so ev never fills and the driver never blocks on a handler.
type stream struct {
	tag  uint64
	at   float64 // the simulated instant it was injected at, set by the driver before its first event
	ev   chan event
	gen  atomic.Int64  // tokens a cluster has generated (Live.Tokens)
	wake chan struct{} // a new token count is there
}

func newStream(tag uint64) *stream {
	return &stream{tag: tag, ev: make(chan event, 3), wake: make(chan struct{}, 1)}
}

func (s *stream) send(e event) {
	select {
	case s.ev <- e:
	default: // cannot happen: see stream
	}
}

func (s *stream) progress(n int) {
	if int64(n) > s.gen.Load() {
		s.gen.Store(int64(n))
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// command is what a handler asks of the driver.
type command struct {
	inject  *model.LiveRequest
	at      float64 // with inject: the simulated instant the request arrived
	st      *stream
	abandon uint64 // tag
	snap    chan<- *model.LiveSnapshot
}

// driver owns the Live and advances it to the clock. Everything that
// touches the simulation happens on its goroutine.
type driver struct {
	live    *model.Live
	clock   Clock
	cmds    chan command
	streams map[uint64]*stream
	tickets map[uint64]model.Ticket
	quit    chan struct{}
	stopped chan struct{}
	horizon chan struct{} // closed when the simulation reached its horizon
	results *model.Results
	snap    model.LiveSnapshot
	onEnd   func(tag uint64, e *event) // metrics and the request log
}

// maxSleep bounds how long the driver sleeps with nothing to do, so that
// the horizon is noticed.
const maxSleep = 250 * time.Millisecond

func (d *driver) Started(tag uint64, s *model.LiveStart) {
	if st := d.streams[tag]; st != nil {
		st.send(event{kind: evStarted, start: *s})
	}
}

func (d *driver) Completed(tag uint64, u *model.LiveUsage) {
	d.end(tag, event{kind: evCompleted, usage: *u})
}

func (d *driver) Failed(tag uint64, f *model.LiveRefusal) {
	d.end(tag, event{kind: evFailed, fail: *f})
}

func (d *driver) end(tag uint64, e event) {
	st := d.streams[tag]
	if st == nil {
		return
	}
	delete(d.streams, tag)
	delete(d.tickets, tag)
	st.send(e)
}

// run is the driver's loop: take the commands waiting (each request at
// the instant it arrived), advance to now, deliver token progress, wait for
// the next event or a command.
func (d *driver) run() {
	defer close(d.stopped)
	timer := time.NewTimer(0)
	defer timer.Stop()
	horizonSeen := false
	for {
		d.drain(horizonSeen)
		now := d.clock.Now()
		d.live.AdvanceTo(now)
		d.live.Tokens(d.tokens)
		if !horizonSeen && now >= d.live.Horizon() {
			horizonSeen = true
			d.cutAll("the live session reached the end of the scenario (its duration)")
			close(d.horizon)
		}
		wait := maxSleep
		if next, ok := d.live.NextEvent(); ok {
			wait = min(wait, time.Until(d.clock.Wall(next)))
		}
		if !horizonSeen {
			wait = min(wait, time.Until(d.clock.Wall(d.live.Horizon())))
		}
		if wait < 0 {
			wait = 0
		}
		timer.Reset(wait)
		select {
		case c := <-d.cmds:
			if !timer.Stop() {
				<-timer.C
			}
			d.do(c, horizonSeen)
		case <-timer.C:
		case <-d.quit:
			d.live.AdvanceTo(d.clock.Now())
			d.cutAll("the server is shutting down")
			d.results = d.live.Results()
			return
		}
	}
}

// drain carries out the commands already waiting, without sleeping in
// between (at most 256, so that time still advances under a flood).
func (d *driver) drain(ended bool) {
	for n := 0; n < 256; n++ {
		select {
		case c := <-d.cmds:
			d.do(c, ended)
		default:
			return
		}
	}
}

func (d *driver) tokens(tag uint64, n int) {
	if st := d.streams[tag]; st != nil {
		st.progress(n)
	}
}

// do carries out one command: a request enters the simulation at the
// instant it arrived (or, if the simulation has already passed it, at once:
// the request log's lag_ms says by how much), the others now.
func (d *driver) do(c command, ended bool) {
	if c.inject != nil {
		d.live.AdvanceTo(c.at)
	} else {
		d.live.AdvanceTo(d.clock.Now())
	}
	switch {
	case c.inject != nil:
		if ended {
			c.st.send(event{kind: evCut, cut: "the live session reached the end of the scenario (its duration)"})
			return
		}
		d.streams[c.st.tag] = c.st
		c.st.at = d.live.Now()
		tk, err := d.live.Inject(*c.inject)
		if err != nil {
			delete(d.streams, c.st.tag)
			c.st.send(event{kind: evCut, cut: err.Error()})
			return
		}
		if d.streams[c.st.tag] != nil { // not already ended (an immediate refusal)
			d.tickets[c.st.tag] = tk
		}
	case c.abandon != 0:
		if tk, ok := d.tickets[c.abandon]; ok {
			d.live.Abandon(tk)
		}
		delete(d.streams, c.abandon)
		delete(d.tickets, c.abandon)
	case c.snap != nil:
		d.live.Snapshot(&d.snap)
		s := d.snap
		s.Buckets = append([]model.BucketLevel(nil), d.snap.Buckets...)
		s.Backends = append([]model.BackendLevel(nil), d.snap.Backends...)
		c.snap <- &s
	}
}

// cutAll ends every open stream with an error.
func (d *driver) cutAll(why string) {
	for tag, st := range d.streams {
		st.send(event{kind: evCut, cut: why})
		delete(d.streams, tag)
	}
	clear(d.tickets)
}
