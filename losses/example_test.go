package losses_test

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/losses"
)

// inBatch is the geometry of the in-batch sampler: every row scores the batch's positives, its
// own on the diagonal.
var inBatch = candidates.Geometry{Sampler: "in_batch", Layout: candidates.Diagonal}

// Two queries, in-batch: the positive of row i is item i on the diagonal.
// With τ = 1 and scores [[1, 0], [0, 1]], plain gives log(1 + e^{-1}) =
// 0.31326 per row, and ∂L/∂s = (softmax − onehot)/B = ±0.26894/2 = ±0.13447.
// logq with Yi et al.'s inclusion probabilities p̂ = (0.5, 0.25) adds −log p̂_j = (ln 2, ln 4) to column j:
// row 0 becomes log(1 + e^{−1 + ln 4 − ln 2}) = log(1 + 2/e) = 0.55144,
// row 1 log(1 + e^{−1 + ln 2 − ln 4}) = log(1 + 1/(2e)) = 0.16885, mean
// 0.36015; the gradients are (2/e)/(1 + 2/e)/2 = 0.21194 and
// (1/(2e))/(1 + 1/(2e))/2 = 0.07768.
func Example() {
	logP := []float64{math.Log(0.5), math.Log(0.25)}
	for _, variant := range []losses.Variant{losses.VariantPlain, losses.VariantLogQ} {
		s := losses.Settings{Variant: variant, Temperature: 1}
		if variant == losses.VariantLogQ {
			s.LogQProbability = losses.LogQProbabilityInclusion
		}
		l, err := losses.New(s, inBatch, tensor.Float64)
		if err != nil {
			fmt.Println(err)
			return
		}
		loss, grad, err := run2x2(l, logP)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: loss %.5f, dL/ds %.5f\n", variant, loss, grad)
	}
	// Output:
	// plain: loss 0.31326, dL/ds [-0.13447 0.13447 0.13447 -0.13447]
	// logq: loss 0.36015, dL/ds [-0.21194 0.21194 0.07768 -0.07768]
}

// run2x2 evaluates the loss l and its gradient on the in-batch scores
// [[1, 0], [0, 1]] with log p̂ = logP for both the columns and the positives.
func run2x2(l *losses.Loss, logP []float64) (float64, []float64, error) {
	g := gorgonia.NewGraph()
	scores := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(2, 2), gorgonia.WithName("scores"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float64{1, 0, 0, 1}))))
	step := &candidates.Step{Geometry: l.Geometry()}
	if logP != nil { // the side input log p̂ of the columns and of each row's positive
		step.Set(candidates.Side{Name: candidates.LogP, By: "example"}, logP, logP)
	}
	loss, err := l.Node(losses.Inputs{Scores: scores}, step)
	if err != nil {
		return 0, nil, err
	}
	grads, err := gorgonia.Grad(loss, scores)
	if err != nil {
		return 0, nil, err
	}
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		return 0, nil, err
	}
	return loss.Value().Data().(float64), grads[0].Value().Data().([]float64), nil
}

// The variants with options of their own take them from Settings.Options, the [loss.options]
// table. On the scores [[1, 0], [0, 1]] with τ = 1 each row has one negative, d = 0 − 1 = −1
// below its positive: psl with tanh gives log(1 + (1 + tanh(−1))) = 0.21382 and with atan
// log(1 + (1 − π/4)) = 0.19442 per row; debiased_contrastive with τ⁺ = 0.1 estimates
// g = (e⁰ − 0.1·e¹)/0.9 = 0.80908 (above the bound e^{−1}) and gives log(1 + g/e) = 0.26055.
func Example_options() {
	for _, s := range []losses.Settings{
		{Variant: losses.VariantPSL, Options: map[string]any{"surrogate": "tanh"}},
		{Variant: losses.VariantPSL, Options: map[string]any{"surrogate": "atan"}},
		{Variant: losses.VariantDebiasedContrastive, Options: map[string]any{"tau_plus": 0.1}},
	} {
		s.Temperature = 1
		l, err := losses.New(s, inBatch, tensor.Float64)
		if err != nil {
			fmt.Println(err)
			return
		}
		loss, _, err := run2x2(l, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s %v: loss %.5f\n", s.Variant, l.Settings().Options, loss)
	}
	// Output:
	// psl map[surrogate:tanh]: loss 0.21382
	// psl map[surrogate:atan]: loss 0.19442
	// debiased_contrastive map[tau_plus:0.1]: loss 0.26055
}
