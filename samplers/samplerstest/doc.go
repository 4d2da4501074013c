// Package samplerstest checks a sampler the way package samplers checks its built-in ones: that
// the probabilities it declares are those of what it draws. A researcher's sampler, implementing
// samplers.Sampler (and registered with samplers.Register, or not), is checked in its own test:
//
//	smp, _ := samplers.New(samplers.Settings{Kind: "my_sampler", Negatives: 8})
//	if err := samplerstest.Audit(smp, samplerstest.SkewedData(8), 4000, 1); err != nil {
//		t.Error(err)
//	}
//
// Audit runs the sampler over steps of batches whose positives are drawn i.i.d. from the training
// frequency (IIDLaw is their exact law, which a sampler whose Shape says PositiveLaw is given),
// records them in a samplers.Audit, as a run with sampler.audit = true records its steps, and
// returns the verdict of samplers.Audit.Check, the one a run's summary.md reports: for every item
// with a declared inclusion probability p ≥ 0.05 or drawn into at least 5% of the steps (and into
// at least 50 of them, expected or counted), it compares the empirical frequency of a step's
// columns including the item with its declared p (of a row's, for a sampler that draws per row),
// and the item's mean number of copies among a row's negatives with its declared (C−1)·q, C the
// step's columns (for layout corpus, whose columns are the whole corpus and not draws, only p).
// AuditPositions does the same on the rows of sequences trained at every position, some of them
// padding.
//
// The tolerance of each comparison is five standard errors of the empirical mean over the N
// independent steps, plus 1e-9: √(p(1−p)/N) for the inclusion frequency of shared columns, and
// the sample standard deviation over √N for the fraction of a step's rows including the item
// (a sampler that draws per row) and for the per-step copy count, that standard deviation scaled
// by √(declared/empirical) when the empirical mean is the smaller (counts of an item vary nearly
// in proportion to their mean, so that a sample short of the declaration understates the spread
// it implies). A correct declaration then fails one comparison with probability below 6·10⁻⁷
// under the normal approximation. An error of 10% in p is 0.1·√(N·p/(1−p)) standard errors of
// the inclusion frequency wide, more than five for p ≥ 0.4 at N = 4000 steps, and one of 10% in q
// wider still in the copies of the head items, drawn several times per batch: at N = 4000 the
// audit of every built-in sampler fails its declaration 10% too large. Overstated makes that
// error, to check that the audit of a given sampler, data and N catches it.
//
// What the draws' frequencies cannot see is checked at every step: every declared log q and
// log p is the log of a probability (not NaN, at most 0, finite for a drawn item), and under
// layout first, where a row's positive has a column of its own with no item, each row declares
// its positive's q and p, the same as the item's column declares where the item is also drawn.
// An error names the step (the first is 1), the column or row and its item.
package samplerstest
