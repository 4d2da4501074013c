package estimators

import (
	"math"
	"sync/atomic"
)

// atomicSketch is the lock-free concurrent form of sketch (Settings.Concurrent): the same hashes
// and update rule, with A claimed by compare-and-swap and B updated by a compare-and-swap loop on
// its float64 bits. See the package documentation for the semantics.
type atomicSketch struct {
	hashes
	cells     []atomicCell
	alpha     float64
	skipFirst bool
	lost      atomic.Int64 // observations dropped because their bucket held a later step
}

// atomicCell is cell with atomic fields; gap holds the bits of a float64.
type atomicCell struct {
	last atomic.Int64
	gap  atomic.Uint64
}

// claim is one recorded arrival: a bucket moved from step from to step to.
type claim struct{ from, to int64 }

func newAtomicSketch(c sketchConfig) *atomicSketch {
	s := &atomicSketch{hashes: c.hashes, cells: make([]atomicCell, c.hashes.size()), alpha: c.alpha, skipFirst: c.skipFirst}
	bits := math.Float64bits(c.init)
	for i := range s.cells {
		s.cells[i].gap.Store(bits)
	}
	return s
}

// Observe is sketch.Observe, safe for concurrent use.
func (s *atomicSketch) Observe(t int64, items []uint64) { s.observe(t, items, nil) }

// observe is Observe; when claims is not nil it appends every recorded arrival to it.
func (s *atomicSketch) observe(t int64, items []uint64, claims *[]claim) {
	for _, y := range items {
		for i := range s.keys {
			c := &s.cells[s.index(i, y)]
			a, ok := claimStep(&c.last, t)
			if !ok {
				if a > t {
					s.lost.Add(1)
				}
				continue
			}
			if claims != nil {
				*claims = append(*claims, claim{a, t})
			}
			if a == 0 && s.skipFirst {
				continue
			}
			d := float64(t - a)
			for {
				old := c.gap.Load()
				b := math.Float64frombits(old)
				if c.gap.CompareAndSwap(old, math.Float64bits(b+s.alpha*(d-b))) {
					break
				}
			}
		}
	}
}

// claimStep moves A from its value a < t to t and reports a; it fails, reporting a, when A
// already is t or later.
func claimStep(last *atomic.Int64, t int64) (int64, bool) {
	for {
		a := last.Load()
		if a >= t {
			return a, false
		}
		if last.CompareAndSwap(a, t) {
			return a, true
		}
	}
}

// Lost returns the number of lost updates so far: bucket observations at a step t dropped
// because the bucket had already recorded a later step (a worker lagging behind another). The
// observations dropped because the bucket had recorded step t itself are not lost: a bucket
// records one arrival per step.
func (s *atomicSketch) Lost() int64 { return s.lost.Load() }

// Prob is sketch.Prob, safe for concurrent use.
func (s *atomicSketch) Prob(y uint64) float64 {
	var b float64
	for i := range s.keys {
		b = max(b, math.Float64frombits(s.cells[s.index(i, y)].gap.Load()))
	}
	return probOfGap(b)
}
