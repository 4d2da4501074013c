package freqsim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/samplingbias/workbench/estimators"
)

// Settings is the [freq_sim] section. Its zero value is Yi et al.'s simulation.
type Settings struct {
	// Items is the number of items M; default 1000.
	Items int `toml:"items"`
	// Batch is the batch size B; default 128.
	Batch int `toml:"batch"`
	// Buckets is the total number of buckets H, shared by the m hash arrays; default 5000.
	Buckets int `toml:"buckets"`
	// StepsPerPhase is the length of each of the two phases; default 10,000.
	StepsPerPhase int `toml:"steps_per_phase"`
	// Alphas are the EMA learning rates compared; default [0.01, 0.05, 0.1].
	Alphas []float64 `toml:"alphas"`
	// Hashes are the numbers m of hash arrays compared (1 is Algorithm 2); default [1, 2, 4].
	Hashes []int `toml:"hashes"`
	// Init is the initial value of B, "one" or "uniform" (see estimators.Settings); default uniform.
	Init string `toml:"init"`
	// FirstArrival is "zero" or "skip" (see estimators.Settings); default zero.
	FirstArrival string `toml:"first_arrival"`
}

// Resolve fills the zero fields with their defaults and validates every field. Errors start with
// the TOML key of the field.
func (s *Settings) Resolve() error {
	for _, f := range []struct {
		key      string
		v        *int
		def, min int
	}{
		{"items", &s.Items, 1000, 2},
		{"batch", &s.Batch, 128, 1},
		{"buckets", &s.Buckets, 5000, 1},
		{"steps_per_phase", &s.StepsPerPhase, 10000, 1},
	} {
		if *f.v == 0 {
			*f.v = f.def
		}
		if *f.v < f.min {
			return fmt.Errorf("%s: must be at least %d, got %d", f.key, f.min, *f.v)
		}
	}
	if len(s.Alphas) == 0 {
		s.Alphas = []float64{0.01, 0.05, 0.1}
	}
	for i, a := range s.Alphas {
		if !(a > 0 && a <= 1) {
			return fmt.Errorf("alphas: element %d must be in (0, 1], got %v", i, a)
		}
	}
	if len(s.Hashes) == 0 {
		s.Hashes = []int{1, 2, 4}
	}
	for i, m := range s.Hashes {
		if m < 1 || m > s.Buckets {
			return fmt.Errorf("hashes: element %d must be in [1, buckets = %d], got %d", i, s.Buckets, m)
		}
	}
	e := s.estimator(s.Alphas[0], s.Hashes[0])
	if err := e.Resolve(); err != nil {
		return err
	}
	s.Init, s.FirstArrival = e.Init, e.FirstArrival
	return nil
}

// estimator is the settings of the multihash estimator of one cell.
func (s *Settings) estimator(alpha float64, hashes int) estimators.Settings {
	return estimators.Settings{
		Kind:         estimators.KindMultihash,
		Alpha:        alpha,
		Buckets:      s.Buckets,
		Hashes:       hashes,
		Init:         s.Init,
		FirstArrival: s.FirstArrival,
	}
}

// Job is one cell of the grid.
type Job struct {
	Alpha  float64
	Hashes int
	Seed   int64
}

// Jobs lists the cells α × m × seeds, α outermost.
func (s *Settings) Jobs(seeds []int64) []Job {
	var jobs []Job
	for _, a := range s.Alphas {
		for _, m := range s.Hashes {
			for _, seed := range seeds {
				jobs = append(jobs, Job{Alpha: a, Hashes: m, Seed: seed})
			}
		}
	}
	return jobs
}

// Result is the TV distance of each step (step t is TV[t-1]) of one cell.
type Result struct {
	Job
	TV []float64
}

// RunGrid runs the jobs on workers goroutines (GOMAXPROCS if workers < 1) and returns their
// results in the order of jobs. done, if not nil, is called after each job (from the worker
// goroutines, one at a time). When ctx is cancelled no further job starts and RunGrid returns
// ctx.Err() once the running ones have finished.
func RunGrid(ctx context.Context, s Settings, jobs []Job, workers int, done func(Job)) ([]Result, error) {
	if err := s.Resolve(); err != nil {
		return nil, err
	}
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	res := make([]Result, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(workers, len(jobs)) {
		wg.Go(func() {
			for i := range next {
				j := jobs[i]
				res[i].Job = j
				res[i].TV, errs[i] = Run(s, j.Alpha, j.Hashes, j.Seed)
				if done != nil {
					mu.Lock()
					done(j)
					mu.Unlock()
				}
			}
		})
	}
dispatch:
	for i := range jobs {
		select {
		case next <- i:
		case <-ctx.Done():
			break dispatch
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}

// Run simulates one cell: a multihash estimator with m = hashes arrays (m = 1 is Yi's Algorithm 2)
// and learning rate alpha; it returns the TV distance of each of the 2·StepsPerPhase steps.
func Run(s Settings, alpha float64, hashes int, seed int64) ([]float64, error) {
	if err := s.Resolve(); err != nil {
		return nil, err
	}
	env := estimators.Env{BatchSize: s.Batch, CorpusSize: s.Items}
	est, err := estimators.New(s.estimator(alpha, hashes), env, seed)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed_f5e9))
	phases := [2]phase{newPhase(s, false), newPhase(s, true)}
	batch := make([]uint64, s.Batch)
	tv := make([]float64, 2*s.StepsPerPhase)
	for i := range tv {
		ph := &phases[i/s.StepsPerPhase]
		for j := range batch {
			batch[j] = uint64(ph.sampler.draw(rng))
		}
		est.Observe(int64(i+1), batch)
		var sum float64
		for y, p := range ph.p {
			sum += math.Abs(est.Prob(uint64(y)) - p)
		}
		tv[i] = sum / (2 * float64(s.Batch))
	}
	return tv, nil
}

// phase is one of the two item distributions: a sampler of q and the true p.
type phase struct {
	sampler alias
	p       []float64
}

// newPhase is q_i ∝ i² (reversed: q_i ∝ (M-1-i)²) and p_i = 1-(1-q_i)^B.
func newPhase(s Settings, reversed bool) phase {
	w := make([]float64, s.Items)
	var sum float64
	for i := range w {
		k := i
		if reversed {
			k = s.Items - 1 - i
		}
		w[i] = float64(k) * float64(k)
		sum += w[i]
	}
	p := make([]float64, s.Items)
	for i, wi := range w {
		p[i] = -math.Expm1(float64(s.Batch) * math.Log1p(-wi/sum))
	}
	return phase{sampler: newAlias(w), p: p}
}

// Summary is the mean TV over the last window steps of each phase (the steady state of each
// phase); window is clipped to the phase length.
func Summary(tv []float64, window int) (phase1, phase2 float64) {
	n := len(tv) / 2
	window = min(max(window, 1), n)
	return mean(tv[n-window : n]), mean(tv[2*n-window:])
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
