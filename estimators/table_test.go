package estimators

import (
	"math"
	"sync"
	"testing"
)

// Counts of items 0..3 = 1, 3, 0, 4 (total 8), batch B = 2. Hand-computed p:
// binomial 1-(1-q)²: q = 1/8 → 15/64, q = 3/8 → 39/64, q = 4/8 → 3/4; linear min(1, 2q):
// 1/4, 3/4, 1. Item 2 (count 0) and item 9 (not in the table) count as 1: q = 1/8.
var (
	handCounts   = []int64{1, 3, 0, 4}
	handBinomial = []float64{15.0 / 64, 39.0 / 64, 15.0 / 64, 3.0 / 4, 15.0 / 64}
	handLinear   = []float64{0.25, 0.75, 0.25, 1, 0.25}
	handItems    = []uint64{0, 1, 2, 3, 9}
)

func checkHand(t *testing.T, name string, e Estimator, want []float64) {
	t.Helper()
	for i, y := range handItems {
		if got := e.Prob(y); math.Abs(got-want[i]) > 1e-15 {
			t.Errorf("%s: p̂(%d) = %v, want %v", name, y, got, want[i])
		}
	}
}

func TestTableByHand(t *testing.T) {
	for _, f := range []struct {
		formula Formula
		want    []float64
	}{{FormulaBinomial, handBinomial}, {FormulaLinear, handLinear}} {
		env := Env{BatchSize: 2, CorpusSize: 4, Counts: handCounts}
		for _, s := range []Settings{
			{Kind: KindUnigram, Formula: f.formula},
			{Kind: KindExact, Mode: ModeStatic, Formula: f.formula},
		} {
			e, err := New(s, env, 1)
			if err != nil {
				t.Fatal(err)
			}
			e.Observe(1, []uint64{0, 0, 0}) // ignored
			checkHand(t, string(s.Kind)+" "+string(s.Mode)+" "+string(f.formula), e, f.want)
		}
		// Online exact, with a count table (M = 4) and with a map only (M = 0), after the same
		// data: occurrences count, duplicates within a batch included.
		for _, m := range []int{4, 0} {
			e, err := New(Settings{Kind: KindExact, Formula: f.formula}, Env{BatchSize: 2, CorpusSize: m}, 1)
			if err != nil {
				t.Fatal(err)
			}
			if p := e.Prob(1); p != 1 {
				t.Errorf("online exact before any data: p̂ = %v, want 1", p)
			}
			e.Observe(1, []uint64{3, 1, 3})
			e.Observe(2, []uint64{1, 0})
			e.Observe(2, []uint64{3, 1, 3})
			checkHand(t, "exact online "+string(f.formula), e, f.want)
		}
	}
}

// TestBinomialFormula compares probOfFreq with 1-(1-q)^B computed directly, or, for small q where
// that cancels, by the first three terms of its binomial expansion Bq - C(B,2)q² + C(B,3)q³.
func TestBinomialFormula(t *testing.T) {
	for _, q := range []float64{1e-12, 1e-8, 0.001, 0.3, 0.999, 1} {
		for _, b := range []float64{1, 2, 128, 4096} {
			want := 1 - math.Pow(1-q, b)
			if q < 1e-4 {
				want = b*q - b*(b-1)/2*q*q + b*(b-1)*(b-2)/6*q*q*q
			}
			got := probOfFreq(q, b, false)
			if math.Abs(got-want) > 1e-9*want {
				t.Errorf("q = %v, B = %v: p = %v, want %v", q, b, got, want)
			}
			if lin := probOfFreq(q, b, true); lin != math.Min(1, b*q) {
				t.Errorf("q = %v, B = %v: linear p = %v, want %v", q, b, lin, math.Min(1, b*q))
			}
		}
	}
}

func TestExactConcurrent(t *testing.T) {
	e, err := New(Settings{Kind: KindExact, Concurrent: true}, Env{BatchSize: 2, CorpusSize: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				e.Observe(int64(i+1), []uint64{0, uint64(g % 4)}) // ids 2 and 3 go to the map
				e.Prob(0)
			}
		})
	}
	wg.Wait()
	// 16000 items: item 0 10000 times (8000 + 2000 from g = 0, 4): q = 10/16.
	want := 1 - math.Pow(1-10.0/16, 2)
	if got := e.Prob(0); math.Abs(got-want) > 1e-15 {
		t.Errorf("p̂(0) = %v, want %v", got, want)
	}
}
