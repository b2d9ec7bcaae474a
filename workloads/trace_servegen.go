package workloads

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// ServeGen (Xiang et al., arXiv 2505.09999) publishes no per-request rows:
// each client's chunk-N-trace.csv gives, per window (600 s in the published
// data), the start time in seconds, the request rate, the inter-arrival CV,
// the fitted family (Gamma or Weibull) and its shape and scale; its
// chunk-N-dataset.json gives, per 6-hour window, the distributions of input
// and output tokens as Python dict strings "{120: 0.25, 480: ...}".
//
// A ServeGen trace is replayed as the process those statistics describe:
// in each window, gaps drawn from the window's family with its fitted shape,
// scaled so that the mean gap is 1/rate (the rate column is the count over
// the window; the fitted scale alone need not reproduce it), restarting at
// each window's start; windows without a family are Poisson. Tokens are
// drawn from the token distributions of the dataset window in force
// (the latest one at or before the request with a distribution, else the
// first one after). Reasoning models' reason_ratio (the reasoning share of
// the output) is not needed: output_tokens counts every generated token.

// maxServeGenRate bounds a window's rate, requests per second.
const maxServeGenRate = 1e6

// sgWindow is one row of a ServeGen trace.
type sgWindow struct {
	start, end float64 // seconds
	rate       float64 // requests per second
	family     string  // "Gamma", "Weibull" or "" (Poisson)
	shape      float64
	line       int
}

// sgPMF is a token-count distribution as a cumulative table.
type sgPMF struct {
	values []int
	cum    []float64 // cumulative weights, last = total
}

func (p *sgPMF) sample(r *rand.Rand) int {
	u := r.Float64() * p.cum[len(p.cum)-1]
	i := sort.SearchFloat64s(p.cum, u)
	if i >= len(p.values) {
		i = len(p.values) - 1
	}
	return p.values[i]
}

// sgTokens is one dataset window's distributions.
type sgTokens struct {
	start         float64
	input, output *sgPMF
}

type serveGenSource struct {
	path    string
	windows []sgWindow
	tokens  []sgTokens // sorted by start, only windows with distributions
	r       *rand.Rand
	w       int     // current window
	t       float64 // time of the latest arrival in the window
	started bool
	line    int
}

func openServeGenSource(spec *TraceSpec, path string, r *rand.Rand) (*serveGenSource, error) {
	rd, cl, err := openTraceFile(path)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	s := &serveGenSource{path: path, r: r}
	cr := csv.NewReader(rd)
	cr.FieldsPerRecord = 6
	cr.TrimLeadingSpace = true
	prevStart := math.Inf(-1)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			msg := err.Error()
			if pe != nil {
				msg = pe.Err.Error()
				if errors.Is(pe.Err, csv.ErrFieldCount) {
					msg = "want 6 fields: window start (s), rate (requests/s), inter-arrival CV, family (Gamma, Weibull or empty), shape, scale"
				}
			}
			return nil, &TraceError{File: path, Line: line, Msg: msg}
		}
		line, _ := cr.FieldPos(0)
		bad := func(format string, a ...any) error {
			return &TraceError{File: path, Line: line, Msg: fmt.Sprintf(format, a...)}
		}
		num := func(i int, name string) (float64, error) {
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[i]), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return 0, bad("%s %q: want a finite number >= 0", name, rec[i])
			}
			return v, nil
		}
		start, err := num(0, "window start")
		if err != nil {
			return nil, err
		}
		rate, err := num(1, "rate")
		if err != nil {
			return nil, err
		}
		if rate > maxServeGenRate {
			return nil, bad("rate %v is above %g requests/s", rate, float64(maxServeGenRate))
		}
		if start <= prevStart {
			return nil, bad("window start %v is not after the previous row's %v; rows must be in time order", start, prevStart)
		}
		if start > maxTraceHorizonS {
			return nil, bad("window start %v is out of range", start)
		}
		fam := strings.TrimSpace(rec[3])
		var shape float64
		switch fam {
		case "":
		case "Gamma", "Weibull":
			if shape, err = num(4, "shape"); err != nil {
				return nil, err
			}
			if rate > 0 && !(shape >= 1e-3 && shape <= 1e4) {
				return nil, bad("%s shape %v is out of range 0.001..10000", fam, shape)
			}
		default:
			return nil, bad("family %q: want Gamma, Weibull or empty", fam)
		}
		if n := len(s.windows); n > 0 {
			s.windows[n-1].end = start
		}
		prevStart = start
		s.windows = append(s.windows, sgWindow{start: start, end: math.Inf(1), rate: rate, family: fam, shape: shape, line: line})
	}
	if len(s.windows) == 0 {
		return nil, &TraceError{File: path, Msg: "no windows"}
	}
	// The last window is as long as the one before it (or 600 s).
	n := len(s.windows)
	length := 600.0
	if n > 1 {
		length = s.windows[n-1].start - s.windows[n-2].start
	}
	s.windows[n-1].end = s.windows[n-1].start + length
	ds := spec.DatasetPath()
	if ds == "" {
		return nil, &TraceError{File: path, Msg: "a ServeGen trace needs its dataset: name it in dataset = \"chunk-N-dataset.json\" (the default is the trace's name with -trace.csv replaced by -dataset.json)"}
	}
	if s.tokens, err = spec.Cache.dataset(ds); err != nil {
		return nil, err
	}
	return s, nil
}

// TraceCache keeps what is worth parsing once per process: a ServeGen
// chunk's dataset JSON (its token distributions, about 50 ms for the
// public 1.4 MB chunk), which every validation, build and replay of a
// variant, sweep point or replication would otherwise read again. A
// scenario owns one and hands it to its trace specs; a nil cache reads
// every time. A file whose size or modification time changed since it was
// read is read again. It is safe for concurrent use.
type TraceCache struct {
	mu       sync.Mutex
	datasets map[string]datasetEntry
}

// datasetEntry is one parsed dataset and the file it was read from.
type datasetEntry struct {
	size   int64
	mod    time.Time
	tokens []sgTokens // read only once stored
}

// NewTraceCache returns an empty cache.
func NewTraceCache() *TraceCache { return &TraceCache{datasets: map[string]datasetEntry{}} }

// dataset reads a ServeGen dataset, from the cache when the file is
// unchanged. Errors are not kept: a bad file is reported every time.
func (c *TraceCache) dataset(path string) ([]sgTokens, error) {
	if c == nil {
		return readServeGenDataset(path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return readServeGenDataset(path) // reports the error as a reader would
	}
	key, _ := filepath.Abs(path)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.datasets[key]; ok && e.size == fi.Size() && e.mod.Equal(fi.ModTime()) {
		return e.tokens, nil
	}
	tokens, err := readServeGenDataset(path)
	if err != nil {
		return nil, err
	}
	c.datasets[key] = datasetEntry{size: fi.Size(), mod: fi.ModTime(), tokens: tokens}
	return tokens, nil
}

// readServeGenDataset reads the token distributions of a ServeGen chunk.
func readServeGenDataset(path string) ([]sgTokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &TraceError{File: path, Msg: strings.TrimPrefix(err.Error(), "open "+path+": ")}
	}
	defer f.Close()
	var raw map[string]map[string]string
	if err := json.NewDecoder(io.LimitReader(f, 1<<30)).Decode(&raw); err != nil {
		return nil, &TraceError{File: path, Msg: "want a JSON object mapping window starts to {\"input_tokens\": \"{...}\", \"output_tokens\": \"{...}\"}: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	var out []sgTokens
	for k, w := range raw {
		start, err := strconv.ParseFloat(k, 64)
		if err != nil || math.IsNaN(start) || math.IsInf(start, 0) || start < 0 {
			return nil, &TraceError{File: path, Msg: fmt.Sprintf("window %q: want a start time in seconds", k)}
		}
		in, err := parsePyPMF(w["input_tokens"])
		if err != nil {
			return nil, &TraceError{File: path, Msg: fmt.Sprintf("window %s: input_tokens: %v", k, err)}
		}
		outp, err := parsePyPMF(w["output_tokens"])
		if err != nil {
			return nil, &TraceError{File: path, Msg: fmt.Sprintf("window %s: output_tokens: %v", k, err)}
		}
		if in == nil || outp == nil {
			continue // no requests in this window
		}
		out = append(out, sgTokens{start: start, input: in, output: outp})
	}
	if len(out) == 0 {
		return nil, &TraceError{File: path, Msg: "no window has token distributions"}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out, nil
}

// parsePyPMF parses a Python dict "{165: 0.0003, 211: 3.1e-05}" of token
// counts to probabilities; "{}" (no requests) gives nil.
func parsePyPMF(s string) (*sgPMF, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return nil, fmt.Errorf("want a dict like \"{165: 0.5, 211: 0.5}\"")
	}
	body := strings.TrimSpace(s[1 : len(s)-1])
	if body == "" {
		return nil, nil
	}
	type kv struct {
		v int
		p float64
	}
	var items []kv
	for _, part := range strings.Split(body, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("entry %q: want count: probability", part)
		}
		kf, err1 := strconv.ParseFloat(strings.Trim(strings.TrimSpace(k), `"'`), 64)
		p, err2 := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err1 != nil || err2 != nil || math.IsNaN(kf) || kf < 0 || kf > maxTokens || kf != math.Trunc(kf) ||
			math.IsNaN(p) || math.IsInf(p, 0) || p < 0 {
			return nil, fmt.Errorf("entry %q: want a whole token count and a probability >= 0", part)
		}
		items = append(items, kv{int(kf), p})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].v < items[j].v })
	pmf := &sgPMF{}
	total := 0.0
	for _, it := range items {
		if it.p == 0 {
			continue
		}
		total += it.p
		pmf.values = append(pmf.values, it.v)
		pmf.cum = append(pmf.cum, total)
	}
	if total == 0 {
		return nil, nil
	}
	return pmf, nil
}

func (s *serveGenSource) close() error { return nil }

// gap draws one inter-arrival gap of window w, mean 1/rate.
func (s *serveGenSource) gap(w *sgWindow) float64 {
	mean := 1 / w.rate
	switch w.family {
	case "Gamma":
		return distuv.Gamma{Alpha: w.shape, Beta: w.shape / mean, Src: s.r}.Rand()
	case "Weibull":
		// Weibull(k, λ) has mean λΓ(1 + 1/k).
		lambda := mean / math.Gamma(1+1/w.shape)
		return distuv.Weibull{K: w.shape, Lambda: lambda, Src: s.r}.Rand()
	}
	return s.r.ExpFloat64() * mean
}

func (s *serveGenSource) next(r *TraceRow) error {
	for s.w < len(s.windows) {
		w := &s.windows[s.w]
		if w.rate <= 0 {
			s.w++
			s.started = false
			continue
		}
		if !s.started {
			s.started = true
			s.t = w.start
		}
		s.t += s.gap(w)
		if s.t >= w.end {
			s.w++
			s.started = false
			continue
		}
		s.line++
		r.Line = w.line
		r.abs = int64(math.Round(s.t * 1e9))
		tk := s.tokensAt(s.t)
		r.Input, r.Output = tk.input.sample(s.r), tk.output.sample(s.r)
		r.keep = true
		r.Blocks = r.Blocks[:0]
		r.HasSession, r.HasPrefix = false, false
		r.Model, r.Tenant, r.Workload = "", "", ""
		return nil
	}
	return io.EOF
}

// tokensAt is the dataset window in force at time t.
func (s *serveGenSource) tokensAt(t float64) *sgTokens {
	i := sort.Search(len(s.tokens), func(i int) bool { return s.tokens[i].start > t }) - 1
	if i < 0 {
		i = 0
	}
	return &s.tokens[i]
}
