package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/internal/simd"
	"github.com/samplingbias/workbench/internal/tape"
)

// opInput is one input of an op under test: its shape, values and whether its gradient is
// checked.
type opInput struct {
	shape tensor.Shape
	vals  []float64
	diff  bool
}

// opCheck runs build (an op applied to the inputs' nodes) in float64 and returns its output, and
// checks the gradient of Σ out ⊙ C (C fixed, random) w.r.t. every diff input against central
// finite differences, and, when want is not nil, the output against want.
func opCheck(t *testing.T, ins []opInput, want []float64, build func(in G.Nodes) *G.Node) {
	t.Helper()
	g := G.NewGraph()
	nodes := make(G.Nodes, len(ins))
	var wrt G.Nodes
	for i, in := range ins {
		v := tensor.New(tensor.WithShape(in.shape...), tensor.WithBacking(in.vals))
		nodes[i] = G.NewTensor(g, tensor.Float64, len(in.shape), G.WithShape(in.shape...), G.WithName(fmt.Sprint("in", i)), G.WithValue(v))
		if in.diff {
			wrt = append(wrt, nodes[i])
		}
	}
	out := build(nodes)
	rng := rand.New(rand.NewPCG(1, 9))
	coef := make([]float64, out.Shape().TotalSize())
	for i := range coef {
		coef[i] = rng.NormFloat64()
	}
	c := G.NewTensor(g, tensor.Float64, out.Dims(), G.WithShape(out.Shape()...), G.WithName("coef"),
		G.WithValue(tensor.New(tensor.WithShape(out.Shape()...), tensor.WithBacking(coef))))
	run := func(m G.VM) {
		t.Helper()
		defer m.Reset()
		if err := m.RunAll(); err != nil {
			t.Fatal(err)
		}
	}
	// The output is read from a machine that computes nothing after it (the loss's product may
	// work in place on it).
	value, err := tape.Machine(g, out)
	if err != nil {
		t.Fatal(err)
	}
	run(value)
	if want != nil {
		got := data[float64](out.Value())
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
				t.Fatalf("output %d: %.15g, reference %.15g", i, got[i], want[i])
			}
		}
	}
	if len(wrt) == 0 {
		return
	}
	loss := G.Must(G.Sum(G.Must(G.HadamardProd(out, c))))
	grads, vm, fwd := gradMachines(t, loss, wrt)
	run(vm)
	k := 0
	for _, in := range ins {
		if !in.diff {
			continue
		}
		an := append([]float64(nil), data[float64](grads[k].Value())...)
		k++
		for i := range in.vals {
			fd := centralDifference(in.vals, i, func() float64 {
				run(fwd)
				return loss.Value().Data().(float64)
			})
			if !agrees(an[i], fd) {
				t.Errorf("input %d [%d]: gradient %.10g, finite difference %.10g", k-1, i, an[i], fd)
			}
		}
	}
}

// gradMachines returns the gradients of loss w.r.t. wrt, a machine that computes the loss and
// them, and one that computes the loss alone.
func gradMachines(t testing.TB, loss *G.Node, wrt G.Nodes) (grads G.Nodes, vm, fwd G.VM) {
	t.Helper()
	grads, err := G.Grad(loss, wrt...)
	if err != nil {
		t.Fatal(err)
	}
	if vm, err = tape.Machine(loss.Graph(), append(G.Nodes{loss}, grads...)...); err != nil {
		t.Fatal(err)
	}
	if fwd, err = tape.Machine(loss.Graph(), loss); err != nil {
		t.Fatal(err)
	}
	return grads, vm, fwd
}

// centralDifference returns (f() at x_i + h − f() at x_i − h)/2h, h = 1e-6, and restores x_i.
func centralDifference(x []float64, i int, f func() float64) float64 {
	const h = 1e-6
	v := x[i]
	x[i] = v + h
	lp := f()
	x[i] = v - h
	lm := f()
	x[i] = v
	return (lp - lm) / (2 * h)
}

// agrees reports whether a gradient agrees with its central difference fd: within 1e-7 + 1e-6·|fd|
// (the difference's truncation and rounding errors at h = 1e-6).
func agrees(grad, fd float64) bool { return math.Abs(fd-grad) <= 1e-7+1e-6*math.Abs(fd) }

// randoms returns n values from N(0, sd²).
func randoms(rng *rand.Rand, n int, sd float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = sd * rng.NormFloat64()
	}
	return x
}

// testKeep is the keep column of 3 sequences of length 5 starting at 0 (full), 2 and 5 (empty).
func testKeep() (keep []float64, starts []int) {
	starts = []int{0, 2, 5}
	for _, s := range starts {
		for j := range 5 {
			v := 0.0
			if j >= s {
				v = 1
			}
			keep = append(keep, v)
		}
	}
	return keep, starts
}

// TestCausalSoftmaxOp checks the attention weights' primitive against the softmax over each
// row's causal region written out (zero outside it and in padded rows; a row of its region
// sums to 1), with scores of ±10⁴ that overflow a softmax not shifted by the row's maximum, and
// its gradient against finite differences, every entry of the scores included.
func TestCausalSoftmaxOp(t *testing.T) {
	const L, heads = 5, 2
	keep, starts := testKeep()
	rng := rand.New(rand.NewPCG(2, 2))
	rows := len(starts) * heads * L
	for _, sd := range []float64{1, 1e4} {
		t.Run(fmt.Sprint("scale=", sd), func(t *testing.T) {
			z := randoms(rng, rows*L, sd)
			want := make([]float64, rows*L)
			for r := range rows {
				s, i := starts[r/(heads*L)], r%L
				if i < s {
					continue
				}
				mx := math.Inf(-1)
				for j := s; j <= i; j++ {
					mx = math.Max(mx, z[r*L+j])
				}
				var sum float64
				for j := s; j <= i; j++ {
					sum += math.Exp(z[r*L+j] - mx)
				}
				for j := s; j <= i; j++ {
					want[r*L+j] = math.Exp(z[r*L+j]-mx) / sum
				}
			}
			ins := []opInput{{tensor.Shape{rows, L}, z, sd == 1}, {tensor.Shape{len(keep), 1}, keep, false}}
			opCheck(t, ins, want, func(in G.Nodes) *G.Node {
				return G.Must(G.ApplyOp(newCausalSoftmax[float64](attnGeom{L, heads}), in[0], in[1]))
			})
		})
	}
}

// TestHeadProductOp checks the three causal products, with and without a mask, against their
// definitions written out per (sequence, head) block, and their gradients (each a product of
// another mode) against finite differences.
func TestHeadProductOp(t *testing.T) {
	const L, heads, dh = 5, 2, 3
	const d = heads * dh
	const alpha = 0.7
	keep, starts := testKeep()
	n := len(keep)
	blocks := n * heads
	for _, mode := range []productMode{productLower, productRow, productCol} {
		for _, masked := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/masked=%t", productNames[mode], masked), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(mode), 3))
				pos := func() []float64 { return randoms(rng, n*d, 1) }
				blk := func() []float64 { return randoms(rng, blocks*L, 1) }
				var u, v []float64
				shapeU := tensor.Shape{blocks, L}
				if mode == productLower {
					u, shapeU = pos(), tensor.Shape{n, d}
				} else {
					u = blk()
				}
				v = pos()
				mask := blk()
				at := func(m []float64, b, k, i, j int) float64 { return m[((b*heads+k)*L+i)*L+j] }
				dm := func(b, k, i, j int) float64 {
					if !masked {
						return 1
					}
					return at(mask, b, k, i, j)
				}
				var want []float64
				if mode == productLower {
					want = make([]float64, blocks*L)
				} else {
					want = make([]float64, n*d)
				}
				for b, s := range starts {
					for k := range heads {
						for i := s; i < L; i++ {
							for j := s; j <= i; j++ {
								switch mode {
								case productLower: // C_ij = α⟨u_i, v_j⟩ D_ij
									var dot float64
									for c := range dh {
										dot += u[(b*L+i)*d+k*dh+c] * v[(b*L+j)*d+k*dh+c]
									}
									want[((b*heads+k)*L+i)*L+j] = alpha * dot * dm(b, k, i, j)
								case productRow: // y_i += α M_ij D_ij v_j
									for c := range dh {
										want[(b*L+i)*d+k*dh+c] += alpha * at(u, b, k, i, j) * dm(b, k, i, j) * v[(b*L+j)*d+k*dh+c]
									}
								case productCol: // y_j += α M_ij D_ij v_i
									for c := range dh {
										want[(b*L+j)*d+k*dh+c] += alpha * at(u, b, k, i, j) * dm(b, k, i, j) * v[(b*L+i)*d+k*dh+c]
									}
								}
							}
						}
					}
				}
				ins := []opInput{{shapeU, u, true}, {tensor.Shape{n, d}, v, true}, {tensor.Shape{n, 1}, keep, false}}
				if masked {
					ins = append(ins, opInput{tensor.Shape{blocks, L}, mask, false})
				}
				opCheck(t, ins, want, func(in G.Nodes) *G.Node {
					return G.Must(G.ApplyOp(newHeadProduct[float64](mode, attnGeom{L, heads}, alpha, masked, false), in...))
				})
			})
		}
	}
}

// TestLayerNormOp checks the fused layer normalisation against γ ⊙ (x − μ)/sqrt(σ² + ε) + β
// written out (refLayerNorm), at Kang & McAuley's ε = 1e-8, PyTorch's 1e-5 and a large 0.5 (so
// that an ε left out shows beyond rounding), and its gradients w.r.t. x, γ and β against finite
// differences; and that a constant row (σ² = 0) gives β.
func TestLayerNormOp(t *testing.T) {
	const n, d = 7, 5
	for _, eps := range []float64{1e-8, 1e-5, 0.5} {
		for _, constant := range []bool{false, true} {
			t.Run(fmt.Sprintf("eps=%g/constant=%t", eps, constant), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(4, 4))
				x := randoms(rng, n*d, 2)
				gamma, beta := randoms(rng, d, 1), randoms(rng, d, 1)
				ln := func(in G.Nodes) *G.Node {
					return G.Must(G.ApplyOp(newLayerNorm[float64]("test", eps), in...))
				}
				if constant {
					copy(x[d:2*d], []float64{3, 3, 3, 3, 3})
				}
				var want []float64
				for r := range n {
					want = append(want, refLayerNorm(x[r*d:(r+1)*d], gamma, beta, eps)...)
				}
				if constant {
					for j := range d {
						if want[d+j] != beta[j] {
							t.Fatalf("reference of a constant row %v, β %v", want[d:2*d], beta)
						}
					}
				}
				// At a constant row the gradient w.r.t. x is of order 1/sqrt(ε): finite
				// differences are checked away from it.
				ins := []opInput{{tensor.Shape{n, d}, x, !constant}, {tensor.Shape{d}, gamma, true}, {tensor.Shape{d}, beta, true}}
				opCheck(t, ins, want, ln)
			})
		}
	}
}

// TestAttentionOpsRejectRightPadding checks that the attention ops refuse a keep column that is
// not 0 … 0 1 … 1 in every sequence, with an error naming the sequence.
func TestAttentionOpsRejectRightPadding(t *testing.T) {
	const L = 3
	keep := []float64{0, 1, 1, 1, 0, 1}
	z := make([]float64, 2*L*L)
	op := newCausalSoftmax[float64](attnGeom{L, 1})
	_, err := op.Do(tensor.New(tensor.WithShape(2*L, L), tensor.WithBacking(z)), tensor.New(tensor.WithShape(2*L, 1), tensor.WithBacking(keep)))
	if err == nil || !strings.Contains(err.Error(), "sequence 1") || !strings.Contains(err.Error(), "padded on the left") {
		t.Fatalf("error %v", err)
	}
}

// TestHeadProductKernel checks the attention's micro-kernel (kernelBlock) against the portable
// path (gemm tile by tile) in float32, for every mode with and without a mask, on blocks whose
// sizes leave partial tiles everywhere: lengths 37 and 50, heads of 20 and 64 columns,
// sequences starting at 0, in the middle, at the last position and empty.
func TestHeadProductKernel(t *testing.T) {
	if !simd.Kernel() {
		t.Skip("the processor lacks AVX2 and FMA: no micro-kernel to compare")
	}
	for _, c := range []struct{ L, heads, dh int }{{37, 2, 20}, {50, 1, 64}} {
		d := c.heads * c.dh
		rng := rand.New(rand.NewPCG(uint64(c.L), 5))
		starts := []int{0, c.L / 3, c.L - 1, c.L, 5}
		var keep []float32
		for _, s := range starts {
			for j := range c.L {
				keep = append(keep, float32(min(1, max(0, j-s+1))))
			}
		}
		n, blocks := len(keep), len(keep)*c.heads
		f32 := func(k int) []float32 {
			x := make([]float32, k)
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			return x
		}
		for _, mode := range []productMode{productLower, productRow, productCol} {
			for _, masked := range []bool{false, true} {
				t.Run(fmt.Sprintf("L=%d,dh=%d/%s/masked=%t", c.L, c.dh, productNames[mode], masked), func(t *testing.T) {
					rows, cols := blocks, c.L // U: a block matrix, or positions × width for lower
					if mode == productLower {
						rows, cols = n, d
					}
					ins := []tensor.Tensor{
						tensor.New(tensor.WithShape(rows, cols), tensor.WithBacking(f32(rows*cols))),
						tensor.New(tensor.WithShape(n, d), tensor.WithBacking(f32(n*d))),
						tensor.New(tensor.WithShape(n, 1), tensor.WithBacking(keep)),
					}
					if masked {
						ins = append(ins, tensor.New(tensor.WithShape(blocks, c.L), tensor.WithBacking(f32(blocks*c.L))))
					}
					var out [2][]float32
					for k, portable := range []bool{false, true} {
						op := newHeadProduct[float32](mode, attnGeom{c.L, c.heads}, 0.3, masked, portable)
						vals := make([]G.Value, len(ins))
						for i, v := range ins {
							vals[i] = v
						}
						v, err := op.Do(vals...)
						if err != nil {
							t.Fatal(err)
						}
						out[k] = append([]float32(nil), data[float32](v)...)
					}
					for i := range out[0] {
						if diff := math.Abs(float64(out[0][i] - out[1][i])); diff > 1e-5*(1+math.Abs(float64(out[1][i]))) {
							t.Fatalf("value %d: kernel %v, portable %v", i, out[0][i], out[1][i])
						}
					}
				})
			}
		}
	}
}

// TestEmbedAndResidualOps checks the fused input and block-output steps against their
// definitions written out, with and without a dropout mask, windows shorter than the
// positional table included, and their gradients (rowMaskOp, posGradOp) against finite
// differences.
func TestEmbedAndResidualOps(t *testing.T) {
	const L, maxLen, d = 5, 7, 3
	keep, starts := testKeep()
	n := len(keep)
	for _, masked := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(6, 6))
		x, y, pos, mask := randoms(rng, n*d, 1), randoms(rng, n*d, 1), randoms(rng, maxLen*d, 1), randoms(rng, n*d, 1)
		dm := func(i int) float64 {
			if masked {
				return mask[i]
			}
			return 1
		}
		embed, res := make([]float64, n*d), make([]float64, n*d)
		for b, s := range starts {
			for t := s; t < L; t++ {
				for j := range d {
					i := (b*L+t)*d + j
					embed[i] = (1.5*x[i] + pos[(maxLen-L+t)*d+j]) * dm(i)
					res[i] = x[i]*dm(i) + y[i]
				}
			}
		}
		inputs := func(first ...opInput) []opInput {
			in := append(first, opInput{tensor.Shape{n, 1}, keep, false})
			if masked {
				in = append(in, opInput{tensor.Shape{n, d}, mask, false})
			}
			return in
		}
		t.Run(fmt.Sprint("embed/masked=", masked), func(t *testing.T) {
			opCheck(t, inputs(opInput{tensor.Shape{n, d}, x, true}, opInput{tensor.Shape{maxLen, d}, pos, true}), embed, func(in G.Nodes) *G.Node {
				return G.Must(G.ApplyOp(newEmbed[float64](1.5, L, maxLen, masked), in...))
			})
		})
		t.Run(fmt.Sprint("residual/masked=", masked), func(t *testing.T) {
			opCheck(t, inputs(opInput{tensor.Shape{n, d}, x, true}, opInput{tensor.Shape{n, d}, y, true}), res, func(in G.Nodes) *G.Node {
				return G.Must(G.ApplyOp(newResidual[float64](L, masked), in...))
			})
		})
	}
}

// TestAttnWeightsOp checks the fused attention weights, the softmax over each row's causal
// region of α⟨q_i, k_j⟩ per head, against their definition written out, and their gradients
// w.r.t. Q and K against finite differences.
func TestAttnWeightsOp(t *testing.T) {
	const L, heads, dh = 5, 2, 3
	const d, alpha = heads * dh, 0.6
	keep, starts := testKeep()
	n := len(keep)
	rng := rand.New(rand.NewPCG(8, 8))
	q, k := randoms(rng, n*d, 1), randoms(rng, n*d, 1)
	want := make([]float64, n*heads*L)
	for b, s := range starts {
		for h := range heads {
			for i := s; i < L; i++ {
				row := want[((b*heads+h)*L+i)*L:]
				var z float64
				for j := s; j <= i; j++ {
					var dot float64
					for c := range dh {
						dot += q[(b*L+i)*d+h*dh+c] * k[(b*L+j)*d+h*dh+c]
					}
					row[j] = math.Exp(alpha * dot)
					z += row[j]
				}
				for j := s; j <= i; j++ {
					row[j] /= z
				}
			}
		}
	}
	ins := []opInput{{tensor.Shape{n, d}, q, true}, {tensor.Shape{n, d}, k, true}, {tensor.Shape{n, 1}, keep, false}}
	opCheck(t, ins, want, func(in G.Nodes) *G.Node {
		return G.Must(G.ApplyOp(newAttnWeights[float64](attnGeom{L, heads}, alpha, false), in...))
	})
}
