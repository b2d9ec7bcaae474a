package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/sim"
	"github.com/headroom-sim/headroom/workloads"
	"pgregory.net/rapid"
)

// writeTrace writes a trace fixture into a temporary directory.
func writeTrace(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// hostedTraceConfig replays a trace against a hosted API whose TTFT is
// exactly base + per-token × uncached input and TPOT exact.
func hostedTraceConfig(spec *workloads.TraceSpec, duration float64) Config {
	return Config{Name: "trace", Seed: 1, Duration: duration, Interval: 10,
		Workloads: []WorkloadSpec{{Name: "replay", Route: "api", Demand: workloads.DemandSpec{Trace: spec},
			Tokens: workloads.TokenSpec{MaxTokens: 100000}}},
		Providers: []ProviderSpec{{Name: "api", Latency: LatencySpec{
			TTFT: TTFTSpec{Base: 0.2, PerInputToken: 0.001}, TPOT: TPOTSpec{Mean: 0.01}}}},
	}
}

// TestTraceArrivalsAreTheTrace: every record arrives at its own time with
// its own tokens, in order. The hosted API's latency is deterministic, so
// each request's end-to-end time is known from its tokens; the sum of
// TTFTs and the per-interval arrival counts must match the fixture's.
func TestTraceArrivalsAreTheTrace(t *testing.T) {
	var b strings.Builder
	b.WriteString("t,in,out\n")
	r := rand.New(rand.NewPCG(3, 4))
	type rec struct {
		t       float64
		in, out int
	}
	var recs []rec
	x := 0.0
	for i := 0; i < 400; i++ {
		x += r.ExpFloat64() * 0.5
		rc := rec{math.Round(x*1000) / 1000, 1 + r.IntN(4000), 1 + r.IntN(300)}
		recs = append(recs, rc)
		fmt.Fprintf(&b, "%.3f,%d,%d\n", rc.t, rc.in, rc.out)
	}
	spec := &workloads.TraceSpec{File: writeTrace(t, "t.csv", b.String()), Format: workloads.FormatCSV,
		Columns: workloads.TraceColumns{Time: "t", Input: "in", Output: "out"}}
	cfg := hostedTraceConfig(spec, 1000)
	res := mustRun(t, cfg)
	s := res.Summary
	if s.Requests.Offered != 400 || s.Requests.Completed != 400 {
		t.Fatalf("requests %+v", s.Requests)
	}
	var in, out int64
	ttft := 0.0
	counts := make([]int64, len(res.Series.Offered))
	for _, rc := range recs {
		in += int64(rc.in)
		out += int64(rc.out)
		ttft += 0.2 + 0.001*float64(rc.in)
		counts[int((rc.t-recs[0].t)/10)]++
	}
	if s.Tokens.Input != in || s.Tokens.Output != out {
		t.Errorf("tokens %d in %d out, want %d and %d", s.Tokens.Input, s.Tokens.Output, in, out)
	}
	if got := s.Latency.TTFT.Mean * 400; math.Abs(got-ttft) > 1e-6*ttft {
		t.Errorf("sum of TTFTs %v, want %v", got, ttft)
	}
	for i, c := range counts {
		if res.Series.Offered[i] != c {
			t.Fatalf("interval %d: %d arrivals, the trace has %d", i, res.Series.Offered[i], c)
		}
	}
	if len(res.Traces) != 1 || res.Traces[0].Requests != 400 || res.Traces[0].RowsRead != 400 || res.Traces[0].Format != "csv" {
		t.Errorf("trace results %+v", res.Traces)
	}
}

// TestTraceErrorStopsTheRun: a malformed row met during the run ends it
// with the file and line, and no results.
func TestTraceErrorStopsTheRun(t *testing.T) {
	var b strings.Builder
	b.WriteString("t,in,out\n")
	for i := 0; i < 50000; i++ {
		fmt.Fprintf(&b, "%d,10,1\n", i)
	}
	b.WriteString("50000,ten,1\n")
	spec := &workloads.TraceSpec{File: writeTrace(t, "bad.csv", b.String()), Format: workloads.FormatCSV,
		Columns: workloads.TraceColumns{Time: "t", Input: "in", Output: "out"}}
	s, err := Build(hostedTraceConfig(spec, 1e6))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background())
	var te *workloads.TraceError
	if res != nil || !errors.As(err, &te) || te.Line != 50002 || !strings.Contains(err.Error(), `workload "replay": trace `) {
		t.Fatalf("got %v, %v", res, err)
	}
	if s.eng.Now() >= 1e6 {
		t.Errorf("the run went on to %v after the error", s.eng.Now())
	}
	// A missing file is found when the configuration is checked.
	spec.File = filepath.Join(t.TempDir(), "none.csv")
	cfg := hostedTraceConfig(spec, 100)
	cfg.ApplyDefaults()
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "demand.trace.file") || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}

// TestTraceTokensRules: a trace gives the tokens, so the token
// distributions must be left out.
func TestTraceTokensRules(t *testing.T) {
	spec := &workloads.TraceSpec{File: "../workloads/testdata/made_up_azure.csv"}
	cfg := hostedTraceConfig(spec, 100)
	cfg.Workloads[0].Tokens.Input = workloads.Fixed(10)
	cfg.ApplyDefaults()
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "tokens.input: does not apply to a trace") {
		t.Errorf("got %v", err)
	}
}

// mooncakeHitRate is the prefix-cache hit rate a trace's block hashes give
// directly: each request reuses its longest run of leading whole blocks
// that some earlier request had (capped so one prompt token is computed),
// over all prompt tokens. Only the first n records are counted (n < 0:
// all).
func mooncakeHitRate(t *testing.T, path string, n int) (hit, input int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	seen := map[string]bool{}
	for i := 0; n < 0 || i < n; i++ {
		var rec struct {
			In     int   `json:"input_length"`
			HashID []int `json:"hash_ids"`
		}
		if err := dec.Decode(&rec); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		full := min(len(rec.HashID), rec.In/512)
		lead, prefix := 0, ""
		for j := 0; j < full; j++ {
			prefix += fmt.Sprintf("%d,", rec.HashID[j])
			if lead == j && seen[prefix] {
				lead++
			}
			seen[prefix] = true
		}
		hit += int64(min(lead, (rec.In-1)/512) * 512)
		input += int64(rec.In)
	}
	return hit, input
}

// ampleCluster serves fast (a step table of 1 ms plus 1 µs per prompt
// token) with KV memory for every block of the trace, one prompt per
// prefill chunk, so nothing is evicted or preempted.
func ampleCluster(chunk int) ClusterSpec {
	return ClusterSpec{Name: "gpu", Replicas: 1, PrefixCaching: true, MaxNumSeqs: 1024, MaxNumBatchedTokens: chunk,
		KV:   KVSpec{BlockSize: 16, Blocks: 16 << 20},
		Step: StepSpec{Kind: "table", Batches: []float64{1, 1024}, Times: []workloads.Duration{0.001, 0.002}, PrefillPerToken: 1e-6}}
}

// TestMooncakeHitRateFromBlockHashes replays the public Mooncake
// conversation trace on one replica with ample KV memory: its prefix-cache
// hit rate equals the rate computed directly from the block hashes, exactly
// when every prompt is prefilled in one chunk (its blocks are cached from
// the moment it is scheduled), and within half a percentage point with a
// chunk of 8192 tokens (a long prompt's later blocks are cached one chunk
// at a time, so a request that arrives meanwhile finds fewer).
func TestMooncakeHitRateFromBlockHashes(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "data", "mooncake_conversation_trace.jsonl")
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s absent", path)
	}
	if testing.Short() {
		t.Skip("replays 12,031 long-context requests")
	}
	hit, input := mooncakeHitRate(t, path, -1)
	want := float64(hit) / float64(input)
	for _, chunk := range []int{1 << 20, 8192} {
		cfg := Config{Name: "mooncake", Seed: 1, Duration: 7200, Interval: 60,
			Workloads: []WorkloadSpec{{Name: "conv", Route: "gpu", Demand: workloads.DemandSpec{Trace: &workloads.TraceSpec{File: path}},
				Tokens: workloads.TokenSpec{MaxTokens: 1 << 20}}},
			Clusters: []ClusterSpec{ampleCluster(chunk)}}
		res := mustRun(t, cfg)
		tk := res.Backends[0].Tokens
		if res.Summary.Requests.Completed != 12031 || tk.Input != input {
			t.Fatalf("chunk %d: %d completed, %d input tokens (want 12031, %d)", chunk, res.Summary.Requests.Completed, tk.Input, input)
		}
		got := float64(tk.CacheRead) / float64(tk.Input)
		t.Logf("chunk %d: hit rate %.4f, from the block hashes %.4f (%d preemptions)", chunk, got, want, res.Backends[0].Cluster.Preemptions)
		if chunk > 1<<19 && tk.CacheRead != hit {
			t.Errorf("one chunk per prompt: %d tokens read from cache, the block hashes give %d", tk.CacheRead, hit)
		}
		if math.Abs(got-want) > 0.005 {
			t.Errorf("chunk %d: hit rate %.4f, the block hashes give %.4f", chunk, got, want)
		}
	}
}

// TestAzureTracesReplay replays both public Azure traces against a hosted
// API end to end.
func TestAzureTracesReplay(t *testing.T) {
	for _, name := range []string{"AzureLLMInferenceTrace_conv.csv", "AzureLLMInferenceTrace_code.csv"} {
		path := filepath.Join("..", "..", "shared", "data", name)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			t.Skipf("%s absent", path)
		}
		rows, err := workloads.ReadTrace(&workloads.TraceSpec{File: path})
		if err != nil {
			t.Fatal(err)
		}
		var in int64
		for _, r := range rows {
			in += int64(max(r.Input, 1))
		}
		res := mustRun(t, hostedTraceConfig(&workloads.TraceSpec{File: path}, 3600+600))
		if got := res.Summary.Requests.Completed; got != int64(len(rows)) || res.Summary.Tokens.Input != in {
			t.Errorf("%s: %d completed of %d, %d input tokens of %d", name, got, len(rows), res.Summary.Tokens.Input, in)
		}
	}
}

// TestHostedPromptCacheFromKeys: a hosted API's prompt cache reads a
// request's leading blocks that an earlier request wrote within the TTL.
func TestHostedPromptCacheFromKeys(t *testing.T) {
	// Prompts of 1300, 1800, 700, 1100 tokens; blocks of 512; hashes
	// [10 11], [10 11 13], [10], [10 11] in whole blocks. min_tokens 512.
	spec := &workloads.TraceSpec{File: "../workloads/testdata/made_up_mooncake.jsonl"}
	cfg := hostedTraceConfig(spec, 100)
	cfg.Providers[0].Cache = CacheSpec{TTL: 300, MinTokens: 512}
	res := mustRun(t, cfg)
	tk := res.Summary.Tokens
	// Request 1 reads [10 11] (1024) and writes [13]; request 2 reads [10]
	// (512); request 3 reads [10 11] (1024). Request 0 writes 1024.
	if tk.CacheRead != 1024+512+1024 || tk.CacheWrite != 1024+512 {
		t.Errorf("read %d, written %d; want 2560 and 1536", tk.CacheRead, tk.CacheWrite)
	}
	// With a TTL of 1 s, request 2 (at 1.4 s) finds block 10 expired and
	// writes it again; request 3 (at 2.25 s) reads block 10, refreshed by
	// request 2, but not block 11, last written at 0 s.
	cfg.Providers[0].Cache.TTL = 1
	res = mustRun(t, cfg)
	if tk := res.Summary.Tokens; tk.CacheRead != 1024+512 {
		t.Errorf("TTL 1 s: read %d, want 1536", tk.CacheRead)
	}
}

// genBlockTrace writes a random Mooncake-style trace whose prompts share
// prefixes (a tree of block chains), to exercise block caching.
func genBlockTrace(t *rapid.T, dir string) string {
	n := rapid.IntRange(5, 120).Draw(t, "records")
	var b strings.Builder
	var chains [][]int
	next := 0
	tm := 0
	for i := 0; i < n; i++ {
		var ids []int
		if len(chains) > 0 && rapid.Bool().Draw(t, "share") {
			p := chains[rapid.IntRange(0, len(chains)-1).Draw(t, "parent")]
			ids = append(ids, p[:rapid.IntRange(1, len(p)).Draw(t, "keep")]...)
		}
		for k := rapid.IntRange(0, 6).Draw(t, "fresh"); k > 0; k-- {
			ids = append(ids, next)
			next++
		}
		if len(ids) == 0 {
			ids = append(ids, next)
			next++
		}
		chains = append(chains, ids)
		in := len(ids)*64 - rapid.IntRange(0, 63).Draw(t, "short")
		tm += rapid.IntRange(0, 400).Draw(t, "gap")
		js, _ := json.Marshal(ids)
		fmt.Fprintf(&b, "{\"timestamp\": %d, \"input_length\": %d, \"output_length\": %d, \"hash_ids\": %s}\n", tm, in, rapid.IntRange(1, 200).Draw(t, "out"), js)
	}
	p := filepath.Join(dir, fmt.Sprintf("trace-%d.jsonl", rapid.IntRange(0, 1<<30).Draw(t, "name")))
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBlockCacheInvariants: with block-hash prefixes on a cluster short of
// KV memory (so blocks are evicted and sequences preempted), KV blocks are
// conserved at every event, every request ends, and the aggregate stepping
// equals the reference.
func TestBlockCacheInvariants(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		path := genBlockTrace(t, dir)
		chunked := rapid.Bool().Draw(t, "chunked")
		bs := rapid.SampledFrom([]int{16, 32, 64}).Draw(t, "bs")
		cl := ClusterSpec{Name: "gpu", Replicas: rapid.IntRange(1, 2).Draw(t, "replicas"), PrefixCaching: true,
			MaxNumSeqs: rapid.IntRange(1, 32).Draw(t, "seqs"), MaxNumBatchedTokens: rapid.IntRange(64, 2048).Draw(t, "budget"),
			ChunkedPrefill: &chunked,
			KV: KVSpec{BlockSize: bs, Blocks: rapid.IntRange(40, 400).Draw(t, "blocks"),
				Allocation: rapid.SampledFrom([]string{"paged", "contiguous"}).Draw(t, "alloc")},
			Step: StepSpec{Kind: "table", Batches: []float64{1, 32}, Times: []workloads.Duration{0.01, 0.03}, PrefillPerToken: 2e-5}}
		cfg := Config{Name: "blocks", Seed: 7, Duration: 400, Interval: 20,
			Workloads: []WorkloadSpec{{Name: "w", Route: "gpu", Demand: workloads.DemandSpec{Trace: &workloads.TraceSpec{File: path, BlockSize: 64}},
				Tokens: workloads.TokenSpec{MaxTokens: 200}, Client: ClientSpec{Retry: RetrySpec{Preset: "none"}}}},
			Clusters: []ClusterSpec{cl}}
		s, err := Build(cfg)
		if err != nil {
			t.Fatalf("build: %v", err)
		}
		s.ran = true
		if err := s.startTraceRun(); err != nil {
			t.Fatal(err)
		}
		if err := s.eng.Run(context.Background(), cfg.Duration, checker{s, t, &sameTime{}}); err != nil {
			t.Fatal(err)
		}
		for _, rep := range s.clus[0].replicas {
			if rep.bc == nil {
				continue
			}
			for i, e := range rep.bc.ents {
				if e.refs < 0 {
					t.Fatalf("entry %d has %d references", i, e.refs)
				}
			}
		}
		r := s.results(false)
		if q := r.Summary.Requests; q.Offered != q.Completed+q.Failed+q.InFlightAtEnd {
			t.Fatalf("requests %+v", q)
		}
		sameAcrossModes(t, cfg, cl.Replicas == 1)
	})
}

// startTraceRun is start() for tests that drive the engine themselves.
func (s *Sim) startTraceRun() error {
	s.start()
	return s.fatal
}

var _ = sim.ErrInterrupted
