package main

import (
	"fmt"
	"sync"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/losses/lossestest"
	"github.com/samplingbias/workbench/samplers"
)

// registered registers the example's sampler and variant once per test binary, as main does.
var registered = sync.OnceValue(register)

// The sampler declares log_count and the variant reads it: one query whose positive is item 0
// (3 training interactions), with the drawn items 1 (none) and 2 (7). At scores 0, τ = 1 and
// β = 1 the logits are z = log(1 + c) = (log 4, log 1, log 8), the loss is
// log(4 + 1 + 8) − log 4 = log(13/4) = 1.17865, and ∂ℓ/∂s = softmax(z) − the positive's
// indicator = (4/13 − 1, 1/13, 8/13).
func Example() {
	if err := registered(); err != nil {
		fmt.Println(err)
		return
	}
	smp, g, err := samplers.Build(samplers.Settings{Kind: "uniform_counted", Negatives: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	d := &samplers.Data{Items: 3, Batch: 1, Counts: []int64{3, 0, 7}, N: 10}
	st := candidates.NewStep(g, d.Batch, d.Items) // the step the sampler declares and the loss reads
	if err := samplers.DeclareSides(smp, st); err != nil {
		fmt.Println(err)
		return
	}
	pos, rows := []int32{0}, []int32{0, 1, 2} // the row's positive, then the two drawn items
	if err := smp.Declare(d, pos, rows, nil, st); err != nil {
		fmt.Println(err)
		return
	}
	l, err := losses.New(losses.Settings{Variant: "count_adjusted", Temperature: 1}, g, tensor.Float64)
	if err != nil {
		fmt.Println(err)
		return
	}
	value, grad, err := lossestest.Run(l, st, []float64{0, 0, 0}, 1, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("side inputs: %s\n", st.Describe())
	fmt.Printf("log_count %.4f, loss %.5f, dL/ds %.5f\n", st.Col(logCount), value, grad)
	// Output:
	// side inputs: log_q, log_p, log_count (sampler uniform_counted)
	// log_count [1.3863 0.0000 2.0794], loss 1.17865, dL/ds [-0.69231 0.07692 0.61538]
}
