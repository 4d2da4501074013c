// Package freqsim reproduces the frequency-estimation simulation of Yi et al. 2019 ("Sampling-Bias-
// Corrected Neural Modeling for Large Corpus Item Recommendations", RecSys 2019, section 6).
//
// M items (Settings.Items); each step draws a batch of B (Settings.Batch) items independently
// from q, observes it with a streaming / multihash estimator of H (Settings.Buckets) buckets in
// total, then reads p̂ of every item (update-then-read, docs/streaming-estimator.md). For the
// first phase (Settings.StepsPerPhase steps) q_i ∝ i², for the second q_i ∝ (M-1-i)². The
// defaults (DefaultItems, DefaultBatch, DefaultBuckets, DefaultStepsPerPhase) are the paper's. The true batch-inclusion probability is
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
// Workers (Settings.Workers) is Yi et al.'s parameter-server setting: w goroutines take global
// steps from a shared counter and update one lock-free estimator (estimators.Settings.Concurrent),
// at most w steps apart (a worker starts step t once every step up to t − w has finished). An
// observation at step t whose bucket another worker has already moved to a later step is lost
// (Result.Lost); the staleness bound puts that later step in (t, t + w), so a lost arrival
// lengthens one recorded gap by at most w − 1 steps and p̂ of an item with inclusion probability
// p can only fall, to no less than p/(1 + (w−1)p) on average. TestWorkers bounds the lost
// updates and the change of the steady TV by these statements; docs/streaming-estimator.md
// derives them.
//
// How the workers interleave is Settings.Interleaving. InterleavingSimulated (the default) plays
// the parameter server's staleness from the seed on one goroutine: step t writes at time
// t + d_t, d_t uniform on [0, w) from a random stream of (seed, t), the writes happen in the
// order of these times, and each worker reads p̂ right after its write, missing the writes of
// the (at most w − 1) earlier steps still delayed. A step can only be overtaken by one of the
// w − 1 steps after it, the staleness bound above; for an item in every batch the share of lost
// observations is 1/8 with w = 2 and 20/81 with w = 3 (TestWriteOrderLaw derives them).
// InterleavingThreads runs w goroutines as described above: the interleaving is the scheduler's
// and depends on the machine and its load.
//
// Run runs one (α, m, workers, seed) cell; Jobs and RunGrid run the grid α × m × workers × seeds.
// The batch of step t depends only on the seed and t, so cells with the same seed see the same
// stream (common random numbers) whatever their worker count, and the hashes depend only on the
// seed and m. One worker, and any number of workers in the simulated interleaving, is
// reproducible bit for bit; with threads the TV and lost updates vary from run to run.
package freqsim
