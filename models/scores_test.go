package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
)

// TestScoresLayouts: for every geometry of a sampler (shared columns, memory-free diagonal and
// first, with and without items drawn per row, several rows per example), the score op's S[i,j]
// is ⟨u_i, v_r⟩ for the item row r = candidates.Geometry.Row(i, j, R) that the sampler put there,
// and the gradients of
// L = Σ_ij G_ij·S_ij are dU_i = Σ_j G_ij·v_Row(i,j) and dV_r = Σ_{(i,j): Row(i,j) = r} G_ij·u_i,
// computed here entry by entry from that definition. Indexed (V holding 5 distinct rows, item row
// r being V[idx[r]]), the same holds of v_r = V[idx[r]], and dV[x] sums the item rows' gradients
// of the rows r with idx[r] = x.
func TestScoresLayouts(t *testing.T) {
	const d = 4
	for _, sh := range []candidates.Geometry{
		{Layout: candidates.Diagonal}, {Layout: candidates.Diagonal, Extra: 2},
		{Layout: candidates.Diagonal, Extra: 1, PerRow: 2}, {Layout: candidates.Diagonal, PerRow: 3},
		{Layout: candidates.First, Extra: 2}, {Layout: candidates.First, PerRow: 3},
		{Layout: candidates.First, Extra: 2, PerRow: 3}, {Layout: candidates.Diagonal, PerExample: 2, Padded: true},
		{Layout: candidates.First, Extra: 1, PerRow: 1, PerExample: 3},
	} {
		for _, indexed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%+v/indexed=%t", sh, indexed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, 2))
				b := sh.Rows(3)
				rows, c := sh.ItemRows(b, 0), sh.Cols(b, 0)
				randn := func(n int) []float64 {
					x := make([]float64, n)
					for k := range x {
						x[k] = rng.NormFloat64()
					}
					return x
				}
				vRows, at := rows, func(r int) int { return r }
				var idx *[]int32
				if indexed {
					vRows, idx = 5, &[]int32{}
					for range rows {
						*idx = append(*idx, int32(rng.IntN(vRows)))
					}
					at = func(r int) int { return int((*idx)[r]) }
				}
				u, v, gw := randn(b*d), randn(vRows*d), randn(b*c)
				g := gorgonia.NewGraph()
				un := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(b, d), gorgonia.WithName("U"),
					gorgonia.WithValue(tensor.New(tensor.WithShape(b, d), tensor.WithBacking(u))))
				vn := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(vRows, d), gorgonia.WithName("V"),
					gorgonia.WithValue(tensor.New(tensor.WithShape(vRows, d), tensor.WithBacking(v))))
				gn := gorgonia.NewConstant(tensor.New(tensor.WithShape(b, c), tensor.WithBacking(gw)), gorgonia.WithName("G"))
				s := gorgonia.Must(gorgonia.ApplyOp(newScores[float64](sh, b, idx), un, vn))
				loss := gorgonia.Must(gorgonia.Sum(gorgonia.Must(gorgonia.HadamardProd(s, gn))))
				grads, err := gorgonia.Grad(loss, un, vn)
				if err != nil {
					t.Fatal(err)
				}
				vm := gorgonia.NewTapeMachine(g)
				defer vm.Close()
				if err := vm.RunAll(); err != nil {
					t.Fatal(err)
				}
				if got := s.Shape(); got[0] != b || got[1] != c {
					t.Fatalf("scores of shape %v, want %d×%d", got, b, c)
				}
				row := func(x []float64, r int) []float64 { return x[r*d : (r+1)*d] }
				sv, du, dv := data[float64](s.Value()), data[float64](grads[0].Value()), data[float64](grads[1].Value())
				wantDU, wantDV := make([]float64, b*d), make([]float64, vRows*d)
				for i := range b {
					for j := range c {
						r, gij := at(sh.Row(i, j, b)), gw[i*c+j]
						if want := dot(row(u, i), row(v, r)); math.Abs(sv[i*c+j]-want) > 1e-12 {
							t.Errorf("S[%d,%d] = %v, want ⟨u_%d, v_%d⟩ = %v", i, j, sv[i*c+j], i, r, want)
						}
						for k := range d {
							wantDU[i*d+k] += gij * v[r*d+k]
							wantDV[r*d+k] += gij * u[i*d+k]
						}
					}
				}
				for k := range wantDU {
					if math.Abs(du[k]-wantDU[k]) > 1e-12 {
						t.Fatalf("dU[%d] = %v, want %v", k, du[k], wantDU[k])
					}
				}
				for k := range wantDV {
					if math.Abs(dv[k]-wantDV[k]) > 1e-12 {
						t.Fatalf("dV[%d] = %v, want %v", k, dv[k], wantDV[k])
					}
				}
			})
		}
	}
}
