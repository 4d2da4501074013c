// Package samplers draws the candidate columns of a training step and declares, for every column,
// the probabilities a correction subtracts: its per-draw probability q, its inclusion probability
// p (that the item is among the step's candidates at all) and, through q, its expected number of
// copies among a row's negatives, (C−1)·q for C columns. The declarations are exact closed forms
// wherever the sampler's law gives one, and flagged as estimates (candidates.Step.Estimated)
// where they come from an estimator (Yi et al. 2019's streaming p̂). docs/samplers.md derives
// each built-in sampler's q, p and expected count; the package's audit tests check them against
// what the sampler draws with samplerstest.Audit, which checks a researcher's sampler the same
// way. Both that check and a run's audit (sampler.audit) record the steps in an Audit and judge
// them with Audit.Check.
//
// Each sampler owns its geometry (Shape, a candidates.Geometry): where each row's positive sits,
// which drawn columns every row shares and which are a row's own (Geometry.PerRow,
// uniform_per_row: it then declares per row and column, and p is the probability that the item
// is among the row's candidates), which item rows are constant (memory), whether the columns are
// the whole corpus (full), and how many rows each example has, some of them padding. The trainer,
// the loss and the memory estimate read the geometry; none of them branches on the sampler, so a
// sampler with a geometry of its own is one file that implements Sampler.
//
// A sampler declares its probabilities as the side inputs candidates.LogQ and candidates.LogP of
// the step the loss reads (Sampler.Declare writes them into the candidates.Step), and may declare
// more (SideDeclarer): a loss reads each by name (losses.Expr.Side).
//
// Some samplers read more than the batch's positives (Data): unconsumed the rows' queries and
// each query's training items, hard and sce the current model's towers, run without gradient, by
// whose scores they rank candidates (hard: the top k of a pool, with NV-Retriever's
// false-negative guard; sce: Mezentsev et al.'s buckets of random projections). Their draws have
// no probability law: their geometry says so (candidates.Geometry.QUndefined), they declare no
// log q or log p, the corrections that need them refuse them, and the audit reports "Q
// undefined". The samplers without replacement (uniform_without_replacement,
// popularity_without_replacement) declare their exact inclusion probabilities, computed once per
// run (prob.SuccessiveInclusion), not the weights' share.
//
// A sampler is chosen by Settings.Kind, the [sampler] section of a config: one of the Kind
// constants or a name added with Register. The trainer (package models) asks it for the step's
// item rows (Sampler.Draw) and then for their probabilities (Sampler.Declare); it does not
// branch on the sampler. Settings.Declare = DeclareUnigram makes any sampler declare every item's
// training frequency instead of its own law, the Q most code subtracts, so that a run and its
// audit (Audit, with its sampling-noise floor and Check) measure what that Q costs.
package samplers
