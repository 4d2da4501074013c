package losses_test

import (
	"fmt"
	"math"

	"github.com/samplingbias/workbench/losses"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Two queries, in-batch: the positive of row i is item i on the diagonal.
// With τ = 1 and scores [[1, 0], [0, 1]], plain gives log(1 + e^{-1}) =
// 0.31326 per row, and ∂L/∂s = (softmax − onehot)/B = ±0.26894/2 = ±0.13447.
// logq with Yi et al.'s inclusion probabilities p̂ = (0.5, 0.25) adds −log p̂_j = (ln 2, ln 4) to column j:
// row 0 becomes log(1 + e^{−1 + ln 4 − ln 2}) = log(1 + 2/e) = 0.55144,
// row 1 log(1 + e^{−1 + ln 2 − ln 4}) = log(1 + 1/(2e)) = 0.16885, mean
// 0.36015; the gradients are (2/e)/(1 + 2/e)/2 = 0.21194 and
// (1/(2e))/(1 + 1/(2e))/2 = 0.07768.
func Example() {
	for _, variant := range []string{losses.Plain, losses.LogQ} {
		s := losses.Settings{Variant: variant, Temperature: 1}
		if variant == losses.LogQ {
			s.LogQProbability = losses.ProbInclusion
		}
		l, err := losses.New(s, tensor.Float64)
		if err != nil {
			fmt.Println(err)
			return
		}
		g := gorgonia.NewGraph()
		scores := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(2, 2), gorgonia.WithName("scores"),
			gorgonia.WithValue(tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float64{1, 0, 0, 1}))))
		logP := []float64{math.Log(0.5), math.Log(0.25)}
		step := &losses.Step{Layout: l.Layout(), LogP: logP, PosLogP: logP}
		loss, err := l.Node(losses.Inputs{Scores: scores}, step)
		if err != nil {
			fmt.Println(err)
			return
		}
		grads, err := gorgonia.Grad(loss, scores)
		if err != nil {
			fmt.Println(err)
			return
		}
		vm := gorgonia.NewTapeMachine(g)
		if err := vm.RunAll(); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: loss %.5f, dL/ds %.5f\n", variant, loss.Value().Data(), grads[0].Value().Data())
		vm.Close()
	}
	// Output:
	// plain: loss 0.31326, dL/ds [-0.13447 0.13447 0.13447 -0.13447]
	// logq: loss 0.36015, dL/ds [-0.21194 0.21194 0.07768 -0.07768]
}
