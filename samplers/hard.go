package samplers

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/gemm"
	"github.com/samplingbias/workbench/internal/reuse"
	"github.com/samplingbias/workbench/internal/selectk"
)

// hard is KindHard: hard negatives mined from the model's scores. For each row, the k =
// negatives items of a pool with the highest scores ⟨u_i, v_j⟩ under the current towers (run
// without gradient, Data.Towers), each row's own positive in column 0 (Layout First with
// PerRow = k, C = 1 + k). The pool is the batch's positives (pool = "in_batch": one candidate
// per distinct item, the row's own positive item left out) or pool_size distinct items drawn
// uniformly without replacement and shared by every row (pool = "uniform"). With
// false_negative_margin, NV-Retriever's TopK-PercPos false-negative guard (Moreira et al. 2024,
// §3.2): a candidate scoring above margin·s⁺, s⁺ = ⟨u_i, v_p⟩ the row's positive score, is
// dropped as a probable positive before the top k are taken.
//
// Which items a row gets depends on the model's scores at the step, so no probability law of the
// columns exists: the geometry says QUndefined, the sampler declares neither log_q nor log_p,
// and a loss that needs them refuses it. The step then scores the chosen columns as any other.
// Mining costs, per step, the towers' forward pass on the R queries and the pool's items (without
// gradient), R·P inner products of dimension d for a pool of P items and a partial sort of each
// row's P scores (BenchmarkSampler).
//
// A row whose pool holds fewer than k candidates (the batch's distinct items other than the
// positive, or those left below the margin) gets copies of its positive in the columns left:
// hard requires loss.remove_accidental_hits = true (Shape.FillsWithPositive), which masks them,
// so that such a row has the negatives it found (and a row with none, no loss). A k not below the
// pool's size is an error naming the key (Check).
type hard struct {
	k      int
	pool   Pool
	size   int     // pool_size, for the uniform pool
	margin float64 // false_negative_margin; 0: no guard

	uni   *withoutReplacement // the uniform pool's draws
	items []int32             // the step's pool, then (uniform pool) the rows' positives
	mark  []int               // per item: the last step (1-based) it joined the pool at
	step  int
	order []int32   // one row's candidates, by index into the pool
	all   []float32 // the step's scores of the pool, R×P
	score []float64 // one row's
	kth   []float64 // topK's scratch
	err   error
}

func newHard(s Settings) *hard {
	h := &hard{k: s.Negatives, pool: s.Pool, size: s.PoolSize, margin: s.FalseNegativeMargin}
	if h.pool == PoolUniform {
		h.uni = newWithoutReplacement(h.size, 0, true)
	}
	return h
}

func (s *hard) Shape() Shape {
	return Shape{Geometry: candidates.Geometry{Layout: candidates.First, PerRow: s.k, QUndefined: true}, FillsWithPositive: true}
}

// Check requires the model's towers (Data.Towers) and a pool larger than k: the batch's other positives (B − 1 at most), or
// pool_size items of the corpus.
func (s *hard) Check(d *Data) error {
	if err := needTowers(d, "hard ranks its pool by the model's scores"); err != nil {
		return err
	}
	if s.pool == PoolInBatch && s.k >= d.Batch-1 {
		return fmt.Errorf("negatives: hard keeps the %d highest-scoring of each row's pool, the batch's other positives, at most train.batch_size − 1 = %d: "+
			"the pool must be larger (lower sampler.negatives, raise train.batch_size, or use sampler.pool = %q)", s.k, d.Batch-1, PoolUniform)
	}
	if s.pool == PoolUniform && s.size > d.Items {
		return fmt.Errorf("pool_size: %d distinct items from a corpus of %d items; lower sampler.pool_size", s.size, d.Items)
	}
	return nil
}

func (s *hard) Draw(rng *rand.Rand, d *Data, pos, rows []int32) {
	copy(rows, pos)
	s.err = s.mine(rng, d, pos, rows[len(pos):])
}

// mine fills own (R·k) with each row's top k of its pool.
func (s *hard) mine(rng *rand.Rand, d *Data, pos, own []int32) error {
	if err := needTowers(d, "hard ranks its pool by the model's scores"); err != nil {
		return err
	}
	r := len(pos)
	n, err := s.fillPool(rng, d, pos)
	if err != nil {
		return err
	}
	u, v, dim, err := embed(d, r, s.items)
	if err != nil {
		return err
	}
	s.all = reuse.Grow(s.all, r*n) // the R×P scores ⟨u_i, v_j⟩ of the pool
	gemm.Implementation{}.Sgemm(blas.NoTrans, blas.Trans, r, n, dim, 1, u, dim, v, dim, 0, s.all, n)
	s.score = reuse.Grow(s.score, n)
	for i := range r {
		ui := u[i*dim : (i+1)*dim]
		threshold := 0.0
		if s.margin > 0 {
			at := slices.Index(s.items, pos[i]) // the positive's embedding: in the pool, or after it
			threshold = guard(dot(ui, v[at*dim:(at+1)*dim]), s.margin)
		}
		s.order = s.order[:0]
		for j, item := range s.items[:n] {
			if item == pos[i] {
				continue
			}
			s.score[j] = float64(s.all[i*n+j])
			if s.margin > 0 && s.score[j] > threshold {
				continue
			}
			s.order = append(s.order, int32(j))
		}
		n := min(len(s.order), s.k)
		for t, j := range topK(s.order, s.score, n, &s.kth) {
			own[i*s.k+t] = s.items[j]
		}
		for t := n; t < s.k; t++ { // short of candidates: copies of the positive, which the loss masks
			own[i*s.k+t] = pos[i]
		}
	}
	return nil
}

// fillPool sets items to the step's pool, and for a uniform pool the rows' positives after it,
// and returns the pool's size.
func (s *hard) fillPool(rng *rand.Rand, d *Data, pos []int32) (int, error) {
	s.items = s.items[:0]
	if s.pool == PoolUniform {
		if err := s.Check(d); err != nil {
			return 0, err
		}
		s.items = slices.Grow(s.items, s.size+len(pos))[:s.size]
		s.uni.Draw(rng, d, nil, s.items)
		s.items = append(s.items, pos...)
		return s.size, nil
	}
	if len(s.mark) != d.Items {
		s.mark = make([]int, d.Items)
	}
	s.step++
	for _, item := range pos {
		if s.mark[item] != s.step {
			s.mark[item] = s.step
			s.items = append(s.items, item)
		}
	}
	return len(s.items), nil
}

// guard is the highest score a candidate may have under the false-negative margin of a row whose
// positive scores pos: margin·pos (NV-Retriever's TopK-PercPos) for pos > 0, and the same share
// of |pos| below the positive, pos − (1 − margin)·|pos|, otherwise, where margin·pos would lie
// above the positive (the scores of an untrained model).
func guard(pos, margin float64) float64 { return pos - (1-margin)*math.Abs(pos) }

// topK returns the k candidates of idx (indices into score, ascending) of highest score, highest
// first (ties: the lower index first), reordering idx: the k-th largest score by selection
// (selectk.KthLargest on a copy in scratch), the candidates above it and the first ones equal to
// it, then a sort of those k: O(n + k log k) rather than a sort of all n.
func topK(idx []int32, score []float64, k int, scratch *[]float64) []int32 {
	if k > 0 && k < len(idx) {
		*scratch = reuse.Grow(*scratch, len(idx))
		for t, j := range idx {
			(*scratch)[t] = score[j]
		}
		kth := selectk.KthLargest(*scratch, k)
		above := 0
		for _, j := range idx {
			if score[j] > kth {
				above++
			}
		}
		n, equal := 0, k-above // keep every candidate above the k-th, and the first equal ones
		for _, j := range idx {
			if score[j] > kth || score[j] == kth && equal > 0 {
				if score[j] == kth {
					equal--
				}
				idx[n] = j
				n++
			}
		}
	}
	top := idx[:k]
	slices.SortFunc(top, func(a, b int32) int { return cmp.Or(cmp.Compare(score[b], score[a]), cmp.Compare(a, b)) })
	return top
}

// embed returns the current towers' outputs of the step's r queries and of items, and their
// dimension.
func embed(d *Data, r int, items []int32) (u, v []float32, dim int, err error) {
	if u, err = d.Towers.Queries(d.Queries[:r]); err != nil {
		return nil, nil, 0, err
	}
	if v, err = d.Towers.Items(items); err != nil {
		return nil, nil, 0, err
	}
	return u, v, d.Towers.Dim(), nil
}

// dot is the inner product of a and b in float64.
func dot(a, b []float32) float64 {
	s := 0.0
	for k, x := range a {
		s += float64(x) * float64(b[k])
	}
	return s
}

func (s *hard) Declare(d *Data, pos, rows []int32, _ Law, c *candidates.Step) error {
	if s.err != nil {
		return s.err
	}
	declareItems(s.Shape(), pos, rows, c)
	return nil
}

// declareItems fills the items of the columns of a sampler of shape sh whose probabilities are
// undefined (Layout First, each row's own columns): column 0 of each row is its positive
// (NoItem), the others its own item rows.
func declareItems(sh Shape, pos, rows []int32, c *candidates.Step) {
	r := len(pos)
	cols := len(c.ColItem) / r
	c.Estimated = false
	for i := range r {
		for j := range cols {
			k := i*cols + j
			c.ColItem[k] = candidates.NoItem
			if j > 0 && pos[i] != candidates.NoItem {
				c.ColItem[k] = int64(rows[sh.Row(i, j, r)])
			}
		}
	}
}
