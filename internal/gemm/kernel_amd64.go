//go:build !noasm

package gemm

import (
	"runtime"
	"sync"

	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/reuse"
	"github.com/samplingbias/workbench/internal/simd"
)

// Block sizes (Goto's notation): a packed kc×16 panel of op(B) (16 KiB) stays in L1 while the
// micro-kernel runs over an mc×kc block of op(A) (48 KiB, two of the AVX-512 kernel's 24-row
// tiles; packed when A is transposed or the kernel is AVX-512's), and the block's rows of C are
// written 16 columns at a time from left to right, streams the hardware prefetchers follow; a
// packed kc×nc block of op(B) (at most 2 MiB) is reused by every block of op(A). Blocks of 144
// rows (24 tiles of six) took 1.03× the time of these in the main job's products with the
// AVX-512 kernel and 1.006× with the AVX2 one (calls alternated within one run). None of them
// changes a bit: each element's sum is formed the same way whatever the blocks.
const (
	mr = 6   // rows of a micro-tile
	nr = 16  // columns of a micro-tile
	kc = 256 // terms per pass over C
	mc = 8 * mr
	nc = 128 * nr
)

// partWork is the least number of multiply-adds worth a goroutine.
const partWork = 1 << 18

// packGroup is the number of strided panels simd.CopyStrided packs in one pass over the source's
// rows: four read a row's 96 (or 256) bytes at once and write four streams; one panel per pass
// reads each cache line of a transposed op(A) two or three times, and every panel at once
// writes up to 64 streams, 16 KiB apart for op(B), which share a set of the L1 cache: the
// step's transposed products ran about 5% faster with four than with one, and slower with all
// (BenchmarkSgemm, TN shapes).
const packGroup = 4

// maxShared is the largest op(B), in elements, that run packs once for all its goroutines.
const maxShared = 1 << 22

// run computes the product with the micro-kernel, in parallel; it returns false, having done
// nothing, if the processor lacks AVX2 or FMA.
func (p *product) run() bool {
	if !simd.Kernel() {
		return false
	}
	// Split C along whole tiles of its longer side (in tiles), so that which tile, hence which
	// code path, an element belongs to does not depend on the split.
	rowTiles, colTiles := (p.m+mr-1)/mr, (p.n+nr-1)/nr
	byRows := rowTiles*mr >= colTiles*nr
	tiles := colTiles
	if byRows {
		tiles = rowTiles
	}
	parts := parallel.Parts(p.m*p.n*p.k, partWork, runtime.GOMAXPROCS(0))
	// Parts split along rows all read the whole of op(B): packed once, in parallel, it is shared
	// rather than packed again by each part. (Parts split along columns read op(A), which no part
	// packs.)
	var bp []float32
	if parts > 1 && byRows && p.k*roundUp(p.n, nr) <= maxShared {
		buf := pool.Get().(*buffers)
		defer pool.Put(buf)
		bp = p.packAllB(&buf.shared, parts)
	}
	parallel.Split(tiles, parts, func(_, lo, hi int) {
		if byRows {
			p.block(lo*mr, min(hi*mr, p.m), 0, p.n, bp)
		} else {
			p.block(0, p.m, lo*nr, min(hi*nr, p.n), bp)
		}
	})
	return true
}

// packAllB packs op(B) whole into *buf, in parts goroutines, and returns it: for every block of
// kc terms pc, the panels of all its columns, the panel of column j at pc·n' + j·kb (n' = n
// rounded up to whole panels).
func (p *product) packAllB(buf *[]float32, parts int) []float32 {
	n := roundUp(p.n, nr)
	*buf = reuse.Grow(*buf, p.k*n)
	dst := *buf
	parallel.Split(n/nr, parts, func(_, lo, hi int) {
		j0, cols := lo*nr, min(hi*nr, p.n)-lo*nr
		for pc := 0; pc < p.k; pc += kc {
			kb := min(kc, p.k-pc)
			off := pc*n + j0*kb
			p.packB(dst[off:off+kb*roundUp(cols, nr)], pc, kb, j0, cols)
		}
	})
	return dst
}

// buffers holds the packed panels of one goroutine, or op(B) packed whole.
type buffers struct {
	a, b, shared []float32
}

var pool = sync.Pool{New: func() any { return new(buffers) }}

// block computes rows [i0, i1) × columns [j0, j1) of C, taking the panels of op(B) from all
// (packAllB's) when it is not nil.
func (p *product) block(i0, i1, j0, j1 int, all []float32) {
	buf := pool.Get().(*buffers)
	defer pool.Put(buf)
	var edge [mr * nr]float32
	for jc := j0; jc < j1; jc += nc {
		nb := min(nc, j1-jc)
		for pc := 0; pc < p.k; pc += kc {
			kb := min(kc, p.k-pc)
			beta := p.beta
			if pc > 0 {
				beta = 1
			}
			var bp []float32
			if all != nil {
				off := pc*roundUp(p.n, nr) + jc*kb
				bp = all[off : off+kb*roundUp(nb, nr)]
			} else {
				buf.b = reuse.Grow(buf.b, kb*roundUp(nb, nr))
				bp = buf.b
				p.packB(bp, pc, kb, jc, nb)
			}
			for ic := i0; ic < i1; ic += mc {
				mb := min(mc, i1-ic)
				// The AVX2 kernel reads an untransposed A where it lies, but for a last panel of
				// fewer than mr rows, packed alone in ap. op(A) = Aᵀ is packed: read in place, a
				// panel touches a cache line per term, and the product ran 0.8–0.95× as fast. The
				// AVX-512 kernel takes A packed in every case: reading 24 rows in place, it ran
				// the step's products 0.7–0.95× as fast as packing them (BenchmarkSgemm).
				full := 0 // rows [ic, ic+full) are read in place
				var ap []float32
				if !p.tA && !simd.Wide() && p.rows == nil {
					full = mb / mr * mr
				}
				if full < mb {
					buf.a = reuse.Grow(buf.a, kb*roundUp(mb-full, mr))
					ap = buf.a
					p.packA(ap, ic+full, mb-full, pc, kb)
				}
				for jr := 0; jr < nb; jr += nr {
					bt := bp[jr*kb : (jr+nr)*kb]
					cols := min(nr, nb-jr)
					for ir := 0; ir < mb; {
						off := (ic+ir)*p.ldc + jc + jr
						// Full tiles read the same way (in place, or packed) run in one call, which
						// takes them four at a time where the processor has AVX-512; an edge tile
						// runs the same kernel on a copy of the tile's part of C.
						end := full
						if ir >= full {
							end = mb / mr * mr
						}
						if cols == nr && ir < end {
							tiles := (end - ir) / mr
							if ir < full {
								simd.Gemm6x16Strided(kb, tiles, p.a[(ic+ir)*p.lda+pc:], p.lda, 1, bt, p.c[off:], p.ldc, p.alpha, beta)
							} else {
								simd.Gemm6x16(kb, tiles, ap[(ir-full)*kb:], bt, p.c[off:], p.ldc, p.alpha, beta)
							}
							ir += tiles * mr
							continue
						}
						rows := min(mr, mb-ir)
						for r := range rows {
							copy(edge[r*nr:r*nr+cols], p.c[off+r*p.ldc:])
						}
						if ir < full {
							simd.Gemm6x16Strided(kb, 1, p.a[(ic+ir)*p.lda+pc:], p.lda, 1, bt, edge[:], nr, p.alpha, beta)
						} else {
							simd.Gemm6x16(kb, 1, ap[(ir-full)*kb:], bt, edge[:], nr, p.alpha, beta)
						}
						for r := range rows {
							copy(p.c[off+r*p.ldc:off+r*p.ldc+cols], edge[r*nr:])
						}
						ir += mr
					}
				}
			}
		}
	}
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

// packB packs op(B)[pc:pc+kb, jc:jc+nb] into panels of nr columns, each kb groups of nr values,
// padding the last panel with zeros.
func (p *product) packB(dst []float32, pc, kb, jc, nb int) {
	pack(dst, p.b, p.ldb, !p.tB, nr, jc, nb, pc, kb, nil)
}

// packA packs op(A)[ic:ic+mb, pc:pc+kb] into panels of mr rows, each kb groups of mr values,
// padding the last panel with zeros.
func (p *product) packA(dst []float32, ic, mb, pc, kb int) {
	pack(dst, p.a, p.lda, p.tA, mr, ic, mb, pc, kb, p.rows)
}

// pack packs the matrix X[i0:i0+n, pc:pc+kb] into panels of w rows of X, each stored as kb groups
// of w values (X[i, l] for the panel's rows i), padding the last panel with zeros. X[i, l] is
// src[l*ld+i] if strided, src[i*ld+l] otherwise: for op(A), X = op(A); for op(B), X = op(B)ᵀ.
// With at (not strided), row i of X is row at[i] of src's matrix. Full panels of strided groups
// are copied by simd.CopyStrided, packGroup panels per pass over the rows (in vector registers:
// copy would call memmove for every group).
func pack(dst, src []float32, ld int, strided bool, w, i0, n, pc, kb int, at []int32) {
	ir := 0
	if strided {
		for g := 0; g < n/w; g += packGroup {
			panels := min(packGroup, n/w-g)
			simd.CopyStrided(dst[g*w*kb:], src[pc*ld+i0+g*w:], w, ld, kb, panels)
		}
		ir = n / w * w
	}
	row := func(i int) []float32 { return src[rowIndex(at, i)*ld+pc:][:kb] } // X[i, pc:pc+kb], not strided
	for ; ir < n; ir += w {
		panel := dst[ir*kb : (ir+w)*kb]
		rows := min(w, n-ir)
		if rows < w {
			clear(panel)
		}
		i := i0 + ir
		switch {
		case strided:
			for l := range kb {
				copy(panel[l*w:l*w+rows], src[(pc+l)*ld+i:][:rows])
			}
		case rows == w && (at == nil || consecutive(at[i:i+w])):
			simd.Interleave(panel, src[rowIndex(at, i)*ld+pc:], w, ld, kb)
		case rows == w && w == mr:
			interleaveRows(panel, row, i, kb)
		default:
			// Four rows at a time: four streams read, each group written in one cache line.
			r := 0
			for ; r+4 <= rows; r += 4 {
				x0, x1, x2, x3 := row(i+r), row(i+r+1), row(i+r+2), row(i+r+3)
				for l := range kb {
					g := panel[l*w+r : l*w+r+4]
					g[0], g[1], g[2], g[3] = x0[l], x1[l], x2[l], x3[l]
				}
			}
			for ; r < rows; r++ {
				for l, v := range row(i + r) {
					panel[l*w+r] = v
				}
			}
		}
	}
}

// rowIndex is the row of src's matrix that holds row i of X (pack's at).
func rowIndex(at []int32, i int) int {
	if at == nil {
		return i
	}
	return int(at[i])
}

// consecutive reports whether rows follow each other (rows[r] = rows[0] + r).
func consecutive(rows []int32) bool {
	for r, x := range rows {
		if x != rows[0]+int32(r) {
			return false
		}
	}
	return true
}

// interleaveRows packs the mr rows row(i), …, row(i+mr−1) (kb values each) into panel: copied
// next to each other, then interleaved in vector registers as a panel read in place is.
func interleaveRows(panel []float32, row func(int) []float32, i, kb int) {
	var tmp [mr * kc]float32
	for r := range mr {
		copy(tmp[r*kb:(r+1)*kb], row(i+r))
	}
	simd.Interleave(panel, tmp[:], mr, kb, kb)
}
