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
	ctx, cancel := s.runContext(ctx)
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
	if err = s.endTraces(err); s.fatal != nil {
		return nil, err
	}
	return s.results(err != nil), err
}

// RunAll builds and runs every configuration on a pool of at most workers
// goroutines (at least one). Results come back in the order of cfgs, so the
// output does not depend on the parallelism. progress, when not nil, is
// called with the overall fraction done; calls are serialised.
func RunAll(ctx context.Context, cfgs []Config, workers int, progress func(done float64)) ([]*Results, error) {
	sims := make([]*Sim, len(cfgs))
	for i, c := range cfgs {
		s, err := Build(c)
		if err != nil {
			return nil, err
		}
		sims[i] = s
	}
	if workers < 1 {
		workers = 1
	}
	res := make([]*Results, len(cfgs))
	errs := make([]error, len(cfgs))
	var mu sync.Mutex
	fracs := make([]float64, len(cfgs))
	report := func(i int, f float64) {
		if progress == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		fracs[i] = f
		t := 0.0
		for _, v := range fracs {
			t += v
		}
		progress(math.Min(1, t/float64(len(fracs))))
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers && w < len(cfgs); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				var cb func(float64)
				if progress != nil {
					cb = func(f float64) { report(i, f) }
				}
				res[i], errs[i] = sims[i].RunWithProgress(ctx, cb)
			}
		}()
	}
	for i := range cfgs {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return res, e
		}
	}
	return res, nil
}
