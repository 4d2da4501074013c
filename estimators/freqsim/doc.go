// Package freqsim reproduces the frequency-estimation simulation of Yi et al. 2019 ("Sampling-Bias-
// Corrected Neural Modeling for Large Corpus Item Recommendations", RecSys 2019, section 6).
//
// M items (default 1000); each step draws a batch of B (128) items independently from q, observes
// it with a streaming / multihash estimator of H (5000) buckets in total, then reads p̂ of every
// item (update-then-read, problem 22 of logq-problems-and-derivations.md). For the first phase
// (10,000 steps) q_i ∝ i², for the second q_i ∝ (M-1-i)². The true batch-inclusion probability is
// p_i = 1-(1-q_i)^B and the error of a step is Yi's total-variation distance
//
//	TV = Σ_i |p̂_i - p_i| / (2B).
//
// Σ_i p_i is the expected number of distinct items in a batch (at most B), so dividing by 2B rather
// than by 2 Σ_i p_i makes TV a little smaller than the total-variation distance between the
// normalised vectors p̂ and p; it is the normalisation of the paper.
//
// Item 0 has q = 0 in the first phase and item M-1 in the second: such an item never appears, p = 0,
// and its p̂ (its initial value, or its estimate from the first phase) counts in full in TV.
// Item ids go through the estimator's seeded hash, so items collide in buckets; the collisions are
// what the multiple hashings of Algorithm 3 are for.
//
// Run runs one (α, m, seed) cell; Jobs and RunGrid run the grid α × m × seeds. The batches depend
// only on the seed, so cells with the same seed see the same stream (common random numbers), and
// the hashes depend only on the seed and m.
package freqsim
