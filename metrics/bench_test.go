package metrics

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// benchInput is the benchmark corpus: n queries with one test pair each, m items, Gaussian
// embeddings of dimension d, Zipf-like item counts for the slices and the log prior.
func benchInput(n, m, d int) Input {
	rng := rand.New(rand.NewPCG(7, 8))
	in := Input{U: make([]float32, n*d), V: make([]float32, m*d), Dim: d}
	for i := range in.U {
		in.U[i] = float32(rng.NormFloat64())
	}
	for i := range in.V {
		in.V[i] = float32(rng.NormFloat64())
	}
	counts := make([]int64, m)
	in.LogPrior = make([]float64, m)
	var total float64
	for j := range counts {
		counts[j] = int64(1000 / float64(j+1))
		total += float64(counts[j]) + 1
	}
	for j, c := range counts {
		in.LogPrior[j] = math.Log((float64(c) + 1) / total)
	}
	in.ItemSlice = AssignSlices(counts, SliceSettings{})
	for x := range n {
		in.Pairs = append(in.Pairs, Pair{int32(x), int32(rng.IntN(m))})
	}
	return in
}

// BenchmarkRecallAtK measures Evaluate on 10,000 queries against 100,000 items of dimension 64
// at K = 100 (exact scoring, ranking, metrics and 100 bootstrap resamples).
func BenchmarkRecallAtK(b *testing.B) {
	const n, m, d = 10000, 100000, 64
	in := benchInput(n, m, d)
	s := Settings{K: []int{100}, Bootstrap: 100}
	b.ResetTimer()
	for range b.N {
		if _, err := Evaluate(in, s, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "queries/s")
}

// BenchmarkRankBackends ranks the BenchmarkRecallAtK corpus with the production backend and with
// blas32 (gonum's Sgemm, or OpenBLAS under the openblas tag), to compare the products alone.
func BenchmarkRankBackends(b *testing.B) {
	const n, m, d = 10000, 100000, 64
	in := benchInput(n, m, d)
	s := Settings{K: []int{100}}
	if err := s.Resolve(); err != nil {
		b.Fatal(err)
	}
	if err := checkInput(&in, &s); err != nil {
		b.Fatal(err)
	}
	for name, be := range testBackends(&in) {
		if _, ok := be.(geomBackend); ok {
			continue
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				r, err := newRanker(in, &s)
				if err != nil {
					b.Fatal(err)
				}
				if err := r.run(context.Background(), be, s.Workers); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "queries/s")
		})
	}
}

// BenchmarkEvalGrowth measures the cost growth of sampled evaluation (README, "Scale"): the
// ranking of P sampled test pairs (one per query) against M items of dimension 64, for M in
// {50k, 200k} and P in {1k, 4k}, no bootstrap, reporting ns per item × pair, which stays flat
// when the time is linear in items × sampled pairs.
func BenchmarkEvalGrowth(b *testing.B) {
	const d = 64
	for _, m := range []int{50_000, 200_000} {
		for _, p := range []int{1000, 4000} {
			b.Run(fmt.Sprintf("items=%d/pairs=%d", m, p), func(b *testing.B) {
				in := benchInput(p, m, d)
				s := Settings{K: []int{100}, Bootstrap: -1}
				b.ResetTimer()
				for range b.N {
					if _, err := Evaluate(in, s, 1); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(m)/float64(p), "ns/item-pair")
			})
		}
	}
}

// wikiInput is an evaluation the size of the main job's (configs/wiki.toml): 11,977 test pairs
// of 4,000 queries against 4,604 items of dimension 128, with training counts.
func wikiInput() Input {
	in := benchInput(4000, 4604, 128)
	for p := 0; len(in.Pairs) < 11977; p++ {
		in.Pairs = append(in.Pairs, Pair{int32(p % 4000), int32(p * 7919 % 4604)})
	}
	in.Counts = make([]int64, 4604)
	for j := range in.Counts {
		in.Counts[j] = int64(1000 / (j + 1))
	}
	in.Known = make([][]int32, 4000)
	return in
}

// BenchmarkEvaluationFamilies measures the cost of the evaluation's families on the main job's
// size (wikiInput) with its settings (K = 10, 50, 100, 300, five logit-adjustment strengths,
// 1,000 bootstrap resamples): the full ranking's metrics alone (no training counts), with
// popularity-stratified recall and the exposure of the top lists as trained (the defaults),
// with exposure at every τ, and with the sampled evaluation (100 uniform negatives per pair),
// each reporting its evaluations per second; the difference of two is the cost of a family.
func BenchmarkEvaluationFamilies(b *testing.B) {
	base := Settings{K: []int{10, 50, 100, 300}, LogitAdjust: []float64{-1, -0.5, 0, 0.5, 1}}
	bare := wikiInput()
	bare.Counts, bare.Known = nil, nil
	all := base
	all.Exposure = ExposureAll
	sampled := base
	sampled.Sampled = SampledSettings{Kind: NegativesUniform}
	for _, c := range []struct {
		name string
		in   Input
		s    Settings
	}{{"full", bare, base}, {"defaults", wikiInput(), base}, {"exposure=all", wikiInput(), all}, {"sampled", wikiInput(), sampled}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				if _, err := EvaluateAll(context.Background(), c.in, c.s, 1, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "evals/s")
		})
	}
}
