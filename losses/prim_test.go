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

// primCase is a primitive of the expressions and the stock Gorgonia expression it replaces.
type primCase struct {
	name   string
	shapes [][2]int
	prim   func(in []*gorgonia.Node) *gorgonia.Node
	stock  func(in []*gorgonia.Node) *gorgonia.Node
}

// primCases are the primitives on a 5×7 matrix; stockLSE is the log-sum-exp the expressions
// were built from before lseOp: m = stop-gradient(max(a, max_j x)), then m + log(e^{a−m} +
// Σ_j e^{x−m}), and for the loss (m − a) + log1p((e^{a−m} − 1) + Σ_j e^{x−m}).
func primCases() []primCase {
	const b, c = 5, 7
	must := gorgonia.Must
	rowSum := func(x *gorgonia.Node) *gorgonia.Node {
		return must(gorgonia.Reshape(must(gorgonia.Sum(x, 1)), tensor.Shape{b, 1}))
	}
	stockLSE := func(loss bool) func(in []*gorgonia.Node) *gorgonia.Node {
		return func(in []*gorgonia.Node) *gorgonia.Node {
			a, x := in[0], in[1]
			rowMax := must(gorgonia.Reshape(must(gorgonia.Max(x, 1)), tensor.Shape{b, 1}))
			m := StopGradient(must(gorgonia.MaxBetween(a, rowMax)))
			ea := must(gorgonia.Exp(must(gorgonia.Sub(a, m))))
			ex := rowSum(must(gorgonia.Exp(must(gorgonia.BroadcastSub(x, m, nil, []byte{1})))))
			if loss {
				return must(gorgonia.Add(must(gorgonia.Sub(m, a)), must(gorgonia.Log1p(must(gorgonia.Add(must(gorgonia.Sub(ea, constLike(ea, 1))), ex))))))
			}
			return must(gorgonia.Add(must(gorgonia.Log(must(gorgonia.Add(ea, ex)))), m))
		}
	}
	// pick's columns, as a plan of layout corpus, and their one-hot matrix as a constant.
	cols := &plan{layout: candidates.Corpus, posCol: []int{3, 0, 6, 2, 6}}
	oneHot := func(x *gorgonia.Node) *gorgonia.Node {
		v := make([]float64, b*c)
		for i, j := range cols.posCol {
			v[i*c+j] = 1
		}
		return gorgonia.NewConstant(dense(x.Dtype(), v, b, c), gorgonia.In(x.Graph()))
	}
	return []primCase{
		{"AtPos", [][2]int{{b, c}}, func(in []*gorgonia.Node) *gorgonia.Node {
			return must(gorgonia.ApplyOp(newPick(cols), in[0], oneHot(in[0])))
		},
			func(in []*gorgonia.Node) *gorgonia.Node {
				return rowSum(must(gorgonia.HadamardProd(in[0], oneHot(in[0]))))
			}},
		{"SubPos", [][2]int{{b, c}}, func(in []*gorgonia.Node) *gorgonia.Node {
			return must(gorgonia.ApplyOp(&subPosOp{newPrim("subPos"), cols}, in[0], oneHot(in[0])))
		},
			func(in []*gorgonia.Node) *gorgonia.Node {
				return must(gorgonia.BroadcastSub(in[0], rowSum(must(gorgonia.HadamardProd(in[0], oneHot(in[0])))), nil, []byte{1}))
			}},
		{"AddCols", [][2]int{{b, c}, {1, c}}, func(in []*gorgonia.Node) *gorgonia.Node { return AddCols(in[0], in[1]) },
			func(in []*gorgonia.Node) *gorgonia.Node {
				return must(gorgonia.BroadcastAdd(in[0], in[1], nil, []byte{0}))
			}},
		{"AddRows", [][2]int{{b, c}, {b, 1}}, func(in []*gorgonia.Node) *gorgonia.Node { return AddRows(in[0], in[1]) },
			func(in []*gorgonia.Node) *gorgonia.Node {
				return must(gorgonia.BroadcastAdd(in[0], in[1], nil, []byte{1}))
			}},
		{"SubRows", [][2]int{{b, c}, {b, 1}}, func(in []*gorgonia.Node) *gorgonia.Node { return SubRows(in[0], in[1]) },
			func(in []*gorgonia.Node) *gorgonia.Node {
				return must(gorgonia.BroadcastSub(in[0], in[1], nil, []byte{1}))
			}},
		{"MulCols", [][2]int{{b, c}, {1, c}}, func(in []*gorgonia.Node) *gorgonia.Node { return MulCols(in[0], in[1]) },
			func(in []*gorgonia.Node) *gorgonia.Node {
				return must(gorgonia.BroadcastHadamardProd(in[0], in[1], nil, []byte{0}))
			}},
		{"MulRows", [][2]int{{b, c}, {b, 1}}, func(in []*gorgonia.Node) *gorgonia.Node { return MulRows(in[0], in[1]) },
			func(in []*gorgonia.Node) *gorgonia.Node {
				return must(gorgonia.BroadcastHadamardProd(in[0], in[1], nil, []byte{1}))
			}},
		{"RowSum", [][2]int{{b, c}}, func(in []*gorgonia.Node) *gorgonia.Node { return RowSum(in[0]) },
			func(in []*gorgonia.Node) *gorgonia.Node { return rowSum(in[0]) }},
		{"RowDot", [][2]int{{b, c}, {b, c}}, func(in []*gorgonia.Node) *gorgonia.Node { return RowDot(in[0], in[1]) },
			func(in []*gorgonia.Node) *gorgonia.Node { return rowSum(must(gorgonia.HadamardProd(in[0], in[1]))) }},
		{"ColSum", [][2]int{{b, c}}, func(in []*gorgonia.Node) *gorgonia.Node {
			return must(gorgonia.ApplyOp(newSum(false, axisCols), in[0]))
		},
			func(in []*gorgonia.Node) *gorgonia.Node {
				return must(gorgonia.Reshape(must(gorgonia.Sum(in[0], 0)), tensor.Shape{1, c}))
			}},
		{"AddEach", [][2]int{{b, c}, {b, c}}, func(in []*gorgonia.Node) *gorgonia.Node { return AddEach(in[0], in[1]) },
			func(in []*gorgonia.Node) *gorgonia.Node { return must(gorgonia.Add(in[0], in[1])) }},
		{"MulEach", [][2]int{{b, c}, {b, c}}, func(in []*gorgonia.Node) *gorgonia.Node {
			return must(gorgonia.ApplyOp(newBcast(true, axisEach), in[0], in[1]))
		},
			func(in []*gorgonia.Node) *gorgonia.Node { return must(gorgonia.HadamardProd(in[0], in[1])) }},
		{"AddAll", [][2]int{{b, c}, {1, 1}}, func(in []*gorgonia.Node) *gorgonia.Node {
			return must(gorgonia.ApplyOp(newBcast(false, axisAll), in[0], in[1]))
		},
			func(in []*gorgonia.Node) *gorgonia.Node {
				return must(gorgonia.BroadcastAdd(in[0], in[1], nil, []byte{0, 1}))
			}},
		{"MulAll", [][2]int{{b, c}, {1, 1}}, func(in []*gorgonia.Node) *gorgonia.Node {
			return must(gorgonia.ApplyOp(newBcast(true, axisAll), in[0], in[1]))
		},
			func(in []*gorgonia.Node) *gorgonia.Node {
				return must(gorgonia.BroadcastHadamardProd(in[0], in[1], nil, []byte{0, 1}))
			}},
		{"SumAll", [][2]int{{b, c}}, func(in []*gorgonia.Node) *gorgonia.Node { return must(gorgonia.ApplyOp(newSum(false, axisAll), in[0])) },
			func(in []*gorgonia.Node) *gorgonia.Node {
				return must(gorgonia.Reshape(must(gorgonia.Sum(in[0])), tensor.Shape{1, 1}))
			}},
		{"DotAll", [][2]int{{b, c}, {b, c}}, func(in []*gorgonia.Node) *gorgonia.Node {
			return must(gorgonia.ApplyOp(newSum(true, axisAll), in[0], in[1]))
		},
			func(in []*gorgonia.Node) *gorgonia.Node {
				return must(gorgonia.Reshape(must(gorgonia.Sum(must(gorgonia.HadamardProd(in[0], in[1])))), tensor.Shape{1, 1}))
			}},
		{"Softplus", [][2]int{{b, c}}, func(in []*gorgonia.Node) *gorgonia.Node { return Softplus(in[0]) },
			func(in []*gorgonia.Node) *gorgonia.Node { // max(x, 0) + log1p(e^{−|x|})
				x := in[0]
				return must(gorgonia.Add(must(gorgonia.Rectify(x)), must(gorgonia.Log1p(must(gorgonia.Exp(must(gorgonia.Neg(must(gorgonia.Abs(x))))))))))
			}},
		{"Sigmoid", [][2]int{{b, c}}, func(in []*gorgonia.Node) *gorgonia.Node { return Sigmoid(in[0]) },
			func(in []*gorgonia.Node) *gorgonia.Node { // e^{−max(−x, 0)} / (1 + e^{−|x|})
				x := in[0]
				num := must(gorgonia.Exp(must(gorgonia.Neg(must(gorgonia.Rectify(must(gorgonia.Neg(x))))))))
				den := must(gorgonia.Add(constLike(x, 1), must(gorgonia.Exp(must(gorgonia.Neg(must(gorgonia.Abs(x))))))))
				return must(gorgonia.HadamardDiv(num, den))
			}},
		{"LogSumExp", [][2]int{{b, 1}, {b, c}}, func(in []*gorgonia.Node) *gorgonia.Node { return LogSumExp(in[0], in[1]) }, stockLSE(false)},
		{"SoftmaxLoss", [][2]int{{b, 1}, {b, c}}, func(in []*gorgonia.Node) *gorgonia.Node { return SoftmaxLoss(in[0], in[1]) }, stockLSE(true)},
	}
}

// primRun evaluates f on inputs of the given values on a tape machine (or a lisp machine) and
// returns the value of L = Σ f(in) ⊙ w and the gradients of L with respect to every input.
func primRun(t *testing.T, f func([]*gorgonia.Node) *gorgonia.Node, dt tensor.Dtype, shapes [][2]int, vals [][]float64, w []float64, lisp bool) (float64, [][]float64) {
	t.Helper()
	g := gorgonia.NewGraph()
	in := make([]*gorgonia.Node, len(shapes))
	for i, s := range shapes {
		in[i] = gorgonia.NewMatrix(g, dt, gorgonia.WithShape(s[0], s[1]), gorgonia.WithName(fmt.Sprint("in", i)),
			gorgonia.WithValue(dense(dt, vals[i], s[0], s[1])))
	}
	out := f(in)
	s := out.Shape()
	wn := gorgonia.NewMatrix(g, dt, gorgonia.WithShape(s[0], s[1]), gorgonia.WithName("w"), gorgonia.WithValue(dense(dt, w, s[0], s[1])))
	loss := gorgonia.Must(gorgonia.Sum(gorgonia.Must(gorgonia.HadamardProd(out, wn))))
	var vm gorgonia.VM
	if lisp {
		vm = gorgonia.NewLispMachine(g)
	} else {
		if _, err := gorgonia.Grad(loss, in...); err != nil {
			t.Fatal(err)
		}
		vm = gorgonia.NewTapeMachine(g)
	}
	defer vm.Close()
	for range 2 { // twice: the second run writes into the buffers of the first
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		if !lisp {
			vm.Reset()
		}
	}
	grads := make([][]float64, len(in))
	for i, n := range in {
		gv, err := n.Grad()
		if err != nil {
			t.Fatal(err)
		}
		grads[i] = values(gv)
	}
	return values(loss.Value())[0], grads
}

// TestPrimitives: each primitive of the expressions gives the value and the gradients (tape
// machine and lisp machine) of the stock expression it replaces, in float64 and float32, and
// its float64 gradients match central finite differences.
func TestPrimitives(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range primCases() {
		t.Run(tc.name, func(t *testing.T) {
			vals := make([][]float64, len(tc.shapes))
			for i, s := range tc.shapes {
				vals[i] = make([]float64, s[0]*s[1])
				for k := range vals[i] {
					vals[i][k] = 3 * rng.NormFloat64()
				}
			}
			outRows, outCols := tc.shapes[0][0], tc.shapes[0][1]
			switch tc.name {
			case "RowSum", "RowDot", "AtPos":
				outCols = 1
			case "ColSum":
				outRows = 1
			case "SumAll", "DotAll":
				outRows, outCols = 1, 1
			}
			w := make([]float64, outRows*outCols)
			for k := range w {
				w[k] = rng.NormFloat64()
			}
			for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
				tol := 1e-12
				in := vals
				if dt == tensor.Float32 {
					tol = 1e-5
					in = make([][]float64, len(vals))
					for i := range vals {
						in[i] = round32(vals[i])
					}
				}
				want, wantG := primRun(t, tc.stock, dt, tc.shapes, in, w, false)
				for _, lisp := range []bool{false, true} {
					got, gotG := primRun(t, tc.prim, dt, tc.shapes, in, w, lisp)
					what := fmt.Sprintf("%v lisp=%v", dt, lisp)
					if !near(got, want, tol) {
						t.Errorf("%s: value %.17g, stock %.17g", what, got, want)
					}
					for i := range gotG {
						for k := range gotG[i] {
							if !near(gotG[i][k], wantG[i][k], tol) {
								t.Errorf("%s: ∂/∂in%d[%d] = %.17g, stock %.17g", what, i, k, gotG[i][k], wantG[i][k])
							}
						}
					}
				}
			}
			// Central finite differences of L in float64.
			_, grads := primRun(t, tc.prim, tensor.Float64, tc.shapes, vals, w, false)
			for i, orig := range vals {
				fd := centralDifferences(func(x []float64) float64 {
					vals[i] = x
					v, _ := primRun(t, tc.prim, tensor.Float64, tc.shapes, vals, w, true)
					return v
				}, orig, 1e-5)
				vals[i] = orig
				for k, d := range fd {
					if math.Abs(d-grads[i][k]) > 1e-6*math.Max(1, math.Abs(d)) {
						t.Errorf("∂/∂in%d[%d] = %.12g, finite difference %.12g", i, k, grads[i][k], d)
					}
				}
			}
		})
	}
}

// near reports whether got is within a relative tol of want (absolute below 1).
func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

// TestLSEExtreme: the softmax loss of a row its positive dominates by far is log1p of the
// negatives' tiny share, not 0, and a row of logits near ±1000 neither overflows nor loses its
// gradient.
func TestLSEExtreme(t *testing.T) {
	// Row 0: a = 0, x = {−40, −50}: ℓ = log1p(e^{−40} + e^{−50}) ≈ e^{−40}.
	// Row 1: a = 1000, x = {1000, 999}: ℓ = log(1 + 1 + e^{−1}) − 0.
	vals := [][]float64{{0, 1000}, {-40, -50, 1000, 999}}
	shapes := [][2]int{{2, 1}, {2, 2}}
	got, grads := primRun(t, func(in []*gorgonia.Node) *gorgonia.Node { return SoftmaxLoss(in[0], in[1]) },
		tensor.Float64, shapes, vals, []float64{1, 1}, false)
	want := math.Log1p(math.Exp(-40)+math.Exp(-50)) + math.Log(2+math.Exp(-1))
	if !near(got, want, 1e-15) {
		t.Errorf("loss %.17g, want %.17g", got, want)
	}
	row0 := math.Log1p(math.Exp(-40) + math.Exp(-50))
	if g := grads[1][0]; math.Abs(g-math.Exp(-40-row0)) > 1e-15*math.Exp(-40) {
		t.Errorf("∂ℓ_0/∂x_00 = %g, want e^{−40−ℓ_0} = %g", g, math.Exp(-40-row0))
	}
	if g, w := grads[0][1], 1/(2+math.Exp(-1))-1; !near(g, w, 1e-15) {
		t.Errorf("∂ℓ_1/∂a_1 = %.17g, want %.17g", g, w)
	}
}

// TestMasksIncremental: over a run of steps whose positives and accidental hits change, the
// masks fillMasks keeps up to date by restoring only what the last step changed equal, entry by
// entry, the masks the plan defines (a positive at pos(i), every other entry a negative unless
// masked; the candidates are both), and the rows' counts of negatives equal the negatives of
// the row, for every layout, with hits removed, with dedupe's further copies and with padding
// rows.
func TestMasksIncremental(t *testing.T) {
	for _, tc := range []tcase{
		{Settings{Variant: VariantPlain}, inBatchG},
		{Settings{Variant: VariantLogQ, RemoveAccidentalHits: true}, inBatchG},
		{Settings{Variant: VariantLogQ, LogQProbability: LogQProbabilityDedupe}, inBatchG},
		{Settings{Variant: VariantLogQ, RemoveAccidentalHits: true}, candidates.Geometry{Sampler: "uniform", Layout: candidates.First, Extra: 7}},
		{Settings{Variant: VariantLogQ, RemoveAccidentalHits: true}, mixedG},
		{Settings{Variant: VariantPlain}, paddedG},
		{Settings{Variant: VariantLogQ, RemoveAccidentalHits: true}, paddedG},
		{Settings{Variant: VariantFull}, corpusG},
	} {
		l := tc.newLoss(t, tensor.Float64)
		t.Run(name(tcase{l.Settings(), l.Geometry()}), func(t *testing.T) {
			rs, geo := l.Settings(), l.Geometry()
			g := newCaseGen(3, 12) // 12 items: many accidental hits and copies
			var p plan
			var ms maskState
			var in [nDerived]input
			for step := range 6 {
				pr := g.gen(rs, geo, 9, false)
				if in[derivedPos].val == nil {
					for _, k := range []derived{derivedPos, derivedNeg, derivedNegLog, derivedCand} {
						in[k].val = tensor.New(tensor.Of(tensor.Float64), tensor.WithShape(pr.b, pr.c))
					}
					in[derivedNegCount].val = tensor.New(tensor.Of(tensor.Float64), tensor.WithShape(pr.b, 1))
				}
				if err := p.build(&rs, geo, pr.st, pr.b, pr.c); err != nil {
					t.Fatal(err)
				}
				fillMasks[float64](&p, &in, &ms)
				pos, neg, negLog := dataOf[float64](in[derivedPos].val), dataOf[float64](in[derivedNeg].val), dataOf[float64](in[derivedNegLog].val)
				cand, count := dataOf[float64](in[derivedCand].val), dataOf[float64](in[derivedNegCount].val)
				for i := range pr.b {
					pc := p.pos(i)
					negatives := 0.0
					for j := range pr.c {
						k := i*pr.c + j
						isNeg := j != pc && !p.masked(i, j, pc)
						wantPos, wantNeg, wantLog := 0.0, 0.0, math.Inf(-1)
						if j == pc {
							wantPos = 1
						}
						if isNeg {
							wantNeg, wantLog = 1, 0
						}
						if pos[k] != wantPos || neg[k] != wantNeg || negLog[k] != wantLog || cand[k] != wantPos+wantNeg {
							t.Fatalf("step %d, entry (%d, %d): pos %v neg %v negLog %v cand %v, want %v %v %v %v",
								step, i, j, pos[k], neg[k], negLog[k], cand[k], wantPos, wantNeg, wantLog, wantPos+wantNeg)
						}
						negatives += wantNeg
					}
					if count[i] != negatives {
						t.Fatalf("step %d, row %d: %v negatives counted, want %v", step, i, count[i], negatives)
					}
				}
			}
		})
	}
}
