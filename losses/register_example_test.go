package losses_test

import (
	"fmt"
	"math"

	"github.com/samplingbias/workbench/losses"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// powerOptions are the options of the logq_power variant, [loss.options].
type powerOptions struct {
	// Alpha scales the logQ correction: z = s/τ − α·log p̂ (default 0 = plain).
	Alpha float64 `toml:"alpha"`
}

// Resolve validates the options after decoding.
func (o *powerOptions) Resolve() error {
	if !(o.Alpha >= 0) || math.IsInf(o.Alpha, 1) {
		return fmt.Errorf("alpha: must be finite and ≥ 0, got %v", o.Alpha)
	}
	return nil
}

// logqPower is the batch softmax with a tempered logQ correction,
// ℓ_i = −log softmax_p(z_i) with z_ij = s_ij/τ − α·log p̂_j (Yi et al. eq. 4
// at α = 1), written as an expression of the inputs.
func logqPower(e *losses.Expr) (*gorgonia.Node, error) {
	minusAlpha := e.Const(-e.Options.(*powerOptions).Alpha)
	f := e.Logits()
	zNeg := losses.AddCols(f, e.Correct(gorgonia.Must(gorgonia.Mul(e.LogP, minusAlpha))))
	zPos := gorgonia.Must(gorgonia.Add(e.AtPos(f), e.Correct(gorgonia.Must(gorgonia.Mul(e.PosLogP, minusAlpha)))))
	return e.Reduce(losses.SoftmaxLoss(zPos, gorgonia.Must(gorgonia.Add(zNeg, e.NegLog)))), nil
}

// The package's tests run every registered variant too (finite differences,
// options × samplers), so this one is registered for the whole test binary.
func init() {
	if err := losses.Register("logq_power", losses.Variant{
		Expr:       logqPower,
		Options:    func() any { return new(powerOptions) },
		Correction: true,
	}); err != nil {
		panic(err)
	}
}

// A variant registered with its options: at α = 1 it is logq (0.36015 in
// the package example), at α = 0 plain (0.31326).
func ExampleRegister() {
	for _, alpha := range []float64{1, 0} {
		l, err := losses.New(losses.Settings{Variant: "logq_power", Temperature: 1,
			Options: map[string]any{"alpha": alpha}}, tensor.Float64)
		if err != nil {
			fmt.Println(err)
			return
		}
		g := gorgonia.NewGraph()
		scores := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(2, 2), gorgonia.WithName("scores"),
			gorgonia.WithValue(tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float64{1, 0, 0, 1}))))
		logP := []float64{math.Log(0.5), math.Log(0.25)}
		loss, err := l.Node(losses.Inputs{Scores: scores}, &losses.Step{Layout: l.Layout(), LogP: logP, PosLogP: logP})
		if err != nil {
			fmt.Println(err)
			return
		}
		vm := gorgonia.NewTapeMachine(g)
		if err := vm.RunAll(); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("alpha %g: loss %.5f\n", alpha, loss.Value().Data())
		vm.Close()
	}
	_, err := losses.New(losses.Settings{Variant: "logq_power", Options: map[string]any{"beta": 1}}, tensor.Float64)
	fmt.Println(err)
	// Output:
	// alpha 1: loss 0.36015
	// alpha 0: loss 0.31326
	// options.beta: unknown option of variant logq_power (it has: alpha)
}
