package losses

import (
	"errors"
	"fmt"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/reuse"
	"github.com/samplingbias/workbench/internal/simd"
)

// RowSoftplusSum is Σ_j w_ij·softplus(z_ij) as a B×1 matrix, for a B×C z and a B×C mask w of
// zeros and ones (a mask of another value is an error when the node runs): RowDot(Softplus(z), w)
// without a logarithm per entry. Each row is the sum of the positive z plus, per chunk of
// simd.SoftplusChunk entries, log1p of the product of the 1 + e^{−|z|} kept as that product minus
// one (updated as P + a + P·a, exact to rounding for small terms) in lanes (simd.SoftplusRow:
// float32 operands eight at a time in vector registers where the processor has them, their
// exponentials and σ in float32, the sums in float64). Its gradient is w_ij·σ(z_ij), from σ kept
// in the forward pass. The row's value is within about C units of rounding of the sum of the C
// softplus terms (not within one of each term).
func RowSoftplusSum(z, w *G.Node) *G.Node { return rowSoftplusSum(through{src: z}, w) }

// rowSoftplusSum is RowSoftplusSum of z read as th says (scaled, not masked).
func rowSoftplusSum(th through, w *G.Node) *G.Node {
	op := &rowSoftplusOp{primOp: newPrim("rowSoftplusSum" + th.suffix()), th: th}
	return G.Must(G.ApplyOp(op, th.src, w))
}

// rowSoftplusOp is RowSoftplusSum, reading z as th says (fuse.go): its inputs are th's source and
// w.
type rowSoftplusOp struct {
	primOp
	th   through
	keep kept // w·σ(z) of the last forward pass
	bad  []bool
	rows any // the [][]T rows of the scaled z, one per goroutine
}

func (op *rowSoftplusOp) Arity() int    { return 2 }
func (op *rowSoftplusOp) Type() hm.Type { return hm.NewFnType(mat2, mat2, mat2) }

func (op *rowSoftplusOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapes(in, 2)
	if err != nil {
		return nil, err
	}
	if !s[0].Eq(s[1]) {
		return nil, fmt.Errorf("losses: %s of a matrix of shape %v with a mask of shape %v", op.Name, s[0], s[1])
	}
	return vecShape(s[0], axisRows), nil
}

func (op *rowSoftplusOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *rowSoftplusOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, 2)
	if err != nil {
		return nil, err
	}
	s := t[0].Shape()
	out := op.output(prealloc, vecShape(s, axisRows), t[0].Dtype())
	keep := op.keep.get(s, t[0].Dtype())
	op.bad = reuse.Grow(op.bad, parallel.Parts(s[0]*s[1], primMin, defaultWorkers()))
	switch z := t[0].Data().(type) {
	case []float32:
		err = softplusRows(out.Data().([]float32), keep.Data().([]float32), z, t[1].Data().([]float32), op)
	case []float64:
		err = softplusRows(out.Data().([]float64), keep.Data().([]float64), z, t[1].Data().([]float64), op)
	}
	if err != nil {
		return nil, fmt.Errorf("losses: %s: %w", op.Name, err)
	}
	return out, nil
}

// errMask is the error of a mask entry other than 0 and 1.
var errMask = errors.New("the mask has an entry other than 0 and 1")

// softplusRows writes each row's Σ_j w_j·softplus(z_j) into out and w_j·σ(z_j) into keep, rows
// split among len(op.bad) goroutines, each reporting a mask value other than 0 and 1 in its bad;
// z is the source of a scaled z where op reads through a MulScalar (each row scaled first).
func softplusRows[T floats](out, keep, z, w []T, op *rowSoftplusOp) error {
	c := len(z) / len(out)
	bad := op.bad
	prev, _ := op.rows.([][]T)
	rows := reuse.GrowRows(prev, len(bad), c)
	op.rows = rows
	by := [1]T{T(op.th.by)}
	parallel.Split(len(out), len(bad), func(part, lo, hi int) {
		bad[part] = false
		for i := lo; i < hi; i++ {
			zi := z[i*c : (i+1)*c]
			if op.th.scaled {
				bcastRow(rows[part], zi, by[:], true)
				zi = rows[part]
			}
			sum, b := simd.SoftplusRow(keep[i*c:(i+1)*c], zi, w[i*c:(i+1)*c])
			out[i] = T(sum)
			bad[part] = bad[part] || b
		}
	})
	for _, b := range bad {
		if b {
			return errMask
		}
	}
	return nil
}

func (op *rowSoftplusOp) DiffWRT(int) []bool { return []bool{true, false} }

// back is the op of the gradient, g_i·w_ij·σ(z_ij) from the w·σ(z) the forward pass keeps,
// times the scale (the product rounded) for the source of a scaled z.
func (op *rowSoftplusOp) back() *keptGradOp {
	k := newKeptGrad(op.Name+"Back", &op.keep, axisRows, false)
	k.then, k.by = op.th.scaled, op.th.by
	return k
}

func (op *rowSoftplusOp) SymDiff(in G.Nodes, out, g *G.Node) (G.Nodes, error) {
	dz, err := G.ApplyOp(op.back(), g, in[0], out)
	return G.Nodes{dz, nil}, err
}

// DoDiff is the lisp machine's differentiation.
func (op *rowSoftplusOp) DoDiff(_ G.ExecutionContext, in G.Nodes, out *G.Node) error {
	return doDiff(in[:1], out, func(v []G.Value, g G.Value) ([]G.Value, error) {
		dz, err := op.back().Do(g, v[0], out.Value())
		return []G.Value{dz}, err
	})
}

// LogSumPow is log Σ_j m_ij·x_ij^a as a B×1 matrix, for a B×C x ≥ 0, a B×C mask m of zeros and
// ones and a scalar a > 0 (x < 0 or another mask value is an error when the node runs). Each row
// is computed relative to its largest x, a·log max_j x_ij + log Σ_j m_ij (x_ij/max_j x_ij)^a, so
// that no power overflows; with an integer exponent up to 64 (1/τ for τ = 0.05, 0.1, 0.2, 0.5,
// …) the powers are taken by repeated squaring, otherwise as e^{a·log r}. A row whose masked x
// are all 0 is −Inf. Its gradients are a·x_ij^{a−1}/Σ_j m_ij x_ij^a (0 where x = 0) and
// Σ x^a log x/Σ x^a.
func LogSumPow(x, m, a *G.Node) *G.Node {
	return G.Must(G.ApplyOp(&logSumPowOp{primOp: newPrim("logSumPow")}, x, m, a))
}

// logSumPowOp is LogSumPow. The forward pass keeps, for the gradients, r_ij^{a−1} with r_ij =
// x_ij/max_j x_ij on the masked entries (0 elsewhere and where x = 0), and per row the maximum
// and S_i = Σ_j m_ij r_ij^a.
type logSumPowOp struct {
	primOp
	keep       kept
	tops, sums []float64
	bad        []error // one per goroutine
}

func (op *logSumPowOp) Arity() int    { return 3 }
func (op *logSumPowOp) Type() hm.Type { return hm.NewFnType(mat2, mat2, scalarOf, mat2) }

func (op *logSumPowOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapesWithScalar(in, 3)
	if err != nil {
		return nil, err
	}
	if !s[0].Eq(s[1]) {
		return nil, fmt.Errorf("losses: %s of a matrix of shape %v with a mask of shape %v", op.Name, s[0], s[1])
	}
	return vecShape(s[0], axisRows), nil
}

func (op *logSumPowOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *logSumPowOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, a, err := op.denseWithScalar(in, 3)
	if err != nil {
		return nil, err
	}
	if !(a > 0) || math.IsInf(a, 1) {
		return nil, fmt.Errorf("losses: %s: the exponent must be finite and > 0, got %v", op.Name, a)
	}
	s := t[0].Shape()
	out := op.output(prealloc, vecShape(s, axisRows), t[0].Dtype())
	keep := op.keep.get(s, t[0].Dtype())
	op.tops, op.sums = reuse.Grow(op.tops, s[0]), reuse.Grow(op.sums, s[0])
	op.bad = reuse.Grow(op.bad, parallel.Parts(s[0]*s[1], primMin, defaultWorkers()))
	switch x := t[0].Data().(type) {
	case []float32:
		err = powRows(out.Data().([]float32), keep.Data().([]float32), op, x, t[1].Data().([]float32), a, s[1])
	case []float64:
		err = powRows(out.Data().([]float64), keep.Data().([]float64), op, x, t[1].Data().([]float64), a, s[1])
	}
	if err != nil {
		return nil, fmt.Errorf("losses: %s: %w", op.Name, err)
	}
	return out, nil
}

// maxIntPow is the largest exponent that powRows takes by repeated squaring.
const maxIntPow = 64

// powRows writes log Σ_j m_j x_j^a of each row into out, r^{a−1} into keep and the rows' maxima
// and sums into op, rows split among len(op.bad) goroutines.
func powRows[T floats](out, keep []T, op *logSumPowOp, x, m []T, a float64, c int) error {
	integer := a == math.Trunc(a) && a >= 1 && a <= maxIntPow
	parallel.Split(len(out), len(op.bad), func(part, lo, hi int) {
		op.bad[part] = nil
		for i := lo; i < hi; i++ {
			row, mask, kr := x[i*c:(i+1)*c], m[i*c:(i+1)*c], keep[i*c:(i+1)*c]
			top, err := rowTop(row, mask, i)
			if err != nil && op.bad[part] == nil {
				op.bad[part] = err
			}
			inv := 1 / top
			var sum float64
			if integer {
				sum = simd.PowRow(kr, row, mask, inv, int(a)-1)
			} else {
				sum = powRowReal(kr, row, mask, inv, a)
			}
			op.tops[i], op.sums[i] = top, sum
			out[i] = T(a*math.Log(top) + math.Log(sum))
		}
	})
	for _, err := range op.bad {
		if err != nil {
			return err
		}
	}
	return nil
}

// rowTop returns the largest x_j of the row over the mask (0 if there is none), and an error for
// a masked x_j that is not ≥ 0 or a mask value other than 0 and 1 (row i of the matrix).
func rowTop[T floats](row, mask []T, i int) (float64, error) {
	top, ok := simd.MaskedMax(row, mask)
	if ok {
		return float64(top), nil
	}
	for j, v := range row {
		if mask[j] == 1 && !(v >= 0) {
			return 0, fmt.Errorf("entry %d of row %d is %v, not ≥ 0", j, i, v)
		}
	}
	return 0, errMask
}

// powRowReal is simd.PowRow for an exponent a − 1 that is not an integer (or a > maxIntPow):
// r^{a−1} = e^{(a−1)·log r}, by ExpNeg for a ≥ 1 (r ≤ 1).
func powRowReal[T floats](q, x, m []T, c, a float64) float64 {
	var acc [4]float64
	for j, xj := range x[:len(q)] {
		v := float64(xj)
		p := 0.0
		if xj != 0 && m[j] != 0 {
			l := (a - 1) * math.Log(v*c*float64(m[j]))
			if a >= 1 {
				p = simd.ExpNeg(l)
			} else {
				p = math.Exp(l)
			}
		}
		q[j] = T(p)
		acc[j&3] += float64(p * v * c)
	}
	return (acc[0] + acc[1]) + (acc[2] + acc[3])
}

func (op *logSumPowOp) DiffWRT(int) []bool { return []bool{true, false, true} }

// back is the op of the gradient with respect to x, or with exponent to a.
func (op *logSumPowOp) back(exponent bool) *powBackOp {
	name := op.Name + "Back"
	if exponent {
		name = op.Name + "ExponentGrad"
	}
	return &powBackOp{primOp: newPrim(name), src: op, exponent: exponent}
}

func (op *logSumPowOp) SymDiff(in G.Nodes, out, g *G.Node) (G.Nodes, error) {
	dx, err := G.ApplyOp(op.back(false), g, in[0], out, in[2])
	if err != nil {
		return nil, err
	}
	da, err := G.ApplyOp(op.back(true), g, in[0], out, in[2])
	return G.Nodes{dx, nil, da}, err
}

// DoDiff is the lisp machine's differentiation.
func (op *logSumPowOp) DoDiff(_ G.ExecutionContext, in G.Nodes, out *G.Node) error {
	return doDiff(in, out, func(v []G.Value, g G.Value) ([]G.Value, error) {
		dx, err := op.back(false).Do(g, v[0], out.Value(), v[2])
		if err != nil {
			return nil, err
		}
		da, err := op.back(true).Do(g, v[0], out.Value(), v[2])
		return []G.Value{dx, nil, da}, err
	})
}

// powBackOp is a gradient of LogSumPow from its gradient g (B×1), x, the output of src and a (its
// four inputs; the output is not read: it orders the op after src, whose state it reads, and
// keeps it apart from another forward pass's gradient) and what src kept: ∂/∂x_ij =
// g_i·a·r_ij^{a−1}/(max_i·S_i) (a B×C matrix, 0 where x_ij = 0), or, with exponent, ∂/∂a =
// Σ_i g_i·Σ_j r_ij^a·log x_ij/S_i (a scalar).
type powBackOp struct {
	primOp
	src      *logSumPowOp
	exponent bool
}

func (op *powBackOp) Arity() int { return 4 }
func (op *powBackOp) Type() hm.Type {
	if op.exponent {
		return hm.NewFnType(mat2, mat2, mat2, scalarOf, scalarOf)
	}
	return hm.NewFnType(mat2, mat2, mat2, scalarOf, mat2)
}

func (op *powBackOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapesWithScalar(in, 4)
	if err != nil {
		return nil, err
	}
	if op.exponent {
		return tensor.ScalarShape(), nil
	}
	return s[1].Clone(), nil
}

func (op *powBackOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *powBackOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, a, err := op.denseWithScalar(in, 4)
	if err != nil {
		return nil, err
	}
	src := op.src
	k, err := src.keep.of(op.Name, t[1])
	if err != nil {
		return nil, err
	}
	c := k.Shape()[1]
	if op.exponent {
		switch g := t[0].Data().(type) {
		case []float32:
			return G.NewF32(float32(powExponentGrad(g, t[1].Data().([]float32), k.Data().([]float32), src, c))), nil
		case []float64:
			return G.NewF64(powExponentGrad(g, t[1].Data().([]float64), k.Data().([]float64), src, c)), nil
		}
	}
	out := op.output(prealloc, k.Shape(), k.Dtype())
	switch g := t[0].Data().(type) {
	case []float32:
		powGrad(out.Data().([]float32), g, k.Data().([]float32), src, a, c)
	case []float64:
		powGrad(out.Data().([]float64), g, k.Data().([]float64), src, a, c)
	}
	return out, nil
}

// powGrad writes g_i·a·q_ij/(max_i·S_i) into out, q the kept r^{a−1}, rows split among the
// cores.
func powGrad[T floats](out, g, q []T, src *logSumPowOp, a float64, c int) {
	parallel.Split(len(g), parallel.Parts(len(q), primMin, defaultWorkers()), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			mulWide(out[i*c:(i+1)*c], q[i*c:(i+1)*c], float64(g[i])*a/(src.tops[i]*src.sums[i]))
		}
	})
}

// powExponentGrad is Σ_i g_i·Σ_j r_ij^a·log x_ij/S_i over the kept q_ij = r_ij^{a−1} > 0, in row
// order.
func powExponentGrad[T floats](g, x, q []T, src *logSumPowOp, c int) float64 {
	d := 0.0
	for i := range g {
		row, inv := 0.0, 1/src.tops[i]
		for j := i * c; j < (i+1)*c; j++ {
			if q[j] != 0 {
				xv := float64(x[j])
				row += float64(q[j]) * xv * inv * math.Log(xv)
			}
		}
		d += float64(g[i]) * row / src.sums[i]
	}
	return d
}

func (op *powBackOp) DiffWRT(int) []bool { return []bool{false, false, false, false} }
func (op *powBackOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("losses: %s has no gradient", op.Name)
}
