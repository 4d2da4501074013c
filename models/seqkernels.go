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
// block (the softmax's gradient; the dot product in eight interleaved sums) and zero elsewhere.
func causalSoftmaxGradBlock[T float](dz, p, g []T, L, s int) {
	eachCausalRow(dz, L, s, func(i int, row []T) {
		pr, gr := p[i*L+s:i*L+i+1], g[i*L+s:i*L+i+1]
		dot := dot8(pr, gr)
		for k, v := range pr {
			row[k] = v * (gr[k] - dot)
		}
	})
}

// rowMoments returns the mean μ of the row x and inv = 1/sqrt(σ² + eps), σ² the population
// variance (as Kang & McAuley's layer normalisation takes it), in T.
func rowMoments[T float](x []T, eps float64) (mu, inv T) {
	d := T(len(x))
	mu = sum8(x) / d
	return mu, T(1 / math.Sqrt(float64(sumSq8(x, mu)/d)+eps))
}

// sum8 returns Σ_i x_i in eight interleaved partial sums (which the processor adds in
// parallel), added pairwise.
func sum8[T float](x []T) T {
	var s0, s1, s2, s3, s4, s5, s6, s7 T
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		s0, s1, s2, s3 = s0+v[0], s1+v[1], s2+v[2], s3+v[3]
		s4, s5, s6, s7 = s4+v[4], s5+v[5], s6+v[6], s7+v[7]
	}
	for ; i < len(x); i++ {
		s0 += x[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// dot8 returns Σ_i x_i·y_i as sum8 adds.
func dot8[T float](x, y []T) T {
	var s0, s1, s2, s3, s4, s5, s6, s7 T
	y = y[:len(x)]
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v, w := x[i:i+8:i+8], y[i:i+8:i+8]
		s0, s1, s2, s3 = s0+v[0]*w[0], s1+v[1]*w[1], s2+v[2]*w[2], s3+v[3]*w[3]
		s4, s5, s6, s7 = s4+v[4]*w[4], s5+v[5]*w[5], s6+v[6]*w[6], s7+v[7]*w[7]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// sumSq8 returns Σ_i (x_i − mu)² as sum8 adds.
func sumSq8[T float](x []T, mu T) T {
	var s0, s1, s2, s3, s4, s5, s6, s7 T
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		c0, c1, c2, c3 := v[0]-mu, v[1]-mu, v[2]-mu, v[3]-mu
		c4, c5, c6, c7 := v[4]-mu, v[5]-mu, v[6]-mu, v[7]-mu
		s0, s1, s2, s3 = s0+c0*c0, s1+c1*c1, s2+c2*c2, s3+c3*c3
		s4, s5, s6, s7 = s4+c4*c4, s5+c5*c5, s6+c6*c6, s7+c7*c7
	}
	for ; i < len(x); i++ {
		s0 += (x[i] - mu) * (x[i] - mu)
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// layerNormRows sets y_r = γ ⊙ (x_r − μ_r)·inv_r + β for every row r (Kang & McAuley section
// III-C: LayerNorm(x) = α ⊙ (x − μ)/sqrt(σ² + ε) + β).
func layerNormRows[T float](y, x, gamma, beta []T, d int, eps float64) {
	gamma, beta = gamma[:d], beta[:d]
	parallelRows(len(x)/d, d, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			xr, yr := x[r*d:(r+1)*d], y[r*d:(r+1)*d]
			mu, inv := rowMoments(xr, eps)
			for j, v := range xr {
				yr[j] = gamma[j]*((v-mu)*inv) + beta[j]
			}
		}
	})
}

// layerNormGradX sets dx, the gradient of layerNormRows w.r.t. x from the output's gradient g:
// with x̂ = (x − μ)·inv and ĝ = g ⊙ γ, dx = inv·(ĝ − mean(ĝ) − x̂·mean(ĝ ⊙ x̂)) row by row.
func layerNormGradX[T float](dx, x, gamma, g []T, d int, eps float64) {
	gamma = gamma[:d]
	parallelRows(len(x)/d, d, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			xr, gr, dr := x[r*d:(r+1)*d], g[r*d:(r+1)*d], dx[r*d:(r+1)*d]
			mu, inv := rowMoments(xr, eps)
			var sg0, sg1, sgx0, sgx1 T
			j := 0
			for ; j+2 <= d; j += 2 {
				g0, g1 := gr[j]*gamma[j], gr[j+1]*gamma[j+1]
				sg0 += g0
				sg1 += g1
				sgx0 += g0 * ((xr[j] - mu) * inv)
				sgx1 += g1 * ((xr[j+1] - mu) * inv)
			}
			for ; j < d; j++ {
				g0 := gr[j] * gamma[j]
				sg0 += g0
				sgx0 += g0 * ((xr[j] - mu) * inv)
			}
			mg, mgx := (sg0+sg1)/T(d), (sgx0+sgx1)/T(d)
			for j, v := range xr {
				dr[j] = inv * (gr[j]*gamma[j] - mg - ((v-mu)*inv)*mgx)
			}
		}
	})
}

// lnChunk is the number of rows whose contributions to dγ are summed together before the
// chunks' sums are added in order: the split depends on the shape only.
const lnChunk = 256

// layerNormGradGamma sets dγ_j = Σ_r g[r,j]·x̂[r,j]: each chunk of lnChunk rows summed in
// parallel into its row of part (⌈n/lnChunk⌉ × d values), then the chunks added in order.
func layerNormGradGamma[T float](dgamma, x, g []T, d int, eps float64, part []T) {
	n := len(x) / d
	chunks := (n + lnChunk - 1) / lnChunk
	parallelRows(chunks, lnChunk*d, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			acc := part[c*d : (c+1)*d]
			clear(acc)
			for r := c * lnChunk; r < min(n, (c+1)*lnChunk); r++ {
				xr, gr := x[r*d:(r+1)*d], g[r*d:(r+1)*d]
				mu, inv := rowMoments(xr, eps)
				for j, v := range xr {
					acc[j] += gr[j] * ((v - mu) * inv)
				}
			}
		}
	})
	clear(dgamma)
	for c := range chunks {
		addTo(dgamma, part[c*d:(c+1)*d])
	}
}

// embedRows sets y_r = keep_r·((scale·x_r + pos_{maxLen−L+t}) ⊙ mask_r) for every position r
// (t = r mod L its position in the window; mask 1 when nil): the encoder's input.
func embedRows[T float](y, x, pos, keep, mask []T, L, maxLen, d int, scale T) {
	parallelRows(len(keep), d, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			yr := y[r*d : (r+1)*d]
			if keep[r] == 0 {
				clear(yr)
				continue
			}
			p := pos[(maxLen-L+r%L)*d:]
			scaleInto(yr, x[r*d:(r+1)*d], scale)
			addTo(yr, p)
			if mask != nil {
				mulInto(yr, yr, mask[r*d:(r+1)*d])
			}
		}
	})
}

// residualRows sets y_r = keep_r·(f_r ⊙ mask_r + res_r) for every row r (mask 1 when nil): a
// block's output.
func residualRows[T float](y, f, res, keep, mask []T, d int) {
	parallelRows(len(keep), d, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			yr := y[r*d : (r+1)*d]
			if keep[r] == 0 {
				clear(yr)
				continue
			}
			if mask != nil {
				mulInto(yr, f[r*d:(r+1)*d], mask[r*d:(r+1)*d])
			} else {
				copy(yr, f[r*d:(r+1)*d])
			}
			addTo(yr, res[r*d:(r+1)*d])
		}
	})
}

// maskedGradRows sets dst_r = scale·keep_r·(g_r ⊙ mask_r) for every row r (mask 1 when nil):
// the gradient of embedRows w.r.t. x and of residualRows w.r.t. f and res.
func maskedGradRows[T float](dst, g, keep, mask []T, d int, scale T) {
	parallelRows(len(keep), d, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			dr := dst[r*d : (r+1)*d]
			if keep[r] == 0 {
				clear(dr)
				continue
			}
			scaleInto(dr, g[r*d:(r+1)*d], scale)
			if mask != nil {
				mulInto(dr, dr, mask[r*d:(r+1)*d])
			}
		}
	})
}

// posGradRows sets dpos, the gradient of embedRows w.r.t. the positional table (maxLen × d):
// row maxLen − L + t is Σ_b keep·(g ⊙ mask) at position t of every window b, in the order of b,
// and the rows of no position are zero. tmp is scratch of L·d values.
func posGradRows[T float](dpos, g, keep, mask, tmp []T, L, maxLen, d int) {
	clear(dpos[:(maxLen-L)*d])
	seqs := len(keep) / L
	parallelRows(L, seqs*d, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			acc, u := dpos[(maxLen-L+t)*d:(maxLen-L+t+1)*d], tmp[t*d:(t+1)*d]
			clear(acc)
			for b := range seqs {
				r := b*L + t
				if keep[r] == 0 {
					continue
				}
				gr := g[r*d : (r+1)*d]
				if mask != nil {
					mulInto(u, gr, mask[r*d:(r+1)*d])
					gr = u
				}
				addTo(acc, gr)
			}
		}
	})
}

// scaleInto sets dst = c·x (a copy when c is 1; float32 eight at a time where the processor has
// AVX2).
func scaleInto[T float](dst, x []T, c T) {
	switch {
	case c == 1:
		copy(dst, x)
	default:
		if d, ok := any(dst).([]float32); ok {
			simd.MulScalar(d, any(x).([]float32), float32(c))
			return
		}
		for i := range dst {
			dst[i] = c * x[i]
		}
	}
}
