package models

import (
	"context"
	"fmt"
	"runtime"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/internal/ops"
	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/reuse"
)

// The custom Gorgonia ops of the sequence encoders (kernels in seqkernels.go). Like the tower
// ops (ops.go) each is built on the op base (internal/ops: named after its function and
// parameters, never an address), owns its output and scratch, overwritten at every execution (a
// value is valid until the next run of its machine), and computes its gradient with further ops
// of this file:
//
//	causalSoftmaxOp   P = softmax of Z over each row's causal region (the attention weights)
//	                                    ∂: causalSoftmaxGradOp
//	attnWeightsOp     P = causal softmax of αQKᵀ, a block at a time (lower product and softmax)
//	                                    ∂: causalSoftmaxGradOp, then headProductOp row and col
//	headProductOp     per (sequence, head) block, restricted to the causal region s ≤ j ≤ i:
//	                  lower  C_ij = α⟨a_i, b_j⟩ ⊙ D_ij      (scores QKᵀ/√d_h; ∂ of weighted sums)
//	                  row    y_i  = α Σ_j M_ij D_ij x_j       (weights · values; ∂ of scores)
//	                  col    y_j  = α Σ_i M_ij D_ij x_i       (the transposed products of ∂)
//	                                    ∂: the other two modes (headProductOp.SymDiff)
//	layerNormOp       Y = γ ⊙ (X − μ)/sqrt(σ² + ε) + β, row by row
//	                                    ∂: layerNormGradOp (X and γ), colSumOp (β)
//	embedOp           Y_r = keep_r·((scale·X_r + P[maxLen − L + t]) ⊙ D_r), the encoder's input
//	                                    ∂: rowMaskOp (X), posGradOp (P)
//	residualOp        Y_r = keep_r·(F_r ⊙ D_r + R_r), a block's output
//	                                    ∂: rowMaskOp (F and R)
//
// causalSoftmaxOp is also a primitive of the attention written as an expression (sasrec.go):
// Gorgonia's SoftMax starts every row's maximum from the tensor's first value and runs one
// goroutine per row, so that a masked row can overflow; this one is stable, and a row without a
// key (a padded position) is zero.

// attnGeom is the layout of one graph's attention: sequences of length positions (a matrix of
// positions has seqs·length rows, one sequence after the other) and heads heads, each of an
// equal share of the width's columns.
type attnGeom struct{ length, heads int }

func (g attnGeom) String() string { return fmt.Sprintf("L=%d,h=%d", g.length, g.heads) }

// The ops' constructors: each names its op after its function and every parameter its output
// depends on (ops.Base), as the tower ops' constructors do (ops.go).

func newCausalSoftmax[T float](g attnGeom) *causalSoftmaxOp[T] {
	return &causalSoftmaxOp[T]{Base: ops.Base{Name: fmt.Sprintf("CausalSoftmax{%v}", g)}, geom: g}
}

func newCausalSoftmaxGrad[T float](g attnGeom) *causalSoftmaxGradOp[T] {
	return &causalSoftmaxGradOp[T]{Base: ops.Base{Name: fmt.Sprintf("CausalSoftmaxGrad{%v}", g)}, geom: g}
}

func newAttnWeights[T float](g attnGeom, alpha float64, portable bool) *attnWeightsOp[T] {
	return &attnWeightsOp[T]{Base: ops.Base{Name: fmt.Sprintf("AttnWeights{%v,α=%g,portable=%t}", g, alpha, portable)},
		geom: g, alpha: alpha, portable: portable}
}

func newHeadProduct[T float](mode productMode, g attnGeom, alpha float64, masked, portable bool) *headProductOp[T] {
	return &headProductOp[T]{Base: ops.Base{Name: fmt.Sprintf("HeadProduct{%s,%v,α=%g,masked=%t,portable=%t}",
		productNames[mode], g, alpha, masked, portable)}, mode: mode, geom: g, alpha: alpha, masked: masked, portable: portable}
}

func newLayerNorm[T float](name string, eps float64) *layerNormOp[T] {
	return &layerNormOp[T]{Base: ops.Base{Name: fmt.Sprintf("LayerNorm{%s,eps=%g}", name, eps)}, name: name, eps: eps}
}

func newLayerNormGrad[T float](name string, eps float64, wrtGamma bool) *layerNormGradOp[T] {
	return &layerNormGradOp[T]{Base: ops.Base{Name: fmt.Sprintf("LayerNormGrad{%s,eps=%g,wrtGamma=%t}", name, eps, wrtGamma)},
		name: name, eps: eps, wrtGamma: wrtGamma}
}

func newEmbed[T float](scale float64, length, maxLen int, masked bool) *embedOp[T] {
	return &embedOp[T]{Base: ops.Base{Name: fmt.Sprintf("Embed{scale=%g,L=%d,max=%d,masked=%t}", scale, length, maxLen, masked)},
		scale: scale, length: length, maxLen: maxLen, masked: masked}
}

func newResidual[T float](length int, masked bool) *residualOp[T] {
	return &residualOp[T]{Base: ops.Base{Name: fmt.Sprintf("Residual{L=%d,masked=%t}", length, masked)}, length: length, masked: masked}
}

func newRowMask[T float](scale float64, length int, masked bool) *rowMaskOp[T] {
	return &rowMaskOp[T]{Base: ops.Base{Name: fmt.Sprintf("RowMask{scale=%g,L=%d,masked=%t}", scale, length, masked)},
		scale: scale, length: length, masked: masked}
}

func newPosGrad[T float](length, maxLen int, masked bool) *posGradOp[T] {
	return &posGradOp[T]{Base: ops.Base{Name: fmt.Sprintf("PosGrad{L=%d,max=%d,masked=%t}", length, maxLen, masked)},
		length: length, maxLen: maxLen, masked: masked}
}

// blockRunner runs a function on every (sequence, head) block in parallel, with per-goroutine
// scratch that it keeps from one execution to the next.
type blockRunner[T float] struct {
	starts []int
	tiles  [][]T
	wide   [][]float64
	ks     []kernelScratch
}

// run checks keep (the positions' 0/1 column, padded on the left) and calls f(b, k, s, w) for
// every block (sequence b, head k) of the sequences keep describes, s being the sequence's start
// and w the goroutine, whose scratch is r.tiles[w] (attnTile·L values), r.wide[w] (L float64
// values) and r.ks[w].
func (r *blockRunner[T]) run(keep []T, g attnGeom, f func(b, k, s, w int)) error {
	seqs := len(keep) / g.length
	r.starts = reuse.Grow(r.starts, seqs)
	if err := seqStarts(r.starts, keep, g.length); err != nil {
		return err
	}
	workers := runtime.GOMAXPROCS(0)
	if len(r.tiles) != workers || len(r.wide[0]) < g.length {
		r.tiles, r.wide, r.ks = make([][]T, workers), make([][]float64, workers), make([]kernelScratch, workers)
		for w := range workers {
			r.tiles[w] = make([]T, attnTile*g.length)
			r.wide[w] = make([]float64, g.length)
		}
	}
	return parallel.Each(context.Background(), seqs*g.heads, workers, func(w, i int) error {
		b, k := i/g.heads, i%g.heads
		f(b, k, r.starts[b], w)
		return nil
	})
}

// column is the type of the positions' keep column (a matrix).
var column = matrix

// ---- causalSoftmaxOp ----

// causalSoftmaxOp computes the attention weights P ((seqs·heads·L)×L, block (b, k) at rows
// (b·heads + k)·L) from the scores Z of the same shape and the positions' keep column (seqs·L
// × 1): P[i, s..i] = softmax(Z[i, s..i]) for every real query row i, zero elsewhere.
type causalSoftmaxOp[T float] struct {
	ops.Base
	outBuf[T]
	blockRunner[T]
	geom attnGeom
}

func (op *causalSoftmaxOp[T]) Arity() int    { return 2 }
func (op *causalSoftmaxOp[T]) Type() hm.Type { return hm.NewFnType(matrix, column, matrix) }

func (op *causalSoftmaxOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	return blockShape(op, op.geom, in[0], in[1])
}

// blockShape checks that z is the (seqs·heads·L)×L matrix of the blocks of keep's sequences and
// returns its shape.
func blockShape(op fmt.Stringer, g attnGeom, z, keep gorgonia.DimSizer) (tensor.Shape, error) {
	r, c, err := shape2(z)
	if err != nil {
		return nil, err
	}
	n, one, err := shape2(keep)
	if err != nil {
		return nil, err
	}
	if one != 1 || n%g.length != 0 || c != g.length || r != n*g.heads {
		return nil, fmt.Errorf("%v: a %d×%d block matrix for a %d×%d keep column", op, r, c, n, one)
	}
	return tensor.Shape{r, c}, nil
}

func (op *causalSoftmaxOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	r, c := valShape2(in[0])
	t, p := op.get(r, c)
	z, keep := data[T](in[0]), data[T](in[1])
	L := op.geom.length
	err := op.run(keep, op.geom, func(b, k, s, w int) {
		off := (b*op.geom.heads + k) * L * L
		causalSoftmaxBlock(p[off:off+L*L], z[off:off+L*L], L, s, op.wide[w])
	})
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	return t, nil
}

func (op *causalSoftmaxOp[T]) DiffWRT(int) []bool { return []bool{true, false} }

func (op *causalSoftmaxOp[T]) SymDiff(in gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	dz, err := gorgonia.ApplyOp(newCausalSoftmaxGrad[T](op.geom), output, grad, in[1])
	return gorgonia.Nodes{dz, nil}, err
}

// causalSoftmaxGradOp computes, from (P, G, keep), the gradient of causalSoftmaxOp:
// dZ_ij = P_ij·(G_ij − Σ_k P_ik G_ik) in the causal region, zero elsewhere.
type causalSoftmaxGradOp[T float] struct {
	ops.Base
	outBuf[T]
	blockRunner[T]
	geom attnGeom
}

func (op *causalSoftmaxGradOp[T]) Arity() int { return 3 }
func (op *causalSoftmaxGradOp[T]) Type() hm.Type {
	return hm.NewFnType(matrix, matrix, column, matrix)
}

func (op *causalSoftmaxGradOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	return blockShape(op, op.geom, in[0], in[2])
}

func (op *causalSoftmaxGradOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	r, c := valShape2(in[0])
	t, dz := op.get(r, c)
	p, g, keep := data[T](in[0]), data[T](in[1]), data[T](in[2])
	L := op.geom.length
	err := op.run(keep, op.geom, func(b, k, s, _ int) {
		off := (b*op.geom.heads + k) * L * L
		causalSoftmaxGradBlock(dz[off:off+L*L], p[off:off+L*L], g[off:off+L*L], L, s)
	})
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	return t, nil
}

// ---- attnWeightsOp ----

// attnWeightsOp computes the attention weights P = causal softmax of αQKᵀ from (Q, K, keep) in
// one pass per block: headProductOp's lower product and causalSoftmaxOp fused, so that the
// scores of a block stay in the cache rather than in a matrix of their own.
type attnWeightsOp[T float] struct {
	ops.Base
	outBuf[T]
	blockRunner[T]
	geom     attnGeom
	alpha    float64
	portable bool // the lower product on gemm tile by tile, as headProductOp.portable
}

func (op *attnWeightsOp[T]) Arity() int    { return 3 }
func (op *attnWeightsOp[T]) Type() hm.Type { return hm.NewFnType(matrix, matrix, column, matrix) }

func (op *attnWeightsOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	return newHeadProduct[T](productLower, op.geom, 0, false, false).InferShape(in...)
}

func (op *attnWeightsOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	q, k, keep := data[T](in[0]), data[T](in[1]), data[T](in[2])
	n, _ := valShape2(in[2])
	_, d := valShape2(in[0])
	L, h := op.geom.length, op.geom.heads
	dh := d / h
	t, p := op.get(n*h, L)
	err := op.run(keep, op.geom, func(b, hd, s, w int) {
		blk, pos := (b*h+hd)*L*L, b*L*d+hd*dh
		pb := p[blk : blk+L*L]
		if op.portable || !kernelBlock(productLower, pb, q[pos:], k[pos:], nil, L, d, dh, s, T(op.alpha), &op.ks[w]) {
			lowerBlock(pb, q[pos:], k[pos:], nil, L, d, dh, s, T(op.alpha))
		}
		causalSoftmaxBlock(pb, pb, L, s, op.wide[w])
	})
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	return t, nil
}

func (op *attnWeightsOp[T]) DiffWRT(int) []bool { return []bool{true, true, false} }

// SymDiff returns dQ = α·dS·K and dK = α·dSᵀ·Q (headProductOp's row and col products) of the
// scores' gradient dS (causalSoftmaxGradOp).
func (op *attnWeightsOp[T]) SymDiff(in gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	ds, err := gorgonia.ApplyOp(newCausalSoftmaxGrad[T](op.geom), output, grad, in[2])
	if err != nil {
		return nil, err
	}
	dq, err := gorgonia.ApplyOp(newHeadProduct[T](productRow, op.geom, op.alpha, false, op.portable), ds, in[1], in[2])
	if err != nil {
		return nil, err
	}
	dk, err := gorgonia.ApplyOp(newHeadProduct[T](productCol, op.geom, op.alpha, false, op.portable), ds, in[0], in[2])
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dq, dk, nil}, nil
}

// ---- headProductOp ----

// productMode is the product a headProductOp computes over each block's causal region.
type productMode int

const (
	productLower productMode = iota // C_ij = α⟨a_i, b_j⟩·D_ij, s ≤ j ≤ i (a block matrix)
	productRow                      // y_i = α Σ_{s≤j≤i} M_ij D_ij x_j (positions × width)
	productCol                      // y_j = α Σ_{j≤i<L} M_ij D_ij x_i (positions × width)
)

var productNames = [...]string{productLower: "lower", productRow: "row", productCol: "col"}

// headProductOp computes one of the causal products of the attention, per (sequence, head)
// block, from (U, V, keep) or (U, V, keep, D): for productLower U and V are positions × width
// matrices (seqs·L rows, head k in columns [k·d_h, (k+1)·d_h)) and the result a block matrix
// ((seqs·heads·L)×L); for productRow and productCol U is a block matrix and V and the result
// are positions × width. D, when given (masked), is a block matrix multiplying U's (or the
// result's) entries: the attention weights' dropout. Entries of block matrices outside the
// causal region are not read, and are zero in a result.
type headProductOp[T float] struct {
	ops.Base
	outBuf[T]
	blockRunner[T]
	mode   productMode
	geom   attnGeom
	alpha  float64
	masked bool
	// portable computes with gemm tile by tile where the micro-kernel would (kernelBlock): the
	// fallback, which the tests compare with it.
	portable bool
}

func (op *headProductOp[T]) Arity() int {
	if op.masked {
		return 4
	}
	return 3
}

func (op *headProductOp[T]) Type() hm.Type {
	if op.masked {
		return hm.NewFnType(matrix, matrix, column, matrix, matrix)
	}
	return hm.NewFnType(matrix, matrix, column, matrix)
}

func (op *headProductOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	n, one, err := shape2(in[2])
	if err != nil {
		return nil, err
	}
	if one != 1 || n%op.geom.length != 0 {
		return nil, fmt.Errorf("%v: keep is %d×%d", op, n, one)
	}
	blocks := tensor.Shape{n * op.geom.heads, op.geom.length}
	var pos gorgonia.DimSizer // the positions × width operand
	switch op.mode {
	case productLower:
		if _, err := op.positions(in[0], n); err != nil {
			return nil, err
		}
		pos = in[1]
	default:
		if _, err := blockShape(op, op.geom, in[0], in[2]); err != nil {
			return nil, err
		}
		pos = in[1]
	}
	d, err := op.positions(pos, n)
	if err != nil {
		return nil, err
	}
	if op.masked {
		if _, err := blockShape(op, op.geom, in[3], in[2]); err != nil {
			return nil, err
		}
	}
	if op.mode == productLower {
		return blocks, nil
	}
	return tensor.Shape{n, d}, nil
}

// positions checks that s is an n × width matrix whose width the heads divide, and returns the
// width.
func (op *headProductOp[T]) positions(s gorgonia.DimSizer, n int) (int, error) {
	r, d, err := shape2(s)
	if err != nil {
		return 0, err
	}
	if r != n || d%op.geom.heads != 0 {
		return 0, fmt.Errorf("%v: a %d×%d matrix of positions for %d positions", op, r, d, n)
	}
	return d, nil
}

func (op *headProductOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	u, v, keep := data[T](in[0]), data[T](in[1]), data[T](in[2])
	var mask []T
	if op.masked {
		mask = data[T](in[3])
	}
	n, _ := valShape2(in[2])
	_, d := valShape2(in[1])
	L, h := op.geom.length, op.geom.heads
	dh := d / h
	alpha := T(op.alpha)
	var t *tensor.Dense
	var out []T
	if op.mode == productLower {
		t, out = op.get(n*h, L)
	} else {
		t, out = op.get(n, d)
	}
	err := op.run(keep, op.geom, func(b, k, s, w int) {
		blk := (b*h + k) * L * L
		pos := b*L*d + k*dh // the block's first row, the head's first column
		var dm []T
		if mask != nil {
			dm = mask[blk : blk+L*L]
		}
		if op.mode == productLower {
			if op.portable || !kernelBlock(op.mode, out[blk:blk+L*L], u[pos:], v[pos:], dm, L, d, dh, s, alpha, &op.ks[w]) {
				lowerBlock(out[blk:blk+L*L], u[pos:], v[pos:], dm, L, d, dh, s, alpha)
			}
			return
		}
		if !op.portable && kernelBlock(op.mode, out[pos:], u[blk:blk+L*L], v[pos:], dm, L, d, dh, s, alpha, &op.ks[w]) {
			return
		}
		if op.mode == productRow {
			rowBlock(out[pos:], u[blk:blk+L*L], dm, v[pos:], op.tiles[w], L, d, dh, s, alpha)
		} else {
			colBlock(out[pos:], u[blk:blk+L*L], dm, v[pos:], op.tiles[w], L, d, dh, s, alpha)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	return t, nil
}

func (op *headProductOp[T]) DiffWRT(n int) []bool { return diffFirst(n, 2) }

// SymDiff returns the gradients w.r.t. U and V, each a product of another mode:
//
//	lower  C = α(A·Bᵀ)⊙D:  dA = row(G, B),  dB = col(G, A)
//	row    y = α(M⊙D)·X:    dM = lower(G, X), dX = col(M, G)
//	col    y = α(M⊙D)ᵀ·X:   dM = lower(X, G), dX = row(M, G)
//
// with the same α, keep and D.
func (op *headProductOp[T]) SymDiff(in gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	apply := func(mode productMode, a, b *gorgonia.Node) (*gorgonia.Node, error) {
		args := gorgonia.Nodes{a, b, in[2]}
		if op.masked {
			args = append(args, in[3])
		}
		return gorgonia.ApplyOp(newHeadProduct[T](mode, op.geom, op.alpha, op.masked, op.portable), args...)
	}
	type term struct {
		mode productMode
		a, b *gorgonia.Node
	}
	var du, dv term
	switch op.mode {
	case productLower:
		du, dv = term{productRow, grad, in[1]}, term{productCol, grad, in[0]}
	case productRow:
		du, dv = term{productLower, grad, in[1]}, term{productCol, in[0], grad}
	case productCol:
		du, dv = term{productLower, in[1], grad}, term{productRow, in[0], grad}
	}
	gu, err := apply(du.mode, du.a, du.b)
	if err != nil {
		return nil, err
	}
	gv, err := apply(dv.mode, dv.a, dv.b)
	if err != nil {
		return nil, err
	}
	out := make(gorgonia.Nodes, len(in))
	out[0], out[1] = gu, gv
	return out, nil
}

// ---- layerNormOp ----

// layerNormOp computes Y = γ ⊙ (X − μ)/sqrt(σ² + ε) + β for every row of X (n×d), μ and σ² the
// row's mean and population variance, from (X, γ, β) with γ and β of length d.
type layerNormOp[T float] struct {
	ops.Base
	outBuf[T]
	name string
	eps  float64
}

func (op *layerNormOp[T]) Arity() int    { return 3 }
func (op *layerNormOp[T]) Type() hm.Type { return hm.NewFnType(matrix, vector, vector, matrix) }

func (op *layerNormOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	return layerNormShape(op, in)
}

// layerNormShape checks (X, γ, β or G) of a layer normalisation and returns X's shape.
func layerNormShape(op fmt.Stringer, in []gorgonia.DimSizer) (tensor.Shape, error) {
	n, d, err := shape2(in[0])
	if err != nil {
		return nil, err
	}
	for _, s := range in[1:] {
		if ts, ok := s.(tensor.Shape); !ok || ts.TotalSize() != d && !ts.Eq(tensor.Shape{n, d}) {
			return nil, fmt.Errorf("%v: %v for rows of width %d", op, s, d)
		}
	}
	return tensor.Shape{n, d}, nil
}

func (op *layerNormOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	n, d := valShape2(in[0])
	t, y := op.get(n, d)
	layerNormRows(y, data[T](in[0]), data[T](in[1]), data[T](in[2]), d, op.eps)
	return t, nil
}

func (op *layerNormOp[T]) DiffWRT(int) []bool { return []bool{true, true, true} }

func (op *layerNormOp[T]) SymDiff(in gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	dx, err := gorgonia.ApplyOp(newLayerNormGrad[T](op.name, op.eps, false), in[0], in[1], grad)
	if err != nil {
		return nil, err
	}
	dg, err := gorgonia.ApplyOp(newLayerNormGrad[T](op.name, op.eps, true), in[0], in[1], grad)
	if err != nil {
		return nil, err
	}
	db, err := gorgonia.ApplyOp(newColSum[T](op.name+".dβ"), grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dx, dg, db}, nil
}

// layerNormGradOp computes, from (X, γ, G), the gradient of layerNormOp w.r.t. X
// (layerNormGradX) or, with wrtGamma, w.r.t. γ (layerNormGradGamma).
type layerNormGradOp[T float] struct {
	ops.Base
	outBuf[T]
	name     string
	eps      float64
	wrtGamma bool
	part     []T // layerNormGradGamma's partial sums
}

func (op *layerNormGradOp[T]) Arity() int { return 3 }
func (op *layerNormGradOp[T]) Type() hm.Type {
	if op.wrtGamma {
		return hm.NewFnType(matrix, vector, matrix, vector)
	}
	return hm.NewFnType(matrix, vector, matrix, matrix)
}

func (op *layerNormGradOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	s, err := layerNormShape(op, in)
	if err != nil || !op.wrtGamma {
		return s, err
	}
	return tensor.Shape{s[1]}, nil
}

func (op *layerNormGradOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	n, d := valShape2(in[0])
	x, gamma, g := data[T](in[0]), data[T](in[1]), data[T](in[2])
	if op.wrtGamma {
		t, dg := op.get(d)
		op.part = reuse.Grow(op.part, (n+lnChunk-1)/lnChunk*d)
		layerNormGradGamma(dg, x, g, d, op.eps, op.part)
		return t, nil
	}
	t, dx := op.get(n, d)
	layerNormGradX(dx, x, gamma, g, d, op.eps)
	return t, nil
}

// ---- embedOp, residualOp and their gradients ----

// The element-wise steps of the encoder fused in one pass each: the input (scaled item
// embeddings plus positional embeddings, dropped, padding zeroed) and a block's output (the
// dropped feed-forward output plus the residual, padding zeroed), whose stock-op forms are
// three or four passes each (sasrec.go's expression).

// maskedType returns the type of an op of n matrix operands and the keep column, then a mask
// when masked, returning a matrix.
func maskedType(n int, masked bool) hm.Type {
	args := make([]hm.Type, 0, n+3)
	for range n {
		args = append(args, matrix)
	}
	args = append(args, column)
	if masked {
		args = append(args, matrix)
	}
	return hm.NewFnType(append(args, matrix)...)
}

// checkRows checks that the positions' operands ops (each n × d, n the rows of keep, a
// multiple of length) and the mask (when masked, after keep) fit, and returns n and d.
func checkRows(op fmt.Stringer, in []gorgonia.DimSizer, ops []int, keep int, masked bool, length int) (int, int, error) {
	n, one, err := shape2(in[keep])
	if err != nil {
		return 0, 0, err
	}
	if one != 1 || n%length != 0 {
		return 0, 0, fmt.Errorf("%v: keep is %d×%d for windows of length %d", op, n, one, length)
	}
	if masked {
		ops = append(ops, keep+1)
	}
	d := -1
	for _, i := range ops {
		r, c, err := shape2(in[i])
		if err != nil {
			return 0, 0, err
		}
		if r != n || d >= 0 && c != d {
			return 0, 0, fmt.Errorf("%v: operand %d is %d×%d for %d positions of width %d", op, i, r, c, n, d)
		}
		d = c
	}
	return n, d, nil
}

// maskOf returns the mask operand of an op's inputs (after keep at index keep), or nil.
func maskOf[T float](in []gorgonia.Value, keep int, masked bool) []T {
	if !masked {
		return nil
	}
	return data[T](in[keep+1])
}

// embedOp computes, from (X, P, keep) or (X, P, keep, D), the encoder's input
// Y_r = keep_r·((scale·X_r + P[maxLen − L + t]) ⊙ D_r), t = r mod L: the item embeddings
// scaled, plus the positional embeddings of the positions aligned to the window's end (P has
// maxLen rows), dropped, and zero at padding.
type embedOp[T float] struct {
	ops.Base
	outBuf[T]
	scale          float64
	length, maxLen int
	masked         bool
}

func (op *embedOp[T]) Arity() int    { return 3 + b2i(op.masked) }
func (op *embedOp[T]) Type() hm.Type { return maskedType(2, op.masked) }

func (op *embedOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	n, d, err := checkRows(op, in, []int{0}, 2, op.masked, op.length)
	if err != nil {
		return nil, err
	}
	if r, c, err := shape2(in[1]); err != nil || r != op.maxLen || c != d || op.length > op.maxLen {
		return nil, fmt.Errorf("%v: positional table %v for width %d", op, in[1], d)
	}
	return tensor.Shape{n, d}, nil
}

func (op *embedOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	n, d := valShape2(in[0])
	t, y := op.get(n, d)
	embedRows(y, data[T](in[0]), data[T](in[1]), data[T](in[2]), maskOf[T](in, 2, op.masked), op.length, op.maxLen, d, T(op.scale))
	return t, nil
}

func (op *embedOp[T]) DiffWRT(n int) []bool { return diffFirst(n, 2) }

func (op *embedOp[T]) SymDiff(in gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	args := append(gorgonia.Nodes{grad}, in[2:]...)
	dx, err := gorgonia.ApplyOp(newRowMask[T](op.scale, op.length, op.masked), args...)
	if err != nil {
		return nil, err
	}
	dp, err := gorgonia.ApplyOp(newPosGrad[T](op.length, op.maxLen, op.masked), args...)
	if err != nil {
		return nil, err
	}
	out := make(gorgonia.Nodes, len(in))
	out[0], out[1] = dx, dp
	return out, nil
}

// residualOp computes, from (F, R, keep) or (F, R, keep, D), a block's output
// Y_r = keep_r·(F_r ⊙ D_r + R_r): the dropped feed-forward output plus the residual, zero at
// padding.
type residualOp[T float] struct {
	ops.Base
	outBuf[T]
	length int
	masked bool
}

func (op *residualOp[T]) Arity() int    { return 3 + b2i(op.masked) }
func (op *residualOp[T]) Type() hm.Type { return maskedType(2, op.masked) }

func (op *residualOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	n, d, err := checkRows(op, in, []int{0, 1}, 2, op.masked, op.length)
	return tensor.Shape{n, d}, err
}

func (op *residualOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	n, d := valShape2(in[0])
	t, y := op.get(n, d)
	residualRows(y, data[T](in[0]), data[T](in[1]), data[T](in[2]), maskOf[T](in, 2, op.masked), d)
	return t, nil
}

func (op *residualOp[T]) DiffWRT(n int) []bool { return diffFirst(n, 2) }

func (op *residualOp[T]) SymDiff(in gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	df, err := gorgonia.ApplyOp(newRowMask[T](1, op.length, op.masked), append(gorgonia.Nodes{grad}, in[2:]...)...)
	if err != nil {
		return nil, err
	}
	dr, err := gorgonia.ApplyOp(newRowMask[T](1, op.length, false), grad, in[2])
	if err != nil {
		return nil, err
	}
	out := make(gorgonia.Nodes, len(in))
	out[0], out[1] = df, dr
	return out, nil
}

// rowMaskOp computes scale·keep_r·(G_r ⊙ D_r) from (G, keep) or (G, keep, D): the gradients of
// embedOp w.r.t. X and of residualOp w.r.t. F and R.
type rowMaskOp[T float] struct {
	ops.Base
	outBuf[T]
	scale  float64
	length int
	masked bool
}

func (op *rowMaskOp[T]) Arity() int    { return 2 + b2i(op.masked) }
func (op *rowMaskOp[T]) Type() hm.Type { return maskedType(1, op.masked) }

func (op *rowMaskOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	n, d, err := checkRows(op, in, []int{0}, 1, op.masked, op.length)
	return tensor.Shape{n, d}, err
}

func (op *rowMaskOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	n, d := valShape2(in[0])
	t, y := op.get(n, d)
	maskedGradRows(y, data[T](in[0]), data[T](in[1]), maskOf[T](in, 1, op.masked), d, T(op.scale))
	return t, nil
}

// posGradOp computes, from (G, keep) or (G, keep, D), embedOp's gradient w.r.t. the positional
// table (maxLen × d): row maxLen − L + t sums keep·(G ⊙ D) at position t over the windows.
type posGradOp[T float] struct {
	ops.Base
	outBuf[T]
	length, maxLen int
	masked         bool
	tmp            []T
}

func (op *posGradOp[T]) Arity() int    { return 2 + b2i(op.masked) }
func (op *posGradOp[T]) Type() hm.Type { return maskedType(1, op.masked) }

func (op *posGradOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	_, d, err := checkRows(op, in, []int{0}, 1, op.masked, op.length)
	return tensor.Shape{op.maxLen, d}, err
}

func (op *posGradOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	_, d := valShape2(in[0])
	t, dp := op.get(op.maxLen, d)
	op.tmp = reuse.Grow(op.tmp, op.length*d)
	posGradRows(dp, data[T](in[0]), data[T](in[1]), maskOf[T](in, 1, op.masked), op.tmp, op.length, op.maxLen, d)
	return t, nil
}

// diffFirst says that an op of n inputs is differentiable w.r.t. its first k.
func diffFirst(n, k int) []bool {
	w := make([]bool, n)
	for i := range min(k, n) {
		w[i] = true
	}
	return w
}

// b2i is 1 for true and 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
