package workloads

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"

	"github.com/headroom-sim/headroom/sim"
)

// ReplayRecord is one request of a replayed trace.
type ReplayRecord struct {
	// Time is the simulated arrival time in seconds.
	Time float64
	// Input and Output are its prompt and generated tokens (each at least 1).
	Input, Output int
	// Keys identify the request's context block by block: Keys[i] names
	// its first (i+1)·BlockTokens tokens, so two requests share a prefix
	// of k blocks exactly when their first k keys are equal. Keys cover
	// the prompt's whole blocks and, for sessions, the generated tokens
	// too (a later turn's prompt starts with this turn's context). Nil
	// when the trace says nothing about prefixes. The slice is reused by
	// the next call to Next.
	Keys []uint64
	// Line is the record's line in the trace file.
	Line int
	// Model, Tenant and Workload are the record's fields when the format
	// has them.
	Model, Tenant, Workload string
}

// Replay streams a trace's requests in time order as its TraceSpec shapes
// them: filter, window, speed, scale (thinning or shifted copies) and loop.
// Memory does not grow with the trace's length: each copy reads the file
// as a stream, and sessions are remembered up to a fixed bound. Replay is
// not safe for concurrent use.
type Replay struct {
	spec    *TraceSpec
	path    string
	format  string
	block   int
	horizon float64
	r       *rand.Rand
	streams []*replayStream
	heap    minHeap[float64, *replayStream] // streams with a pending record, by (time, index)
	started bool
	done    bool
	sum     TraceSummary
	in, out *sim.Sketch
	fileNS  uint64
	cur     ReplayRecord // the record handed out by Next
	keyBuf  []uint64     // its keys
	clock   float64      // StartClock
	clockOK bool
}

// replayStream is one copy of the trace.
type replayStream struct {
	idx    int
	rd     *TraceReader
	keep   float64 // probability of keeping a record (1: all)
	shift  float64 // simulated seconds added to every time
	pass   int     // loop pass
	offset float64 // trace seconds added in this pass
	period float64 // loop period in trace seconds, once known
	n      int64   // records read in this pass
	eof    bool    // the reader ended (in this pass, without a loop to follow)
	first  float64
	last   float64
	row    TraceRow
	rec    ReplayRecord
	sess   map[uint64]sessState
	sweep  int
}

// sessState is what a session's previous turn left: its context length
// and the generation of its keys (a turn shorter than the context before
// it starts a new conversation under the same id).
type sessState struct {
	ctx      int
	gen      uint32
	lastSeen float64
}

// OpenReplay opens a replay of spec up to horizon simulated seconds,
// drawing the thinning (and a ServeGen trace's arrivals) from r (a fixed
// stream when nil). The caller must Close it.
func OpenReplay(spec *TraceSpec, horizon float64, r *rand.Rand) (*Replay, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if math.IsNaN(horizon) || horizon < 0 {
		return nil, fmt.Errorf("replay horizon must be >= 0, got %v", horizon)
	}
	if r == nil {
		r = rand.New(rand.NewPCG(0x5e7e, 0x6e4)) // the fixed stream OpenTrace uses
	}
	rp := &Replay{spec: spec, path: spec.Path(), horizon: horizon, r: r, in: sim.NewSketch(), out: sim.NewSketch()}
	abs, err := filepath.Abs(rp.path)
	if err != nil {
		abs = rp.path
	}
	rp.fileNS = hashID([]byte(abs))
	scale := spec.scale()
	var keeps []float64
	if spec.scaleBy() == ScaleThin {
		keeps = []float64{scale}
	} else {
		k := int(math.Floor(scale))
		for j := 0; j < k; j++ {
			keeps = append(keeps, 1)
		}
		if f := scale - float64(k); f > 1e-12 {
			keeps = append(keeps, f)
		}
	}
	for j, keep := range keeps {
		rd, err := OpenTraceRand(spec, r)
		if err != nil {
			rp.Close()
			return nil, err
		}
		st := &replayStream{idx: j, rd: rd, keep: keep, shift: float64(j) * spec.copyShift()}
		if spec.scaleBy() == ScaleThin {
			st.shift = 0
		}
		if spec.To > 0 {
			st.period = float64(spec.To - spec.From)
		}
		rp.streams = append(rp.streams, st)
	}
	rp.format = rp.streams[0].rd.Format()
	rp.block = rp.streams[0].rd.BlockSize()
	rp.sum = TraceSummary{File: rp.path, Format: rp.format, Copies: len(keeps), Scale: scale, ScaleBy: spec.scaleBy(), Speed: spec.speed(), Loop: spec.Loop}
	return rp, nil
}

// BlockTokens is the number of tokens each of ReplayRecord.Keys covers.
func (rp *Replay) BlockTokens() int { return rp.block }

// Format is the trace's format.
func (rp *Replay) Format() string { return rp.format }

// Close closes every file the replay holds.
func (rp *Replay) Close() error {
	var first error
	for _, st := range rp.streams {
		if st.rd != nil {
			if err := st.rd.Close(); err != nil && first == nil {
				first = err
			}
			st.rd = nil
		}
	}
	return first
}

// Next returns the next request in time order, or io.EOF when the trace (or
// the horizon) is over. Errors are *TraceError values naming the line.
func (rp *Replay) Next() (*ReplayRecord, error) {
	if rp.done {
		return nil, io.EOF
	}
	if !rp.started {
		rp.started = true
		for _, st := range rp.streams {
			if err := rp.advance(st); err != nil {
				if errors.Is(err, io.EOF) {
					continue
				}
				return nil, err
			}
			rp.heap.push(st.rec.Time, st.idx, st)
		}
	}
	if rp.heap.Len() == 0 {
		rp.finish()
		return nil, io.EOF
	}
	st := rp.heap.top()
	if st.rec.Time >= rp.horizon {
		rp.countBeyond()
		rp.finish()
		return nil, io.EOF
	}
	// Hand out the stream's record and read its next one. The record the
	// caller gets stays valid until the next call: keep a copy aside.
	out := &rp.cur
	out.Time, out.Input, out.Output, out.Line = st.rec.Time, st.rec.Input, st.rec.Output, st.rec.Line
	out.Model, out.Tenant, out.Workload = st.rec.Model, st.rec.Tenant, st.rec.Workload
	out.Keys = nil
	if len(st.rec.Keys) > 0 {
		rp.keyBuf = append(rp.keyBuf[:0], st.rec.Keys...)
		out.Keys = rp.keyBuf
	}
	err := rp.advance(st)
	switch {
	case errors.Is(err, io.EOF):
		rp.heap.pop()
	case err != nil:
		return nil, err
	default:
		rp.heap.rekeyTop(st.rec.Time)
	}
	rp.count(out)
	return out, nil
}

// advance reads stream st's next record into st.rec.
func (rp *Replay) advance(st *replayStream) error {
	spec := rp.spec
	for {
		err := st.rd.Next(&st.row)
		if errors.Is(err, io.EOF) {
			if st.idx == 0 && st.pass == 0 {
				rp.sum.RowsRead = st.rd.RowsRead()
				rp.sum.RowsKept = st.n
				rp.sum.TraceSpanS = st.last
			}
			if !spec.Loop || st.n == 0 {
				st.eof = true
				return io.EOF
			}
			if st.period == 0 {
				if st.n < 2 {
					return &TraceError{File: rp.path, Msg: "loop needs at least two records to know the trace's length, or a window end (to)"}
				}
				st.period = st.last + (st.last-st.first)/float64(st.n-1)
				if !(st.period > 0) {
					return &TraceError{File: rp.path, Msg: "loop: every record is at the same time, so the trace has no length; set the window end (to)"}
				}
			}
			next := st.offset + st.period
			if next/spec.speed()+st.shift >= rp.horizon {
				st.eof = true
				return io.EOF
			}
			if err := st.rd.Close(); err != nil {
				return err
			}
			rd, err := OpenTraceRand(spec, rp.r)
			if err != nil {
				return err
			}
			st.rd = rd
			st.pass++
			st.offset = next
			st.n = 0
			clear(st.sess)
			if st.idx == 0 {
				rp.sum.Passes = st.pass + 1
			}
			continue
		}
		if err != nil {
			return err
		}
		row := &st.row
		if st.n == 0 {
			st.first = row.Time
		}
		st.n++
		st.last = row.Time
		if st.keep < 1 && rp.r.Float64() >= st.keep {
			continue
		}
		rec := &st.rec
		rec.Time = (row.Time+st.offset)/spec.speed() + st.shift
		rec.Input, rec.Output, rec.Line = max(row.Input, 1), max(row.Output, 1), row.Line
		rec.Model, rec.Tenant, rec.Workload = row.Model, row.Tenant, row.Workload
		if st.idx == 0 && st.pass == 0 {
			if row.Output == 0 {
				rp.sum.ZeroOutput++
			}
			if row.Input == 0 {
				rp.sum.ZeroInput++
			}
		}
		rp.keys(st, row, rec)
		return nil
	}
}

// Mix64 is SplitMix64's finaliser: a fast, well-spread 64-bit mix (trace
// keys here, session routing in model).
func Mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// keys fills rec.Keys from the row's block hashes, session or prefix id,
// in the namespace of the file, the copy and the loop pass.
func (rp *Replay) keys(st *replayStream, row *TraceRow, rec *ReplayRecord) {
	rec.Keys = rec.Keys[:0]
	ns := Mix64(rp.fileNS ^ Mix64(uint64(st.idx)<<32|uint64(st.pass)))
	b := rp.block
	switch {
	case len(row.Blocks) > 0:
		// Whole prompt blocks only: a trailing partial block's hash
		// covers prompt tokens the next request need not share.
		n := min(len(row.Blocks), rec.Input/b)
		k := ns
		for _, h := range row.Blocks[:n] {
			k = Mix64(k ^ Mix64(h))
			rec.Keys = append(rec.Keys, k)
		}
	case row.HasSession:
		if st.sess == nil {
			st.sess = map[uint64]sessState{}
		}
		ss, seen := st.sess[row.Session]
		if seen && row.Input < ss.ctx {
			ss.gen++ // shorter than the context before it: a new conversation
		}
		ss.ctx = row.Input + row.Output
		ss.lastSeen = rec.Time
		if !seen && len(st.sess) >= maxSessions {
			rp.forget(st)
		}
		st.sess[row.Session] = ss
		base := Mix64(ns ^ Mix64(row.Session) ^ uint64(ss.gen)<<1)
		n := min((row.Input+row.Output)/b, maxTraceBlocks)
		for j := 0; j < n; j++ {
			rec.Keys = append(rec.Keys, Mix64(base+uint64(j)))
		}
	case row.HasPrefix:
		base := Mix64(ns ^ Mix64(row.Prefix) ^ 1)
		n := min(min(row.PrefixTokens, row.Input)/b, maxTraceBlocks)
		for j := 0; j < n; j++ {
			rec.Keys = append(rec.Keys, Mix64(base+uint64(j)))
		}
	}
	if len(rec.Keys) == 0 {
		rec.Keys = nil
	}
}

// forget drops the older half of a stream's sessions (by their latest
// turn), so that memory stays bounded however many sessions a trace has.
func (rp *Replay) forget(st *replayStream) {
	times := make([]float64, 0, len(st.sess))
	for _, s := range st.sess {
		times = append(times, s.lastSeen)
	}
	cut := quickMedian(times)
	for k, s := range st.sess {
		if s.lastSeen <= cut {
			delete(st.sess, k)
		}
	}
	rp.sum.SessionsForgotten = true
}

// quickMedian returns the median of v (which it reorders).
func quickMedian(v []float64) float64 {
	k := len(v) / 2
	lo, hi := 0, len(v)-1
	for lo < hi {
		p := v[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for v[i] < p {
				i++
			}
			for v[j] > p {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		if k <= j {
			hi = j
		} else if k >= i {
			lo = i
		} else {
			break
		}
	}
	return v[k]
}

// count adds an issued request to the summary.
func (rp *Replay) count(rec *ReplayRecord) {
	s := &rp.sum
	if s.Requests == 0 {
		s.FirstS = rec.Time
		rp.noteClock()
	}
	s.Requests++
	s.LastS = rec.Time
	rp.in.Add(float64(rec.Input))
	rp.out.Add(float64(rec.Output))
	if len(rec.Keys) > 0 {
		s.WithKeys++
	}
}

// countBeyond completes the first copy's first pass when the horizon ends
// the replay before the file does: it reads the rest of the file (or of
// its window) without replaying it, so the summary counts every row and
// BeyondHorizon those the replay did not reach. A row it cannot read
// stops the count, which is then a lower bound (BeyondAtLeast): a row the
// run never needed does not fail it. A ServeGen trace's arrivals are
// drawn rather than read, so its count stays at the first one past the
// horizon, a lower bound.
func (rp *Replay) countBeyond() {
	st := rp.streams[0]
	if st.pass != 0 || st.eof || st.rd == nil {
		return
	}
	// st.rec is the first record past the horizon: read, not replayed.
	rp.sum.BeyondHorizon = 1
	if rp.format == FormatServeGen {
		// Its arrivals are drawn, not read: drawing the rest of a day
		// costs as much as replaying it, for a count nobody wrote.
		rp.sum.BeyondAtLeast = true
		return
	}
	for {
		err := st.rd.Next(&st.row)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			rp.sum.BeyondAtLeast = true
			break
		}
		st.n++
		st.last = st.row.Time
		rp.sum.BeyondHorizon++
	}
	st.eof = true
	rp.sum.RowsRead = st.rd.RowsRead()
	rp.sum.RowsKept = st.n
	rp.sum.TraceSpanS = st.last
}

// finish closes the files at the end of the replay.
func (rp *Replay) finish() {
	rp.done = true
	rp.Close()
}

// Summary describes what the replay read and issued so far.
func (rp *Replay) Summary() TraceSummary {
	s := rp.sum
	if st := rp.streams[0]; st.pass == 0 && !rp.done {
		s.RowsKept = st.n
		if st.rd != nil {
			s.RowsRead = st.rd.RowsRead()
		}
		s.TraceSpanS = st.last
	}
	if s.Passes == 0 {
		s.Passes = 1
	}
	s.Input = quantilesOf(rp.in)
	s.Output = quantilesOf(rp.out)
	if span := s.LastS - s.FirstS; s.Requests > 1 && span > 0 {
		s.RatePerS = float64(s.Requests-1) / span
	}
	s.BlockTokens = rp.block
	return s
}

func quantilesOf(sk *sim.Sketch) TokenQuantiles {
	if sk.Count() == 0 {
		return TokenQuantiles{}
	}
	return TokenQuantiles{Mean: sk.Mean(), P50: sk.Quantile(0.5), P90: sk.Quantile(0.9), P99: sk.Quantile(0.99), Max: sk.Max()}
}

// TraceSummary is what a replay read and issued.
type TraceSummary struct {
	File   string
	Format string
	// RowsRead counts the data rows of the file read in the first pass
	// (up to the window's end); RowsKept those the filter and window kept.
	RowsRead, RowsKept int64
	// TraceSpanS is the time from the window's start to its last kept
	// record, in trace seconds.
	TraceSpanS float64
	// BeyondHorizon counts the kept rows of the first pass at or after the
	// horizon (in simulated time), read but not replayed: the run ended
	// before the trace did. BeyondAtLeast is set when a row past the
	// horizon could not be read, so the count stops short of the file's end.
	BeyondHorizon int64
	BeyondAtLeast bool
	// ZeroInput and ZeroOutput count kept rows with no prompt or no
	// generated tokens (replayed with 1).
	ZeroInput, ZeroOutput int64
	// Requests counts the requests issued before the horizon (after
	// speed, scale and loop); FirstS and LastS are the simulated times of
	// the first and last, and RatePerS their mean rate.
	Requests      int64
	FirstS, LastS float64
	RatePerS      float64
	// Input and Output describe the issued requests' tokens.
	Input, Output TokenQuantiles
	// WithKeys counts issued requests that carry prefix keys, each key
	// BlockTokens tokens.
	WithKeys    int64
	BlockTokens int
	// The transforms: Speed, Scale (Copies streams, by ScaleBy), Loop
	// (Passes started by the first copy).
	Speed   float64
	Scale   float64
	ScaleBy string
	Copies  int
	Loop    bool
	Passes  int
	// SessionsForgotten is set when more sessions were active than
	// Headroom remembers at once, so some long-idle ones lost their
	// context.
	SessionsForgotten bool
}

// TokenQuantiles summarise token counts (1% relative accuracy).
type TokenQuantiles struct {
	Mean, P50, P90, P99, Max float64
}

// StartClock is the clock time (seconds after midnight, UTC) of trace
// time From, when the format says: date-time traces, BurstGPT and
// ServeGen, whose times count seconds from a midnight, and numeric times
// that are Unix timestamps (EpochTime). It is known once Next has
// returned a record.
func (rp *Replay) StartClock() (float64, bool) { return rp.clock, rp.clockOK }

// StartTime is the instant of trace time From, in nanoseconds since 1970
// UTC, when the log's times carry a date: date-time traces and numeric
// times that are Unix timestamps. BurstGPT's and ServeGen's times count
// from a midnight of no given date, so they have a StartClock but no
// StartTime. It is known once Next has returned a record.
func (rp *Replay) StartTime() (int64, bool) {
	rd := rp.streams[0].rd
	if rd == nil || !rd.started || !rp.clockOK || rp.format == FormatBurstGPT || rp.format == FormatServeGen {
		return 0, false
	}
	return rd.t0 + int64(float64(rp.spec.From)*1e9), true
}

// noteClock records StartClock from the first stream's reader.
func (rp *Replay) noteClock() {
	rd := rp.streams[0].rd
	if rd == nil || !rd.started {
		return
	}
	switch {
	case rp.format == FormatAzure || rp.spec.TimeUnit == TimeDatetime,
		rp.format == FormatBurstGPT, rp.format == FormatServeGen,
		EpochTime(rd.t0):
		s := math.Mod(float64(rd.t0)/1e9+float64(rp.spec.From), 86400)
		if s < 0 {
			s += 86400
		}
		rp.clock, rp.clockOK = s, true
	}
}
