package freqsim

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/samplingbias/workbench/estimators"
	"github.com/samplingbias/workbench/internal/prob"
	"github.com/samplingbias/workbench/internal/setting"
)

// Settings is the [freq_sim] section. Its zero value is Yi et al.'s simulation.
type Settings struct {
	// Items is the number of items M; default DefaultItems.
	Items int `toml:"items"`
	// Batch is the batch size B; default DefaultBatch.
	Batch int `toml:"batch"`
	// Buckets is the total number of buckets H, shared by the m hash arrays; default
	// DefaultBuckets.
	Buckets int `toml:"buckets"`
	// StepsPerPhase is the length of each of the two phases; default DefaultStepsPerPhase.
	StepsPerPhase int `toml:"steps_per_phase"`
	// Alphas are the EMA learning rates compared; default DefaultAlphas().
	Alphas []float64 `toml:"alphas"`
	// Hashes are the numbers m of hash arrays compared (1 is Algorithm 2); default
	// DefaultHashes().
	Hashes []int `toml:"hashes"`
	// Init is the initial value of B (see estimators.Settings.Init); default
	// estimators.DefaultInit.
	Init estimators.Init `toml:"init"`
	// FirstArrival is the first-arrival rule (see estimators.Settings.FirstArrival); default
	// estimators.DefaultFirstArrival.
	FirstArrival estimators.FirstArrival `toml:"first_arrival"`
	// Workers are the numbers of workers compared that update one lock-free estimator
	// (estimators.Settings.Concurrent), Yi et al.'s parameter-server setting: each takes the
	// next global step, observes that step's batch and reads p̂, at most Workers steps apart
	// (a step's write can only be overtaken by the writes of the Workers − 1 steps after it),
	// interleaved as Interleaving says. 1 is the plain sequential simulation; default [1], one
	// worker.
	Workers []int `toml:"workers"`
	// Interleaving is how the workers of a cell interleave their steps: InterleavingSimulated
	// (a seeded interleaving, reproducible) or InterleavingThreads (goroutines, the operating
	// system's interleaving, machine-dependent); default DefaultInterleaving.
	Interleaving Interleaving `toml:"interleaving"`
}

// Interleaving is Settings.Interleaving.
type Interleaving string

// Interleavings of the workers of a cell.
const (
	// InterleavingSimulated plays Yi et al.'s parameter-server staleness from the seed, on one
	// goroutine: the writes of the steps happen in a seeded order in which no step is overtaken
	// by a step more than w − 1 later (w workers). The TV and the lost updates are a function of
	// the settings and the seed.
	InterleavingSimulated Interleaving = "simulated"
	// InterleavingThreads runs w goroutines sharing one lock-free estimator, at most w steps
	// apart: the interleaving is the scheduler's, so the TV and the lost updates depend on the
	// machine and its load.
	InterleavingThreads Interleaving = "threads"
)

var interleavings = []Interleaving{InterleavingSimulated, InterleavingThreads}

// UnmarshalText accepts the names of the Interleaving constants.
func (i *Interleaving) UnmarshalText(b []byte) error { return setting.Unmarshal(i, b, interleavings) }

// maxWorkers bounds Settings.Workers.
const maxWorkers = 256

// Defaults of Settings: Yi et al.'s simulation.
const (
	DefaultItems         = 1000
	DefaultBatch         = 128
	DefaultBuckets       = 5000
	DefaultStepsPerPhase = 10000
	DefaultInterleaving  = InterleavingSimulated
)

// DefaultAlphas returns the default Settings.Alphas, [0.01, 0.05, 0.1].
func DefaultAlphas() []float64 { return []float64{0.01, 0.05, 0.1} }

// DefaultHashes returns the default Settings.Hashes, [1, 2, 4].
func DefaultHashes() []int { return []int{1, 2, 4} }

// Resolve fills the zero fields with their defaults and validates every field. Errors start with
// the TOML key of the field.
func (s *Settings) Resolve() error {
	setting.Default(&s.Items, DefaultItems)
	setting.Default(&s.Batch, DefaultBatch)
	setting.Default(&s.Buckets, DefaultBuckets)
	setting.Default(&s.StepsPerPhase, DefaultStepsPerPhase)
	setting.Default(&s.Interleaving, DefaultInterleaving)
	if len(s.Alphas) == 0 {
		s.Alphas = DefaultAlphas()
	}
	if len(s.Hashes) == 0 {
		s.Hashes = DefaultHashes()
	}
	if len(s.Workers) == 0 {
		s.Workers = []int{1}
	}
	if err := setting.First(
		setting.AtLeast("items", s.Items, 2),
		setting.AtLeast("batch", s.Batch, 1),
		setting.AtLeast("buckets", s.Buckets, 1),
		setting.AtLeast("steps_per_phase", s.StepsPerPhase, 1),
		setting.EachIn("alphas", s.Alphas, setting.OpenClosed(0.0, 1)),
		setting.Distinct("alphas", s.Alphas),
		s.checkHashes(),
		setting.Distinct("hashes", s.Hashes),
		setting.EachIn("workers", s.Workers, setting.Closed(1, maxWorkers)),
		setting.Distinct("workers", s.Workers),
		setting.OneOf("interleaving", s.Interleaving, interleavings),
	); err != nil {
		return err
	}
	e := s.estimator(s.Alphas[0], s.Hashes[0], 1)
	if err := e.Resolve(); err != nil {
		return err
	}
	s.Init, s.FirstArrival = e.Init, e.FirstArrival
	return nil
}

// checkHashes requires every number of hash arrays in [1, buckets].
func (s *Settings) checkHashes() error {
	for i, m := range s.Hashes {
		if m < 1 || m > s.Buckets {
			return fmt.Errorf("hashes: element %d must be in [1, buckets = %d], got %d", i, s.Buckets, m)
		}
	}
	return nil
}

// estimator is the settings of the multihash estimator of one cell: the lock-free form when
// several workers share it.
func (s *Settings) estimator(alpha float64, hashes, workers int) estimators.Settings {
	return estimators.Settings{
		Kind:         estimators.KindMultihash,
		Alpha:        alpha,
		Buckets:      s.Buckets,
		Hashes:       hashes,
		Init:         s.Init,
		FirstArrival: s.FirstArrival,
		Concurrent:   workers > 1,
	}
}

// Part is one part of a cell's memory: the key of the setting that sizes it, what it holds and
// its bytes.
type Part struct {
	Key, What string
	Bytes     float64
}

// JobBytes is the memory, in bytes, that one cell of s (resolved here; s is a copy) holds while
// it runs, by part: the estimator's buckets (estimators.StateBytes without the checkpoint copy
// it counts, which the simulation does not make), each phase's p and alias table and, while they
// are built, the weights (64 bytes an item), the TV of every step, and each worker's batch.
func JobBytes(s Settings) ([]Part, error) {
	if err := s.Resolve(); err != nil {
		return nil, err
	}
	state, err := estimators.StateBytes(s.estimator(s.Alphas[0], s.Hashes[0], 1), s.Items)
	if err != nil {
		return nil, err
	}
	return []Part{
		{"freq_sim.buckets", "estimator's buckets", state / 2},
		{"freq_sim.items", "phases' item probabilities and alias tables", 64 * float64(s.Items)},
		{"freq_sim.steps_per_phase", "TV of every step", 8 * 2 * float64(s.StepsPerPhase)},
		{"freq_sim.batch", "workers' batches", 8 * float64(s.Batch) * float64(slices.Max(s.Workers))},
	}, nil
}

// Job is one cell of the grid.
type Job struct {
	Alpha   float64
	Hashes  int
	Workers int // 0 means 1
	Seed    int64
}

// Jobs lists the cells α × m × workers × seeds, α outermost.
func (s *Settings) Jobs(seeds []int64) []Job {
	var jobs []Job
	for _, a := range s.Alphas {
		for _, m := range s.Hashes {
			for _, w := range s.Workers {
				for _, seed := range seeds {
					jobs = append(jobs, Job{Alpha: a, Hashes: m, Workers: w, Seed: seed})
				}
			}
		}
	}
	return jobs
}

// Result is the outcome of one cell.
type Result struct {
	Job
	// TV is the TV distance of each step (step t is TV[t-1]), read by the worker that observed
	// the step right after its observation.
	TV []float64
	// Lost counts the lost updates: bucket observations dropped because another worker had
	// already recorded a later step in that bucket (0 with one worker).
	Lost int64
}

// RunGrid runs the jobs on workers goroutines (GOMAXPROCS if workers < 1) and returns their
// results in the order of jobs. done, if not nil, is called after each job (from the worker
// goroutines, one at a time). The first job to fail stops the grid: no further job starts and
// RunGrid returns that job's error once the running ones have finished. When ctx is cancelled
// no further job starts either, and RunGrid returns ctx.Err().
func RunGrid(ctx context.Context, s Settings, jobs []Job, workers int, done func(Job)) ([]Result, error) {
	if err := s.Resolve(); err != nil {
		return nil, err
	}
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	res := make([]Result, len(jobs))
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i, j := range jobs {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			r, err := Run(s, j)
			if err != nil {
				return fmt.Errorf("freq_sim job %+v: %w", j, err)
			}
			res[i] = r
			if done != nil {
				mu.Lock()
				defer mu.Unlock()
				done(j)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// Run simulates one cell: a multihash estimator with m = j.Hashes arrays (m = 1 is Yi's
// Algorithm 2) and learning rate j.Alpha, updated by j.Workers workers; it returns the TV
// distance of each of the 2·StepsPerPhase steps and the lost updates.
//
// The batch of step t is drawn from a random stream of (seed, t) alone, so every worker count
// sees the same batches and one worker is reproducible bit for bit. With several workers and
// InterleavingSimulated the order of the steps' writes is drawn from the seed too (see delays),
// so the whole cell is reproducible bit for bit. With InterleavingThreads the order in which the
// goroutines observe nearby steps is the scheduler's, so TV and Lost vary from run to run. In
// both, an observation at step t can only be lost to a recorded observation of the same bucket
// at a step in (t, t + Workers).
func Run(s Settings, j Job) (Result, error) {
	if err := s.Resolve(); err != nil {
		return Result{}, err
	}
	workers := max(j.Workers, 1)
	env := estimators.Env{BatchSize: s.Batch, CorpusSize: s.Items}
	est, err := estimators.New(s.estimator(j.Alpha, j.Hashes, workers), env, j.Seed)
	if err != nil {
		return Result{}, err
	}
	sim := newSimulation(s, j.Seed, est, workers)
	switch {
	case workers == 1:
		sim.work()
	case s.Interleaving == InterleavingSimulated:
		sim.play(writeOrder(delays(j.Seed, len(sim.tv), workers)))
	default:
		sim.finished = make([]atomic.Bool, len(sim.tv)+1)
		var wg sync.WaitGroup
		for range workers {
			wg.Go(sim.work)
		}
		wg.Wait()
	}
	res := Result{Job: j, TV: sim.tv}
	if l, ok := est.(interface{ Lost() int64 }); ok {
		res.Lost = l.Lost()
	}
	return res, nil
}

// simulation is the state the workers of one cell share.
type simulation struct {
	s      Settings
	seed   int64
	est    estimators.Estimator
	phases [2]phase
	tv     []float64 // written once per step, by the worker of that step
	window int64     // the number of workers: step t starts once steps ≤ t − window finished

	next     atomic.Int64  // the last step taken
	done     atomic.Int64  // every step ≤ done has finished
	finished []atomic.Bool // finished[t]: step t has finished (nil with one worker)
}

// newSimulation is a cell's simulation of resolved settings s for the given workers.
func newSimulation(s Settings, seed int64, est estimators.Estimator, workers int) *simulation {
	return &simulation{s: s, seed: seed, est: est, phases: [2]phase{newPhase(s, false), newPhase(s, true)},
		tv: make([]float64, 2*s.StepsPerPhase), window: int64(workers)}
}

// batchStream is the random source of the batches, reseeded for every step.
type batchStream struct {
	src *rand.PCG
	rng *rand.Rand
}

func newBatchStream() batchStream {
	src := rand.NewPCG(0, 0)
	return batchStream{src: src, rng: rand.New(src)}
}

// draw fills batch with the items of step t, drawn from the step's phase, which it returns.
func (sim *simulation) draw(t int64, bs batchStream, batch []uint64) *phase {
	ph := &sim.phases[(t-1)/int64(sim.s.StepsPerPhase)]
	bs.src.Seed(uint64(sim.seed), streamBatches^uint64(t))
	for j := range batch {
		batch[j] = uint64(ph.sampler.draw(bs.rng))
	}
	return ph
}

// work takes steps until there are none left: it draws the step's batch, waits for the
// staleness bound, observes the batch, reads p̂ of every item and records the step's TV.
func (sim *simulation) work() {
	bs := newBatchStream()
	batch := make([]uint64, sim.s.Batch)
	for {
		t := sim.next.Add(1)
		if t > int64(len(sim.tv)) {
			return
		}
		ph := sim.draw(t, bs, batch)
		for sim.finished != nil && sim.done.Load() < t-sim.window {
			runtime.Gosched()
		}
		sim.observe(t, ph, batch)
		if sim.finished != nil {
			sim.finish(t)
		}
	}
}

// play takes the steps on one goroutine in the given order (a permutation of 1..len(sim.tv)).
func (sim *simulation) play(order []int64) {
	bs := newBatchStream()
	batch := make([]uint64, sim.s.Batch)
	for _, t := range order {
		sim.observe(t, sim.draw(t, bs, batch), batch)
	}
}

// observe observes the batch of step t, drawn from phase ph, reads p̂ of every item and records
// the step's TV.
func (sim *simulation) observe(t int64, ph *phase, batch []uint64) {
	sim.est.Observe(t, batch)
	var sum float64
	for y, p := range ph.p {
		sum += math.Abs(sim.est.Prob(uint64(y)) - p)
	}
	sim.tv[t-1] = sum / (2 * float64(sim.s.Batch))
}

// delays draws the delays of the simulated interleaving of n steps by w workers: step t
// (delays[t-1]) writes at time t + d_t, with d_t uniform on [0, w) from a random stream of
// (seed, t) alone.
func delays(seed int64, n, w int) []float64 {
	src := rand.NewPCG(0, 0)
	rng := rand.New(src)
	d := make([]float64, n)
	for t := range d {
		src.Seed(uint64(seed), streamDelays^uint64(t+1))
		d[t] = float64(w) * rng.Float64()
	}
	return d
}

// writeOrder is the simulated interleaving: the steps 1..len(d) sorted by their write times
// t + d_t (ties by step). With every d_t in [0, w) a step t can only be overtaken by a step in
// (t, t + w), the staleness bound of the threads; each worker's read after its write sees every
// write before it and misses those of the earlier steps still delayed, at most w − 1.
func writeOrder(d []float64) []int64 {
	order := make([]int64, len(d))
	for i := range order {
		order[i] = int64(i + 1)
	}
	at := func(t int64) float64 { return float64(t) + d[t-1] }
	slices.SortFunc(order, func(a, b int64) int {
		return cmp.Or(cmp.Compare(at(a), at(b)), cmp.Compare(a, b))
	})
	return order
}

// finish marks step t finished and moves done past every finished step.
func (sim *simulation) finish(t int64) {
	sim.finished[t].Store(true)
	for {
		d := sim.done.Load()
		if d+1 >= int64(len(sim.finished)) || !sim.finished[d+1].Load() {
			return
		}
		sim.done.CompareAndSwap(d, d+1)
	}
}

// streamBatches keys the random streams of the batches (step t's stream is seed, streamBatches^t).
const streamBatches = 0x5eed_f5e9 << 32

// streamDelays keys the random streams of the simulated interleaving's delays (step t's stream
// is seed, streamDelays^t).
const streamDelays = 0xde1a_f5e9 << 32

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
	return prob.Mean(tv[n-window : n]), prob.Mean(tv[2*n-window:])
}
