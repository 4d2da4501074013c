// Command side-input is the experiments command with a sampler that declares a side input of
// its own and a loss variant that reads it, neither known to the workbench's packages: the
// sampler uniform_counted draws m items uniformly, shared by every row, as uniform does, and
// declares besides q and p each candidate's log_count = log(1 + c_j), c_j the item's training
// count; the variant count_adjusted is the softmax cross-entropy with the logits
// z_ij = s_ij/τ + β·log(1 + c_j), the logit adjustment of Menon et al. 2020 with the counts the
// sampler declares (log π_j = log(1 + c_j) − log(N + M), whose constant cancels in the softmax).
//
//	go run ./examples/side-input -config configs/smoke.toml -set sampler.kind=uniform_counted -set sampler.negatives=32 -set loss.variant=count_adjusted -out results/side-input
package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	G "gorgonia.org/gorgonia"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/samplers"
	"github.com/samplingbias/workbench/workbench"
)

// logCount is the side input the sampler declares and the loss reads.
const logCount = "log_count"

// uniformCounted draws m items uniformly with replacement, shared by every row, each row's own
// positive in column 0: q = 1/M and p = 1 − (1 − 1/M)^m (docs/samplers.md §2).
type uniformCounted struct{ m int }

func newUniformCounted(_ any, negatives int) (samplers.Sampler, error) {
	if negatives < 1 {
		return nil, fmt.Errorf("negatives: must be > 0, got %d", negatives)
	}
	return uniformCounted{m: negatives}, nil
}

func (s uniformCounted) Shape() samplers.Shape {
	return samplers.Shape{Geometry: candidates.Geometry{Layout: candidates.First, Extra: s.m}}
}

// Sides declares log_count, a value per item: at every column and at every row's positive.
func (uniformCounted) Sides() []candidates.Side {
	return []candidates.Side{{Name: logCount, Kind: candidates.PerItem}}
}

func (s uniformCounted) Draw(rng *rand.Rand, d *samplers.Data, pos, rows []int32) {
	copy(rows, pos)
	for j := len(pos); j < len(rows); j++ {
		rows[j] = int32(rng.IntN(d.Items))
	}
}

// Declare fills each column's item, q, p and log_count, and those of each row's positive.
func (s uniformCounted) Declare(d *samplers.Data, pos, rows []int32, _ samplers.Law, c *candidates.Step) error {
	logQ, logP := -math.Log(float64(d.Items)), math.Log(1-math.Pow(1-1/float64(d.Items), float64(s.m)))
	count := func(item int32) float64 { return math.Log1p(float64(d.Counts[item])) }
	colQ, colP, colCount := c.Col(candidates.LogQ), c.Col(candidates.LogP), c.Col(logCount)
	// Column 0 is each row's own positive, read through the rows' values (here the first row's).
	c.ColItem[0], colQ[0], colP[0], colCount[0] = candidates.NoItem, logQ, logP, count(pos[0])
	for j := 1; j < len(c.ColItem); j++ {
		item := rows[len(pos)+j-1]
		c.ColItem[j], colQ[j], colP[j], colCount[j] = int64(item), logQ, logP, count(item)
	}
	posQ, posP, posCount := c.Row(candidates.LogQ), c.Row(candidates.LogP), c.Row(logCount)
	for i, item := range pos {
		posQ[i], posP[i], posCount[i] = logQ, logP, count(item)
	}
	return nil
}

// options are count_adjusted's own settings, the [loss.options] table.
type options struct {
	Beta float64 `toml:"beta"` // the weight β of log(1 + count); default 1
}

// Resolve fills the default and validates, after decoding.
func (o *options) Resolve() error {
	if o.Beta == 0 {
		o.Beta = 1
	}
	if math.IsNaN(o.Beta) || math.IsInf(o.Beta, 0) {
		return fmt.Errorf("beta: must be finite, got %v", o.Beta)
	}
	return nil
}

// countAdjusted is ℓ_i = log Σ_{j∈{p}∪N_i} e^{z_ij} − z_ip with z = s/τ + β·log(1 + c), the
// counts read from the side input the sampler declares.
func countAdjusted(e *losses.Expr) (*G.Node, error) {
	beta := e.Const(e.Options.(*options).Beta)
	f := e.Logits()
	zNeg := losses.AddCols(f, e.Correct(G.Must(G.Mul(e.Side(logCount), beta))))
	zPos := G.Must(G.Add(e.AtPos(f), e.Correct(G.Must(G.Mul(e.PosSide(logCount), beta)))))
	return e.Reduce(losses.SoftmaxLoss(zPos, losses.AddEach(zNeg, e.NegLog()))), nil
}

// register adds the sampler and the variant.
func register() error {
	if err := samplers.Register("uniform_counted", samplers.Custom{New: newUniformCounted}); err != nil {
		return err
	}
	return losses.Register("count_adjusted", losses.Custom{Expr: countAdjusted, Options: func() any { return new(options) },
		Correction: true, Family: losses.FamilySoftmax})
}

func main() {
	err := register()
	if err == nil {
		err = workbench.Main(os.Args[1:], os.Stdout, os.Stderr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "side-input:", err)
		os.Exit(1)
	}
}
