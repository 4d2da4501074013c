//go:build amd64 && !noasm

package metrics

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/samplingbias/workbench/internal/simd"
)

// newBackend returns blas32 when the processor lacks AVX2 or FMA. Otherwise it returns the
// assembly micro-kernel, unless blas32 is a candidate (see blasCandidate: OpenBLAS, under the
// openblas tag) and a calibration at this dimension found it faster.
func newBackend(u, v []float32, d int) backend {
	if !simd.Kernel() || blasCandidate && calibrated.blasFaster(d, measureBackends) {
		return newBLASBackend(u, v, d)
	}
	return newKernelBackend(u, v, d)
}

// calibrated is the process's memo of backend calibrations, one per embedding dimension.
var calibrated calibration

// calibration remembers, per dimension, whether blas32 scored faster than the kernel.
type calibration struct {
	mu     sync.Mutex
	faster map[int]bool
}

// blasFaster returns the memoised choice for dimension d, measuring it on first use with
// measure, which returns the time per tile of blas32 and of the kernel.
func (c *calibration) blasFaster(d int, measure func(d int) (blas, kernel time.Duration)) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.faster[d]; ok {
		return f
	}
	if c.faster == nil {
		c.faster = map[int]bool{}
	}
	b, k := measure(d)
	c.faster[d] = b < k
	return c.faster[d]
}

// measureBackends times blas32 and the kernel on a block of 96 queries against 8,192 items of
// dimension d (seeded Gaussian data, about 2·96·8192·d flops, a few milliseconds), each the
// best of five runs on one goroutine, interleaved.
func measureBackends(d int) (blas, kernel time.Duration) {
	const n, m = 96, 8192
	rng := rand.New(rand.NewPCG(1, uint64(d)))
	u, v := make([]float32, n*d), make([]float32, m*d)
	for i := range u {
		u[i] = float32(rng.NormFloat64())
	}
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	queries := make([]int32, n)
	for i := range queries {
		queries[i] = int32(i)
	}
	type candidate struct {
		ts   tileScorer
		cols int
		c    []float32
		best time.Duration
	}
	var cands [2]candidate
	for i, be := range []backend{newBLASBackend(u, v, d), newKernelBackend(u, v, d)} {
		_, cols := be.geometry()
		cands[i] = candidate{ts: be.worker(n), cols: cols, c: make([]float32, n*cols), best: math.MaxInt64}
	}
	for range 5 { // interleaved, so that a burst of load on a shared machine hits both
		for i := range cands {
			c := &cands[i]
			start := time.Now()
			c.ts.load(queries)
			for j0 := 0; j0 < m; j0 += c.cols {
				c.ts.score(j0, min(c.cols, m-j0), c.c, c.cols)
			}
			c.best = min(c.best, time.Since(start))
		}
	}
	return cands[0].best, cands[1].best
}

// Panel sizes of simd.Kernel6x16: 6 queries × 16 items at a time.
const (
	panelRows = blockAlign
	panelCols = 16
)

// kernelBackend scores tiles with simd.Kernel6x16 from packed copies of the queries of a block
// and of the items of a tile (never of the whole corpus). Its geometry must keep rows a multiple
// of 6 and cols a multiple of 16.
type kernelBackend struct {
	u, v       []float32
	d          int
	rows, cols int
}

func newKernelBackend(u, v []float32, d int) *kernelBackend {
	return &kernelBackend{u: u, v: v, d: d, rows: 384, cols: 1024}
}

func (b *kernelBackend) geometry() (rows, cols int) { return b.rows, b.cols }

func (b *kernelBackend) worker(rows int) tileScorer {
	return &kernelScorer{be: b, ap: make([]float32, rows*b.d), bp: make([]float32, b.cols*b.d)}
}

type kernelScorer struct {
	be   *kernelBackend
	ap   []float32 // the block's queries in panels of 6 (zero rows pad the last one)
	bp   []float32 // the tile's items in panels of 16: panel p, items 16p..16p+15, at bp[16p·d:]
	rows int       // queries in the block rounded up to a multiple of 6
}

func (s *kernelScorer) load(queries []int32) {
	d := s.be.d
	s.rows = (len(queries) + panelRows - 1) / panelRows * panelRows
	for p := 0; p < s.rows; p += panelRows {
		dst := s.ap[p*d : (p+panelRows)*d]
		for r := range panelRows {
			if p+r >= len(queries) {
				for l := range d {
					dst[l*panelRows+r] = 0
				}
				continue
			}
			for l, x := range s.be.u[int(queries[p+r])*d : int(queries[p+r]+1)*d] {
				dst[l*panelRows+r] = x
			}
		}
	}
}

func (s *kernelScorer) score(j0, n int, c []float32, ldc int) {
	d := s.be.d
	for jp := 0; jp < n; jp += panelCols {
		packItems(s.bp[jp*d:(jp+panelCols)*d], s.be.v, d, j0+jp, min(panelCols, n-jp))
	}
	for jp := 0; jp < n; jp += panelCols {
		bp := s.bp[jp*d : (jp+panelCols)*d]
		for ip := 0; ip < s.rows; ip += panelRows {
			simd.Kernel6x16(d, s.ap[ip*d:(ip+panelRows)*d], bp, c[ip*ldc+jp:], ldc)
		}
	}
}

// packItems writes items j0..j0+cols-1 (rows of the row-major v, of dimension d) into the panel
// dst as d groups of 16 values, item jj's value l at dst[l*16+jj], with zeros past the last item.
// Sixteen rows are read side by side so that the panel is written in order.
func packItems(dst, v []float32, d, j0, cols int) {
	if cols < panelCols {
		clear(dst)
		for jj := range cols {
			for l, x := range v[(j0+jj)*d : (j0+jj+1)*d] {
				dst[l*panelCols+jj] = x
			}
		}
		return
	}
	r := v[j0*d : (j0+panelCols)*d]
	x0, x1, x2, x3 := r[0*d:1*d], r[1*d:2*d], r[2*d:3*d], r[3*d:4*d]
	x4, x5, x6, x7 := r[4*d:5*d], r[5*d:6*d], r[6*d:7*d], r[7*d:8*d]
	x8, x9, x10, x11 := r[8*d:9*d], r[9*d:10*d], r[10*d:11*d], r[11*d:12*d]
	x12, x13, x14, x15 := r[12*d:13*d], r[13*d:14*d], r[14*d:15*d], r[15*d:16*d]
	dst = dst[:panelCols*len(x0)]
	for l := range x0 {
		g := dst[l*panelCols : l*panelCols+panelCols : l*panelCols+panelCols]
		g[0], g[1], g[2], g[3] = x0[l], x1[l], x2[l], x3[l]
		g[4], g[5], g[6], g[7] = x4[l], x5[l], x6[l], x7[l]
		g[8], g[9], g[10], g[11] = x8[l], x9[l], x10[l], x11[l]
		g[12], g[13], g[14], g[15] = x12[l], x13[l], x14[l], x15[l]
	}
}
