package losses

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
)

// TestThrough: a row primitive that reads its operand as the ops that would make it (x = s·by +
// m: the log-sum-exp of SoftmaxLoss and LogSumExp scaled and masked, masked only and scaled only,
// RowSoftplusSum scaled) gives the value and the gradients with respect to the scores, the
// addend and the row vector, bit for bit, of the same primitive reading the ops' outputs
// (MulScalar, AddEach), in float32 and float64 on a tape machine, and the same to rounding on a
// lisp machine (which adds gradients from +0).
func TestThrough(t *testing.T) {
	const b, c = 5, 7
	rng := rand.New(rand.NewPCG(15, 15))
	s, m, a, w := make([]float64, b*c), make([]float64, b*c), make([]float64, b), make([]float64, b)
	mask01 := make([]float64, b*c)
	for k := range s {
		s[k] = 3 * rng.NormFloat64()
		if rng.IntN(4) > 0 {
			mask01[k] = 1
		} else {
			m[k] = math.Inf(-1)
		}
	}
	for i := range a {
		a[i], w[i] = rng.NormFloat64(), rng.NormFloat64()
	}
	m[0] = rng.NormFloat64() // a finite addend other than 0 as well
	shapes3, vals3 := [][2]int{{b, c}, {b, c}, {b, 1}}, [][]float64{s, m, a}
	maskOf := func(x *gorgonia.Node) *gorgonia.Node { // RowSoftplusSum's mask, a constant
		return gorgonia.NewConstant(dense(x.Dtype(), mask01, b, c), gorgonia.In(x.Graph()))
	}
	cases := []struct {
		name         string
		through, ops func(in []*gorgonia.Node) *gorgonia.Node
		vals         [][]float64
		shapes       [][2]int
	}{
		{"SoftmaxLoss scaled masked", func(in []*gorgonia.Node) *gorgonia.Node {
			return lse(in[2], through{src: in[0], scaled: true, by: 0.25, mask: in[1]}, true)
		}, func(in []*gorgonia.Node) *gorgonia.Node {
			return SoftmaxLoss(in[2], AddEach(MulScalar(in[0], 0.25), in[1]))
		}, vals3, shapes3},
		{"LogSumExp masked", func(in []*gorgonia.Node) *gorgonia.Node {
			return lse(in[2], through{src: in[0], mask: in[1]}, false)
		}, func(in []*gorgonia.Node) *gorgonia.Node {
			return LogSumExp(in[2], AddEach(in[0], in[1]))
		}, vals3, shapes3},
		{"SoftmaxLoss scaled", func(in []*gorgonia.Node) *gorgonia.Node {
			return lse(in[1], through{src: in[0], scaled: true, by: 20}, true)
		}, func(in []*gorgonia.Node) *gorgonia.Node {
			return SoftmaxLoss(in[1], MulScalar(in[0], 20))
		}, [][]float64{s, a}, [][2]int{{b, c}, {b, 1}}},
		{"RowSoftplusSum scaled", func(in []*gorgonia.Node) *gorgonia.Node {
			return rowSoftplusSum(through{src: in[0], scaled: true, by: 20}, maskOf(in[0]))
		}, func(in []*gorgonia.Node) *gorgonia.Node {
			return RowSoftplusSum(MulScalar(in[0], 20), maskOf(in[0]))
		}, [][]float64{s}, [][2]int{{b, c}}},
	}
	for _, tc := range cases {
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			want, wantG := primRun(t, tc.ops, dt, tc.shapes, tc.vals, w, false)
			for _, lisp := range []bool{false, true} {
				what := fmt.Sprintf("%s %v lisp=%v", tc.name, dt, lisp)
				got, gotG := primRun(t, tc.through, dt, tc.shapes, tc.vals, w, lisp)
				same := func(x, y float64) bool {
					if lisp {
						return near(x, y, 1e-15)
					}
					return math.Float64bits(x) == math.Float64bits(y)
				}
				if !same(got, want) {
					t.Errorf("%s: value %v, the ops' %v", what, got, want)
				}
				for i := range gotG {
					for k := range gotG[i] {
						if !same(gotG[i][k], wantG[i][k]) {
							t.Errorf("%s: ∂/∂in%d[%d] = %v, the ops' %v", what, i, k, gotG[i][k], wantG[i][k])
						}
					}
				}
			}
		}
	}
}

// TestPairwiseSurrogate: σ(s_ij − s_ip) in one op gives the value and the gradient with respect to
// the scores of SubPos followed by σ (the elementwise op), bit for bit on a tape machine (and to
// rounding on a lisp machine), for each surrogate, in float32 and float64.
func TestPairwiseSurrogate(t *testing.T) {
	const b, c = 5, 7
	rng := rand.New(rand.NewPCG(16, 16))
	s, w := make([]float64, b*c), make([]float64, b*c)
	for k := range s {
		s[k], w[k] = rng.NormFloat64(), rng.NormFloat64()
	}
	cols := &plan{layout: candidates.Corpus, posCol: []int{3, 0, 6, 2, 6}}
	oneHot := func(x *gorgonia.Node) *gorgonia.Node {
		v := make([]float64, b*c)
		for i, j := range cols.posCol {
			v[i*c+j] = 1
		}
		return gorgonia.NewConstant(dense(x.Dtype(), v, b, c), gorgonia.In(x.Graph()))
	}
	for _, sg := range surrogates {
		fn := sg.fn()
		pair := func(in []*gorgonia.Node) *gorgonia.Node {
			op := &pairSurrogateOp{primOp: newPrim("pairwise" + elemNames[fn]), fn: fn, cols: cols}
			return gorgonia.Must(gorgonia.ApplyOp(op, in[0], oneHot(in[0])))
		}
		composed := func(in []*gorgonia.Node) *gorgonia.Node {
			d := gorgonia.Must(gorgonia.ApplyOp(&subPosOp{newPrim("subPos"), cols}, in[0], oneHot(in[0])))
			return gorgonia.Must(gorgonia.ApplyOp(newElem(fn), d, constLike(d, 1)))
		}
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			want, wantG := primRun(t, composed, dt, [][2]int{{b, c}}, [][]float64{s}, w, false)
			for _, lisp := range []bool{false, true} {
				got, gotG := primRun(t, pair, dt, [][2]int{{b, c}}, [][]float64{s}, w, lisp)
				same := func(x, y float64) bool {
					if lisp {
						return near(x, y, 1e-15)
					}
					return math.Float64bits(x) == math.Float64bits(y)
				}
				if !same(got, want) {
					t.Errorf("%s %v lisp=%v: value %v, composed %v", sg, dt, lisp, got, want)
				}
				for k := range gotG[0] {
					if !same(gotG[0][k], wantG[0][k]) {
						t.Errorf("%s %v lisp=%v: ∂/∂s[%d] = %v, composed %v", sg, dt, lisp, k, gotG[0][k], wantG[0][k])
					}
				}
			}
		}
	}
}
