//go:build amd64 && !noasm

package models

import (
	"github.com/samplingbias/workbench/internal/reuse"
	"github.com/samplingbias/workbench/internal/simd"
)

// kernelBlock computes one (sequence, head) block of a headProductOp (the arguments as for
// lowerBlock, rowBlock and colBlock) with internal/simd's 6×16 micro-kernel, and returns true;
// it returns false, having done nothing, for float64 or where the processor lacks AVX2 and FMA
// (simd.Kernel), where the products go to gemm tile by tile.
//
// A call of internal/gemm packs its operands anew, and the attention's products are small: a
// tile of 24 query rows against at most L keys of one head, where packing the keys for every
// tile cost as much as the multiply-adds. Here the block's positions operand (the keys for
// productLower, the values or gradients for productRow and productCol) is packed once into
// panels of 16 columns, and every 6-row tile runs on a prefix (or suffix) of them: the causal
// region of 6 rows needs the first keys only. The block matrix operand of productRow and
// productCol is first written, masked and restricted to the causal region with zeros around
// it, into ks.mt, and read in place from there (along rows, or along columns for productCol's
// transposed product).
func kernelBlock[T float](mode productMode, out, u, v, mask []T, L, d, dh, s int, alpha T, ks *kernelScratch) bool {
	o, ok := any(out).([]float32)
	if !ok || !simd.Kernel() {
		return false
	}
	a, b := any(u).([]float32), any(v).([]float32)
	var m []float32
	if mask != nil {
		m = any(mask).([]float32)
	}
	k := attnKernel{L: L, d: d, dh: dh, s: s, n: L - s, alpha: float32(alpha), ks: ks}
	switch mode {
	case productLower:
		k.lower(o, a, b)
		causalRows(o, m, L, s)
	default:
		clearRows(o, s, d, dh)
		if k.n == 0 {
			return true
		}
		k.packPositions(b)
		k.causalMatrix(a, m)
		if mode == productRow {
			k.row(o)
		} else {
			k.col(o)
		}
	}
	return true
}

// attnKernel is one block's geometry: L positions of which n = L − s from s on are real, rows
// of d values of which the head's dh (from the slices' start), the scale alpha.
type attnKernel struct {
	L, d, dh, s, n int
	alpha          float32
	ks             *kernelScratch
}

// lower sets the block's scores c[i, s+16p : s+16p+16] = α⟨q_i, k_j⟩ for every 6-row tile and
// every panel of 16 keys that the tile's causal region reaches (entries past the diagonal
// included, which causalRows clears).
func (k *attnKernel) lower(c, q, kk []float32) {
	if k.n == 0 {
		return
	}
	panels := (k.n + 15) / 16
	bp := reuse.Grow(k.ks.bp, panels*k.dh*16)
	k.ks.bp = bp
	for p := range panels {
		panel := bp[p*k.dh*16 : (p+1)*k.dh*16]
		for col := range 16 {
			j := 16*p + col
			if j >= k.n {
				for l := range k.dh {
					panel[l*16+col] = 0
				}
				continue
			}
			for l, x := range kk[(k.s+j)*k.d : (k.s+j)*k.d+k.dh] {
				panel[l*16+col] = x
			}
		}
	}
	for t0 := 0; t0 < k.n; t0 += 6 {
		rows := min(6, k.n-t0)
		r0 := k.s + t0
		var ap []float32 // a last tile of fewer than 6 rows, packed with zero rows
		if rows < 6 {
			ap = reuse.Grow(k.ks.ap, 6*k.dh)
			k.ks.ap = ap
			for l := range k.dh {
				for r := range 6 {
					ap[l*6+r] = 0
					if r < rows {
						ap[l*6+r] = q[(r0+r)*k.d+l]
					}
				}
			}
		}
		last := min(t0+5, k.n-1) // the last key any row of the tile attends to
		for p := 0; 16*p <= last; p++ {
			cols := min(16, k.n-16*p)
			k.tile(c[r0*k.L+k.s+16*p:], k.L, rows, cols, func(dst []float32, ldc int) {
				if ap != nil {
					simd.Gemm6x16(k.dh, 1, ap, bp[p*k.dh*16:], dst, ldc, k.alpha, 0)
				} else {
					simd.Gemm6x16Strided(k.dh, 1, q[r0*k.d:], k.d, 1, bp[p*k.dh*16:], dst, ldc, k.alpha, 0)
				}
			})
		}
	}
}

// tile runs f on the 6×16 tile of c at stride ldc, or, when only rows × cols of it lie in the
// result, on a scratch tile whose part in the result is then copied there.
func (k *attnKernel) tile(c []float32, ldc, rows, cols int, f func(dst []float32, ldc int)) {
	if rows == 6 && cols == 16 {
		f(c, ldc)
		return
	}
	e := k.ks.edge[:]
	f(e, 16)
	for r := range rows {
		copy(c[r*ldc:r*ldc+cols], e[r*16:r*16+cols])
	}
}

// packPositions packs the block's n real rows of the head's dh columns of x into panels of 16
// columns (zero beyond dh), each n groups of 16: the second operand of row and col.
func (k *attnKernel) packPositions(x []float32) {
	panels := (k.dh + 15) / 16
	bp := reuse.Grow(k.ks.bp, panels*k.n*16)
	k.ks.bp = bp
	for p := range panels {
		cols := min(16, k.dh-16*p)
		for l := range k.n {
			g := bp[(p*k.n+l)*16 : (p*k.n+l+1)*16]
			copy(g, x[(k.s+l)*k.d+16*p:(k.s+l)*k.d+16*p+cols])
			clear(g[cols:])
		}
	}
}

// causalMatrix writes the block matrix m ⊙ mask restricted to the causal region into ks.mt, an
// n6 × n6 matrix (n6 = n rounded up to whole tiles of 6) indexed from the block's start: row i
// holds the values at keys 0..i, zeros up to the end of the 6-row tile holding i (the columns
// that tile's product reads past the diagonal), and rows past n are zero.
func (k *attnKernel) causalMatrix(m, mask []float32) {
	n6 := (k.n + 5) / 6 * 6
	mt := reuse.Grow(k.ks.mt, n6*n6)
	k.ks.mt = mt
	for i := range n6 {
		row := mt[i*n6 : (i+1)*n6]
		if i >= k.n {
			clear(row)
			continue
		}
		src := m[(k.s+i)*k.L+k.s : (k.s+i)*k.L+k.s+i+1]
		if mask != nil {
			simd.Mul(row[:i+1], src, mask[(k.s+i)*k.L+k.s:])
		} else {
			copy(row, src)
		}
		clear(row[i+1 : (i/6+1)*6])
	}
}

// row sets y_i = α Σ_{j ≤ i} mt[i, j]·x_j for the block's real rows: tile t0 of 6 rows reads the
// keys up to the tile's end.
func (k *attnKernel) row(y []float32) {
	n6 := (k.n + 5) / 6 * 6
	for t0 := 0; t0 < k.n; t0 += 6 {
		rows, kk := min(6, k.n-t0), min(t0+6, k.n)
		for p := 0; 16*p < k.dh; p++ {
			k.tile(y[(k.s+t0)*k.d+16*p:], k.d, rows, min(16, k.dh-16*p), func(dst []float32, ldc int) {
				simd.Gemm6x16Strided(kk, 1, k.ks.mt[t0*n6:], n6, 1, k.ks.bp[p*k.n*16:], dst, ldc, k.alpha, 0)
			})
		}
	}
}

// col sets y_j = α Σ_{i ≥ j} mt[i, j]·x_i for the block's real rows: tile j0 of 6 columns of mt,
// read down its columns from row j0 (the zeros above the diagonal inside the tile included).
func (k *attnKernel) col(y []float32) {
	n6 := (k.n + 5) / 6 * 6
	for j0 := 0; j0 < k.n; j0 += 6 {
		rows := min(6, k.n-j0)
		for p := 0; 16*p < k.dh; p++ {
			k.tile(y[(k.s+j0)*k.d+16*p:], k.d, rows, min(16, k.dh-16*p), func(dst []float32, ldc int) {
				simd.Gemm6x16Strided(k.n-j0, 1, k.ks.mt[j0*n6+j0:], 1, n6, k.ks.bp[(p*k.n+j0)*16:], dst, ldc, k.alpha, 0)
			})
		}
	}
}
