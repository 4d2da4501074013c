// Package losses builds the training losses of the workbench as Gorgonia graph
// nodes: the plain and logQ-corrected batch softmax of Yi et al. (2019), the
// sampling × weighting grid of Rawat et al. (2021), full-softmax and
// logit-adjusted references, the MSE + Gramian baseline, the logistic family
// of the candidate-sampling table, gBCE, PSL and the debiased contrastive
// loss, and the LogIn and LogOut forms of InfoNCE for several positives per
// query.
//
// A Loss is made from Settings (the [loss] section of a config) and the geometry of the
// sampler's candidates (candidates.Geometry: which column holds each row's positive — the
// diagonal for in-batch B×B or mixed B×(B+m) scores, column 0 for uniform B×(1+m), the item's
// column for the full corpus B×M —, which columns every row shares and which are its own, how
// many rows each example has and whether some are padding), and adds a scalar node on the R×C
// matrix of raw scores s_ij = <u_i, v_j> (Loss.Node). The per-step input is a *candidates.Step:
// the items of the rows and columns and the named side inputs, which the trainer overwrites
// before every run.
//
// # Side inputs
//
// A loss reads the per-row and per-column quantities of a step by name: the side inputs its
// producers declare on the step (candidates.Step.Declare), each with a value per item (at every
// column's item and every row's positive) or per row. Every training step has candidates.LogQ
// and candidates.LogP, declared by the sampler (its per-draw probability q and inclusion
// probability p̂), candidates.LogPrior, the training label prior (the data), and
// candidates.Rewards, the rows' rewards (the data); a sampler may declare more
// (samplers.SideDeclarer) and a dataset adds its per-item values (datasets.Dataset.ItemValues).
// An expression reads any of them with Expr.Side (the columns' values, 1×C, or R×C when each
// row has columns of its own; a per-row input's R×1) and Expr.PosSide (the rows' positives',
// R×1); LogQ, LogP, LogPrior, their Pos forms and Rewards are shorthands. A name the step does
// not have is an error naming the variant and the sampler (MissingSideError) when the node is
// built, for the fused kernels as for the expressions; the rewards alone default, to 1. So a
// registered loss reads a quantity that a registered sampler or a dataset declares with no
// change to this package, to models or to workbench (examples/side-input).
//
// # Expressions and fused kernels
//
// Every variant is defined once as a Gorgonia expression over graph input nodes: the scores,
// the side inputs, the positive's column (Expr.Pos, Expr.AtPos) and the negative mask
// (Expr.Neg, Expr.NegLog). The R×C arithmetic is written with this package's own ops
// (prim.go: AddCols, AddRows, AddEach, MulCols, MulRows, MulScalar, RowSum, RowDot, AtPos,
// LogSumExp, SoftmaxLoss, Softplus, Sigmoid, StopGradient), each one Gorgonia op with its own
// gradient, tested against the stock expression it stands for and against finite differences;
// Gorgonia's stock ops (Exp, Log, Log1p, Neg, Add, Sub, Mul, HadamardProd, Sum, Rectify, ...)
// serve for scalars, row and column vectors. A binding copies the step into those inputs each
// time the graph runs, before the expression reads them; the positive columns, the masks
// (accidental hits, dedupe's copies, padding rows' columns) and mse_gramian's column weights
// are derived from the step by the same code (the plan) as in the fused kernels, while the
// logit corrections (−log Q, log w, τ_la·log π) are written in the expressions from the side
// inputs, as the equations read. Autodiff gives the gradient.
// Most built-in variants also have a fused kernel with a hand-written
// gradient, an optimisation that the tests keep equal to the expression
// (value and gradient, every variant × option × geometry, float32 and float64);
// Settings.Impl chooses ("auto": the fused kernel where there is one, but for the variants
// listed in autoExpression, which is where making the expression a variant's default is one
// line).

// A new variant is a function from an *Expr to a scalar node, added with
// Register together with its options struct, which is decoded strictly from
// [loss.options]; see examples/custom-loss for a program that registers one
// and runs the workbench command.
//
// # Notation
//
// Row i has positive column p, logits f_ij = s_ij/τ (τ = Settings.Temperature),
// reward r_i (side input rewards, default 1) and negatives N_i: every column except
// p, minus the accidental hits (columns whose item is the row's positive item)
// when remove_accidental_hits is set (and, with logq_probability = dedupe,
// minus every further copy of an item that fills an earlier column), minus the columns of
// padding rows. The number of negatives in Rawat's
// weights and in expected_count's Q = m·q is m = C−1 (NegativeCount), not counting the columns
// without an item of a padded diagonal geometry. q_j is the sampler's per-draw
// probability (side input log_q, at the column and at the row's positive), p̂_j the
// probability that item j is in a step's candidate set (log_p),
// π_j the training label prior (log_prior). The loss is
// L = (1/B)·Σ_i r_i·ℓ_i (reduction mean) or Σ_i r_i·ℓ_i (sum), over the B rows of the step that
// are not padding (candidates.Geometry.Padded: a padding row has no loss and is not counted
// in B).
//
// An additive correction c_ij enters the logit as z_ij = s_ij/τ + c_ij, or as
// z_ij = (s_ij + c_ij)/τ with correct_at = "scores" (systems disagree on
// whether τ divides the correction).
//
// # Variants
//
// Each item names the expression (in expr.go) and says whether a fused
// kernel exists; every variant has the expression.
//
//   - plain (Yi et al. eq. 3): ℓ_i = −log softmax_p(f_i·) over {p} ∪ N_i.
//     softmaxExpr; fused.
//   - logq (Yi et al. eq. 4; docs/logq.md §2-4): the same with
//     c_ij = −log Q_j on every column, the positive included (its own
//     −log Q_p); uncorrected_positive leaves the positive's logit
//     uncorrected, as a zeroed diagonal does (docs/logq.md §4). What Q is, is
//     logq_probability: expected_count (the default) Q_j = m·q_j, the
//     expected number of copies of the item among a row's m = C−1 negative
//     draws; inclusion Q_j = p̂_j, the probability that the item is in the
//     step at all (Yi et al.'s Algorithm 2 as written); dedupe Q_j = p̂_j on
//     one column per distinct item, the other copies masked
//     (Horvitz–Thompson). Under in-batch sampling a head item with B·q > 1
//     fills several columns while p̂ ≤ 1, so inclusion over-weights it in the
//     partition function and is not a consistent estimate of the full
//     softmax; expected_count and dedupe are (a Monte-Carlo test checks all
//     three as B grows). expected_count is the default because it keeps every
//     column and its q is known exactly from the training counts (q_source);
//     in the softmax it equals relative (the constant log m cancels).
//     softmaxExpr (Expr.LogQCorrection); fused.
//   - constant, importance, relative, tail (Rawat et al. eq. 5, Table 1 and
//     eq. 14): ℓ_i = log[1 + Σ_{j∈N_i} w_ij e^{f_ij − f_ip}] with
//     w = 1/m, 1/(m·q_j), q_p/q_j and π_j/(m·q_j·π_p). Since
//     w·e^f = e^{f + log w}, a negative's logit becomes f + log w (importance
//     subtracts log(m·q_j); Remark 3's "−log w" has the sign wrong, Remark 4
//     and eq. 5 fix it) and the positive's logit is never corrected: it is the
//     "1" term (relative ≡ importance with the positive corrected too,
//     Remark 4). In expectation over negatives drawn from q these are bounded
//     by the implicit loss log[1 + Σ_{y'≠y} ρ e^{f_y' − f_y}], ρ = m·q·w
//     (Lemma 2, Proposition 4; Table 2). rawatSoftmaxExpr; fused.
//   - the same four with form = "decoupled" (Rawat et al. eq. 6):
//     ℓ_i = φ(f_ip) + Σ_{j∈N_i} w_ij φ(−f_ij), φ(z) = log(1 + e^{−z}); its
//     expectation is φ(f_y) + Σ ρ φ(−f_y') exactly (Lemma 1).
//     rawatDecoupledExpr; fused.
//   - full: the unsampled softmax cross-entropy over the whole corpus
//     (layout corpus, column j = item j, Rawat et al. eq. 2). softmaxExpr;
//     fused.
//   - logit_adjusted (Menon et al. 2020): softmax cross-entropy over the
//     corpus with c_ij = τ_la·log π_j (τ_la = la_tau). softmaxExpr; fused.
//   - nce, negative_sampling, sampled_logistic (the candidate-sampling
//     table): logistic loss on G with the positive labelled 1 and the
//     negatives 0, ℓ_i = −log σ(G_ip) − Σ_{j∈N_i} log(1 − σ(G_ij)), where
//     G = F − log Q with Q(y|x) as for logq (nce, sampled_logistic) or G = F
//     (negative_sampling); sampled_logistic always removes the positive from
//     the negatives (S_i − T_i). logisticExpr; fused.
//   - mse_gramian (Krichene et al. 2019, the third baseline of Yi et al.'s
//     tables): L = (1/B)·Σ_i r_i (s_ip − 1)² + λ/(B·C_g)·Σ_i Σ_{j∈G} w_j s_ij²
//     (times B for reduction sum) on the raw scores, where the Gramian columns
//     G are all C columns (C_g = C) except under layout first, where they are the m
//     drawn negatives (C_g = C−1; each row's own with Geometry.PerRow), and but the
//     padding rows' columns. The columns are drawn ∝ q, so each is
//     weighted w_j = 1/(M·q_j) (the step's Items = M, side input log_q): the term's
//     expectation is then λ/B·Σ_i (1/M)·Σ_y s_iy², on S = UVᵀ the uniform
//     Gramian regulariser λ/(B·M)·<UᵀU, VᵀV> of Krichene et al. over the whole
//     corpus, not a popularity-weighted one (w_j = 1 under the uniform sampler,
//     where q = 1/M); λ = gramian_weight. mseGramianExpr (the weights w_j
//     from Expr.Gram); fused.
//   - logq_corrected (Khrylchenko et al. 2025): with the proposal without
//     the positive Q'(j) = q_j/(1 − q_p) and ŝ_ij = f_ij − log Q'(j) over the
//     negatives S_i (copies of the positive always removed, k'_i of them),
//     ℓ_i = −f_ip + log Σ_{j∈S_i} e^{ŝ_ij}, each row weighted by
//     stop-gradient(1 − P̂_i), P̂_i = e^{f_ip}/(e^{f_ip} + (1/k'_i)Σ e^{ŝ_ij}).
//     With a uniform proposal and each other item of the corpus drawn once,
//     P̂ is the full-softmax probability and the gradient the full
//     softmax's. q is the side input log_q, from q_source as for the Rawat weightings.
//     logqCorrectedExpr; expression only.
//   - gbce (Petrov & Macdonald 2023, §4): ℓ_i = β_i·softplus(−f_ip) +
//     Σ_{j∈N_i} softplus(f_ij), β_i = α_i(t(1 − 1/α_i) + 1/α_i), α_i = k_i/(M − 1)
//     with k_i = |N_i| and M the step's Items; t = 0 is negative_sampling. Uniform
//     negatives only: a geometry of layout first whose draws are uniform
//     (candidates.Geometry.Uniform). gbceExpr; expression only.
//   - psl (Yang et al. 2024, §3): ℓ_i = log Σ_{j∈{p}∪N_i} σ(s_ij − s_ip)^{1/τ}
//     with the surrogate σ(d) = tanh(d) + 1, arctan(d) + 1 or max(d + 1, 0), a
//     term 0 where σ ≤ 0. pslExpr; expression only.
//   - debiased_contrastive (Chuang et al. 2020, §3, M = 1):
//     ℓ_i = −log e^{f_ip}/(e^{f_ip} + k_i·g_i), g_i = max{((1/k_i)Σ_{j∈N_i}
//     e^{f_ij} − τ⁺e^{f_ip})/(1 − τ⁺), e^{−1/τ}}. debiasedContrastiveExpr;
//     expression only.
//   - login and logout (Khosla et al. 2020, L_in and L_out; RePlay's LogInCE and
//     LogOutCE), for several positives per query: the row's negatives whose item is a known
//     training positive of its query (side input positives, K) are its positives P_i beside p,
//     N'_i the rest; login ℓ_i = −log Σ_{P_i} e^{z}/(Σ_{P_i} e^{z} + Σ_{N'_i} e^{z}), logout
//     ℓ_i = (1/|P_i|)·Σ_{j∈P_i} −log e^{z_j}/(e^{z_j} + Σ_{N'_i} e^{z}), with z = f, or f − log Q
//     as logq subtracts it when logq_probability is written. With one positive both are plain
//     (logq). logInExpr, logOutExpr; expression only.
//   - a variant added with Register: its own expression; expression only.
//
// gbce, psl and debiased_contrastive take their options (t, surrogate,
// tau_plus) from [loss.options] as a registered variant does, and refuse the
// logQ options; docs/losses.md gives their ranges and which samplers and
// corrections each paper allows.
//
// A sampler whose probabilities are undefined (candidates.Geometry.QUndefined:
// hard negatives and sce's buckets, which depend on the model's scores) declares
// no log_q or log_p; ResolveFor refuses it, naming the variant and the sampler,
// for every variant that needs them (the logQ family, the weightings by q,
// logq_corrected, mse_gramian, gbce, login and logout with logq_probability).
//
// With learn_temperature, τ = exp(Inputs.LogTemperature) is learned with the
// towers, Settings.Temperature its initial value; every variant with a
// temperature then uses its expression (no fused kernel reads a learned τ).
//
// # Implementation
//
// The expression path keeps every intermediate B×C matrix of the graph; on
// the B = 1024 in-batch logq loss its forward + backward costs several times
// the fused kernel's (BenchmarkLoss reports both). The fused kernel is one Gorgonia op with
// its own symbolic gradient: one pass computes the row's logits, its maximum,
// the exponentials (log-sum-exp; a fast exp with relative error < 1e-15) and
// the loss, and leaves the gradient in a buffer that the gradient op scales
// in place, so a forward + backward of the B = 1024 in-batch softmax takes
// two passes over the matrix and allocates no B×C buffer per step. Rows are
// split among up to GOMAXPROCS goroutines, one per 2¹⁴ score entries; each row is computed by one goroutine
// and the row losses are summed in row order, so results are bit-identical
// whatever the split. All arithmetic is float64 whatever the dtype. The tests
// check every variant, both ways, against an independent plain-Go reference,
// central differences, closed forms and Rawat et al.'s Monte-Carlo
// statements; lossestest exports the value and finite-difference checks for a researcher's own
// variant.
//
// Every custom op of the package, the fused kernels and the primitives, is built on the
// workbench's one op base (internal/ops), as package models' are: an op's output tensor is its
// own and is overwritten at the next run of its machine (a value kept across runs must be
// copied out; the race detector's builds check it), and its identity in the graph is its name,
// never an address: a node whose op reads more than its inputs (a loss's step, a forward pass's
// state) names its place in the graph, or takes the node it depends on as an input.
//
// References:
//
//   - X. Yi et al., Sampling-bias-corrected neural modeling for large corpus
//     item recommendations, RecSys 2019.
//   - A. S. Rawat et al., Disentangling sampling and labeling bias for
//     learning in large-output spaces, ICML 2021.
//   - A. K. Menon et al., Long-tail learning via logit adjustment, 2020.
//   - W. Krichene et al., Efficient training on very large corpora via
//     Gramian estimation, ICLR 2019.
//   - TensorFlow, Candidate sampling algorithms reference (the
//     candidate-sampling table).
//   - Khrylchenko et al., Correcting the LogQ Correction, RecSys 2025
//     (arXiv 2507.09331).
//   - A. V. Petrov and C. Macdonald, gSASRec: Reducing overconfidence in
//     sequential recommendation trained with negative sampling, RecSys 2023.
//   - W. Yang et al., PSL: Rethinking and improving softmax loss from pairwise
//     perspective for recommendation, NeurIPS 2024.
//   - C.-Y. Chuang et al., Debiased contrastive learning, NeurIPS 2020.
//   - P. Khosla et al., Supervised contrastive learning, NeurIPS 2020.
package losses
