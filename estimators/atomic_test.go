package estimators

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// TestConcurrentAllSeeEveryStep: goroutines that each observe the same items at every step 1..T
// claim every step exactly once between them (a goroutine at step t has seen step t-1, so each
// claim is a gap of 1), and the updates of B then commute, so the result must equal the
// single-threaded estimator's bit for bit. B starts at 1000 and with α = 0.001 is still moving
// after T = 15000 steps, so a lost update of B would show, if two updates met (rare on two
// cores: the test repeats 10 rounds). The two items share the one bucket: one arrival per step.
func TestConcurrentAllSeeEveryStep(t *testing.T) {
	const (
		workers = 4
		steps   = 15000
		rounds  = 10
	)
	s := Settings{Buckets: 1, Alpha: 0.001}
	env := Env{BatchSize: 1, CorpusSize: 1000}
	plain, err := New(s, env, 4)
	if err != nil {
		t.Fatal(err)
	}
	items := []uint64{0, 1}
	for step := int64(1); step <= steps; step++ {
		plain.Observe(step, items)
	}
	s.Concurrent = true
	for r := range rounds {
		conc, err := New(s, env, 4)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range workers {
			wg.Go(func() {
				<-start
				for step := int64(1); step <= steps; step++ {
					conc.Observe(step, items)
					conc.Prob(items[step%2])
				}
			})
		}
		close(start)
		wg.Wait()
		if got, want := conc.Prob(0), plain.Prob(0); got != want {
			t.Fatalf("round %d: p̂ = %v, single-threaded %v", r, got, want)
		}
	}
	// B must still be moving: one more step changes it.
	p := plain.Prob(0)
	plain.Observe(steps+1, items)
	if plain.Prob(0) == p {
		t.Fatal("B has converged: the test would not see a lost update")
	}
}

// TestConcurrentSharedStep: goroutines take steps from a shared counter (a parameter server's
// global step) and all observe one bucket. The recorded arrivals must form one chain
// 0 → t1 → t2 → ... → the last step (no gap recorded twice, none torn; a late observation is
// dropped and its gap is part of the next recorded one), and B must be the EMA of that chain up to
// the order of nearly simultaneous updates (at most α²|Δ1-Δ2| per swapped pair). Every
// observation not recorded is a lost update (Lost).
func TestConcurrentSharedStep(t *testing.T) {
	const (
		workers = 16
		each    = 2000
		alpha   = 0.01
	)
	e, err := New(Settings{Buckets: 1, Alpha: alpha, Init: InitOne, Concurrent: true}, Env{BatchSize: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	s := e.(*atomicSketch)
	var step atomic.Int64
	logs := make([][]claim, workers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range workers {
		wg.Go(func() {
			<-start
			for range each {
				s.observe(step.Add(1), []uint64{uint64(g)}, &logs[g])
				s.Prob(uint64(g))
			}
		})
	}
	close(start)
	wg.Wait()
	claims := slices.Concat(logs...)
	slices.SortFunc(claims, func(a, b claim) int { return int(a.to - b.to) })
	var from int64
	b, bound := 1.0, 0.0
	for i, c := range claims {
		if c.from != from {
			t.Fatalf("claim %d: %d → %d, want it to start at the previous step %d", i, c.from, c.to, from)
		}
		d := float64(c.to - c.from)
		if i > 0 {
			bound += alpha * alpha * math.Abs(d-float64(claims[i-1].to-claims[i-1].from))
		}
		b = (1-alpha)*b + alpha*d
		from = c.to
	}
	if from != workers*each || s.cells[0].last.Load() != from {
		t.Errorf("last recorded step %d, A = %d, want %d", from, s.cells[0].last.Load(), workers*each)
	}
	// Every observation has its own step: each one not recorded was overtaken by a later step.
	if lost := s.Lost(); lost != int64(workers*each-len(claims)) {
		t.Errorf("Lost() = %d, want the %d observations not recorded", lost, workers*each-len(claims))
	}
	got := 1 / s.Prob(0)
	if math.Abs(got-b) > bound+1e-5*b {
		t.Errorf("B = %v, EMA of the recorded gaps %v (bound %v)", got, b, bound)
	}
	t.Logf("%d observations, %d recorded, %d dropped", workers*each, len(claims), workers*each-len(claims))
}
