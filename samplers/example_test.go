package samplers_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/samplers"
)

// The uniform sampler's declaration for a corpus of 1000 items and m = 100 shared draws: every
// column has q = 1/M, p = 1 − (1 − 1/M)^m and expected copies m·q = 0.1.
func Example() {
	smp, g, err := samplers.Build(samplers.Settings{Kind: samplers.KindUniform, Negatives: 100})
	if err != nil {
		panic(err)
	}
	d := &samplers.Data{Items: 1000, Batch: 2}
	pos := []int32{7, 9}
	rows := make([]int32, g.ItemRows(d.Batch, d.Items))
	cols := g.Cols(d.Batch, d.Items)
	c := candidates.NewStep(g, d.Batch, d.Items) // the step the sampler declares: its columns' items, log q and log p
	if err := samplers.DeclareSides(smp, c); err != nil {
		panic(err)
	}
	smp.Draw(rand.New(rand.NewPCG(1, 2)), d, pos, rows)
	if err := smp.Declare(d, pos, rows, nil, c); err != nil {
		panic(err)
	}
	q, p := math.Exp(c.Col(candidates.LogQ)[1]), math.Exp(c.Col(candidates.LogP)[1])
	fmt.Printf("C = %d, q = %.4f, p = %.4f, copies = %.2f\n", cols, q, p, float64(cols-1)*q)
	// Output: C = 101, q = 0.0010, p = 0.0952, copies = 0.10
}

// Khrylchenko et al.'s sampler: 2 of the batch's distinct items shared by every row, plus 3
// uniform items drawn for each row alone, over a corpus of 1000 items. Each row has C = 1 + 2 + 3
// columns (its own positive first) and declares them per row: the step's per-column side inputs
// hold B·C entries, and the geometry's Row says which item row each one is.
func Example_perRow() {
	smp, g, err := samplers.Build(samplers.Settings{Kind: samplers.KindMixture, Of: []samplers.Settings{
		{Kind: samplers.KindInBatchUnique, Negatives: 2}, {Kind: samplers.KindUniformPerRow, Negatives: 3}}})
	if err != nil {
		panic(err)
	}
	d := &samplers.Data{Items: 1000, Batch: 2, Counts: make([]int64, 1000), N: 1000}
	pos := []int32{7, 9}
	rows := make([]int32, g.ItemRows(d.Batch, d.Items))
	n := g.Entries(d.Batch, d.Items)
	c := candidates.NewStep(g, d.Batch, d.Items)
	if err := samplers.DeclareSides(smp, c); err != nil {
		panic(err)
	}
	smp.Draw(rand.New(rand.NewPCG(1, 2)), d, pos, rows)
	law := func(int) (q, p float64, estimated bool, err error) { return 0.01, 0.02, false, nil } // the positives' law
	if err := smp.Declare(d, pos, rows, law, c); err != nil {
		panic(err)
	}
	cols := g.Cols(d.Batch, d.Items)
	fmt.Printf("%d item rows, C = %d, %d declarations\n", len(rows), cols, n)
	for i := range pos {
		var rowsOf []int
		for j := range cols {
			rowsOf = append(rowsOf, g.Row(i, j, d.Batch))
		}
		fmt.Printf("row %d: item rows %v\n", i, rowsOf)
	}
	// Output:
	// 10 item rows, C = 6, 12 declarations
	// row 0: item rows [0 2 3 4 5 6]
	// row 1: item rows [1 2 3 7 8 9]
}
