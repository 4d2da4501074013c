package samplers_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/samplingbias/workbench/samplers"
)

// The uniform sampler's declaration for a corpus of 1000 items and m = 100 shared draws: every
// column has q = 1/M, p = 1 − (1 − 1/M)^m and expected copies m·q = 0.1.
func Example() {
	smp, err := samplers.New(samplers.Settings{Kind: samplers.KindUniform, Negatives: 100})
	if err != nil {
		panic(err)
	}
	d := &samplers.Data{Items: 1000, Batch: 2}
	pos := []int32{7, 9}
	sh := smp.Shape()
	rows := make([]int32, sh.Rows(d.Batch, d.Items))
	cols := sh.Cols(d.Batch, d.Items)
	c := samplers.Columns{Items: make([]int64, cols), LogQ: make([]float64, cols), LogP: make([]float64, cols),
		PosLogQ: make([]float64, 2), PosLogP: make([]float64, 2)}
	smp.Draw(rand.New(rand.NewPCG(1, 2)), d, pos, rows)
	if err := smp.Declare(d, pos, rows, nil, &c); err != nil {
		panic(err)
	}
	q, p := math.Exp(c.LogQ[1]), math.Exp(c.LogP[1])
	fmt.Printf("C = %d, q = %.4f, p = %.4f, copies = %.2f\n", cols, q, p, float64(cols-1)*q)
	// Output: C = 101, q = 0.0010, p = 0.0952, copies = 0.10
}
