package losses

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/setting"
)

// builtinVariant is a built-in variant defined, like a registered one, by its expression and an
// options struct decoded from [loss.options] (Custom), with the check of the settings its paper
// does not allow.
type builtinVariant struct {
	Custom
	// check refuses the resolved settings s for the candidates of geometry g that the variant's
	// paper does not allow; nil allows every combination ResolveFor accepts.
	check func(s *Settings, g candidates.Geometry) error
}

// builtinCustom returns the definition of v if it is a built-in variant with options of its
// own: gbce, psl and debiased_contrastive.
func builtinCustom(v Variant) (builtinVariant, bool) {
	switch v {
	case VariantGBCE:
		return builtinVariant{Custom: Custom{Expr: gbceExpr, Options: func() any { return new(GBCEOptions) },
			Family: FamilyLogistic}, check: checkGBCE}, true
	case VariantPSL:
		return builtinVariant{Custom: Custom{Expr: pslExpr, Options: func() any { return new(PSLOptions) },
			Family: FamilySoftmax}}, true
	case VariantDebiasedContrastive:
		return builtinVariant{Custom: Custom{Expr: debiasedContrastiveExpr,
			Options: func() any { return new(DebiasedContrastiveOptions) }, Family: FamilySoftmax}}, true
	}
	return builtinVariant{}, false
}

// Items (R×1) is the corpus size M (candidates.Step.Items) in every row. The step's Items must
// be at least 2 (a corpus of one item has no negatives) when an expression reads it.
func (e *Expr) Items() *G.Node { return e.bd.derivedInput(derivedItems) }

// fillItems writes the corpus size m into every entry of t, the Items input (nil when the
// expression does not read it).
func fillItems(t *tensor.Dense, m int) error {
	if t == nil {
		return nil
	}
	if m < 2 {
		return fmt.Errorf("losses: the step's Items = %d, the corpus size M must be at least 2", m)
	}
	switch d := t.Data().(type) {
	case []float32:
		for k := range d {
			d[k] = float32(m)
		}
	case []float64:
		for k := range d {
			d[k] = float64(m)
		}
	}
	return nil
}

// negativeCount returns each row's number of negatives k_i = |N_i| (B×1), log max(k_i, 1), and
// an extra log-sum-exp term none_i, 0 in a row without negatives and −Inf otherwise, so that
// LogSumExp(none, x + NegLog) is finite in every row (log Σ_{j∈N_i} e^{x_ij} where N_i is not
// empty, 0 where it is).
func negativeCount(e *Expr) (k, logK, none *G.Node) {
	k = e.NegCount()
	one := e.Const(1)
	logK = G.Must(G.Log(G.Must(G.Add(G.Must(G.Rectify(G.Must(G.Sub(k, one)))), one))))
	return k, logK, G.Must(G.Log(G.Must(G.Rectify(G.Must(G.Sub(one, k))))))
}

// invTemperature is the scalar 1/τ: of Settings.Temperature, or of the learned τ.
func (e *Expr) invTemperature() *G.Node {
	if e.Settings.LearnTemperature {
		return G.Must(G.HadamardDiv(e.Const(1), e.Tau))
	}
	return e.Const(1 / e.Settings.Temperature)
}

// resolveFloat resolves a numeric option held by pointer, so that a written 0 differs from an
// option left out: def when *p is nil, and then required in r.
func resolveFloat(key string, p **float64, def float64, r setting.Interval[float64]) error {
	if *p == nil {
		*p = &def
	}
	return setting.Range(key, **p, r)
}
