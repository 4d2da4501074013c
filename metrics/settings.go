package metrics

import (
	"fmt"
	"math"
	"runtime"
	"slices"
)

// Settings is the [eval] section. The zero value evaluates Recall@K and NDCG@K at K = 10, 50 and
// 100 and MRR, unfiltered, without logit adjustment, with 1000 bootstrap resamples, on
// GOMAXPROCS workers.
type Settings struct {
	// K lists the cut-offs of Recall@K and NDCG@K, each at least 1 and no two equal
	// (default [10, 50, 100]).
	K []int `toml:"k"`
	// Filter removes, from the ranking of each test pair, the other known positives of its query
	// (Input.Exclude); the pair's own item is never removed (default false).
	Filter bool `toml:"filter"`
	// LogitAdjust lists the post-hoc logit-adjustment strengths τ: every τ ranks the items by
	// score − τ·log π(item) and gives its own results; 0 is the plain ranking. Values must be
	// finite and distinct (default [0]).
	LogitAdjust []float64 `toml:"logit_adjust"`
	// Bootstrap is the number of bootstrap resamples of the test pairs behind the 95% intervals
	// (default 1000; 0 means the default; -1 computes no interval: Lo = Hi = Value).
	Bootstrap int `toml:"bootstrap"`
	// Workers is the number of goroutines scoring and resampling (default runtime.GOMAXPROCS(0),
	// filled in by Resolve).
	Workers int `toml:"workers"`
	// MaxPairs, when positive and smaller than the number of test pairs, evaluates a seeded
	// random sample of MaxPairs test pairs, stratified by the slice of the pair's item (see
	// "Sampled evaluation" in the package documentation); each sampled pair is still ranked
	// exactly against the whole corpus. 0 (the default) evaluates every test pair.
	MaxPairs int `toml:"max_pairs"`
	// LogSeconds is the minimum time between two plain progress lines when progress does not
	// go to a terminal; default 10.
	LogSeconds float64 `toml:"log_seconds"`
}

// Resolve fills the defaults in place and validates the settings.
func (s *Settings) Resolve() error {
	if len(s.K) == 0 {
		s.K = []int{10, 50, 100}
	}
	for i, k := range s.K {
		if k < 1 {
			return fmt.Errorf("k: must be positive, got %d", k)
		}
		if slices.Contains(s.K[:i], k) {
			return fmt.Errorf("k: duplicate value %d", k)
		}
	}
	if len(s.LogitAdjust) == 0 {
		s.LogitAdjust = []float64{0}
	}
	for i, t := range s.LogitAdjust {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Errorf("logit_adjust: must be finite, got %v", t)
		}
		if slices.Contains(s.LogitAdjust[:i], t) {
			return fmt.Errorf("logit_adjust: duplicate value %v", t)
		}
	}
	switch {
	case s.Bootstrap == 0:
		s.Bootstrap = 1000
	case s.Bootstrap < -1:
		return fmt.Errorf("bootstrap: must be a number of resamples >= 1 (0 means 1000) or -1 for none, got %d", s.Bootstrap)
	}
	if s.MaxPairs < 0 {
		return fmt.Errorf("max_pairs: must be a number of test pairs >= 1 (0 means all), got %d", s.MaxPairs)
	}
	if s.LogSeconds == 0 {
		s.LogSeconds = 10
	}
	if !(s.LogSeconds > 0) || math.IsInf(s.LogSeconds, 0) {
		return fmt.Errorf("log_seconds: must be a positive number, got %v", s.LogSeconds)
	}
	switch {
	case s.Workers == 0:
		s.Workers = runtime.GOMAXPROCS(0)
	case s.Workers < 0:
		return fmt.Errorf("workers: must be positive (0 means GOMAXPROCS), got %d", s.Workers)
	}
	return nil
}

// needsPrior reports whether some τ is not zero, so that Input.LogPrior is needed.
func (s *Settings) needsPrior() bool {
	for _, t := range s.LogitAdjust {
		if t != 0 {
			return true
		}
	}
	return false
}
