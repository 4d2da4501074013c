package freqsim_test

import (
	"fmt"

	"github.com/samplingbias/workbench/estimators/freqsim"
)

// A small simulation: 200 items, batches of 32, 1000 buckets, 2 × 2000 steps, α = 0.05, with one
// and with four hash arrays at the same memory; the steady TV of each phase is the mean over its
// last 500 steps.
func Example() {
	s := freqsim.Settings{Items: 200, Batch: 32, Buckets: 1000, StepsPerPhase: 2000}
	for _, m := range []int{1, 4} {
		r, err := freqsim.Run(s, freqsim.Job{Alpha: 0.05, Hashes: m, Seed: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		ss1, ss2 := freqsim.Summary(r.TV, 500)
		fmt.Printf("m = %d: %d steps, steady TV %.2f and %.2f\n", m, len(r.TV), ss1, ss2)
	}
	// Output:
	// m = 1: 4000 steps, steady TV 0.12 and 0.18
	// m = 4: 4000 steps, steady TV 0.08 and 0.07
}
