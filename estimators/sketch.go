package estimators

// sketch is the streaming (m = 1, Yi et al. Algorithm 2) and multihash (Algorithm 3) estimator:
// the buckets of all m arrays laid end to end.
type sketch struct {
	hashes
	cells     []cell
	alpha     float64
	skipFirst bool
}

// cell is one bucket: A and B side by side, so that an update touches one cache line. B is a
// float64: for an item seen at every step the update B ← B + α(1 − B) rounds to B once α(B − 1)
// is below half an ulp of 1, which in float32 (2^-24) left B − 1 ≈ 4.8e-7 for α = 0.1: a floor
// p̂ ≤ 1 − 4.8e-7 that capped the per-draw q̂ = 1 − (1 − p̂)^{1/B} inverted from it near 14/B
// (TestEMANoFloat32Floor). In float64 the stall is at 1.1e-16/α.
type cell struct {
	last int64   // A: the last step the bucket was seen, 0 if never
	gap  float64 // B: EMA of the bucket's inter-arrival gap
}

// sketchConfig is what both sketch forms are built from.
type sketchConfig struct {
	hashes    hashes
	init      float64
	alpha     float64
	skipFirst bool
}

func newSketchConfig(s Settings, env Env, seed int64) (sketchConfig, error) {
	init, err := env.initialGap(s.Init)
	if err != nil {
		return sketchConfig{}, err
	}
	return sketchConfig{
		hashes:    newHashes(s.Hashes, s.Buckets, seed),
		init:      init,
		alpha:     s.Alpha,
		skipFirst: s.FirstArrival == FirstArrivalSkip,
	}, nil
}

func newSketch(c sketchConfig) *sketch {
	s := &sketch{hashes: c.hashes, cells: make([]cell, c.hashes.size()), alpha: c.alpha, skipFirst: c.skipFirst}
	for i := range s.cells {
		s.cells[i].gap = c.init
	}
	return s
}

// Observe feeds every bucket of every item one arrival at step t, unless the bucket has already
// recorded step t: B ← B + α(t - A - B), that is (1-α)B + α(t - A); A ← t.
func (s *sketch) Observe(t int64, items []uint64) {
	for _, y := range items {
		for i := range s.keys {
			c := &s.cells[s.index(i, y)]
			a := c.last
			if a >= t {
				continue
			}
			c.last = t
			if a == 0 && s.skipFirst {
				continue
			}
			c.gap += s.alpha * (float64(t-a) - c.gap)
		}
	}
}

// Prob is 1/max_i B_i[h_i(y)].
func (s *sketch) Prob(y uint64) float64 {
	var b float64
	for i := range s.keys {
		b = max(b, s.cells[s.index(i, y)].gap)
	}
	return probOfGap(b)
}

// probOfGap is 1/b clipped to (0, 1].
func probOfGap(b float64) float64 {
	if b <= 1 {
		return 1
	}
	return 1 / b
}
