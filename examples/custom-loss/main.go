// Command custom-loss is the experiments command with one more loss variant,
// logq_tempered: the batch softmax with a tempered logQ correction,
// z_ij = s_ij/τ − α·log p̂_j (Yi et al. eq. 4 at α = 1, in its inclusion form; plain as α → 0),
// written as a Gorgonia expression and differentiated by autodiff.
//
//	go run ./examples/custom-loss -config configs/smoke.toml -set loss.variant=logq_tempered -set loss.options.alpha=0.5 -out results/custom-loss
package main

import (
	"fmt"
	"os"

	G "gorgonia.org/gorgonia"

	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/workbench"
)

// options are the variant's own settings, the [loss.options] table.
type options struct {
	Alpha float64 `toml:"alpha"` // weight of the correction; default 1
}

// Resolve fills the default and validates, after decoding.
func (o *options) Resolve() error {
	if o.Alpha == 0 {
		o.Alpha = 1
	}
	if !(o.Alpha > 0 && o.Alpha < 1e6) {
		return fmt.Errorf("alpha: must be in (0, 1e6), got %v", o.Alpha)
	}
	return nil
}

// logqTempered is ℓ_i = log Σ_{j∈{p}∪N_i} e^{z_ij} − z_ip with z = s/τ − α·log p̂.
func logqTempered(e *losses.Expr) (*G.Node, error) {
	minusAlpha := e.Const(-e.Options.(*options).Alpha)
	f := e.Logits()
	zNeg := losses.AddCols(f, e.Correct(G.Must(G.Mul(e.LogP(), minusAlpha))))
	zPos := G.Must(G.Add(e.AtPos(f), e.Correct(G.Must(G.Mul(e.PosLogP(), minusAlpha)))))
	return e.Reduce(losses.SoftmaxLoss(zPos, losses.AddEach(zNeg, e.NegLog()))), nil
}

// variant is logq_tempered's registration.
var variant = losses.Custom{Expr: logqTempered, Options: func() any { return new(options) }, Correction: true, Family: losses.FamilySoftmax}

func main() {
	err := losses.Register("logq_tempered", variant)
	if err == nil {
		err = workbench.Main(os.Args[1:], os.Stdout, os.Stderr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "custom-loss:", err)
		os.Exit(1)
	}
}
