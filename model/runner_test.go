package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// With RunOptions.Overloaded, a run stopped by its in-flight bound is
// handed over with its partial results and the batch goes on: the other
// runs' results are those of a batch without it, byte for byte. Without
// it, the same batch stops with the *TooManyInFlight.
func TestRunEachOverloaded(t *testing.T) {
	over := jobConfig(1000, 0, 60) // 1,000 requests at once at t = 5
	over.Workloads[0].Demand.At = 5
	calm := func(seed uint64) Config { return mmcConfig(2, 1, 4, 200, seed) }
	cfgs := []Config{calm(1), over, calm(2), calm(3)}
	const bound = 100

	marshal := func(r *Results) []byte {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// The calm runs alone.
	want := map[int][]byte{}
	calmIdx := []int{0, 2, 3}
	err := RunEach(context.Background(), len(calmIdx), func(i int) Config { return cfgs[calmIdx[i]] }, RunOptions{Workers: 2, MaxInFlight: bound},
		func(i int, r *Results) error { want[calmIdx[i]] = marshal(r); return nil })
	if err != nil {
		t.Fatal(err)
	}

	for _, workers := range []int{1, 3} {
		got := map[int][]byte{}
		var overloaded []int
		var stopped *TooManyInFlight
		o := RunOptions{Workers: workers, MaxInFlight: bound, Overloaded: func(i int, r *Results, e *TooManyInFlight) error {
			overloaded = append(overloaded, i)
			stopped = e
			if !r.Interrupted || r.Summary.Requests.Offered == 0 {
				t.Errorf("overloaded run %d: interrupted %v, offered %d; want its partial results, marked interrupted", i, r.Interrupted, r.Summary.Requests.Offered)
			}
			return nil
		}}
		err := RunEach(context.Background(), len(cfgs), func(i int) Config { return cfgs[i] }, o,
			func(i int, r *Results) error { got[i] = marshal(r); return nil })
		if err != nil {
			t.Fatalf("%d workers: %v, want the batch to go on", workers, err)
		}
		if len(overloaded) != 1 || overloaded[0] != 1 || stopped.Limit != bound || stopped.At != 5 {
			t.Fatalf("%d workers: overloaded %v (%v), want run 1, past %d at t = 5", workers, overloaded, stopped, bound)
		}
		if len(got) != len(calmIdx) {
			t.Fatalf("%d workers: %d results handed to sink, want %d", workers, len(got), len(calmIdx))
		}
		for _, i := range calmIdx {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("%d workers: run %d differs from the batch without the overloaded run", workers, i)
			}
		}
	}

	// An error from Overloaded stops the batch.
	enough := errors.New("enough")
	err = RunEach(context.Background(), len(cfgs), func(i int) Config { return cfgs[i] },
		RunOptions{Workers: 1, MaxInFlight: bound, Overloaded: func(int, *Results, *TooManyInFlight) error { return enough }},
		func(int, *Results) error { return nil })
	if !errors.Is(err, enough) {
		t.Errorf("err %v, want Overloaded's error", err)
	}

	// By default the overloaded run stops the batch.
	var sunk int
	err = RunEach(context.Background(), len(cfgs), func(i int) Config { return cfgs[i] }, RunOptions{Workers: 1, MaxInFlight: bound},
		func(int, *Results) error { sunk++; return nil })
	var tm *TooManyInFlight
	if !errors.As(err, &tm) || sunk != 1 {
		t.Errorf("default: err %v after %d results, want a *TooManyInFlight after the first", err, sunk)
	}
}
