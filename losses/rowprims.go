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
// without a logarithm per entry. Each row is log Π_j (1 + e^{z_ij})^{w_ij}, the sum of the
// positive z plus log1p of the product of the 1 + e^{−|z|} kept as that product minus one
// (updated as P + a + P·a, exact to rounding for small terms, and folded into the sum before it
// overflows). Its gradient is w_ij·σ(z_ij), from σ kept in the forward pass. The row's value is
// within about C units of rounding of the sum of the C softplus terms (not within one of each
// term).
func RowSoftplusSum(z, w *G.Node) *G.Node {
	return G.Must(G.ApplyOp(&rowSoftplusOp{primOp: newPrim("rowSoftplusSum")}, z, w))
}

// rowSoftplusOp is RowSoftplusSum.
type rowSoftplusOp struct {
	primOp
	keep kept        // w·σ(z) of the last forward pass
	rows [][]float64 // one row of e^{−|z|} per goroutine
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
	parts := parallel.Parts(s[0]*s[1], primMin, defaultWorkers())
	op.rows = reuse.GrowRows(op.rows, parts, s[1])
	switch z := t[0].Data().(type) {
	case []float32:
		err = softplusRows(out.Data().([]float32), keep.Data().([]float32), z, t[1].Data().([]float32), op.rows)
	case []float64:
		err = softplusRows(out.Data().([]float64), keep.Data().([]float64), z, t[1].Data().([]float64), op.rows)
	}
	if err != nil {
		return nil, fmt.Errorf("losses: %s: %w", op.Name, err)
	}
	return out, nil
}

// errMask is the error of a mask entry other than 0 and 1.
var errMask = errors.New("the mask has an entry other than 0 and 1")

// softplusRows writes each row's Σ_j w_j·softplus(z_j) into out and w_j·σ(z_j) into keep, rows
// split among len(rows) goroutines, each with a row buffer for the e^{−|z_j|} (taken four at a
// time by simd.ExpNegShift).
func softplusRows[T floats](out, keep, z, w []T, rows [][]float64) error {
	c := len(z) / len(out)
	bad := make([]bool, len(rows))
	parallel.Split(len(out), len(rows), func(part, lo, hi int) {
		e := rows[part]
		for i := lo; i < hi; i++ {
			zr, wr, kr := z[i*c:(i+1)*c], w[i*c:(i+1)*c], keep[i*c:(i+1)*c]
			for j, v := range zr {
				e[j] = -math.Abs(float64(v))
			}
			simd.ExpNegShift(e, e, 0)
			// Four running sums of max(z, 0) and of flushed logs, and four running products
			// Π(1 + e^{−|z|}) − 1, over j mod 4, so that their chains of operations overlap.
			var sum, prod [4]float64
			for j, v := range zr {
				wv := wr[j]
				if wv != 0 && wv != 1 {
					bad[part] = true
				}
				a, fv, u := e[j]*float64(wv), float64(v), j&3
				pos, num := 0.0, a
				if fv > 0 {
					pos = fv
				}
				if fv >= 0 {
					num = float64(wv)
				}
				sum[u] += pos * float64(wv)
				prod[u] += a + prod[u]*a
				if prod[u] > 1e150 {
					sum[u] += math.Log1p(prod[u])
					prod[u] = 0
				}
				kr[j] = T(num / (1 + a))
			}
			p01 := prod[0] + prod[1] + prod[0]*prod[1]
			p23 := prod[2] + prod[3] + prod[2]*prod[3]
			out[i] = T((sum[0] + sum[1]) + (sum[2] + sum[3]) + (math.Log1p(p01) + math.Log1p(p23)))
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

// back is the op of the gradient, g_i·w_ij·σ(z_ij) from the w·σ(z) the forward pass keeps.
func (op *rowSoftplusOp) back() *keptGradOp {
	return newKeptGrad(op.Name+"Back", &op.keep, axisRows, false)
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
	rows       [][]float64 // one row of r per goroutine
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
	op.rows = reuse.GrowRows(op.rows, parallel.Parts(s[0]*s[1], primMin, defaultWorkers()), s[1])
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
// and sums into op, rows split among len(op.rows) goroutines.
func powRows[T floats](out, keep []T, op *logSumPowOp, x, m []T, a float64, c int) error {
	integer := a == math.Trunc(a) && a >= 1 && a <= maxIntPow
	bad := make([]error, len(op.rows))
	parallel.Split(len(out), len(op.rows), func(part, lo, hi int) {
		r := op.rows[part]
		for i := lo; i < hi; i++ {
			row, mask, kr := x[i*c:(i+1)*c], m[i*c:(i+1)*c], keep[i*c:(i+1)*c]
			top := 0.0
			for j, v := range row {
				if mask[j] == 1 {
					if !(v >= 0) {
						bad[part] = fmt.Errorf("entry %d of row %d is %v, not ≥ 0", j, i, v)
					}
					top = max(top, float64(v))
				} else if mask[j] != 0 {
					bad[part] = errMask
				}
			}
			inv := 1 / top
			for j, v := range row {
				r[j] = float64(v) * inv * float64(mask[j])
			}
			switch {
			case integer:
				powIntRow(r, int(a)-1)
			case a >= 1:
				for j, v := range r {
					r[j] = simd.ExpNeg((a - 1) * math.Log(v))
				}
			default:
				for j, v := range r {
					r[j] = math.Exp((a - 1) * math.Log(v))
				}
			}
			sum := 0.0
			for j, q := range r {
				if row[j] == 0 || mask[j] == 0 {
					q = 0
				}
				kr[j] = T(q)
				sum += q * float64(row[j]) * inv
			}
			op.tops[i], op.sums[i] = top, sum
			out[i] = T(a*math.Log(top) + math.Log(sum))
		}
	})
	for _, err := range bad {
		if err != nil {
			return err
		}
	}
	return nil
}

// powIntRow replaces every r_j by r_j^n (n ≥ 0) by repeated squaring, four entries at a time so
// that their chains of products overlap.
func powIntRow(r []float64, n int) {
	j := 0
	for ; j+4 <= len(r); j += 4 {
		b0, b1, b2, b3 := r[j], r[j+1], r[j+2], r[j+3]
		p0, p1, p2, p3 := 1.0, 1.0, 1.0, 1.0
		for e := n; e > 0; e >>= 1 {
			if e&1 == 1 {
				p0, p1, p2, p3 = p0*b0, p1*b1, p2*b2, p3*b3
			}
			b0, b1, b2, b3 = b0*b0, b1*b1, b2*b2, b3*b3
		}
		r[j], r[j+1], r[j+2], r[j+3] = p0, p1, p2, p3
	}
	for ; j < len(r); j++ {
		p, b := 1.0, r[j]
		for e := n; e > 0; e >>= 1 {
			if e&1 == 1 {
				p *= b
			}
			b *= b
		}
		r[j] = p
	}
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
			f := float64(g[i]) * a / (src.tops[i] * src.sums[i])
			for j := i * c; j < (i+1)*c; j++ {
				out[j] = T(f * float64(q[j]))
			}
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
