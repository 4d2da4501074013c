//go:build !noasm

package gemm

import (
	"runtime"
	"sync"

	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/simd"
)

// Block sizes (Goto's notation): a packed kc×16 panel of op(B) (16 KiB) stays in L1 while the
// micro-kernel runs over a packed mc×kc block of op(A) (144 KiB, in L2); a packed kc×nc block of
// op(B) (at most 2 MiB) is reused by every block of op(A).
const (
	mr = 6   // rows of a micro-tile
	nr = 16  // columns of a micro-tile
	kc = 256 // terms per pass over C
	mc = 24 * mr
	nc = 128 * nr
)

// partWork is the least number of multiply-adds worth a goroutine.
const partWork = 1 << 18

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
	parallel.Split(tiles, parallel.Parts(p.m*p.n*p.k, partWork, runtime.GOMAXPROCS(0)), func(_, lo, hi int) {
		if byRows {
			p.block(lo*mr, min(hi*mr, p.m), 0, p.n)
		} else {
			p.block(0, p.m, lo*nr, min(hi*nr, p.n))
		}
	})
	return true
}

// buffers holds the packed panels of one goroutine.
type buffers struct {
	a, b []float32
}

var pool = sync.Pool{New: func() any { return new(buffers) }}

// block computes rows [i0, i1) × columns [j0, j1) of C.
func (p *product) block(i0, i1, j0, j1 int) {
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
			bp := grow(&buf.b, kb*roundUp(nb, nr))
			p.packB(bp, pc, kb, jc, nb)
			for ic := i0; ic < i1; ic += mc {
				mb := min(mc, i1-ic)
				ap := grow(&buf.a, kb*roundUp(mb, mr))
				p.packA(ap, ic, mb, pc, kb)
				for jr := 0; jr < nb; jr += nr {
					bt := bp[jr*kb : (jr+nr)*kb]
					for ir := 0; ir < mb; ir += mr {
						at := ap[ir*kb : (ir+mr)*kb]
						off := (ic+ir)*p.ldc + jc + jr
						if ir+mr <= mb && jr+nr <= nb {
							simd.Gemm6x16(kb, at, bt, p.c[off:], p.ldc, p.alpha, beta)
							continue
						}
						// Edge tile: the same kernel on a copy of the tile's part of C.
						rows, cols := min(mr, mb-ir), min(nr, nb-jr)
						for r := range rows {
							copy(edge[r*nr:r*nr+cols], p.c[off+r*p.ldc:])
						}
						simd.Gemm6x16(kb, at, bt, edge[:], nr, p.alpha, beta)
						for r := range rows {
							copy(p.c[off+r*p.ldc:off+r*p.ldc+cols], edge[r*nr:])
						}
					}
				}
			}
		}
	}
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

// grow returns (*s)[:n], reallocating *s if it is shorter.
func grow(s *[]float32, n int) []float32 {
	if cap(*s) < n {
		*s = make([]float32, n)
	}
	return (*s)[:n]
}

// packB packs op(B)[pc:pc+kb, jc:jc+nb] into panels of nr columns, each kb groups of nr values,
// padding the last panel with zeros.
func (p *product) packB(dst []float32, pc, kb, jc, nb int) {
	pack(dst, p.b, p.ldb, !p.tB, nr, jc, nb, pc, kb)
}

// packA packs op(A)[ic:ic+mb, pc:pc+kb] into panels of mr rows, each kb groups of mr values,
// padding the last panel with zeros.
func (p *product) packA(dst []float32, ic, mb, pc, kb int) {
	pack(dst, p.a, p.lda, p.tA, mr, ic, mb, pc, kb)
}

// pack packs the matrix X[i0:i0+n, pc:pc+kb] into panels of w rows of X, each stored as kb groups
// of w values (X[i, l] for the panel's rows i), padding the last panel with zeros. X[i, l] is
// src[l*ld+i] if strided, src[i*ld+l] otherwise: for op(A), X = op(A); for op(B), X = op(B)ᵀ.
func pack(dst, src []float32, ld int, strided bool, w, i0, n, pc, kb int) {
	for ir := 0; ir < n; ir += w {
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
		case rows == 6 && w == 6:
			x0 := src[i*ld+pc:][:kb]
			x1 := src[(i+1)*ld+pc:][:kb]
			x2 := src[(i+2)*ld+pc:][:kb]
			x3 := src[(i+3)*ld+pc:][:kb]
			x4 := src[(i+4)*ld+pc:][:kb]
			x5 := src[(i+5)*ld+pc:][:kb]
			for l := range kb {
				g := panel[l*6 : l*6+6]
				g[0], g[1], g[2], g[3], g[4], g[5] = x0[l], x1[l], x2[l], x3[l], x4[l], x5[l]
			}
		default:
			for r := range rows {
				for l, v := range src[(i+r)*ld+pc:][:kb] {
					panel[l*w+r] = v
				}
			}
		}
	}
}
