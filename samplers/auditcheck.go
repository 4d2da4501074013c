package samplers

import (
	"fmt"
	"math"

	"github.com/samplingbias/workbench/candidates"
)

// auditMinP is the declared p and the empirical inclusion frequency below which Check leaves an
// item's comparisons out: both must be under it, so that a p declared far too small for an item
// drawn into many steps is compared.
const auditMinP = 0.05

// auditMinSteps is the number of steps, expected under the declared p or counted, that must
// include an item for Check to compare it: enough that its empirical means are near normal, so
// that five standard errors are a tolerance a correct declaration exceeds with probability of
// the order of 10⁻⁷ (a run of few steps compares only the items in most of them).
const auditMinSteps = 50

// auditSE is the number of standard errors of an empirical mean that Check tolerates between it
// and the declared value: a correct declaration fails one comparison with probability below
// 6·10⁻⁷ under the normal approximation.
const auditSE = 5

// Check judges the declarations the audit recorded as samplerstest.Audit judges a sampler's: it
// returns an error naming the first declaration the steps refute, nil if none does or if the
// sampler has no law. At every step, every declared log q and log p must be the log of a
// probability (not NaN, at most 0, finite for a drawn item), and under layout first, where a
// row's positive has a column of its own with no item, each row must declare its positive's q
// and p, the same as the item's column declares where the item is also drawn into the step's
// shared columns (a forgotten row declaration, log q = 0, declares q = 1). Then, for every item
// drawn at least once (the steps that drew it tell its declaration; one never drawn is not judged)
// with a declared p ≥ 0.05 or drawn into at least 5% of the steps, whatever p it is declared, and
// in at least 50 of the N steps (N·p expected, or counted), the frequency of the steps including it
// (the mean fraction of a step's rows, for a sampler that draws per row) must be the declared p,
// and its mean copies among a row's negatives the declared (C−1)·q (not under layout corpus, whose
// columns are the whole corpus and not draws), within five standard errors of the empirical mean
// over the steps, plus 1e-9: √(p(1−p)/N) for the frequency of shared columns, and otherwise the
// sample standard deviation over √N, scaled to the declared mean when the sample's is smaller
// (toDeclared).
//
// The standard errors are those of independent steps, which a run's steps are only when its
// positives are drawn i.i.d.: an epoch's batches drawn without replacement vary less, and a
// declaration from an estimator is checked as the law it claims to be, so that an estimate
// still far from the training frequency fails.
func (a *Audit) Check() error {
	if a.undefined || a.steps == 0 {
		return nil
	}
	if a.invalid != nil {
		return a.invalid
	}
	n := float64(a.steps)
	sd := func(sum, sum2 float64) float64 { return math.Sqrt(math.Max(sum2/n-(sum/n)*(sum/n), 0)) }
	for j := range a.declared {
		if a.declared[j] == 0 {
			continue
		}
		it := a.item(j)
		if p := math.Max(it.declP, it.empP); p < auditMinP || n*p < auditMinSteps {
			continue
		}
		sdIncl := math.Sqrt(it.declP * (1 - it.declP))
		if a.perRow {
			sdIncl = toDeclared(sd(a.declared[j], a.incl2[j]), it.empP, it.declP)
		}
		if tol := auditSE*sdIncl/math.Sqrt(n) + 1e-9; !(math.Abs(it.empP-it.declP) <= tol) {
			return fmt.Errorf("item %d: inclusion probability p declared %.4f, empirical %.4f of the steps (tolerance %.4f)", j, it.declP, it.empP, tol)
		}
		if a.layout == candidates.Corpus {
			continue // the corpus's columns are not draws: q = 1/M is the uniform proposal's convention
		}
		if tol := auditSE*toDeclared(sd(a.copies[j], a.copies2[j]), it.empCopies, it.declCopies)/math.Sqrt(n) + 1e-9; !(math.Abs(it.empCopies-it.declCopies) <= tol) {
			return fmt.Errorf("item %d: copies among a row's negatives (C−1)·q declared %.4f, empirical %.4f (tolerance %.4f)", j, it.declCopies, it.empCopies, tol)
		}
	}
	return nil
}

// toDeclared is the standard deviation sd of per-step values of mean emp at the declared mean
// decl: per-step counts of an item have a variance nearly proportional to their mean (Poisson's,
// for a rare item), so that a sample whose mean falls short of the declared one understates the
// spread the declaration implies, sd·√(decl/emp). A sample that never holds the item (emp = 0) has
// no spread to scale: it stays 0, and the item fails, as its N·p ≥ auditMinSteps expected steps
// allow.
func toDeclared(sd, emp, decl float64) float64 {
	if emp > 0 && decl > emp {
		return sd * math.Sqrt(decl/emp)
	}
	return sd
}

// checkStep checks the declarations of the step just observed that the draws' frequencies
// cannot see (Check): the columns' log-probabilities, and under layout first the rows'
// positives'. It reads the columns declare recorded for the step.
func (a *Audit) checkStep(sh Shape, c *candidates.Step) error {
	logQ, logP := c.Col(candidates.LogQ), c.Col(candidates.LogP)
	for k, item := range c.ColItem {
		if item < 0 {
			continue
		}
		if err := checkLogProbs(a.steps, "column", k, item, logQ[k], logP[k], true); err != nil {
			return err
		}
	}
	if sh.Layout != candidates.First {
		return nil
	}
	rowQ, rowP := c.Row(candidates.LogQ), c.Row(candidates.LogP)
	same := func(x, y float64) bool { return x == y || math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y)) }
	for i, item := range c.RowItem {
		if item < 0 {
			continue
		}
		if err := checkLogProbs(a.steps, "row", i, item, rowQ[i], rowP[i], false); err != nil {
			return err
		}
		if sh.PerRow > 0 || a.inStep[item] != a.steps {
			continue // not a shared column of the step
		}
		if j := a.colAt[item]; !same(rowQ[i], logQ[j]) || !same(rowP[i], logP[j]) {
			return fmt.Errorf("step %d: row %d's positive, item %d, is declared q = %.4g, p = %.4g, and as column %d q = %.4g, p = %.4g: the probabilities are the item's, the same in both",
				a.steps, i, item, math.Exp(rowQ[i]), math.Exp(rowP[i]), j, math.Exp(logQ[j]), math.Exp(logP[j]))
		}
	}
	return nil
}

// checkLogProbs requires the log q and log p declared at step step for a column or a row's
// positive (what, its index k, of item item) to be log-probabilities: not NaN, at most 0, and,
// for a drawn item (drawn), finite: an item the sampler drew has a positive probability of being
// drawn.
func checkLogProbs(step int, what string, k int, item int64, logQ, logP float64, drawn bool) error {
	for _, v := range []struct {
		name  string
		value float64
	}{{"log q", logQ}, {"log p", logP}} {
		zeroDrawn := drawn && math.IsInf(v.value, -1)
		if !zeroDrawn && !math.IsNaN(v.value) && v.value <= 1e-12 {
			continue
		}
		of := ""
		if zeroDrawn {
			of = " of an item drawn"
		}
		return fmt.Errorf("step %d: %s %d, item %d, declares %s = %v, not the log of a probability%s", step, what, k, item, v.name, v.value, of)
	}
	return nil
}
