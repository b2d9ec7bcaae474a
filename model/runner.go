package model

import (
	"context"
	"errors"
	"math"
	"sync"

	"github.com/headroom-sim/headroom/sim"
)

// progressSteps is how many slices a run is cut into to report progress.
const progressSteps = 100

// RunWithProgress is Run, calling progress (on the calling goroutine) with
// the fraction of the horizon simulated so far, about a hundred times.
func (s *Sim) RunWithProgress(ctx context.Context, progress func(done float64)) (*Results, error) {
	if progress == nil {
		return s.Run(ctx)
	}
	if s.ran {
		return nil, errors.New("model: a Sim runs only once; Build another")
	}
	s.ran = true
	ctx, cancel := s.guard(ctx)
	defer cancel()
	s.start()
	var err error
	for i := 1; i <= progressSteps; i++ {
		until := s.cfg.Duration * float64(i) / progressSteps
		if i == progressSteps {
			until = s.cfg.Duration
		}
		if err = s.eng.Run(ctx, until, s); err != nil {
			break
		}
		if ctx.Err() != nil {
			err = sim.ErrInterrupted
			break
		}
		progress(float64(i) / progressSteps)
	}
	return s.finishRun(s.endTraces(err))
}

// RunAll builds and runs every configuration on a pool of at most workers
// goroutines (at least one). Results come back in the order of cfgs, so the
// output does not depend on the parallelism. progress, when not nil, is
// called with the overall fraction done; calls are serialised.
//
// RunAll keeps every result; RunEach hands each one over as it finishes,
// for batches too large to keep.
func RunAll(ctx context.Context, cfgs []Config, workers int, progress func(done float64)) ([]*Results, error) {
	res := make([]*Results, len(cfgs))
	err := RunEach(ctx, len(cfgs), func(i int) Config { return cfgs[i] }, RunOptions{Workers: workers, Progress: progress},
		func(i int, r *Results) error { res[i] = r; return nil })
	return res, err
}

// RunOptions say how RunEach runs a batch.
type RunOptions struct {
	// Workers is how many simulations run at once (at least one).
	Workers int
	// Progress, when not nil, is called with the overall fraction done;
	// calls are serialised.
	Progress func(done float64)
	// MaxInFlight bounds the requests each simulation holds at once (see
	// Sim.SetMaxInFlight): 0 is DefaultMaxInFlight, negative no bound.
	MaxInFlight int64
	// Overloaded, when not nil, takes the runs stopped because more
	// requests were in flight than MaxInFlight allows, instead of letting
	// them stop the batch: it is called (serialised with sink, in place of
	// it) with the run's partial results, marked interrupted, and the
	// *TooManyInFlight that says when, and the batch goes on. An error it
	// returns stops the batch like one from sink. Nil: such a run stops the
	// batch with its *TooManyInFlight.
	Overloaded func(i int, r *Results, err *TooManyInFlight) error
}

// RunEach runs n simulations on a pool of at most o.Workers goroutines. A worker builds simulation i from cfg(i) when it starts it,
// and hands its results to sink when it ends, so at most workers
// simulations exist at once and memory is bounded by the workers, not by
// n. sink is called once per simulation, in no particular order (the
// index says which); calls are serialised, and sink may keep or reduce
// what it is given.
//
// The first error (a configuration that does not build, an interrupted
// or stopped run, an error from sink) stops the batch: no simulation is
// started after it, those running are cancelled, and RunEach returns it.
// An interrupted run hands its partial results to nobody. A run stopped by
// its in-flight bound is an error too, unless o.Overloaded takes it.
func RunEach(ctx context.Context, n int, cfg func(i int) Config, o RunOptions, sink func(i int, r *Results) error) error {
	workers, progress := max(o.Workers, 1), o.Progress
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		done     int                 // simulations ended
		running  = map[int]float64{} // fraction done of those running
		next     int
	)
	fail := func(err error) {
		if firstErr == nil {
			firstErr = err
			cancel()
		}
	}
	report := func() {
		if progress == nil || n == 0 {
			return
		}
		t := float64(done)
		for _, f := range running {
			t += f
		}
		progress(math.Min(1, t/float64(n)))
	}
	// take hands out the next simulation to start, or -1.
	take := func() int {
		mu.Lock()
		defer mu.Unlock()
		if firstErr != nil || next >= n || ctx.Err() != nil {
			return -1
		}
		next++
		running[next-1] = 0
		return next - 1
	}
	var wg sync.WaitGroup
	for w := 0; w < workers && w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := take(); i >= 0; i = take() {
				s, err := Build(cfg(i))
				var res *Results
				if err == nil {
					s.SetMaxInFlight(o.MaxInFlight)
					var cb func(float64)
					if progress != nil {
						cb = func(f float64) {
							mu.Lock()
							defer mu.Unlock()
							running[i] = f
							report()
						}
					}
					res, err = s.RunWithProgress(ctx, cb)
				}
				mu.Lock()
				delete(running, i)
				done++
				var tooMany *TooManyInFlight
				switch {
				case firstErr != nil:
				case err == nil:
					err = sink(i, res)
				case o.Overloaded != nil && errors.As(err, &tooMany) && res != nil:
					err = o.Overloaded(i, res, tooMany)
				}
				if err != nil {
					fail(err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		return sim.ErrInterrupted
	}
	return firstErr
}
