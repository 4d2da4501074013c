package estimators_test

import (
	"fmt"

	"github.com/samplingbias/workbench/estimators"
)

// Item 7 is in every other batch, items 1 and 2 in every batch. With α = 0.5 and B0 = 1, the gap
// EMA of item 7 is 0.5·1 + 0.5·2 = 1.5 at step 2, then 1.75 and 1.875: p̂ = 1/B moves towards the
// true 1/2; the update of a step is read at that step.
func Example() {
	est, err := estimators.New(estimators.Settings{Kind: "streaming", Alpha: 0.5, Buckets: 1024, Init: "one"}, estimators.Env{BatchSize: 4}, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for t := int64(1); t <= 6; t++ {
		batch := []uint64{1, 2}
		if t%2 == 0 {
			batch = append(batch, 7, 7) // a duplicate is one observation
		}
		est.Observe(t, batch)
		fmt.Printf("step %d: p̂(1) = %.4f, p̂(7) = %.4f\n", t, est.Prob(1), est.Prob(7))
	}
	logp := make([]float64, 2)
	estimators.LogProbs(est, []uint64{1, 7}, logp)
	fmt.Printf("log p̂ = %.4f %.4f\n", logp[0], logp[1])
	// Output:
	// step 1: p̂(1) = 1.0000, p̂(7) = 1.0000
	// step 2: p̂(1) = 1.0000, p̂(7) = 0.6667
	// step 3: p̂(1) = 1.0000, p̂(7) = 0.6667
	// step 4: p̂(1) = 1.0000, p̂(7) = 0.5714
	// step 5: p̂(1) = 1.0000, p̂(7) = 0.5714
	// step 6: p̂(1) = 1.0000, p̂(7) = 0.5333
	// log p̂ = 0.0000 -0.6286
}

// The unigram estimator with counts 1, 3, 0, 4 and batches of 2: q = 3/8 for item 1 gives
// p = 1-(5/8)² = 39/64 by the binomial formula and min(1, 2·3/8) = 3/4 by the linear one.
func Example_unigram() {
	env := estimators.Env{BatchSize: 2, CorpusSize: 4, Counts: []int64{1, 3, 0, 4}}
	for _, formula := range []estimators.Formula{estimators.FormulaBinomial, estimators.FormulaLinear} {
		est, err := estimators.New(estimators.Settings{Kind: "unigram", Formula: formula}, env, 1)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: p̂(1) = %.6f\n", formula, est.Prob(1))
	}
	// Output:
	// binomial: p̂(1) = 0.609375
	// linear: p̂(1) = 0.750000
}
