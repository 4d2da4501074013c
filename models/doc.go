// Package models holds the two-tower retrieval model of Yi et al. (2019), "Sampling-Bias-Corrected
// Neural Modeling for Large Corpus Item Recommendations" (sections 2 and 5), and its training loop.
//
// A tower mean-pools (weighted) the embeddings of its entity's categorical feature bags (one table
// per datasets.Field, hashed vocabularies included; optionally shared between the towers for
// equally named fields, as in the paper), concatenates the dense features, applies an MLP with
// an activation between layers (Settings.Activation: one of the Activation constants;
// optionally residual, h ← h + act(h·W + b)) and L2-normalises the output with an epsilon. The
// score of a query and an item is ⟨u, v⟩; the loss (package losses) divides it by the
// temperature τ.
//
// A tower has one forward definition (fwd in tower.go), from which both the training graph and
// the inference graphs of EmbedQueries, EmbedItems and the LSH estimator's keys are built, so
// that they cannot drift apart. Each activation is defined once, in the table activations, by
// its expression in stock Gorgonia ops; the fused dense op (x·W + b with ReLU or identity in one
// op with a hand-written gradient) and the L2-normalisation op are fast paths, tested equal to
// the tower written entirely in stock ops and differentiated by autodiff
// (TestTowerFusedMatchesExpression).
//
// Training (Train) runs a Gorgonia tape machine over custom ops: a dense layer with fused bias and
// ReLU, the L2 normalisation, the score matrix U·Vᵀ as one Gemm, and the loss op of package
// losses; their gradients are custom ops too. The ops own their output tensors, so a step
// allocates almost nothing. Embedding rows are gathered and pooled outside the graph into the
// towers' input matrices; after backpropagation the input gradients are scattered back into the
// rows the batch used, and only those rows and their optimiser state are updated (lazy
// Adam/Adagrad/momentum), so a step's cost does not depend on the table sizes. The estimator of p̂
// runs inside the step in the order of Yi et al.'s Algorithm 1: observe the batch at global step
// t, then read p̂ for the logQ correction (docs/logq.md §5 and §6: sequential order
// keeps the streaming estimators meaningful under drift).
//
// Parallelism is inside the ops rather than between the towers: every matrix product and
// row-wise kernel is split over the cores in blocks fixed by the shapes (so results do not depend
// on scheduling and training is deterministic), and the loss op parallelises its rows. One tape
// machine runs forward and backward as one program; running the two towers as concurrent
// machines would need each tower's forward and backward in separate programs joined by the score
// machine, and with both cores already busy inside each heavy op it could only overlap the
// small element-wise ops.
//
// A query can also be a history of items (Settings.Sequence, docs/encoders.md; a Window of
// histories padded on the left), read from the dataset's sequence index: the mean encoder's
// training rows are events, each with its history as its query; SASRec trains B windows of each
// user's items a step, every position of a window a row of the step (StepGeometry: the sampler's
// geometry with a row per position, padding masked), so that every loss, sampler and estimator
// runs unchanged; evaluation queries a held-out pair by its history (EmbedPairQueries). The mean
// encoder is Yi et al.'s watch-history feature
// (section 5): the mean of the history's item embeddings (zero for an empty history) joins the
// query tower's input like a feature bag, gathered outside the graph from the item tower's id
// table under ShareEmbeddings (the paper's sharing of the video id table), its gradient
// scattered back into the rows from both towers. The sasrec encoder is Kang & McAuley's
// self-attentive sequential encoder (ICDM 2018) in the form of the authors' code: item
// embedding scaled by √d plus a learned positional embedding, blocks of causal multi-head
// self-attention and a point-wise feed-forward layer with residual connections, layer
// normalisation (ε = 1e-8) and dropout, padding masked, a last normalisation; its output is the
// hidden state at every position. SequenceSettings.EmbeddingScale and LayerNormEpsilon give the
// form of gSASRec's and Khrylchenko et al.'s code instead (no scale, ε = 1e-5). Its forward
// definition (sasrecFwd) serves training and inference (which has no dropout); it is written as an
// expression of stock ops and a stable causal softmax primitive, and fused (layer normalisation and
// the attention's causal per-head products as ops with their gradients, the products on
// internal/simd's micro-kernel), the two tested equal and against a plain-Go reference of the
// equations. Dropout masks are inputs of the training graph, drawn every step from the caller's
// seeded random source.
//
// Evaluate is a model's evaluation on a part of a dataset (the test or the validation pairs) as
// one call: it owns the query rows (EmbedPairQueries, the one method through which an
// evaluation embeds its queries, a row per query or per query and history), the logits'
// temperature, the training label prior of post-hoc logit adjustment, the filter's exclusions,
// the popularity slices, the most-popular baseline and the bins, and ranks with package metrics.
// Training selects on the validation set with TrainSettings.ValidateEvery (Selection): the model
// is evaluated there every N epochs by the selection metric, training stops early after
// TrainSettings.Patience validations without a better score, and the model ends with the
// parameters of the best validation, which checkpoints keep beside the current ones.
// metrics.Settings.SelectLATau makes Evaluate choose the post-hoc logit-adjustment strength on
// the validation set before evaluating the test set at it alone.
//
// Save writes model.bin, Load reads it; TrainResumable writes training checkpoints (parameters,
// optimiser state, estimator state, random-number states, position in the epoch, curve) every
// TrainSettings.CheckpointEvery steps or every epoch, and resumes from one so that the run ends
// bit-identical to an uninterrupted one. A model file's bytes depend on the model alone, not on
// the process that wrote it (whether it resumed, what it read before). A checkpoint holds only
// what resuming needs: the optimiser state of a table's touched rows when the others' is zero,
// and the estimator's state compressed; ReadCheckpointCost tells what a run's checkpoints cost.
// Both files are written atomically and carry a CRC-32C of their contents: a flipped bit is an
// error naming the file (VerifyCheckpoint checks a checkpoint without reading it). Both are
// streamed (the layout is documented in save.go): the parameters go to the file, and back into
// the model, through a small buffer, so that saving or loading a model of a million-item corpus
// needs no memory in proportion to it. Files of earlier versions are refused, naming their
// version.
//
// The default build is pure Go (internal/gemm's blocked float32 kernel, which parallelises large
// products itself; gonum's BLAS for float64). With -tags openblas the float64 products, and the
// float32 ones on a processor without AVX2 and FMA (where internal/gemm has no kernel), go to
// OpenBLAS at one thread, called directly, and large products are split across goroutines in Go.
package models
