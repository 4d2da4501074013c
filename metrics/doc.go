// Package metrics evaluates two-tower retrieval models by exact full-corpus ranking: Recall@K,
// NDCG@K and MRR for every test pair, over all pairs and per popularity slice (head, torso,
// tail) of the pair's item, with post-hoc logit adjustment and bootstrap confidence intervals;
// and, from the same ranking, popularity-stratified recall, a popularity-debiased test set,
// what the top-K lists recommend (exposure), propensity-scored metrics, a sampled evaluation
// beside the full one and TREC run files. docs/metrics.md states every definition with its
// source.
//
// # Metrics
//
// For a test pair (x, y) every item j of the corpus gets the score s_j = U[x]·V[j] and, for a
// logit-adjustment strength τ (Menon et al., "Long-tail learning via logit adjustment", ICLR 2021,
// post-hoc form), the adjusted score x_j = s_j + a_j with a_j = float32(-τ·log π_j) (a_j = 0 for
// τ = 0). The rank of y is
//
//	rank = 1 + #{j ≠ y, j not removed : x̂_j ≥ x̂_y}
//
// # Ties
//
// x̂ is the decision score: Σ_l U[x][l]·V[j][l] + a_j evaluated in float64, over l in increasing
// order, from the float32 embeddings. Every product of two float32 numbers is exact in float64,
// so x̂ is the same on every processor, with or without fused multiply-adds, and does not depend
// on the BLAS or kernel that computed the float32 scores: the ranks are identical under the
// pure-Go, assembly, noasm and OpenBLAS builds. A tie is x̂_j = x̂_y exactly (items with equal
// embeddings and priors always tie), and ties count against the positive (pessimistic): an item
// tied with the positive is ranked ahead of it whatever its index, and a model that scores every
// item alike gets rank M. With Settings.Filter the items of Input.Exclude[x] other than y itself
// are removed: the query's training items (filter "seen", an item already consumed is not
// recommended again) or its train and test items (filter "known", the standard "filtered"
// protocol of link prediction).
//
// Each test pair has one relevant item, so every metric is a function of its rank:
//
//	Recall@K = 1 if rank ≤ K else 0  (y is among the K highest-scoring items; the
//	                                  single-positive case, docs/logq.md §8)
//	NDCG@K   = 1/log2(rank+1) if rank ≤ K else 0  (the ideal DCG is 1)
//	MRR      = 1/rank, with the full rank, not truncated at any K
//
// and a reported value is the mean over the test pairs of a slice. No top-K list is built: the
// rank is counted directly, which is exact and cheaper than a heap or selection.
//
// # Exact scoring
//
// The score matrix U·Vᵀ is computed in blocks of queries × tiles of items, never whole, in
// parallel over Settings.Workers goroutines, and each tile is scanned while it is in cache. The
// product is computed by
//   - on amd64 with AVX2 and FMA, in every build (the openblas tag included): an assembly
//     micro-kernel (package internal/simd; 6 queries × 16 items from operands packed tile by
//     tile, one fused multiply-add per term). On a tile it is about as fast as OpenBLAS, and the
//     ranking is faster with it (no cgo call per tile): 14,100 against 9,400 queries/s in
//     BenchmarkRankBackends on an AMD EPYC, 13,000 against 10,300–11,000 in BenchmarkRecallAtK on an
//     Intel Xeon;
//   - on processors without AVX2 or FMA (or with them hidden by GODEBUG=cpu.avx2=off), on other
//     architectures, or with the noasm tag: gonum's pure-Go Sgemm, or under the openblas tag
//     OpenBLAS (gonum.org/v1/netlib, cgo, -lopenblas) kept to one thread, called directly (no
//     package's BLAS is switched globally).
//
// Every backend gives the same ranks (see Ties): the choice changes the speed only.
//
// The BLAS is called in the U·Vᵀ layout, gonum's faster one. The threshold counts of the scan use
// AVX2 too where available.
//
// The float32 product decides almost every item; x̂ is computed only for the few items whose
// float32 score lies within a rigorous bound on float32 and float64 rounding of x̂_y (see Ties),
// so the ranks are exact for x̂ at the cost of the float32 product.
//
// # Slices
//
// AssignSlices puts each item in head, torso or tail by its training count: by thresholds
// (Rawat et al., "Disentangling Sampling and Labeling Bias for Learning in Large-Output Spaces",
// ICML 2021, long-tail setting: ≥ 100 head, < 20 tail), by cumulative interaction mass (thirds of
// the training interactions) or by item-rank thirds; or, with the methods "quantiles" and
// "mass_quantiles", in n popularity bins (SliceBin, PopularityBins) of equal numbers of items or
// equal interaction mass, items of equal count never split. Every Result carries its slice's
// size in test pairs and corpus items. BinShares describes the bins; PopularityBalance sums up
// per-bin recalls as their macro mean and their balance 1 − Gini (Prakash et al. 2024).
//
// # Baselines
//
// MostPopular evaluates the most-popular ranking (by training count, PopularityRanks) like a
// model, without training; RandomBaseline is a uniformly random ranking's Recall@K with the
// central 95% range of its recall over the evaluated pairs, the line below which a model is
// indistinguishable from chance. Both are filtered as a model's rankings are (Settings.Filter):
// a pair whose ranking holds M′ items has the random Recall@K min(K, M′)/M′. RandomRecall is the
// unfiltered one in closed form, K/M.
//
// # Popularity-stratified recall and the debiased test set
//
// With Input.Counts, each evaluated pair p gets the weight w_p = pop(y_p)^−γ, pop(y) the
// interactions of the item in training and in the test set (at least 1), γ = Settings.Gamma.
// Popularity-stratified Recall@K (Steck, "Item Popularity and Recommendation Accuracy", RecSys
// 2011) is Σ_p w_p·[rank_p ≤ K] / Σ_p w_p over a slice's pairs (no bootstrap interval: its
// intervals are across seeds). The debiased test set (Settings.Debiased) is a resample with
// replacement of as many pairs as were evaluated, pair p drawn with probability w_p/Σ w from a
// source seeded by Input.TestSeed (DebiasedSample), the same for every run on the same data; its
// Recall@K, NDCG@K and MRR by slice are Results of Test TestDebiased. Its expected Recall@K is
// the stratified one.
//
// # Exposure
//
// With Input.Counts, the ranking keeps the top lists of the test queries (each query's list: its
// ranking without its excluded items other than its own test items) for the ranking as trained,
// or every τ (Settings.Exposure "all"), and evaluates at every K, over the test queries: ARP@K,
// the mean over queries of the mean training count of the listed items, and APLT@K, the mean
// share of long-tail items (the tail slice, or the rarest popularity bin), both of
// Abdollahpouri, Burke & Mobasher ("Managing Popularity Bias in Recommender Systems with
// Personalized Re-ranking", FLAIRS 2019); coverage@K, the share of the corpus in some list;
// Gini@K, the Gini coefficient of the items' exposure (times listed) over the whole corpus; and
// novelty@K, the mean self-information −log2 p(i) of the listed items (Zhou et al., "Solving the
// apparent diversity–accuracy dilemma of recommender systems", PNAS 2010), p(i) = (c_i + 1)/(N +
// M) the add-one smoothed training share. The means over queries have bootstrap intervals over
// the queries; coverage and Gini none. The lists are found while the tiles stream past (see
// topLists), decided by the same decision scores and tie rule as the ranks.
//
// # Propensity-scored metrics
//
// On multi-label data (Input.MultiLabel: a query is an example, its test items its labels),
// Jain, Prabhu & Varma's propensity p_l of label l (Propensities, PropensitySettings) weighs
// each hit by 1/p_l: PSP@K = Σ_q Σ_{l ∈ top K(q) ∩ R_q} 1/p_l / Σ_q (the same sum over the best
// possible top K, the min(K, |R_q|) labels of R_q of largest 1/p), normalised as the Extreme
// Classification Repository reports it, and PSRecall@K, the mean over examples of
// Σ_{l ∈ top K ∩ R_q} 1/p_l / Σ_{l ∈ R_q} 1/p_l.
//
// # Sampled negatives
//
// With Settings.Sampled, every evaluated pair (x, y) also gets n negatives (DrawNegatives),
// distinct, none y nor a known positive of x (Input.Known), drawn uniformly or ∝ the training
// count from a source seeded by Input.TestSeed and the pair, so that every run on the same data
// ranks the same candidates; y's sampled rank, in the ranking as trained (RefTau), is 1 + the
// negatives of decision score at least its own. HR@K (sampled_recall), NDCG@K and MRR over the 1 + n candidates and Krichene &
// Rendle's corrected estimates of the full Recall@K and NDCG@K (CorrectedValues: "On Sampled
// Metrics for Item Recommendation", KDD 2020, §5) are reported by slice.
//
// # Run files
//
// With Settings.WriteRun, Evaluation.WriteRun writes each evaluated pair's top max(K) (PairList)
// in TREC format and WriteQrels the pairs: qid is the pair's index, so that Recall@K (one
// relevant document per qid) and NDCG@K computed from them by trec_eval, ir_measures or ranx
// are metrics.csv's: the pair's list is its query's list without the query's other test items
// that the filter removes, ordered by decision score with the pair's item after its ties (the
// tie rule of its rank), and the score column holds the decision score in its shortest exact
// form. A tool that re-sorts by score breaks exact ties its own way (trec_eval by document id);
// MRR from a run file is truncated at max(K), where metrics.csv's uses the full rank.
//
// # Sampled evaluation
//
// With Settings.MaxPairs = P below the number N of test pairs, Evaluate ranks a seeded sample of
// P pairs (SamplePairs), stratified by the slice of the pair's item: a slice holding n_s pairs
// gets its share P·n_s/N rounded by largest remainder, within one pair of it, and a uniform
// sample of its pairs; each sampled pair is still ranked exactly against the whole corpus.
// Result.Pairs is the sample's size and Result.TestPairs the slice's test pairs. The sample is a
// uniform random subsample of each slice's test pairs, themselves a sample of the population, so
// the bootstrap intervals below, computed on the sample, include the sampling: they widen as
// 1/√P.
//
// # Model selection
//
// A run can be selected on a validation set, never on its test set: the validation metric
// (Settings.SelectMetric at SelectK over the pairs of SelectSlice, ResolveSelect; NDCG@10 over
// all by default, the metric of SASRec's and gSASRec's early stopping) chooses the training
// epoch (package models) and, with Settings.SelectLATau, the post-hoc logit-adjustment strength:
// the τ of LogitAdjust whose validation metric is highest (the smallest |τ| of equal ones) is
// the only one the test set is evaluated at. SelectValue reads the metric from an evaluation's
// results.
//
// # Calibration
//
// Calibrate measures a model's estimate p̂ of P(item | query) against the true probability p,
// where the data know it (the synthetic source): over every item of the corpus for each measured
// query, p̂ is the softmax over the corpus of the logits, their sigmoid or their exponential
// (Link, the loss's own), and optionally Khrylchenko et al.'s P̂ (Khrylchenko et al., "Correcting
// the LogQ Correction", RecSys 2025): the softmax probability estimated from k' uniform
// negatives. The pairs are binned by p̂ on a log scale, four bins a decade (ReliabilityEdges),
// and each slice gets the expected calibration error Σ_b (n_b/n)·|mean p̂ − mean p| (Naeini et
// al. 2015; Guo et al. 2017, with the true probability in place of the observed frequency), the
// same over the slice's mean true probability, and the ratio Σ p̂ / Σ p. docs/calibration.md
// defines which pairs enter and why.
//
// # Progress and cancellation
//
// EvaluateContext reports ranked pairs, pairs/s and the ETA (a live bar on a terminal, plain
// lines otherwise, through internal/progress as training does) and stops within one tile of
// scores or one bootstrap resample of its context being done.
//
// # Memory
//
// Evaluate reads the caller's U, V, ItemSlice and LogPrior in place and allocates nothing in
// proportion to the corpus: per goroutine, one block of queries and one tile of items (packed for
// the kernel) and a tile of scores and adjustments (384×1024 float32 scores, 1.5 MB); per
// test pair and τ, about 140 bytes (its running count and band, its rank and its metric values,
// measured by TestEvaluateMemory, which bounds it at 160); per query row of U, 8 bytes; per
// dimension, 8 bytes. (gonum's pure-Go Sgemm, the blas32 backend without the kernel, also makes
// short-lived garbage, its goroutine closures, for every tile product.) The bootstrap adds Bootstrap × (2·len(K)+1) float64 per τ.
// With Input.Counts, popularity-stratified recall and the top lists add at most about 100 bytes
// per pair and τ more (TestEvaluateMemory), the lists max(K) + T − 1 items per test query (T its
// test items) and τ kept, and during the ranking each goroutine about 20·(max(K) + the query's
// special items) bytes per query of its block (20·: candidates of 8 bytes, up to twice as many,
// and their scores); the sampled evaluation 4·n bytes per pair. For a million
// items of dimension 64 the caller's V is 256 MB and Evaluate's own memory for 50,000 sampled
// pairs and one τ about 6 MB.
//
// # Confidence intervals
//
// Lo and Hi of a Result are the 2.5% and 97.5% empirical quantiles (the smallest resampled mean
// whose empirical CDF reaches the level, gonum stat.Empirical) of the metric's mean over
// Settings.Bootstrap resamples, with replacement, of the slice's test pairs ("all" resamples all
// pairs; each slice resamples its own). The resamples are drawn from PCG sources seeded from
// Evaluate's seed, so they are reproducible and independent of the number of workers. MeanCI
// aggregates a metric across training seeds with a Student-t interval.
package metrics
