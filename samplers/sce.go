package samplers

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/gemm"
	"github.com/samplingbias/workbench/internal/reuse"
)

// sce is KindSCE: the buckets of the Scalable Cross-Entropy loss of Mezentsev et al., "Scalable
// Cross-Entropy Loss for Sequential Recommendations with Large Item Catalogs" (RecSys 2024, §3;
// the procedure of their code, AIRI-Institute/Scalable-SASRec, model.py sce_forward without
// mix_x). At every step, with the current towers run without gradient (Data.Towers):
//
//  1. draw n_b = buckets random directions ω_b, Gaussian in the embedding space;
//  2. bucket b holds the bucket_rows rows whose query embeddings u_i project highest on ω_b,
//     ⟨ω_b, u_i⟩, and the n = negatives items whose embeddings v_j project highest, ⟨ω_b, v_j⟩;
//  3. each row in a bucket scores its positive against the bucket's items, and its loss is the
//     largest, over the buckets that hold it, of the softmax cross-entropy of its positive
//     among the bucket's items (the positive's own item masked), with the logits ⟨u, v⟩/τ;
//     a row in no bucket has no loss.
//
// The gradient of a maximum over buckets is the gradient of the bucket that attains it, so the
// sampler gives each row that bucket's n items as its own columns after its positive (Layout
// First with PerRow = n, C = 1 + n), and makes a row in no bucket padding (Geometry.Padded): the
// plain softmax loss over those columns, with loss.remove_accidental_hits = true for their mask of
// the positive's item, is then SCE's loss and gradient, its mean over the rows in a bucket.
//
// The buckets depend on the model's embeddings, so no probability law of the columns exists: the
// geometry says QUndefined and the sampler declares neither log_q nor log_p. Per step it costs the
// towers' forward pass on the R queries and on the whole corpus of M items (without gradient),
// n_b·d·(R + M) projections, a partial sort per bucket of R and M projections, and
// n_b·bucket_rows·n inner products (BenchmarkSampler).
type sce struct {
	n, buckets, rows int

	all          []int32   // every item, 0..M−1
	omega        []float32 // the step's directions, n_b × d
	projV, projU []float32 // the projections of the items and of the rows on every direction
	proj         []float64 // one bucket's projections
	kth          []float64 // topK's scratch
	order        []int32
	best         []float64 // per row: its largest loss over its buckets (−Inf: in none)
	bucket       []int32   // per row: the bucket that attains it
	top          []int32   // per bucket: its n items
	err          error
}

func (s *sce) Shape() Shape {
	return Shape{Geometry: candidates.Geometry{Layout: candidates.First, PerRow: s.n, Padded: true, QUndefined: true}}
}

// Check requires at most one bucket and one bucket row per score row, and buckets of at most M
// items.
func (s *sce) Check(d *Data) error {
	if err := needTowers(d, "sce projects the model's embeddings"); err != nil {
		return err
	}
	r := s.Shape().Rows(d.Batch)
	switch {
	case s.buckets > r:
		return fmt.Errorf("buckets: %d buckets for the %d rows of a step (train.batch_size): sce draws at most one bucket per row; lower sampler.buckets", s.buckets, r)
	case s.rows > r:
		return fmt.Errorf("bucket_rows: %d rows per bucket from the %d rows of a step (train.batch_size); lower sampler.bucket_rows", s.rows, r)
	case s.n > d.Items:
		return fmt.Errorf("negatives: %d items per bucket from a corpus of %d items; lower sampler.negatives", s.n, d.Items)
	}
	return nil
}

func (s *sce) Draw(rng *rand.Rand, d *Data, pos, rows []int32) {
	copy(rows, pos)
	s.err = s.bucketize(rng, d, pos, rows)
}

// bucketize fills rows: each row's positive, NoItem for a row in no bucket, then each row's items
// of its bucket of largest loss.
func (s *sce) bucketize(rng *rand.Rand, d *Data, pos, rows []int32) error {
	if err := s.Check(d); err != nil {
		return err
	}
	r, m := len(pos), d.Items
	if len(s.all) != m {
		s.all = make([]int32, m)
		for j := range s.all {
			s.all[j] = int32(j)
		}
	}
	u, v, dim, err := embed(d, r, s.all)
	if err != nil {
		return err
	}
	s.omega = reuse.Grow(s.omega, s.buckets*dim)
	for k := range s.omega {
		s.omega[k] = float32(rng.NormFloat64())
	}
	s.assign(s.omega, u, v, dim, m, d.Towers.Temperature(), pos, rows)
	return nil
}

// assign fills rows from the directions omega (n_b × dim), the rows' query embeddings u (R ×
// dim) and the corpus's item embeddings v (m × dim): steps 2 and 3 of the procedure.
func (s *sce) assign(omega, u, v []float32, dim, m int, tau float64, pos, rows []int32) {
	r := len(pos)
	s.best, s.bucket = reuse.Grow(s.best, r), reuse.Grow(s.bucket, r)
	for i := range s.best {
		s.best[i] = math.Inf(-1)
	}
	// The projections ⟨ω_b, v_j⟩ (n_b × m) and ⟨ω_b, u_i⟩ (n_b × R).
	s.projV, s.projU = reuse.Grow(s.projV, s.buckets*m), reuse.Grow(s.projU, s.buckets*r)
	gemm.Implementation{}.Sgemm(blas.NoTrans, blas.Trans, s.buckets, m, dim, 1, omega, dim, v, dim, 0, s.projV, m)
	gemm.Implementation{}.Sgemm(blas.NoTrans, blas.Trans, s.buckets, r, dim, 1, omega, dim, u, dim, 0, s.projU, r)
	s.top = reuse.Grow(s.top, s.buckets*s.n)
	for b := range s.buckets {
		items := s.top[b*s.n : (b+1)*s.n]
		copy(items, s.highest(s.projV[b*m:(b+1)*m], s.n))
		for _, i := range s.highest(s.projU[b*r:(b+1)*r], s.rows) {
			if l := bucketLoss(u[int(i)*dim:(int(i)+1)*dim], v, dim, pos[i], items, tau); l > s.best[i] {
				s.best[i], s.bucket[i] = l, int32(b)
			}
		}
	}
	own := rows[r:]
	for i := range r {
		dst := own[i*s.n : (i+1)*s.n]
		if math.IsInf(s.best[i], -1) {
			rows[i] = candidates.NoItem
			for k := range dst {
				dst[k] = candidates.NoItem
			}
			continue
		}
		copy(dst, s.top[int(s.bucket[i])*s.n:])
	}
}

// highest returns the k indices of the highest of the projections proj, highest first (ties: the
// lower index first).
func (s *sce) highest(proj []float32, k int) []int32 {
	s.proj = reuse.Grow(s.proj, len(proj))
	s.order = reuse.Grow(s.order, len(proj))
	for j, p := range proj {
		s.proj[j], s.order[j] = float64(p), int32(j)
	}
	return topK(s.order, s.proj, k, &s.kth)
}

// bucketLoss is the softmax cross-entropy of the positive pos of the query embedding u among the
// bucket's items (pos's own item masked), with logits ⟨u, v⟩/τ: log(e^{f_p} + Σ_j e^{f_j}) − f_p.
func bucketLoss(u []float32, v []float32, dim int, pos int32, items []int32, tau float64) float64 {
	logit := func(j int32) float64 { return dot(u, v[int(j)*dim:(int(j)+1)*dim]) / tau }
	fp := logit(pos)
	mx := fp
	for _, j := range items {
		if j != pos {
			mx = math.Max(mx, logit(j))
		}
	}
	sum := math.Exp(fp - mx)
	for _, j := range items {
		if j != pos {
			sum += math.Exp(logit(j) - mx)
		}
	}
	return mx + math.Log(sum) - fp
}

func (s *sce) Declare(d *Data, pos, rows []int32, _ Law, c *candidates.Step) error {
	if s.err != nil {
		return s.err
	}
	declareItems(s.Shape(), rows[:len(pos)], rows, c)
	return nil
}
