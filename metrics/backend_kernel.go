//go:build amd64 && !noasm

package metrics

import (
	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/simd"
)

// newBackend returns the assembly micro-kernel when the processor has AVX2 and FMA and the build
// does not prefer BLAS (see preferBLAS), else blas32.
func newBackend(u, v []float32, d, workers int) backend {
	if preferBLAS || !simd.Kernel() {
		return newBLASBackend(u, v, d)
	}
	return newKernelBackend(u, v, d, workers)
}

// Panel sizes of simd.Kernel6x16: 6 queries × 16 items at a time.
const (
	panelRows = blockAlign
	panelCols = 16
)

// kernelBackend scores tiles with simd.Kernel6x16 from packed copies of the queries and items.
// Its geometry must keep rows a multiple of 6 and cols a multiple of 16.
type kernelBackend struct {
	u          []float32
	vp         []float32 // V packed: panel p, items 16p..16p+15, at vp[16p·d:], zero past the last item
	d          int
	rows, cols int
}

// newKernelBackend packs V, on workers goroutines.
func newKernelBackend(u, v []float32, d, workers int) *kernelBackend {
	m := len(v) / d
	panels := (m + panelCols - 1) / panelCols
	vp := make([]float32, panels*panelCols*d)
	parallel.Split(panels, workers, func(_, p0, p1 int) {
		for p := p0; p < p1; p++ {
			dst := vp[p*panelCols*d : (p+1)*panelCols*d]
			for jj := range min(panelCols, m-p*panelCols) {
				for l, x := range v[(p*panelCols+jj)*d : (p*panelCols+jj+1)*d] {
					dst[l*panelCols+jj] = x
				}
			}
		}
	})
	return &kernelBackend{u: u, vp: vp, d: d, rows: 192, cols: 1024}
}

func (b *kernelBackend) geometry() (rows, cols int) { return b.rows, b.cols }

func (b *kernelBackend) worker(rows int) tileScorer {
	return &kernelScorer{be: b, ap: make([]float32, rows*b.d)}
}

type kernelScorer struct {
	be   *kernelBackend
	ap   []float32 // the block's queries in panels of 6 (zero rows pad the last one)
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
		bp := s.be.vp[(j0+jp)*d : (j0+jp+panelCols)*d]
		for ip := 0; ip < s.rows; ip += panelRows {
			simd.Kernel6x16(d, s.ap[ip*d:(ip+panelRows)*d], bp, c[ip*ldc+jp:], ldc)
		}
	}
}
