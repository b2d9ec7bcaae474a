package model

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/headroom-sim/headroom/workloads"
)

// traceSource is a trace workload's arrivals at run time: the replay,
// opened when the run starts, and its next record. Records are issued one
// arrival event at a time, so memory holds one record per workload
// whatever the trace's length.
type traceSource struct {
	spec   *workloads.TraceSpec
	rp     *workloads.Replay
	next   *workloads.ReplayRecord // pending record, nil when none
	block  int                     // tokens per prefix key
	in     int                     // the record being issued (newRequest reads them)
	out    int
	keys   []uint64
	capped int64 // outputs cut to max_tokens
}

// buildTrace prepares a trace workload: it checks the trace's block size
// against the clusters the workload can reach (a prefix key must cover
// whole KV blocks).
func (s *Sim) buildTrace(w *workload) error {
	spec := w.spec.Demand.Trace
	rd, err := workloads.OpenTrace(spec)
	if err != nil {
		return err
	}
	block := rd.BlockSize()
	rd.Close()
	for _, t := range w.targets {
		if t.clus != nil && t.clus.spec.PrefixCaching && block%t.clus.bs != 0 {
			return &workloads.FieldError{Key: "demand.trace.block_size", Msg: fmt.Sprintf("is %d tokens, which is not a multiple of cluster %q's kv.block_size %d; prefix reuse is counted in whole KV blocks", block, t.clus.spec.Name, t.clus.bs)}
		}
	}
	w.trace = &traceSource{spec: spec, block: block}
	return nil
}

// startTrace opens a trace workload's replay and schedules its first
// arrival.
func (s *Sim) startTrace(w *workload) error {
	tr := w.trace
	rp, err := workloads.OpenReplay(tr.spec, s.cfg.Duration, s.cfg.stream("workload/"+w.spec.Name+"/trace"))
	if err != nil {
		return s.traceFailed(w, err)
	}
	tr.rp = rp
	return s.readTrace(w)
}

// readTrace reads the next record and schedules its arrival.
func (s *Sim) readTrace(w *workload) error {
	tr := w.trace
	rec, err := tr.rp.Next()
	if errors.Is(err, io.EOF) {
		tr.next = nil
		return nil
	}
	if err != nil {
		tr.next = nil
		return s.traceFailed(w, err)
	}
	tr.next = rec
	if rec.Time < s.cfg.Duration {
		s.eng.Schedule(rec.Time, evArrival, int32(w.idx), 0)
	}
	return nil
}

// arriveTrace issues every record due now and schedules the next.
func (s *Sim) arriveTrace(w *workload) {
	tr := w.trace
	now := s.eng.Now()
	for tr.next != nil && tr.next.Time <= now {
		rec := tr.next
		tr.in, tr.out = rec.Input, rec.Output
		if tr.out > w.maxTok {
			tr.capped++
		}
		tr.keys = append(tr.keys[:0], rec.Keys...)
		s.newRequest(w, now)
		rec, err := tr.rp.Next()
		switch {
		case errors.Is(err, io.EOF):
			tr.next = nil
		case err != nil:
			tr.next = nil
			s.traceFailed(w, err)
			return
		default:
			tr.next = rec
		}
	}
	if tr.next != nil && tr.next.Time < s.cfg.Duration {
		s.eng.Schedule(math.Max(tr.next.Time, now), evArrival, int32(w.idx), 0)
	}
}

// traceTokens is the record being issued: newRequest's tokens for a trace
// workload.
func (w *workload) traceTokens() (in, out int) { return w.trace.in, w.trace.out }

// attachKeys stores the issued record's prefix keys with its request.
func (s *Sim) attachKeys(id int32, w *workload) {
	for int(id) >= len(s.keys) {
		s.keys = append(s.keys, nil)
	}
	s.keys[id] = append(s.keys[id][:0], w.trace.keys...)
}

// reqKeys returns a request's prefix keys and the tokens each covers, or
// nil when its workload's trace has none.
func (s *Sim) reqKeys(id int32) ([]uint64, int) {
	if int(id) >= len(s.keys) || len(s.keys[id]) == 0 {
		return nil, 0 // without traced workloads, s.keys stays empty
	}
	w := s.wls[s.reqs[id].wl]
	if w.trace == nil {
		return nil, 0
	}
	return s.keys[id], w.trace.block
}

// traceFailed records the first trace error of the run and stops it: the
// run returns the error instead of results.
func (s *Sim) traceFailed(w *workload, err error) error {
	if s.fatal == nil {
		s.fatal = fmt.Errorf("workload %q: trace %w", w.spec.Name, err)
		if s.stopRun != nil {
			s.stopRun()
		}
	}
	return s.fatal
}

// endTraces closes the replays and returns the run's trace error, if any,
// in place of err.
func (s *Sim) endTraces(err error) error {
	for _, w := range s.wls {
		if w.trace != nil && w.trace.rp != nil {
			w.trace.rp.Close()
		}
	}
	if s.fatal != nil {
		return s.fatal
	}
	return err
}

// traceResults describes what each trace workload read and issued.
func (s *Sim) traceResults() []TraceResult {
	var out []TraceResult
	for _, w := range s.wls {
		tr := w.trace
		if tr == nil || tr.rp == nil {
			continue
		}
		sm := tr.rp.Summary()
		out = append(out, TraceResult{Workload: w.spec.Name, File: sm.File, Format: sm.Format,
			RowsRead: sm.RowsRead, RowsKept: sm.RowsKept, TraceSpanS: sm.TraceSpanS,
			BeyondHorizon: sm.BeyondHorizon, BeyondAtLeast: sm.BeyondAtLeast,
			ZeroInput: sm.ZeroInput, ZeroOutput: sm.ZeroOutput, OutputCapped: tr.capped, MaxTokens: w.maxTok,
			Requests: sm.Requests, FirstS: sm.FirstS, LastS: sm.LastS, RatePerS: sm.RatePerS,
			Input: tokenQuantiles(sm.Input), Output: tokenQuantiles(sm.Output),
			WithPrefixKeys: sm.WithKeys, BlockTokens: sm.BlockTokens,
			Speed: sm.Speed, Scale: sm.Scale, ScaleBy: sm.ScaleBy, Copies: sm.Copies, Loop: sm.Loop, Passes: sm.Passes,
			SessionsForgotten: sm.SessionsForgotten})
	}
	return out
}

func tokenQuantiles(q workloads.TokenQuantiles) TraceTokens {
	return TraceTokens{Mean: q.Mean, P50: q.P50, P90: q.P90, P99: q.P99, Max: q.Max}
}

// TraceResult is what a trace workload read from its file and issued.
type TraceResult struct {
	Workload string `json:"workload"`
	File     string `json:"file"`
	Format   string `json:"format"`
	// RowsRead counts the data rows read (up to the window's end, in the
	// first pass); RowsKept those the filter and the window kept.
	RowsRead int64 `json:"rows_read"`
	RowsKept int64 `json:"rows_kept"`
	// TraceSpanS is the window's start to its last kept record, in trace
	// seconds (before speed).
	TraceSpanS float64 `json:"trace_span_s"`
	// BeyondHorizon counts the kept rows at or after the horizon, read but
	// not replayed because the run ended first (0 when the trace ended
	// within it); BeyondAtLeast is set when a row past the horizon could
	// not be read, so the count is a lower bound.
	BeyondHorizon int64 `json:"beyond_horizon"`
	BeyondAtLeast bool  `json:"beyond_horizon_at_least,omitempty"`
	// ZeroInput and ZeroOutput count kept rows with no prompt or no
	// output tokens, replayed with 1; OutputCapped counts requests whose
	// output was cut to MaxTokens.
	ZeroInput    int64 `json:"zero_input_rows"`
	ZeroOutput   int64 `json:"zero_output_rows"`
	OutputCapped int64 `json:"output_capped"`
	MaxTokens    int   `json:"max_tokens"`
	// Requests issued before the horizon, after speed, scale and loop;
	// FirstS and LastS their first and last arrival, RatePerS the mean
	// rate between them.
	Requests int64       `json:"requests"`
	FirstS   float64     `json:"first_s"`
	LastS    float64     `json:"last_s"`
	RatePerS float64     `json:"rate_per_s"`
	Input    TraceTokens `json:"input_tokens"`
	Output   TraceTokens `json:"output_tokens"`
	// WithPrefixKeys counts requests whose prefixes the trace describes,
	// in blocks of BlockTokens tokens.
	WithPrefixKeys int64   `json:"with_prefix_keys"`
	BlockTokens    int     `json:"block_tokens"`
	Speed          float64 `json:"speed"`
	Scale          float64 `json:"scale"`
	ScaleBy        string  `json:"scale_by"`
	Copies         int     `json:"copies"`
	Loop           bool    `json:"loop"`
	Passes         int     `json:"passes"`
	// SessionsForgotten is set when more sessions were active at once
	// than are remembered, so some idle ones lost their context.
	SessionsForgotten bool `json:"sessions_forgotten,omitempty"`
}

// TraceTokens summarise a trace's token counts (1% relative accuracy).
type TraceTokens struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}
