package metrics

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSamplePairs checks the stratified sample: exactly size distinct pairs, ascending, every
// slice within one pair of its share size·n_s/N, the same for the same seed and another for
// another seed, and nil (all pairs) when size is 0 or not below the number of pairs.
func TestSamplePairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 200 {
		m := 1 + rng.IntN(50)
		itemSlice := make([]Slice, m)
		w := []int{1 + rng.IntN(10), 1 + rng.IntN(10), 1 + rng.IntN(10)} // uneven slices
		for j := range itemSlice {
			switch x := rng.IntN(w[0] + w[1] + w[2]); {
			case x < w[0]:
				itemSlice[j] = SliceHead
			case x < w[0]+w[1]:
				itemSlice[j] = SliceTorso
			default:
				itemSlice[j] = SliceTail
			}
		}
		n := 1 + rng.IntN(500)
		pairs := make([]Pair, n)
		for p := range pairs {
			pairs[p] = Pair{int32(rng.IntN(7)), int32(rng.IntN(m))}
		}
		size := 1 + rng.IntN(n)
		var sl []Slice
		if trial%5 != 0 {
			sl = itemSlice
		}
		keep := SamplePairs(pairs, sl, size, int64(trial))
		if size == n {
			if keep != nil {
				t.Fatalf("trial %d: size = n kept %d, want nil (all)", trial, len(keep))
			}
			continue
		}
		if len(keep) != size || !slices.IsSorted(keep) || len(slices.Compact(slices.Clone(keep))) != size {
			t.Fatalf("trial %d: %d pairs (sorted %v), want %d distinct", trial, len(keep), slices.IsSorted(keep), size)
		}
		var all, got [3]int
		for _, p := range pairs {
			if sl != nil {
				all[sl[p.Item]]++
			} else {
				all[0]++
			}
		}
		for _, p := range keep {
			if sl != nil {
				got[sl[pairs[p].Item]]++
			} else {
				got[0]++
			}
		}
		for s := range 3 {
			share := float64(size) * float64(all[s]) / float64(n)
			if math.Abs(float64(got[s])-share) >= 1 {
				t.Errorf("trial %d: slice %d has %d of %d pairs in the sample, share %.3f", trial, s, got[s], all[s], share)
			}
		}
		if again := SamplePairs(pairs, sl, size, int64(trial)); !slices.Equal(again, keep) {
			t.Errorf("trial %d: another sample from the same seed", trial)
		}
	}
	pairs := make([]Pair, 1000)
	for p := range pairs {
		pairs[p] = Pair{0, int32(p % 3)}
	}
	if slices.Equal(SamplePairs(pairs, nil, 100, 1), SamplePairs(pairs, nil, 100, 2)) {
		t.Error("seeds 1 and 2 give the same sample")
	}
	for _, size := range []int{0, 1000, 5000} {
		if keep := SamplePairs(pairs, nil, size, 1); keep != nil {
			t.Errorf("size %d: %d pairs, want nil", size, len(keep))
		}
	}
}

// TestEvaluateSampled checks Evaluate with MaxPairs against the reference metrics of the sampled
// pairs, and that every Result reports the sample's size and the test set's.
func TestEvaluateSampled(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	in := dyadicInput(rng, 60, 300, 400)
	s := Settings{K: []int{5, 20}, Bootstrap: -1, MaxPairs: 150}
	res, err := Evaluate(in, s, 3)
	if err != nil {
		t.Fatal(err)
	}
	keep := SamplePairs(in.Pairs, in.ItemSlice, s.MaxPairs, 3)
	sub := in
	sub.Pairs = nil
	for _, p := range keep {
		sub.Pairs = append(sub.Pairs, in.Pairs[p])
	}
	rs := s
	if err := rs.Resolve(); err != nil {
		t.Fatal(err)
	}
	ranks := refRanks(&sub, &rs)
	full := map[Slice]int{SliceAll: len(in.Pairs)}
	for _, p := range in.Pairs {
		full[in.ItemSlice[p.Item]]++
	}
	for _, r := range res {
		want, n := refMetric(ranks, &sub, r.Slice.String(), string(r.Metric), r.K)
		if math.Abs(r.Value-want) > 1e-12 || r.Pairs != n || r.TestPairs != full[r.Slice] {
			t.Errorf("%s %s@%d: %v of %d pairs (test %d), want %v of %d (test %d)",
				r.Slice, r.Metric, r.K, r.Value, r.Pairs, r.TestPairs, want, n, full[r.Slice])
		}
	}
	if res[0].Pairs != 150 {
		t.Errorf("all: %d pairs, want 150", res[0].Pairs)
	}
}

// TestEvaluationSample: an evaluation's Sample is the index in Input.Pairs of each evaluated
// pair, SamplePairs' under max_pairs, and nil when every pair is evaluated.
func TestEvaluationSample(t *testing.T) {
	in := dyadicInput(rand.New(rand.NewPCG(15, 16)), 60, 300, 400)
	for _, c := range []struct {
		name     string
		maxPairs int
		want     int // evaluated pairs
	}{{"all pairs", 0, 400}, {"max_pairs above the test pairs", 500, 400}, {"max_pairs", 150, 150}} {
		t.Run(c.name, func(t *testing.T) {
			ev, err := EvaluateAll(context.Background(), in, Settings{K: []int{5}, Bootstrap: -1, MaxPairs: c.maxPairs}, 3, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(ev.Pairs) != c.want {
				t.Fatalf("%d pairs evaluated, want %d", len(ev.Pairs), c.want)
			}
			if c.want == len(in.Pairs) {
				if ev.Sample != nil {
					t.Errorf("Sample %v with every pair evaluated, want nil", ev.Sample)
				}
				return
			}
			if !slices.Equal(ev.Sample, SamplePairs(in.Pairs, in.ItemSlice, c.maxPairs, 3)) {
				t.Errorf("Sample is not SamplePairs' sample")
			}
			for p, i := range ev.Sample {
				if ev.Pairs[p] != in.Pairs[i] {
					t.Fatalf("pair %d is %v, Input.Pairs[%d] %v", p, ev.Pairs[p], i, in.Pairs[i])
				}
			}
		})
	}
}

// TestEvaluateProgress checks evaluation's plain-line progress: a final line naming every pair,
// with the rate and ETA 0.
func TestEvaluateProgress(t *testing.T) {
	in := benchInput(500, 3000, 16)
	var b strings.Builder
	if _, err := EvaluateContext(context.Background(), in, Settings{Bootstrap: -1}, 1, &b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	last := lines[len(lines)-1]
	if ok, _ := regexp.MatchString(`^eval pairs 500/500 \d+ pairs/s eta 0s$`, last); !ok {
		t.Errorf("last progress line %q, want \"eval pairs 500/500 <rate> pairs/s eta 0s\"", last)
	}
}

// cancelOnWrite cancels a context at its first write: the first progress line, written once
// the ranking has started. Its writes may come from several goroutines (the progress reporter
// and a timer).
type cancelOnWrite struct {
	cancel context.CancelFunc
	mu     sync.Mutex
	at     time.Time
}

func (c *cancelOnWrite) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() {
		c.at = time.Now()
		c.cancel()
	}
	return len(b), nil
}

// cancelled returns the time of the first write (zero if none).
func (c *cancelOnWrite) cancelled() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

// TestEvaluateCancel checks that a cancelled evaluation returns ctx.Err() promptly: during the
// ranking (cancelled at the first progress line, on a corpus that takes seconds to rank), during
// the bootstrap (a million resamples, cancelled after 300 ms), and at once when ctx is already
// done.
func TestEvaluateCancel(t *testing.T) {
	cases := []struct {
		name  string
		in    Input
		s     Settings
		after time.Duration // 0: at the first progress line; < 0: before the call
	}{
		{"ranking", benchInput(20000, 100000, 64), Settings{Bootstrap: -1}, 0}, // about 1.5 s of ranking
		{"bootstrap", benchInput(2000, 100, 8), Settings{Bootstrap: 1_000_000}, 300 * time.Millisecond},
		{"before", benchInput(10, 100, 8), Settings{}, -1},
	}
	for _, c := range cases {
		ctx, cancel := context.WithCancel(context.Background())
		w := &cancelOnWrite{cancel: cancel}
		start := time.Now()
		switch {
		case c.after < 0:
			w.Write(nil)
		case c.after > 0:
			time.AfterFunc(c.after, func() { w.Write(nil) })
		}
		_, err := EvaluateContext(ctx, c.in, c.s, 1, w)
		end := time.Now()
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v, want context.Canceled", c.name, err)
		}
		if at := w.cancelled(); at.IsZero() || end.Sub(at) > time.Second {
			t.Errorf("%s: returned %v after the cancel (%v after the start), want well within a second",
				c.name, end.Sub(at), end.Sub(start))
		}
	}
}
