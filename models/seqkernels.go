package models

import (
	"fmt"
	"math"

	"github.com/samplingbias/workbench/internal/simd"
)

// The kernels of the sequence encoders' ops (seqops.go): causal attention over one (sequence,
// head) block at a time, and layer normalisation row by row.
//
// The attention of Kang & McAuley (section III-B) is causal: position i of a sequence attends
// to positions j ≤ i, and, the sequence being padded on the left from its start s, only to
// j ≥ s. Every matrix indexed by (query i, key j) of one block (scores, weights, their
// gradients, the dropout mask) is L×L, and an entry is read or written only in the causal
// region s ≤ j ≤ i; the kernels write zeros elsewhere. The products run on tiles of attnTile
// query rows (or key columns): a tile of rows [r0, r1) needs the keys [s, r1) only, so that
// the work is about half of the full L×L products, and nothing is spent on padding.

// attnTile is the number of query rows (key columns) of one tile of the attention products:
// a multiple of the GEMM micro-tile's 6 rows, small enough that one tile's product (at most
// attnTile × L × head width multiply-adds) stays a single-threaded call of internal/gemm for
// L = 200 and heads of 64 columns, so that the blocks, which run in parallel, do not split
// again.
const attnTile = 24

// kernelScratch is the scratch of one goroutine of the attention's micro-kernel
// (attnkernel_amd64.go): packed panels, the causal block matrix, a packed partial panel of
// queries and an edge tile.
type kernelScratch struct {
	bp, mt, ap []float32
	edge       [6 * 16]float32
}

// seqStarts sets st[b] to the first position of sequence b whose keep value is 1 (length for a
// sequence of padding only), for keep holding seqs·length values, and checks that every
// sequence is 0 … 0 1 … 1: padded on the left.
func seqStarts[T float](st []int, keep []T, length int) error {
	for b := range st {
		row := keep[b*length : (b+1)*length]
		s := length
		for j, v := range row {
			if v != 0 {
				s = j
				break
			}
		}
		for j, v := range row[s:] {
			if v != 1 {
				return fmt.Errorf("sequence %d: keep value %v at position %d after its start %d (sequences are padded on the left: 0 … 0 1 … 1)", b, v, s+j, s)
			}
		}
		st[b] = s
	}
	return nil
}

// lowerBlock sets the causal region of one block's L×L matrix c to alpha·⟨a_i, b_j⟩ (⊙ mask[i,j]
// when mask is not nil), s ≤ j ≤ i, and the rest of c to zero. a and bm hold the block's L rows
// of a head's dh columns at stride d (slices starting at the head's first column).
func lowerBlock[T float](c, a, bm, mask []T, L, d, dh, s int, alpha T) {
	for r0 := s; r0 < L; r0 += attnTile {
		r1 := min(r0+attnTile, L)
		gemm(false, true, r1-r0, r1-s, dh, alpha, a[r0*d:], d, bm[s*d:], d, 0, c[r0*L+s:], L)
	}
	causalRows(c, mask, L, s)
}

// causalRows clears the entries of one block's L×L matrix c outside the causal region and
// multiplies those inside by mask's (when mask is not nil).
func causalRows[T float](c, mask []T, L, s int) {
	eachCausalRow(c, L, s, func(i int, row []T) {
		if mask != nil {
			mulInto(row, row, mask[i*L+s:i*L+i+1])
		}
	})
}

// eachCausalRow clears the entries of one block's L×L matrix c outside the causal region
// s ≤ j ≤ i and calls f(i, c[i, s..i]) for every query row i ≥ s.
func eachCausalRow[T float](c []T, L, s int, f func(i int, row []T)) {
	for i := range L {
		row := c[i*L : (i+1)*L]
		if i < s {
			clear(row)
			continue
		}
		clear(row[:s])
		clear(row[i+1:])
		f(i, row[s:i+1])
	}
}

// rowBlock sets y_i = alpha·Σ_{s≤j≤i} m[i,j]·mask[i,j]·x_j (mask 1 when nil) for the block's
// rows i ≥ s, and y_i = 0 for i < s; y and x hold a head's dh columns at stride d. tile is
// scratch of attnTile·L values.
func rowBlock[T float](y, m, mask, x, tile []T, L, d, dh, s int, alpha T) {
	clearRows(y, s, d, dh)
	for r0 := s; r0 < L; r0 += attnTile {
		r1 := min(r0+attnTile, L)
		t := causalTile(tile, m, mask, L, r0, r1, s, r1)
		gemm(false, false, r1-r0, dh, r1-s, alpha, t, r1-s, x[s*d:], d, 0, y[r0*d:], d)
	}
}

// colBlock sets y_j = alpha·Σ_{j≤i<L} m[i,j]·mask[i,j]·x_i (mask 1 when nil) for the block's
// rows j ≥ s, and y_j = 0 for j < s; y and x hold a head's dh columns at stride d. tile is
// scratch of attnTile·L values.
func colBlock[T float](y, m, mask, x, tile []T, L, d, dh, s int, alpha T) {
	clearRows(y, s, d, dh)
	for c0 := s; c0 < L; c0 += attnTile {
		c1 := min(c0+attnTile, L)
		t := causalTile(tile, m, mask, L, c0, L, c0, c1)
		gemm(true, false, c1-c0, dh, L-c0, alpha, t, c1-c0, x[c0*d:], d, 0, y[c0*d:], d)
	}
}

// clearRows zeroes the first rows rows of a head's dh columns at stride d.
func clearRows[T float](y []T, rows, d, dh int) {
	for i := range rows {
		clear(y[i*d : i*d+dh])
	}
}

// causalTile writes the rows [i0, i1) × columns [j0, j1) of one block's L×L matrix m, times
// mask's when mask is not nil, into tile as a (i1−i0)×(j1−j0) matrix, with zeros outside the
// causal region j ≤ i, and returns it.
func causalTile[T float](tile, m, mask []T, L, i0, i1, j0, j1 int) []T {
	w := j1 - j0
	t := tile[:(i1-i0)*w]
	for i := i0; i < i1; i++ {
		tr := t[(i-i0)*w : (i-i0+1)*w]
		n := min(i+1, j1) - j0
		causalCopy(tr[:n], m[i*L+j0:i*L+j0+n], mask, i*L+j0)
		clear(tr[n:])
	}
	return t
}

// causalCopy sets dst = src ⊙ mask[off : off+len(dst)], or dst = src when mask is nil.
func causalCopy[T float](dst, src, mask []T, off int) {
	if mask == nil {
		copy(dst, src)
		return
	}
	mulInto(dst, src, mask[off:off+len(dst)])
}

// mulInto sets dst[i] = a[i]·b[i] (float32 eight at a time where the processor has AVX2).
func mulInto[T float](dst, a, b []T) {
	if d, ok := any(dst).([]float32); ok {
		simd.Mul(d, any(a).([]float32), any(b).([]float32))
		return
	}
	for i := range dst {
		dst[i] = a[i] * b[i]
	}
}

// causalSoftmaxBlock sets, for every query row i ≥ s of one block, p[i, s..i] to the softmax of
// z[i, s..i] (computed in float64 from the row's maximum: e^{z_ij − m_i}/Σ_k e^{z_ik − m_i}),
// and every other entry of the block to zero: a padded row (i < s) attends to nothing. wide is
// scratch of L float64 values.
func causalSoftmaxBlock[T float](p, z []T, L, s int, wide []float64) {
	eachCausalRow(p, L, s, func(i int, row []T) { softmaxRow(row, z[i*L+s:i*L+i+1], wide) })
}

// softmaxRow sets dst to the softmax of x, in float64 (simd.ExpNegShift's e^x, relative error
// below 1e-15), each value rounded once to T.
func softmaxRow[T float](dst, x []T, wide []float64) {
	w := wide[:len(x)]
	var m float64
	switch x := any(x).(type) {
	case []float32:
		m = simd.WidenMax(w, x, math.Inf(-1))
	case []float64:
		m = math.Inf(-1)
		for i, v := range x {
			w[i] = v
			m = max(m, v)
		}
	}
	inv := 1 / simd.ExpNegShift(w, w, m)
	for i, e := range w {
		dst[i] = T(e * inv)
	}
}

// causalSoftmaxGradBlock sets dz = p ⊙ (g − Σ_k p_k g_k) row by row in the causal region of one
// block (the softmax's gradient, the dot product accumulated in float64) and zero elsewhere.
func causalSoftmaxGradBlock[T float](dz, p, g []T, L, s int) {
	eachCausalRow(dz, L, s, func(i int, row []T) {
		pr, gr := p[i*L+s:i*L+i+1], g[i*L+s:i*L+i+1]
		var dot float64
		for k, v := range pr {
			dot += float64(v) * float64(gr[k])
		}
		for k, v := range pr {
			row[k] = T(float64(v) * (float64(gr[k]) - dot))
		}
	})
}

// rowStats sets mean[r] and inv[r] = 1/sqrt(var_r + eps) of every row of the n×d matrix x
// (population variance, as Kang & McAuley's layer normalisation takes it), in T, the sums in four
// interleaved partial sums.
func rowStats[T float](mean, inv []T, x []T, d int, eps float64) {
	parallelRows(len(mean), d, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row := x[r*d : (r+1)*d]
			mu := sum4(row) / T(d)
			mean[r], inv[r] = mu, T(1/math.Sqrt(float64(sumSq4(row, mu)/T(d))+eps))
		}
	})
}

// sum4 returns Σ_i x_i, summed in four interleaved partial sums (which the processor adds in
// parallel), then added pairwise.
func sum4[T float](x []T) T {
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i]
		s1 += x[i+1]
		s2 += x[i+2]
		s3 += x[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// sumSq4 returns Σ_i (x_i − mu)², in four interleaved partial sums.
func sumSq4[T float](x []T, mu T) T {
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= len(x); i += 4 {
		c0, c1, c2, c3 := x[i]-mu, x[i+1]-mu, x[i+2]-mu, x[i+3]-mu
		s0 += c0 * c0
		s1 += c1 * c1
		s2 += c2 * c2
		s3 += c3 * c3
	}
	for ; i < len(x); i++ {
		c := x[i] - mu
		s0 += c * c
	}
	return (s0 + s1) + (s2 + s3)
}

// layerNormRows sets y_r = γ ⊙ (x_r − μ_r)·inv_r + β for every row r (Kang & McAuley section
// III-C: LayerNorm(x) = α ⊙ (x − μ)/sqrt(σ² + ε) + β).
func layerNormRows[T float](y, x, gamma, beta []T, mean, inv []T, d int) {
	gamma, beta = gamma[:d], beta[:d]
	parallelRows(len(mean), d, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			xr, yr := x[r*d:(r+1)*d], y[r*d:(r+1)*d]
			mu, iv := mean[r], inv[r]
			for j, v := range xr {
				yr[j] = gamma[j]*((v-mu)*iv) + beta[j]
			}
		}
	})
}

// layerNormGradX sets dx, the gradient of layerNormRows w.r.t. x from the output's gradient g:
// with x̂ = (x − μ)·inv and ĝ = g ⊙ γ, dx = inv·(ĝ − mean(ĝ) − x̂·mean(ĝ ⊙ x̂)) row by row.
func layerNormGradX[T float](dx, x, gamma, g []T, mean, inv []T, d int) {
	gamma = gamma[:d]
	parallelRows(len(mean), d, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			xr, gr, dr := x[r*d:(r+1)*d], g[r*d:(r+1)*d], dx[r*d:(r+1)*d]
			mu, iv := mean[r], inv[r]
			var sg0, sg1, sgx0, sgx1 T
			j := 0
			for ; j+2 <= d; j += 2 {
				g0, g1 := gr[j]*gamma[j], gr[j+1]*gamma[j+1]
				sg0 += g0
				sg1 += g1
				sgx0 += g0 * ((xr[j] - mu) * iv)
				sgx1 += g1 * ((xr[j+1] - mu) * iv)
			}
			for ; j < d; j++ {
				g0 := gr[j] * gamma[j]
				sg0 += g0
				sgx0 += g0 * ((xr[j] - mu) * iv)
			}
			mg, mgx := (sg0+sg1)/T(d), (sgx0+sgx1)/T(d)
			for j, v := range xr {
				dr[j] = iv * (gr[j]*gamma[j] - mg - ((v-mu)*iv)*mgx)
			}
		}
	})
}

// lnChunk is the number of rows whose contributions to dγ are summed together before the
// chunks' sums are added in order: the split depends on the shape only.
const lnChunk = 256

// layerNormGradGamma sets dγ_j = Σ_r g[r,j]·x̂[r,j]: each chunk of lnChunk rows summed in
// parallel into its row of part (⌈n/lnChunk⌉ × d scratch), then the chunks added in order.
func layerNormGradGamma[T float](dgamma, x, g []T, mean, inv []T, d int, part []T) {
	n := len(mean)
	chunks := (n + lnChunk - 1) / lnChunk
	parallelRows(chunks, lnChunk*d, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			acc := part[c*d : (c+1)*d]
			clear(acc)
			for r := c * lnChunk; r < min(n, (c+1)*lnChunk); r++ {
				xr, gr := x[r*d:(r+1)*d], g[r*d:(r+1)*d]
				mu, iv := mean[r], inv[r]
				for j, v := range xr {
					acc[j] += gr[j] * ((v - mu) * iv)
				}
			}
		}
	})
	clear(dgamma)
	for c := range chunks {
		addTo(dgamma, part[c*d:(c+1)*d])
	}
}
