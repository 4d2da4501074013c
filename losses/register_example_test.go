package losses_test

import (
	"fmt"
	"math"

	"github.com/samplingbias/workbench/losses"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// marginOptions are the options of the margin_softmax variant, [loss.options].
type marginOptions struct {
	// Margin δ is subtracted from the positive's score (default 0 = plain).
	Margin float64 `toml:"margin"`
}

// Resolve validates the options after decoding.
func (o *marginOptions) Resolve() error {
	if !(o.Margin >= 0) || math.IsInf(o.Margin, 1) {
		return fmt.Errorf("margin: must be finite and ≥ 0, got %v", o.Margin)
	}
	return nil
}

// marginSoftmax is the batch softmax with an additive margin on the positive,
// ℓ_i = log(e^{(s_ip − δ)/τ} + Σ_{j∈N_i} e^{s_ij/τ}) − (s_ip − δ)/τ.
func marginSoftmax(e *losses.Expr) (*gorgonia.Node, error) {
	delta := gorgonia.Must(gorgonia.HadamardDiv(e.Const(e.Options.(*marginOptions).Margin), e.Tau))
	f := e.Logits()
	zPos := gorgonia.Must(gorgonia.Sub(e.AtPos(f), delta))
	return e.Reduce(losses.SoftmaxLoss(zPos, gorgonia.Must(gorgonia.Add(f, e.NegLog())))), nil
}

// The package's tests run every registered variant too (finite differences,
// samplers × options), so this one is registered for the whole test binary.
func init() {
	if err := losses.Register("margin_softmax", losses.Custom{
		Expr:    marginSoftmax,
		Options: func() any { return new(marginOptions) },
	}); err != nil {
		panic(err)
	}
}

// A variant registered with its options. On the package example's scores
// [[1, 0], [0, 1]] with τ = 1, margin 0 is plain (0.31326) and margin 1 makes
// each row's positive logit 0, so every row loses log 2 = 0.69315.
func ExampleRegister() {
	for _, margin := range []float64{0, 1} {
		l, err := losses.New(losses.Settings{Variant: "margin_softmax", Temperature: 1,
			Options: map[string]any{"margin": margin}}, inBatch, tensor.Float64)
		if err != nil {
			fmt.Println(err)
			return
		}
		loss, _, err := run2x2(l, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("margin %g: loss %.5f\n", margin, loss)
	}
	_, err := losses.New(losses.Settings{Variant: "margin_softmax", Options: map[string]any{"gap": 1}}, inBatch, tensor.Float64)
	fmt.Println(err)
	// Output:
	// margin 0: loss 0.31326
	// margin 1: loss 0.69315
	// options.gap: unknown option of variant margin_softmax (it has: margin)
}
