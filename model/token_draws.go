package model

import "github.com/headroom-sim/headroom/workloads"

// A workload's token counts, drawn ahead. Its token stream serves nothing
// but its requests' prompt and output lengths and prefix choices, drawn in
// the order the requests are issued, so drawing the next batch of requests'
// counts at once changes no value; a tight loop of draws (a log-normal
// one is a normal draw and an exponential) overlaps their latencies
// instead of putting them on each request's path.

// tokenDraws holds the next requests' token counts: the last left of buf
// are still to be taken. The zero value is empty.
type tokenDraws struct {
	left int
	buf  [32]workloads.TokenDraw
}

// drawTokens fills w's empty tokenDraws (issueIn takes them one by one).
func (w *workload) drawTokens() {
	w.tok.Fill(w.rngTok, w.tokAhead.buf[:])
	w.tokAhead.left = len(w.tokAhead.buf)
}
