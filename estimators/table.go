package estimators

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

// table is the exact (online or static) and unigram estimator: q(y) = count(y)/total, turned into p
// by the binomial or the linear formula. A count below 1 counts as 1, so that an item never seen
// gets the smallest frequency the data can show, 1/total, and p̂ > 0; before anything is seen
// (total 0) p̂ = 1.
type table struct {
	batch  float64
	linear bool
	counts []int64
	extra  map[uint64]int64 // online: ids ≥ len(counts)
	total  int64
	online bool
	mu     *sync.Mutex // online and concurrent
}

// newTable builds the unigram estimator and the static exact one from env.Counts, and the online
// exact one from nothing.
func newTable(s Settings, env Env) (*table, error) {
	t := &table{batch: float64(env.BatchSize), linear: s.Formula == FormulaLinear}
	if s.Kind == KindExact && s.Mode == ModeOnline {
		t.online = true
		t.counts = make([]int64, env.CorpusSize)
		t.extra = map[uint64]int64{}
		if s.Concurrent {
			t.mu = &sync.Mutex{}
		}
		return t, nil
	}
	if len(env.Counts) == 0 {
		if s.Kind == KindExact {
			return nil, fmt.Errorf("estimators: kind exact (mode %s) needs Env.Counts", s.Mode)
		}
		return nil, fmt.Errorf("estimators: kind %s needs Env.Counts", s.Kind)
	}
	if env.CorpusSize > 0 && len(env.Counts) != env.CorpusSize {
		return nil, fmt.Errorf("estimators: Env.Counts has %d items, Env.CorpusSize is %d", len(env.Counts), env.CorpusSize)
	}
	for i, c := range env.Counts {
		if c < 0 {
			return nil, fmt.Errorf("estimators: Env.Counts[%d] = %d is negative", i, c)
		}
		t.total += c
	}
	if t.total == 0 {
		return nil, errors.New("estimators: Env.Counts are all zero")
	}
	t.counts = env.Counts
	return t, nil
}

// Observe counts every occurrence of every item (online exact): the exact estimator estimates
// the per-example frequency q, so, unlike the streaming estimators, it counts duplicates within a
// batch, and after one pass over the data it equals the static exact estimator. The unigram and
// static exact estimators ignore Observe.
func (t *table) Observe(_ int64, items []uint64) {
	if !t.online {
		return
	}
	if t.mu != nil {
		t.mu.Lock()
		defer t.mu.Unlock()
	}
	for _, y := range items {
		if y < uint64(len(t.counts)) {
			t.counts[y]++
		} else {
			t.extra[y]++
		}
	}
	t.total += int64(len(items))
}

// Prob is p(q) of q = max(count, 1)/max(total, 1).
func (t *table) Prob(y uint64) float64 {
	if t.mu != nil {
		t.mu.Lock()
		defer t.mu.Unlock()
	}
	var c int64
	if y < uint64(len(t.counts)) {
		c = t.counts[y]
	} else {
		c = t.extra[y]
	}
	return probOfFreq(float64(max(c, 1))/float64(max(t.total, 1)), t.batch, t.linear)
}

// probOfFreq is the probability that an item of per-example frequency q is in a batch of b
// examples drawn independently: 1-(1-q)^b, or the first-order min(1, b·q) when linear.
func probOfFreq(q, b float64, linear bool) float64 {
	if linear {
		return min(1, b*q)
	}
	if q >= 1 {
		return 1
	}
	return -math.Expm1(b * math.Log1p(-q))
}
