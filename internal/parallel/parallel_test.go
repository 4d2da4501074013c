package parallel

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSplit checks that the parts cover [0, n) once, in order, contiguous, and are as documented.
func TestSplit(t *testing.T) {
	for _, c := range []struct{ n, parts int }{{0, 3}, {1, 4}, {5, 1}, {7, 3}, {10, 10}, {3, 8}, {100, 7}, {9, 0}} {
		var mu sync.Mutex
		seen := make([]int, max(c.n, 0))
		var got [][2]int
		Split(c.n, c.parts, func(p, lo, hi int) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, [2]int{lo, hi})
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		for i, s := range seen {
			if s != 1 {
				t.Errorf("n %d parts %d: index %d seen %d times", c.n, c.parts, i, s)
			}
		}
		want := max(1, min(c.parts, c.n))
		if c.n == 0 {
			want = 0
		}
		if len(got) != want {
			t.Errorf("n %d parts %d: %d parts, want %d", c.n, c.parts, len(got), want)
		}
		slices.SortFunc(got, func(a, b [2]int) int { return a[0] - b[0] })
		for p, g := range got {
			if g != [2]int{p * c.n / want, (p + 1) * c.n / want} {
				t.Errorf("n %d parts %d: part %d = %v", c.n, c.parts, p, g)
			}
		}
	}
}

// TestParts checks the rule work/grain clamped to [1, limit].
func TestParts(t *testing.T) {
	for _, c := range []struct{ work, grain, limit, want int }{
		{0, 16, 4, 1}, {15, 16, 4, 1}, {16, 16, 4, 1}, {32, 16, 4, 2}, {47, 16, 4, 2},
		{1 << 20, 16, 4, 4}, {1 << 20, 16, 0, 1}, {64, 16, 1, 1},
	} {
		if got := Parts(c.work, c.grain, c.limit); got != c.want {
			t.Errorf("Parts(%d, %d, %d) = %d, want %d", c.work, c.grain, c.limit, got, c.want)
		}
	}
}

// TestEach checks that every index runs once, that the worker ids are in range, and that errors
// and cancellation stop the handing out.
func TestEach(t *testing.T) {
	for _, workers := range []int{1, 3, 50} {
		seen := make([]atomic.Int32, 40)
		err := Each(context.Background(), len(seen), workers, func(w, i int) error {
			if w < 0 || w >= min(workers, len(seen)) {
				t.Errorf("worker %d of %d", w, workers)
			}
			seen[i].Add(1)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range seen {
			if seen[i].Load() != 1 {
				t.Errorf("%d workers: index %d ran %d times", workers, i, seen[i].Load())
			}
		}
	}

	// One worker hands out in order and stops at the error: exactly indices 0..5 run. With more
	// workers another may take any number of indices while the failing call is descheduled, so
	// the bound there is only that the handing out stops: the calls after the failing index each
	// take a millisecond, so running all 1,000 would need the failing worker stalled for a second.
	boom := errors.New("boom")
	for _, workers := range []int{1, 2} {
		var ran atomic.Int32
		err := Each(context.Background(), 1000, workers, func(w, i int) error {
			ran.Add(1)
			switch {
			case i == 5:
				return boom
			case i > 5:
				time.Sleep(time.Millisecond)
			}
			return nil
		})
		if !errors.Is(err, boom) {
			t.Errorf("%d workers: error %v, want boom", workers, err)
		}
		if n := ran.Load(); workers == 1 && n != 6 || n >= 1000 {
			t.Errorf("%d workers: %d calls, want 6 for one worker, fewer than 1000 for more", workers, n)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int32
	start := time.Now()
	err := Each(ctx, 1_000_000, 2, func(w, i int) error {
		if ran.Add(1) == 3 {
			cancel()
		}
		time.Sleep(time.Microsecond)
		return nil
	})
	if !errors.Is(err, context.Canceled) || ran.Load() > 10 || time.Since(start) > time.Second {
		t.Errorf("cancel: %v after %d calls and %v", err, ran.Load(), time.Since(start))
	}
	if err := Each(ctx, 0, 2, nil); err != nil {
		t.Errorf("n = 0 after cancel: %v", err)
	}
}

// cancelAt is a context whose Err reports cancellation from its k-th call on.
type cancelAt struct {
	context.Context
	k     int64
	calls atomic.Int64
}

func (c *cancelAt) Err() error {
	if c.calls.Add(1) >= c.k {
		return context.Canceled
	}
	return nil
}

// TestEachCancelLeavesNoIndexSilently cancels Each at every one of its checks of ctx, the last
// index's included: it returns nil only when f ran for every index, and ctx's error otherwise.
// A worker that took the last index and then found ctx done used to return nil with that
// index never called, so a validation read a rank that was never computed.
func TestEachCancelLeavesNoIndexSilently(t *testing.T) {
	const n = 6
	for _, workers := range []int{1, 2, 3} {
		for k := int64(1); k <= n+1; k++ {
			t.Run(fmt.Sprintf("workers=%d/cancel-at=%d", workers, k), func(t *testing.T) {
				var ran atomic.Int32
				err := Each(&cancelAt{Context: context.Background(), k: k}, n, workers, func(int, int) error {
					ran.Add(1)
					return nil
				})
				switch {
				case err == nil && ran.Load() != n:
					t.Errorf("nil after %d of %d calls", ran.Load(), n)
				case err != nil && !errors.Is(err, context.Canceled):
					t.Errorf("error %v", err)
				case workers == 1 && k <= n && err == nil:
					t.Errorf("one worker, cancelled at check %d of %d: nil", k, n)
				}
			})
		}
	}
}
