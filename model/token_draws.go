package model

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
	buf  [32]drawnTokens
}

// drawnTokens is one request's drawn prompt length, output length and
// prefix index.
type drawnTokens struct{ in, out, prefix int32 }

// nextTokens draws the next request's token counts from w's sampler,
// a batch at a time.
func (w *workload) nextTokens() (in, out, prefix int) {
	d := &w.tokAhead
	if d.left == 0 {
		for i := range d.buf {
			a, b, c := w.tok.Sample(w.rngTok)
			d.buf[i] = drawnTokens{int32(a), int32(b), int32(c)}
		}
		d.left = len(d.buf)
	}
	t := d.buf[len(d.buf)-d.left]
	d.left--
	return int(t.in), int(t.out), int(t.prefix)
}
