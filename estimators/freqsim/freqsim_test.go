package freqsim

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/samplingbias/workbench/estimators"
	"github.com/samplingbias/workbench/internal/prob"
)

func TestResolve(t *testing.T) {
	var s Settings
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	if s.Items != 1000 || s.Batch != 128 || s.Buckets != 5000 || s.StepsPerPhase != 10000 ||
		!slices.Equal(s.Alphas, []float64{0.01, 0.05, 0.1}) || !slices.Equal(s.Hashes, []int{1, 2, 4}) ||
		s.Init != estimators.InitUniform || s.FirstArrival != estimators.FirstArrivalZero || !slices.Equal(s.Workers, []int{1}) || s.Interleaving != InterleavingSimulated {
		t.Errorf("zero value resolved to %+v", s)
	}
	for _, c := range []struct {
		s    Settings
		want string
	}{
		{Settings{Items: 1}, "items: must be at least 2, got 1"},
		{Settings{Batch: -1}, "batch: must be at least 1, got -1"},
		{Settings{Buckets: -5}, "buckets: must be at least 1, got -5"},
		{Settings{StepsPerPhase: -1}, "steps_per_phase: must be at least 1, got -1"},
		{Settings{Alphas: []float64{0.1, 1.5}}, "alphas: element 1 must be in (0, 1], got 1.5"},
		{Settings{Hashes: []int{1, 0}}, "hashes: element 1 must be in [1, buckets = 5000], got 0"},
		{Settings{Alphas: []float64{0.1, 0.1}}, "alphas: duplicate value 0.1"},
		{Settings{Hashes: []int{2, 2}}, "hashes: duplicate value 2"},
		{Settings{Workers: []int{1, 4, 1}}, "workers: duplicate value 1"},
		{Settings{Buckets: 3, Hashes: []int{4}}, "hashes: element 0 must be in [1, buckets = 3], got 4"},
		{Settings{Init: "zero"}, `init: unknown "zero" (allowed: one, uniform)`},
		{Settings{Workers: []int{1, 0}}, "workers: element 1 must be in [1, 256], got 0"},
		{Settings{Workers: []int{257}}, "workers: element 0 must be in [1, 256], got 257"},
		{Settings{FirstArrival: "x"}, `first_arrival: unknown "x" (allowed: zero, skip)`},
		{Settings{Interleaving: "os"}, `interleaving: unknown "os" (allowed: simulated, threads)`},
	} {
		if err := c.s.Resolve(); err == nil || err.Error() != c.want {
			t.Errorf("Resolve(%+v) = %v, want %q", c.s, err, c.want)
		}
	}
	if _, err := Run(Settings{}, Job{Alpha: 2, Hashes: 1, Seed: 1}); err == nil || !strings.HasPrefix(err.Error(), "alpha: ") {
		t.Errorf("Run with α = 2: %v", err)
	}
}

func TestAlias(t *testing.T) {
	w := []float64{0, 1, 4, 9, 0, 16, 0.5}
	a := newAlias(w)
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 300000
	count := make([]float64, len(w))
	for range n {
		count[a.draw(rng)]++
	}
	var sum float64
	for _, v := range w {
		sum += v
	}
	for i, v := range w {
		p := v / sum
		if sd := math.Sqrt(n * p * (1 - p)); math.Abs(count[i]-n*p) > 5*sd || (p == 0 && count[i] != 0) {
			t.Errorf("item %d drawn %v times, want %v ± 5·%.1f", i, count[i], n*p, sd)
		}
	}
}

// TestRunByHand: two items, batches of one, α = 0.1, B0 = M/B = 2. Phase 1 (steps 1..5) draws item 1
// every step: its B is 1 + 0.9^t; item 0 keeps 2. Phase 2 (steps 6..10) draws item 0 every step:
// its first arrival feeds the gap 6, B = 2 + 0.1·(6-2) = 2.4, then 1 + 1.4·0.9^(t-6); item 1 keeps
// 1 + 0.9^5. TV = (|p̂0 - p0| + |p̂1 - p1|)/2.
func TestRunByHand(t *testing.T) {
	s := Settings{Items: 2, Batch: 1, Buckets: 1 << 20, StepsPerPhase: 5}
	const seed = 3
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	// Items 0 and 1 must not share a bucket under this seed.
	e, err := estimators.New(s.estimator(0.1, 1, 1), estimators.Env{BatchSize: 1, CorpusSize: 2}, seed)
	if err != nil {
		t.Fatal(err)
	}
	e.Observe(1, []uint64{1})
	if e.Prob(0) != 0.5 {
		t.Fatal("items 0 and 1 collide: pick another seed")
	}
	r, err := Run(s, Job{Alpha: 0.1, Hashes: 1, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	tv := r.TV
	if len(tv) != 10 {
		t.Fatalf("%d steps, want 10", len(tv))
	}
	for step := 1; step <= 10; step++ {
		var want float64
		if step <= 5 {
			p1 := 1 / (1 + math.Pow(0.9, float64(step)))
			want = (0.5 + (1 - p1)) / 2
		} else {
			p0 := 1 / (1 + 1.4*math.Pow(0.9, float64(step-6)))
			want = ((1 - p0) + 1/(1+math.Pow(0.9, 5))) / 2
		}
		if math.Abs(tv[step-1]-want) > 1e-6 {
			t.Errorf("step %d: TV = %v, want %v", step, tv[step-1], want)
		}
	}
}

func TestRunGrid(t *testing.T) {
	s := Settings{Items: 50, Batch: 8, Buckets: 64, StepsPerPhase: 30, Alphas: []float64{0.05, 0.2}, Hashes: []int{1, 2}}
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	if w := (Settings{Workers: []int{1, 3}}); w.Resolve() != nil || len(w.Jobs([]int64{1, 2})) != 3*3*2*2 || w.Jobs([]int64{1, 2})[2] != (Job{0.01, 1, 3, 1}) {
		t.Errorf("jobs with workers [1, 3]: %v", w.Jobs([]int64{1, 2}))
	}
	jobs := s.Jobs([]int64{1, 2})
	if len(jobs) != 8 || jobs[0] != (Job{0.05, 1, 1, 1}) || jobs[1] != (Job{0.05, 1, 1, 2}) || jobs[7] != (Job{0.2, 2, 1, 2}) {
		t.Fatalf("jobs %v", jobs)
	}
	var mu sync.Mutex
	done := 0
	res, err := RunGrid(context.Background(), s, jobs, 3, func(Job) { mu.Lock(); done++; mu.Unlock() })
	if err != nil {
		t.Fatal(err)
	}
	if done != len(jobs) {
		t.Errorf("done called %d times, want %d", done, len(jobs))
	}
	for i, r := range res {
		if r.Job != jobs[i] {
			t.Errorf("result %d is job %v, want %v", i, r.Job, jobs[i])
		}
		one, err := Run(s, r.Job)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(one.TV, r.TV) {
			t.Errorf("job %v: RunGrid and Run differ", r.Job)
		}
	}
	if slices.Equal(res[0].TV, res[1].TV) {
		t.Error("seeds 1 and 2 give the same run")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RunGrid(ctx, s, jobs, 2, nil); err != context.Canceled {
		t.Errorf("RunGrid with a cancelled context: %v", err)
	}
}

// TestRunGridStops checks that the first failing job and a cancelled context each stop the grid:
// with one worker, no job after the failing one (or after the one during which ctx was cancelled)
// runs, and RunGrid returns that job's error (or ctx's).
func TestRunGridStops(t *testing.T) {
	s := Settings{Items: 50, Batch: 8, Buckets: 64, StepsPerPhase: 10}
	good := Job{Alpha: 0.1, Hashes: 1, Seed: 1}
	bad := Job{Alpha: 2, Hashes: 1, Seed: 1} // α must be in (0, 1]
	if _, err := Run(s, bad); err == nil {
		t.Fatal("Run accepts alpha = 2")
	}
	ran := 0
	_, err := RunGrid(context.Background(), s, []Job{good, bad, good, good, good}, 1, func(Job) { ran++ })
	if err == nil || errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "Alpha:2") {
		t.Errorf("a failing job: error %v, want the job's", err)
	}
	if ran != 1 {
		t.Errorf("a failing job: %d jobs finished, want 1 (the one before it)", ran)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran = 0
	_, err = RunGrid(ctx, s, []Job{good, good, good, good}, 1, func(Job) { ran++; cancel() })
	if !errors.Is(err, context.Canceled) || ran != 1 {
		t.Errorf("cancelled during the first job: %v after %d jobs, want context.Canceled after 1", err, ran)
	}
}

// TestYiSimulation checks the findings of Yi et al. section 6 on the default simulation (M = 1000,
// B = 128, H = 5000, 2 × 10,000 steps), averaged over two seeds. The steady state of a phase is the
// mean TV over its last 1000 steps.
func TestYiSimulation(t *testing.T) {
	var s Settings
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	seeds := []int64{1, 2}
	var jobs []Job
	for _, c := range []struct {
		alpha  float64
		hashes int
	}{{0.01, 1}, {0.01, 2}, {0.01, 4}, {0.05, 1}, {0.1, 1}} {
		for _, seed := range seeds {
			jobs = append(jobs, Job{Alpha: c.alpha, Hashes: c.hashes, Seed: seed})
		}
	}
	res, err := RunGrid(context.Background(), s, jobs, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	curves := map[[2]float64][]float64{} // (α, m) → TV averaged over the seeds
	for _, r := range res {
		k := [2]float64{r.Alpha, float64(r.Hashes)}
		if curves[k] == nil {
			curves[k] = make([]float64, len(r.TV))
		}
		for i, v := range r.TV {
			curves[k][i] += v / float64(len(seeds))
		}
	}
	curve := func(alpha float64, m int) []float64 { return curves[[2]float64{alpha, float64(m)}] }
	n := s.StepsPerPhase
	window := func(tv []float64, from, to int) float64 { return prob.Mean(tv[from:to]) }

	// Multiple hashings: m = 4 at least 30% below m = 1 in the steady state of both phases, and
	// m = 2 and m = 4 below m = 1 in every 1000-step window (α = 0.01).
	one1, one2 := Summary(curve(0.01, 1), 1000)
	for _, m := range []int{2, 4} {
		tv := curve(0.01, m)
		ss1, ss2 := Summary(tv, 1000)
		t.Logf("α = 0.01, m = %d: steady TV %.4f, %.4f (m = 1: %.4f, %.4f)", m, ss1, ss2, one1, one2)
		if m == 4 && (ss1 > 0.7*one1 || ss2 > 0.7*one2) {
			t.Errorf("m = 4: steady TV %.4f, %.4f, want at most 70%% of m = 1's %.4f, %.4f", ss1, ss2, one1, one2)
		}
		for w := 0; w < 2*n; w += 1000 {
			if got, ref := window(tv, w, w+1000), window(curve(0.01, 1), w, w+1000); got >= ref {
				t.Errorf("m = %d: mean TV of steps %d..%d is %.4f, m = 1: %.4f", m, w+1, w+1000, got, ref)
			}
		}
	}

	// Learning rates (m = 1): every α converges (the last 1000 steps of each phase are within 5% of
	// the 1000 before and below the first 1000 of the phase); a larger α recovers faster after the
	// switch (lower mean TV over the 500 steps after it) but settles higher.
	var recover, settle1, settle2 []float64
	for _, alpha := range s.Alphas {
		tv := curve(alpha, 1)
		for _, start := range []int{0, n} {
			last, before, first := window(tv, start+n-1000, start+n), window(tv, start+n-2000, start+n-1000), window(tv, start, start+1000)
			if math.Abs(last-before) > 0.05*last || last >= first {
				t.Errorf("α = %v, phase from step %d: TV %.4f (first 1000), %.4f, %.4f (last 2000): not converged", alpha, start+1, first, before, last)
			}
		}
		ss1, ss2 := Summary(tv, 1000)
		recover = append(recover, window(tv, n, n+500))
		settle1, settle2 = append(settle1, ss1), append(settle2, ss2)
		t.Logf("α = %v, m = 1: steady TV %.4f, %.4f; after the switch %.4f", alpha, ss1, ss2, recover[len(recover)-1])
	}
	for i := 1; i < len(s.Alphas); i++ {
		if recover[i] >= recover[i-1] {
			t.Errorf("α = %v recovers no faster than α = %v: TV %.4f vs %.4f over the 500 steps after the switch", s.Alphas[i], s.Alphas[i-1], recover[i], recover[i-1])
		}
		if settle1[i] <= settle1[i-1] || settle2[i] <= settle2[i-1] {
			t.Errorf("α = %v settles no higher than α = %v: steady TV %.4f, %.4f vs %.4f, %.4f", s.Alphas[i], s.Alphas[i-1], settle1[i], settle2[i], settle1[i-1], settle2[i-1])
		}
	}
}

// TestWorkers checks the parameter-server setting: several goroutines updating one lock-free
// estimator, at most w steps apart (a worker starts step t once every step up to t − w has
// finished). The setting has no hash collisions (checked), so a bucket is an item.
//
// One worker is reproducible bit for bit and loses nothing. With w > 1 the interleaving is the
// scheduler's, so the test bounds what any legal interleaving can do instead of comparing
// numbers:
//
//   - Lost updates: an observation of item y at step t is lost only when another worker has
//     already recorded y at a later step, which the staleness bound puts in (t, t + w); so Lost
//     is at most L_max, the number of (y, t) arrivals of the stream followed by another arrival
//     of y within the next w − 1 steps.
//   - TV: a lost arrival merges two gaps into one, and all the dropped arrivals of a merge lie
//     in the w − 1 steps before the recorded arrival that ends it; so a recorded gap is at
//     least the true gap it starts with and at most that gap + w − 1. The mean gap of item y
//     thus lies in [1/p_y, 1/p_y + w − 1], and its estimate p̂ = 1/B moves down by at most
//     p_y − p_y/(1 + (w−1)p_y). The steady TV of each phase then moves, either way (a lower p̂
//     may be nearer p or farther), by at most D(w) = Σ_y p_y²(w−1)/(1 + (w−1)p_y) / (2B); the
//     batches are the same for every w (common random numbers), so the difference of the
//     steady TVs is the lost-update effect and not the stream's noise.
func TestWorkers(t *testing.T) {
	s := Settings{Items: 200, Batch: 32, Buckets: 1 << 20, StepsPerPhase: 2000}
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	const (
		seed   = 1
		alpha  = 0.05
		window = 1000
	)
	// No collisions: item y observed alone at step y+1 has B = B0 + α(y+1 − B0), distinct for
	// every y; two items sharing a bucket would read the same p̂.
	e, err := estimators.New(s.estimator(alpha, 1, 1), estimators.Env{BatchSize: s.Batch, CorpusSize: s.Items}, seed)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[float64]int{}
	for y := range s.Items {
		e.Observe(int64(y+1), []uint64{uint64(y)})
	}
	for y := range s.Items {
		if z, ok := seen[e.Prob(uint64(y))]; ok {
			t.Fatalf("items %d and %d share a bucket under seed %d: pick another seed", z, y, seed)
		}
		seen[e.Prob(uint64(y))] = y
	}

	// The stream: which items arrive at each step.
	sim := newSimulation(s, seed, nil, 1)
	bs := newBatchStream()
	batch := make([]uint64, s.Batch)
	arrivals := make([][]bool, len(sim.tv)+1)
	for step := 1; step < len(arrivals); step++ {
		sim.draw(int64(step), bs, batch)
		arrivals[step] = make([]bool, s.Items)
		for _, y := range batch {
			arrivals[step][y] = true
		}
	}

	one, err := Run(s, Job{Alpha: alpha, Hashes: 1, Workers: 1, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	again, err := Run(s, Job{Alpha: alpha, Hashes: 1, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	if one.Lost != 0 || !slices.Equal(one.TV, again.TV) {
		t.Fatalf("one worker: %d lost updates, or two runs differ", one.Lost)
	}
	one1, one2 := Summary(one.TV, window)
	for _, w := range []int{2, 4} {
		lmax := 0
		for step := 1; step < len(arrivals); step++ {
			for y, in := range arrivals[step] {
				for u := step + 1; in && u < step+w && u < len(arrivals); u++ {
					if arrivals[u][y] {
						lmax++
						break
					}
				}
			}
		}
		var d [2]float64
		for k, ph := range sim.phases {
			for _, p := range ph.p {
				d[k] += p * p * float64(w-1) / (1 + float64(w-1)*p) / (2 * float64(s.Batch))
			}
		}
		for _, mode := range interleavings {
			s.Interleaving = mode
			var first Result
			for round := range 3 {
				r, err := Run(s, Job{Alpha: alpha, Hashes: 1, Workers: w, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				ss1, ss2 := Summary(r.TV, window)
				t.Logf("%s, w = %d, round %d: %d lost updates (L_max %d); steady TV %+.4f, %+.4f from one worker's (D = %.4f, %.4f)", mode, w, round, r.Lost, lmax, ss1-one1, ss2-one2, d[0], d[1])
				if r.Lost < 0 || r.Lost > int64(lmax) {
					t.Errorf("%s, w = %d: %d lost updates, more than L_max = %d", mode, w, r.Lost, lmax)
				}
				if math.Abs(ss1-one1) > d[0] || math.Abs(ss2-one2) > d[1] {
					t.Errorf("%s, w = %d: steady TV %.4f, %.4f; one worker %.4f, %.4f; the bound allows ±%.4f, ±%.4f", mode, w, ss1, ss2, one1, one2, d[0], d[1])
				}
				if round == 0 {
					first = r
				} else if mode == InterleavingSimulated && (r.Lost != first.Lost || !slices.Equal(r.TV, first.TV)) {
					t.Errorf("simulated, w = %d: round %d differs from round 0", w, round)
				}
			}
		}
	}
}

// TestWriteOrderLaw checks the law of the simulated interleaving against its closed form. An item
// in every batch loses the observation of step t when a step of (t, t + w) writes before t. With
// write times t + w·U_t, U_t uniform on [0, 1), step t + k overtakes t when U_t − U_{t+k} > k/w;
// given U_t = x no step overtakes t with probability Π_{k=1}^{w−1} (1 − max(0, x − k/w)), whose
// integral over x is 7/8 for w = 2 and 61/81 for w = 3 (by hand: 1/3 + 5/18 + 23/162). So the
// share of lost observations is 1/8 and 20/81; w = 1 never reorders.
func TestWriteOrderLaw(t *testing.T) {
	const n = 200000
	for _, c := range []struct {
		w    int
		want float64
	}{{1, 0}, {2, 1.0 / 8}, {3, 20.0 / 81}} {
		order := writeOrder(delays(7, n, c.w))
		pos := make([]int, n+1)
		for i, step := range order {
			pos[step] = i
		}
		lost := 0
		for step := 1; step <= n; step++ {
			for u := step + 1; u < step+c.w && u <= n; u++ {
				if pos[u] < pos[step] {
					lost++
					break
				}
			}
		}
		// The binomial standard error is below 0.001 at n = 200,000; neighbouring steps are
		// dependent, so allow 0.005.
		if got := float64(lost) / n; math.Abs(got-c.want) > 0.005 {
			t.Errorf("w = %d: %.4f of the steps overtaken, want %.4f", c.w, got, c.want)
		}
	}
}

// TestPlayByHand plays a hand-chosen interleaving. Two items, batches of one, α = 0.1, B0 = M/B = 2;
// phase 1 (steps 1..4) draws item 1 every step. The write order 2, 1, 4, 3 records the gaps 2 − 0
// and 4 − 2 and loses steps 1 and 3 (their bucket already holds a later step): 2 lost updates, B
// of item 1 stays 2 + 0.1·(2 − 2) = 2, p̂ = 1/2 for both items, and the TV read after the last
// write (step 3) is (|1/2 − 1| + |1/2 − 0|)/2 = 1/2.
func TestPlayByHand(t *testing.T) {
	s := Settings{Items: 2, Batch: 1, Buckets: 1 << 20, StepsPerPhase: 4}
	const seed = 3 // items 0 and 1 do not collide (TestRunByHand)
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	est, err := estimators.New(s.estimator(0.1, 1, 2), estimators.Env{BatchSize: 1, CorpusSize: 2}, seed)
	if err != nil {
		t.Fatal(err)
	}
	sim := newSimulation(s, seed, est, 2)
	sim.play([]int64{2, 1, 4, 3, 5, 6, 7, 8})
	if lost := est.(interface{ Lost() int64 }).Lost(); lost != 2 {
		t.Errorf("%d lost updates, want 2", lost)
	}
	if sim.tv[2] != 0.5 {
		t.Errorf("TV read after step 3 = %v, want 0.5", sim.tv[2])
	}
	if got := writeOrder([]float64{1.5, 0.2, 0, 1.9, 0.5}); !slices.Equal(got, []int64{2, 1, 3, 5, 4}) {
		t.Errorf("write order of times 2.5, 2.2, 3, 5.9, 5.5: %v, want [2 1 3 5 4]", got)
	}
}

// TestLostGrowsWithStaleness: in the simulated interleaving more workers (a longer staleness
// window) lose more updates, on the same stream.
func TestLostGrowsWithStaleness(t *testing.T) {
	s := Settings{Items: 100, Batch: 16, Buckets: 400, StepsPerPhase: 500}
	prev := int64(-1)
	for _, w := range []int{1, 2, 4, 8} {
		r, err := Run(s, Job{Alpha: 0.05, Hashes: 2, Workers: w, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		if r.Lost <= prev {
			t.Errorf("w = %d: %d lost updates, not more than the %d with fewer workers", w, r.Lost, prev)
		}
		prev = r.Lost
	}
}
