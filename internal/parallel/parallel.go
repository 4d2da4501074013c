// Package parallel splits a range of work across goroutines, the one way the module does it:
// Split gives each goroutine one contiguous part (static, for work of even cost whose parts must
// not depend on timing), Each hands out indices one at a time (dynamic, for work of uneven cost).
// Neither makes results depend on the number of goroutines unless the caller's f does.
package parallel

import (
	"context"
	"sync"
	"sync/atomic"
)

// Split calls f(part, lo, hi) for parts contiguous parts [lo, hi) covering [0, n) in order, part p
// being [p·n/parts, (p+1)·n/parts), each on its own goroutine (on the caller's when parts ≤ 1),
// and returns when all have returned. parts is clamped to [1, n]; nothing runs when n ≤ 0.
func Split(n, parts int, f func(part, lo, hi int)) {
	if n <= 0 {
		return
	}
	parts = max(1, min(parts, n))
	if parts == 1 {
		f(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(p, p*n/parts, (p+1)*n/parts)
		}()
	}
	wg.Wait()
}

// Parts is the number of parts Split should make of work elements of even cost when a part is
// worth a goroutine from grain elements on: work/grain, at least 1 and at most limit.
func Parts(work, grain, limit int) int {
	return max(1, min(limit, work/grain))
}

// Each calls f(worker, i) for every i in [0, n), handing the indices out in increasing order to
// workers goroutines (clamped to [1, n]) as each finishes its previous one. It stops handing out
// indices at the first error of f or when ctx is done, waits for the calls under way, and
// returns the first error of f, else ctx's error if an index was left without its call, else
// nil. worker identifies the goroutine, for per-goroutine buffers.
func Each(ctx context.Context, n, workers int, f func(worker, i int) error) error {
	if n <= 0 {
		return nil
	}
	workers = max(1, min(workers, n))
	var next atomic.Int64
	var stop atomic.Bool
	errs := make([]error, workers)     // f's errors
	canceled := make([]error, workers) // ctx's error where a worker left its index uncalled
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := ctx.Err(); err != nil {
					canceled[w] = err
					stop.Store(true)
					return
				}
				if err := f(w, i); err != nil {
					errs[w] = err
					stop.Store(true)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range append(errs, canceled...) {
		if err != nil {
			return err
		}
	}
	return nil
}
