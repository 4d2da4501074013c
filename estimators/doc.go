// Package estimators implements the sampling-probability estimators that feed logQ correction:
// for an item y, p̂(y) estimates the probability that y appears in a training batch, and
// log p̂(y) is subtracted from y's logit in the batch softmax (Yi et al. 2019, "Sampling-Bias-Corrected
// Neural Modeling for Large Corpus Item Recommendations", RecSys 2019, section 3).
//
// Every estimator implements [Estimator]: Observe(t, items) records the items of the batch at global
// step t and Prob(item) reads p̂. The natural call order within a step is update-then-read
// (docs/logq.md §5): observe the batch, then read p̂ for its items, so
// that the correction of an item uses the inter-arrival gap that ends at the current step.
//
// The kinds (see [Settings]):
//
//   - exact: the oracle. It counts every occurrence of every item it has seen (online mode) or
//     takes the counts of a full pass over the training data (static mode), q = count/total, and
//     turns q into p by the binomial formula 1-(1-q)^B (or the linear min(1, B·q)). An item not
//     counted (yet) is taken as counted once, q = 1/total, so that p̂ > 0 and log p̂ is finite.
//   - unigram: p from a given frequency table q (the normalised [Env].Counts), by the same formulas.
//     (1-(1-q)^B is the probability that the item is in a batch; docs/logq.md §3.)
//   - streaming: Yi et al. Algorithm 2. Two arrays A (last step at which a bucket was seen) and
//     B (exponential moving average of the bucket's inter-arrival gap) of H buckets, a seeded hash h:
//     on an arrival at step t, B[h] ← (1-α)B[h] + α(t - A[h]), A[h] ← t; p̂ = 1/B[h].
//   - multihash: Yi et al. Algorithm 3. m pairs of arrays of ⌊H/m⌋ buckets each with independent
//     hashes (the same total memory as streaming with H), p̂ = 1/max_i B_i[h_i(y)]: collisions only
//     shorten a bucket's gaps, so the largest gap is the least collided estimate (docs/streaming-estimator.md §6).
//   - lsh: the embedding-keyed variant of docs/streaming-estimator.md §8. The key of an
//     item is computed from its embedding (random unit projections of the L2-normalised embedding,
//     each cut into bins on [-1, 1], combined into one integer; see [EmbeddingKeyer]) and fed to a
//     streaming or multihash estimator in place of the item id, so that items with nearly the same
//     embedding share one frequency estimate.
//
// # Semantics of the streaming estimators
//
// A bucket records at most one observation per step: an item present several times in a batch, and
// two different items that hash to the same bucket in the same batch, are one arrival of that bucket
// at that step (public PyTorch implementations take unique() of the hashed batch; a literal per-item
// reading of Yi's pseudo-code would feed a gap of 0 for the second one). Observe calls with the same
// t add to the same step.
//
// The first arrival of a bucket (A = 0) is set by Settings.FirstArrival: "zero" (the default) is
// Yi's pseudo-code and of public implementations, where A starts at step 0 and the first arrival at step t feeds
// the gap t; for an item that has been in the stream since step 0 this is a sample of its
// inter-arrival gap like any other (the first arrival time of a Bernoulli(p) stream is geometric with
// mean 1/p). "skip" only records A = t, so that B keeps its initial value until a true gap between
// two arrivals is seen; this is the better choice when items enter the corpus mid-stream, where
// t - 0 would be a much too long gap.
//
// B starts at 1 (Settings.Init "one", Yi's pseudo-code: every item arrives every step) or at the
// uniform prior M/B (init "uniform", docs/streaming-estimator.md §5: each item arrives on average every M/B steps).
//
// p̂ = 1/B lies in (0, 1] because every gap is at least one step and B starts at 1 or more.
// An estimate only moves when its bucket is seen: an item that stops appearing keeps its last
// estimate (the EMA has no arrival to learn from).
//
// # Concurrency
//
// With Settings.Concurrent the streaming estimators are lock-free and may be updated and read by
// many goroutines at once (Yi's parameter-server setting, docs/streaming-estimator.md §7). A is
// claimed with a compare-and-swap from its old value a to the step t, so every recorded gap
// t - a is fed to B exactly once; B is updated with a compare-and-swap loop on its float64 bits,
// so no update of B
// is ever overwritten and no value is torn. An observation at step t is dropped when its bucket has
// already recorded step t (the one-observation-per-step rule) or a later step (a worker lagging
// behind another): that is the one observation a conflicting write loses, a lost update that
// the concurrent form counts (its Lost method, reached by a type assertion to
// interface{ Lost() int64 }), and the gap it would have ended is part of the later recorded gap
// (the recorded gaps of a bucket always sum to its last step). Two gaps recorded at nearly the same time may be applied to B in either order, which
// changes B by at most α²|Δ1 - Δ2|. Readers see the latest completed updates.
// Without Settings.Concurrent an estimator must not be used by several goroutines at once, except
// that the unigram and static exact estimators never change and are always safe to share.
//
// Hashing is the splitmix64 finaliser of a seeded key plus the item id, reduced to a bucket by the
// multiply-shift of Lemire (2019); Observe and Prob of the streaming estimators do not allocate.
package estimators
