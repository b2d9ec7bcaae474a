package perf

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

func mustGPU(t testing.TB, name string) GPU {
	t.Helper()
	g, err := LookupGPU(name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustModel(t testing.TB, name string) Model {
	t.Helper()
	m, err := LookupModel(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Decode at batch 1 reads the weights once (all but the embedding table,
// of which one row is read): (6.7e9 − 32000 × 4096) × 2 bytes / 3.35 TB/s
// = 3.92 ms for Llama-2-7B on an H100 at full bandwidth, plus its KV.
func TestRooflineDecodeBatch1IsWeightsOverBandwidth(t *testing.T) {
	r := Roofline{GPU: mustGPU(t, "H100-SXM"), Model: mustModel(t, "llama-2-7b"), TP: 1, ComputeEff: 0.5, BandwidthEff: 1}
	b := Batch{Decode: 1, Context: 100}
	got := r.StepTime(b)
	want := (6.7e9-32000*4096)*2/3.35e12 + 101*524288/3.35e12
	if math.Abs(got-want)/want > 0.01 {
		t.Errorf("decode step = %.4f ms, want %.4f ms ±1%%", got*1e3, want*1e3)
	}
	if r.ComputeTime(b) >= r.MemoryTime(b) {
		t.Errorf("batch-1 decode is not memory-bound: compute %g s, memory %g s", r.ComputeTime(b), r.MemoryTime(b))
	}
	// The element-wise kernels of one token: per layer two norms and a
	// residual add over the hidden state (7 × 4096 elements), the rotary
	// embedding of 32 + 32 heads (2 × 64 × 128) and the activation
	// (3 × 11008), 2 bytes each.
	ew := func(tp float64) float64 { return 32 * (7*4096 + (2*64*128+3*11008)/tp) * 2 / 3.35e12 }
	if p := r.Parts(b); math.Abs(p.Elementwise-ew(1)) > 1e-12 {
		t.Errorf("element-wise %g s, want %g s", p.Elementwise, ew(1))
	}
	// Tensor parallelism divides the time, but for the norms and residual
	// add every rank repeats, and adds two all-reduces a layer of one
	// token's activations (4096 × 2 bytes, ring: 2 × 3/4 of it over
	// 450 GB/s); overhead adds to it.
	r.TP, r.Overhead = 4, 0.002
	comm := 2 * 32 * 2 * 0.75 * 4096 * 2 / 450e9
	want4 := 0.002 + (got-ew(1))/4 + ew(4) + comm
	if got4 := r.StepTime(b); math.Abs(got4-want4) > 1e-9*got4 {
		t.Errorf("TP4 + 2 ms = %g, want %g", got4, want4)
	}
	// The zero value of the efficiencies means datasheet peak.
	z := Roofline{GPU: r.GPU, Model: r.Model}
	one := Roofline{GPU: r.GPU, Model: r.Model, TP: 1, ComputeEff: 1, BandwidthEff: 1}
	if z.StepTime(b) != one.StepTime(b) {
		t.Errorf("zero-value roofline %g != peak roofline %g", z.StepTime(b), one.StepTime(b))
	}
	if z.StepTime(Batch{}) != 0 {
		t.Errorf("empty batch takes %g s", z.StepTime(Batch{}))
	}
}

// Prefill of long prompts is compute-bound and linear in tokens when the
// prompts are equal (attention per token constant).
func TestRooflinePrefillComputeBound(t *testing.T) {
	r := Roofline{GPU: mustGPU(t, "H100-SXM"), Model: mustModel(t, "llama-3.1-8b"), TP: 1, ComputeEff: 0.6, BandwidthEff: 0.8, Overhead: 0.003}
	prev := 0.0
	for _, k := range []int{16, 32, 64, 128} {
		b := Batch{PrefillSeqs: k, Prefill: 512 * k, Context: float64(512 * k)}
		if r.ComputeTime(b) <= r.MemoryTime(b) {
			t.Errorf("%d×512-token prefill is not compute-bound", k)
		}
		work := r.StepTime(b) - r.Overhead
		if prev > 0 && math.Abs(work/prev-2) > 1e-9 {
			t.Errorf("doubling tokens to %d multiplies time by %g, want 2", 512*k, work/prev)
		}
		prev = work
		// Exactly the linear FLOPs plus causal attention over 512-token prompts.
		m := r.Model
		flops := 2*(m.ActiveParams-2*32*128256*128)*float64(512*k) + 2*float64(m.Vocab*m.Hidden*k) + 4*float64(m.Layers*m.Heads*m.HeadDim)*float64(512*k)*256
		if math.Abs(r.FLOPs(b)-flops) > 1e-9*flops {
			t.Errorf("FLOPs = %g, want %g", r.FLOPs(b), flops)
		}
	}
	// One long prompt: slightly super-linear because of causal attention.
	t1 := r.StepTime(Batch{PrefillSeqs: 1, Prefill: 8192, Context: 8192}) - r.Overhead
	t2 := r.StepTime(Batch{PrefillSeqs: 1, Prefill: 16384, Context: 16384}) - r.Overhead
	if ratio := t2 / t1; ratio < 2 || ratio > 2.3 {
		t.Errorf("16k/8k prefill time ratio %g, want in [2, 2.3]", ratio)
	}
}

// The ridge point at datasheet peaks falls where vidur's measured
// Llama-2-7B/H100 per-layer times bend (flat to 128–256 tokens, linear from
// 512; data-notes §2b): memory-bound at 128 tokens, compute-bound at 512.
func TestRooflineKneeMatchesVidur(t *testing.T) {
	r := Roofline{GPU: mustGPU(t, "H100-SXM"), Model: mustModel(t, "llama-2-7b"), TP: 1}
	at := func(n int) Batch { return Batch{PrefillSeqs: 1, Prefill: n, Context: float64(n)} }
	if r.ComputeTime(at(128)) >= r.MemoryTime(at(128)) {
		t.Error("128 tokens is compute-bound")
	}
	if r.ComputeTime(at(512)) <= r.MemoryTime(at(512)) {
		t.Error("512 tokens is memory-bound")
	}
}

func TestAttentionPairs(t *testing.T) {
	for _, c := range []struct {
		b    Batch
		want float64
	}{
		{Batch{Decode: 4, Context: 4000}, 4000},                           // each decode token reads its context
		{Batch{PrefillSeqs: 2, Prefill: 1000, Context: 1000}, 1000 * 250}, // two fresh 500-token prompts: 500·250 each
		// A 100-token chunk after 1000 cached tokens, told: 100 × (1000 + 50).
		{Batch{PrefillSeqs: 1, Prefill: 100, Context: 1100, PrefillContext: 1100}, 100 * 1050},
		// The same, not told: the cached 1000 are counted once.
		{Batch{PrefillSeqs: 1, Prefill: 100, Context: 1100}, 1000 + 100*50},
		// Mixed: 10 decodes of 2000 context and two 512-token chunks after 4000 cached each.
		{Batch{Decode: 10, PrefillSeqs: 2, Prefill: 1024, Context: 20000 + 2*4512, PrefillContext: 2 * 4512}, 20000 + 1024*(4000+256)},
		{Batch{PrefillSeqs: 1, Prefill: 100, Context: 10}, 100 * 50}, // inconsistent context: still causal
		{Batch{Decode: 3}, 0},
	} {
		if got := attentionPairs(c.b); math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("pairs(%+v) = %g, want %g", c.b, got, c.want)
		}
	}
}

func genRoofline(t *rapid.T) Roofline {
	gs, ms := GPUs(), Models()
	return Roofline{
		GPU:          gs[rapid.IntRange(0, len(gs)-1).Draw(t, "gpu")],
		Model:        ms[rapid.IntRange(0, len(ms)-1).Draw(t, "model")],
		TP:           rapid.SampledFrom([]int{1, 2, 4, 8}).Draw(t, "tp"),
		ComputeEff:   rapid.Float64Range(0.01, 1).Draw(t, "ce"),
		BandwidthEff: rapid.Float64Range(0.01, 1).Draw(t, "be"),
		Overhead:     rapid.Float64Range(0, 0.05).Draw(t, "overhead"),
		AllReduce:    AllReduce(rapid.IntRange(0, len(AllReduceNames)-1).Draw(t, "allreduce")),
	}
}

// Step time never falls when the step grows: more decode sequences (each
// with the same context), more prompt tokens (context growing with them) or
// more context.
func TestRooflineMonotoneProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genRoofline(t)
		ctx := rapid.Float64Range(0, 65536).Draw(t, "ctx_per_seq")
		d := rapid.IntRange(0, 512).Draw(t, "decode")
		dd := rapid.IntRange(1, 512).Draw(t, "more_decode")
		ps := rapid.IntRange(0, 8).Draw(t, "prefill_seqs")
		chunk := 0
		if ps > 0 {
			chunk = rapid.IntRange(1, 8192).Draw(t, "chunk")
		}
		told := rapid.Bool().Draw(t, "told")
		mk := func(d, ps, chunk int) Batch {
			b := Batch{Decode: d, PrefillSeqs: ps, Prefill: ps * chunk, Context: float64(d)*ctx + float64(ps)*(ctx+float64(chunk))}
			if told {
				b.PrefillContext = float64(ps) * (ctx + float64(chunk))
			}
			return b
		}
		base := mk(d, ps, chunk)
		t0 := r.StepTime(base)
		if t1 := r.StepTime(mk(d+dd, ps, chunk)); t1 < t0*(1-1e-12) {
			t.Fatalf("decode %d→%d: %g → %g s", d, d+dd, t0, t1)
		}
		if ps > 0 {
			if t1 := r.StepTime(mk(d, ps, chunk+dd)); t1 < t0*(1-1e-12) {
				t.Fatalf("chunk %d→%d: %g → %g s", chunk, chunk+dd, t0, t1)
			}
		}
		more := base
		more.Context += rapid.Float64Range(0, 1e6).Draw(t, "more_ctx")
		if t1 := r.StepTime(more); t1 < t0*(1-1e-12) {
			t.Fatalf("context %g→%g: %g → %g s", base.Context, more.Context, t0, t1)
		}
		if !base.empty() && (!(t0 >= r.Overhead) || math.IsInf(t0, 0)) {
			t.Fatalf("step %g s below overhead %g or infinite", t0, r.Overhead)
		}
	})
}

func TestRooflineValidate(t *testing.T) {
	ok := Roofline{GPU: mustGPU(t, "L4"), Model: mustModel(t, "mistral-7b"), TP: 1, ComputeEff: 0.5, BandwidthEff: 0.5}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(*Roofline){
		"no gpu":     func(r *Roofline) { r.GPU = GPU{} },
		"no model":   func(r *Roofline) { r.Model = Model{} },
		"ce > 1":     func(r *Roofline) { r.ComputeEff = 1.5 },
		"be < 0":     func(r *Roofline) { r.BandwidthEff = -0.1 },
		"overhead<0": func(r *Roofline) { r.Overhead = -1 },
		"tp < 0":     func(r *Roofline) { r.TP = -2 },
	} {
		r := ok
		mut(&r)
		if r.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// DecodeSpan gives bit for bit what StepTime gives for each step of the
// span, for rooflines (with and without Prepare) and tables.
func TestDecodeSpanEqualsStepTime(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genRoofline(t)
		r.SmoothKnee = rapid.Bool().Draw(t, "smooth")
		r.OverheadPerLayer = rapid.Float64Range(0, 1e-4).Draw(t, "opl")
		r.OverheadPerSeq = rapid.Float64Range(0, 1e-4).Draw(t, "ops")
		r.CollectiveLatency = rapid.Float64Range(0, 1e-5).Draw(t, "lat")
		if rapid.Bool().Draw(t, "prepare") {
			r.Prepare()
		}
		tb := Table{Batches: []float64{1, 8, 64}, Times: []float64{0.01, 0.012, 0.03}, PerContextToken: rapid.Float64Range(0, 1e-6).Draw(t, "pct")}
		d := rapid.IntRange(1, 512).Draw(t, "d")
		ctx0 := float64(rapid.IntRange(0, 1<<20).Draw(t, "ctx0"))
		dts := make([]float64, rapid.IntRange(1, 40).Draw(t, "m"))
		for _, sm := range []SpanStepper{&r, &tb} {
			sm.DecodeSpan(d, ctx0, dts)
			for j, got := range dts {
				if want := sm.StepTime(Batch{Decode: d, Context: ctx0 + float64(j*d)}); got != want {
					t.Fatalf("%T step %d: span %v, StepTime %v", sm, j, got, want)
				}
			}
		}
	})
}

// DecodeTime gives bit for bit what StepTime gives for a pure decode
// step when the roofline is prepared and the decode count within Prepare's
// table, and declines otherwise; DecodeSpan, which looks the table up too,
// agrees with StepTime within the table and beyond it.
func TestDecodeTimeEqualsStepTime(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genRoofline(t)
		r.SmoothKnee = rapid.Bool().Draw(t, "smooth")
		r.OverheadPerLayer = rapid.Float64Range(0, 1e-4).Draw(t, "opl")
		r.OverheadPerSeq = rapid.Float64Range(0, 1e-4).Draw(t, "ops")
		r.CollectiveLatency = rapid.Float64Range(0, 1e-5).Draw(t, "lat")
		if rapid.Bool().Draw(t, "prepare") {
			r.Prepare()
		}
		d := rapid.IntRange(1, 2*decTable).Draw(t, "d")
		ctx := float64(rapid.IntRange(-4, 1<<20).Draw(t, "ctx"))
		got, ok := r.DecodeTime(d, ctx)
		if want := r.StepTime(Batch{Decode: d, Context: ctx}); ok && got != want {
			t.Fatalf("DecodeTime %v, StepTime %v", got, want)
		}
		if tab := len(r.k.dec) > 0 && d < decTable; ok != tab {
			t.Fatalf("DecodeTime ok %v with d %d, prepared %v", ok, d, len(r.k.dec) > 0)
		}
		dts := make([]float64, 3)
		r.DecodeSpan(d, ctx, dts)
		for j, got := range dts {
			if want := r.StepTime(Batch{Decode: d, Context: ctx + float64(j*d)}); got != want {
				t.Fatalf("span step %d: %v, StepTime %v", j, got, want)
			}
		}
	})
}

// DecodeSpanEnd gives bit for bit DecodeSpan's times and their sum from
// t0, added in order.
func TestDecodeSpanEndIsDecodeSpanSummed(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genRoofline(t)
		r.SmoothKnee = rapid.Bool().Draw(t, "smooth")
		r.OverheadPerSeq = rapid.Float64Range(0, 1e-4).Draw(t, "ops")
		if rapid.Bool().Draw(t, "prepare") {
			r.Prepare()
		}
		d := rapid.IntRange(-1, 512).Draw(t, "d")
		ctx0 := float64(rapid.IntRange(-4, 1<<20).Draw(t, "ctx0"))
		t0 := rapid.Float64Range(0, 1e6).Draw(t, "t0")
		m := rapid.IntRange(0, 40).Draw(t, "m")
		want, got := make([]float64, m), make([]float64, m)
		r.DecodeSpan(d, ctx0, want)
		end := t0
		for _, dt := range want {
			end += dt
		}
		if e := r.DecodeSpanEnd(d, ctx0, got, t0); e != end {
			t.Fatalf("end %v, want %v", e, end)
		}
		for j := range got {
			if got[j] != want[j] {
				t.Fatalf("step %d: %v, want %v", j, got[j], want[j])
			}
		}
	})
}

// FP8 weights on FP8 tensor cores halve the GEMMs' compute and weight
// reads, but not the element-wise kernels, whose activations stay 16-bit;
// and those kernels' norms are repeated on every tensor-parallel rank.
func TestElementwiseStaysSixteenBit(t *testing.T) {
	m := mustModel(t, "llama-3.1-8b")
	bf := DefaultRoofline(mustGPU(t, "H100-SXM"), m, 1)
	m8 := m
	m8.DtypeBytes, m8.KVDtypeBytes, m8.FP8Compute = 1, 1, true
	f8 := DefaultRoofline(mustGPU(t, "H100-SXM"), m8, 1)
	b := Batch{PrefillSeqs: 4, Prefill: 8192, Context: 8192}
	pb, p8 := bf.Parts(b), f8.Parts(b)
	// (the datasheet's FP8 rate is 1979 against 989 TFLOP/s)
	if math.Abs(p8.LinearCompute-pb.LinearCompute*989/1979) > 1e-12 || math.Abs(p8.LinearMemory-pb.LinearMemory/2) > 1e-12 {
		t.Errorf("FP8 GEMMs %g/%g s, want half of %g/%g s", p8.LinearCompute, p8.LinearMemory, pb.LinearCompute, pb.LinearMemory)
	}
	if p8.Elementwise != pb.Elementwise || !(pb.Elementwise > 0.05*pb.Linear) {
		t.Errorf("element-wise %g s under FP8, %g s under BF16 (GEMMs %g s)", p8.Elementwise, pb.Elementwise, pb.Linear)
	}
	// At TP 8 the hidden-state kernels (7 × hidden of the 7 × 4096 +
	// 2 × 40 × 128 + 3 × 14336 elements per token and layer) stay whole.
	t8 := DefaultRoofline(mustGPU(t, "H100-SXM"), m, 8)
	want := (7*4096 + (2*40*128+3*14336)/8.0) / (7*4096 + 2*40*128 + 3*14336)
	if got := t8.Parts(b).Elementwise / pb.Elementwise; math.Abs(got-want) > 1e-12 {
		t.Errorf("TP 8 element-wise share %g of TP 1, want %g", got, want)
	}
}

// The all-reduce latency: once an all-reduce for the one-shot kernels, at
// every TP; 2(TP−1) times for a ring; auto is the ring on a PCIe GPU only.
func TestRooflineAllReduceLatency(t *testing.T) {
	const lat = 7e-6
	b := Batch{Decode: 1, Context: 1000}
	for _, c := range []struct {
		gpu  string
		algo AllReduce
		ring bool
	}{{"H100-SXM", AllReduceAuto, false}, {"H100-SXM", AllReduceOneShot, false}, {"H100-SXM", AllReduceRing, true},
		{"L40S", AllReduceAuto, true}, {"L40S", AllReduceOneShot, false}, {"A100-80GB", AllReduceAuto, false}, {"H100-NVL", AllReduceAuto, true}} {
		for _, tp := range []int{2, 4, 8} {
			ring := c.ring && !(c.gpu == "H100-NVL" && tp == 2) // its NVLink bridge joins pairs
			r := Roofline{GPU: mustGPU(t, c.gpu), Model: mustModel(t, "llama-3.1-70b"), TP: tp, AllReduce: c.algo}
			without := r.Parts(b).Comm
			r.CollectiveLatency = lat
			hops := 1.0
			if ring {
				hops = 2 * float64(tp-1)
			}
			want := 2 * 80 * hops * lat
			if got := r.Parts(b).Comm - without; math.Abs(got-want) > 1e-12 {
				t.Errorf("%s TP %d %v: latency %g s, want %g s", c.gpu, tp, c.algo, got, want)
			}
		}
	}
	r := Roofline{GPU: mustGPU(t, "H100-SXM"), Model: mustModel(t, "llama-3.1-70b"), TP: 1, CollectiveLatency: lat, AllReduce: AllReduceRing}
	if c := r.Parts(b).Comm; c != 0 {
		t.Errorf("TP 1 has a communication term of %g s", c)
	}
	if err := (&Roofline{GPU: r.GPU, Model: r.Model, AllReduce: 9}).Validate(); err == nil {
		t.Error("an unknown all-reduce algorithm validates")
	}
}

// pairsOf's comparisons give what max gives, NaN and signed zeros
// included (StepTime's prefill terms depend on them).
func TestPairsOfIsMax(t *testing.T) {
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b
	}
	vals := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), -3, 1, 7, 4096}
	for _, ps := range []int{0, 1, 3} {
		for _, p := range []int{-1, 0, 1, 7} {
			for _, ctx := range vals {
				for _, pctx := range vals {
					pf := float64(max(p, 0))
					pc := max(pctx, pf)
					wd, wp := max(ctx-pc, 0), 0.0
					if pf > 0 {
						seqs := float64(max(ps, 1))
						wp = pf * (pc/seqs - pf/seqs/2)
					}
					if d, q := pairsOf(ps, p, ctx, pctx); !same(d, wd) || !same(q, wp) {
						t.Errorf("pairsOf(%d, %d, %v, %v) = %v, %v; with max %v, %v", ps, p, ctx, pctx, d, q, wd, wp)
					}
				}
			}
		}
	}
}
