package metrics

import "gonum.org/v1/gonum/blas"

// blasBackend scores tiles with float32BLAS's Sgemm in the U·Vᵀ layout (the queries of a block
// gathered into a contiguous matrix, V used in place): OpenBLAS under the openblas build tag,
// gonum's Sgemm otherwise. It is the backend wherever the assembly kernel is unavailable
// (newBackend).
type blasBackend struct{ embeddings }

func newBLASBackend(u, v []float32, d int) *blasBackend {
	return &blasBackend{embeddings{u: u, v: v, d: d, rows: 512, cols: 512}}
}

func (b *blasBackend) worker(rows int) tileScorer {
	return &blasScorer{be: b, block: make([]float32, rows*b.d)}
}

type blasScorer struct {
	be    *blasBackend
	block []float32 // the block's query rows, contiguous
	n     int       // queries in the block
}

func (s *blasScorer) load(queries []int32) {
	d := s.be.d
	s.n = len(queries)
	for i, q := range queries {
		copy(s.block[i*d:(i+1)*d], s.be.u[int(q)*d:])
	}
}

func (s *blasScorer) score(j0, n int, c []float32, ldc int) {
	d := s.be.d
	float32BLAS().Sgemm(blas.NoTrans, blas.Trans, s.n, n, d,
		1, s.block, d, s.be.v[j0*d:(j0+n)*d], d, 0, c, ldc)
}
