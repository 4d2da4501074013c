package metrics

import "gonum.org/v1/gonum/blas"

// blasBackend scores tiles with float32BLAS's Sgemm in the U·Vᵀ layout (the queries of a block
// gathered into a contiguous matrix, V used in place): OpenBLAS under the openblas build tag,
// gonum's Sgemm otherwise. It is the backend wherever the assembly kernel is unavailable
// (newBackend).
type blasBackend struct{ embeddings }

func newBLASBackend(u, v []float32, d int) *blasBackend {
	return &blasBackend{embeddings{u: u, v: v, d: d, rows: 512, sub: 512, cols: 512}}
}

func (b *blasBackend) worker(rows int) tileScorer {
	return &blasScorer{be: b, block: make([]float32, rows*b.d)}
}

type blasScorer struct {
	be    *blasBackend
	block []float32 // the block's query rows, contiguous
	j0, n int       // the tile's first item and its number of items
}

func (s *blasScorer) load(queries []int32) {
	d := s.be.d
	for i, q := range queries {
		copy(s.block[i*d:(i+1)*d], s.be.u[int(q)*d:])
	}
}

func (s *blasScorer) pack(j0, n int) { s.j0, s.n = j0, n }

func (s *blasScorer) score(i0, i1 int, c []float32, ldc int) {
	d := s.be.d
	float32BLAS().Sgemm(blas.NoTrans, blas.Trans, i1-i0, s.n, d,
		1, s.block[i0*d:i1*d], d, s.be.v[s.j0*d:(s.j0+s.n)*d], d, 0, c, ldc)
}
