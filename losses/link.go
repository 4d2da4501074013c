package losses

// Link is how the logit f = s/τ a loss trains reads as the model's estimate of P(item | query),
// Settings.Link: what the loss trains f to be, in the candidate-sampling table (TensorFlow's
// "Candidate sampling algorithms reference") and in the papers of its variants.
type Link string

// Links.
const (
	// LinkSoftmax: e^{f_y} / Σ_j e^{f_j} over the corpus. A softmax cross-entropy, full or
	// sampled with its correction, trains f to log P(y|x) plus a constant per query.
	LinkSoftmax Link = "softmax"
	// LinkSigmoid: σ(f_y). Sampled logistic trains f to the log-odds of P(y|x); negative
	// sampling and gBCE are read the same way, as Petrov & Macdonald (gSASRec, RecSys 2023, §4)
	// read them, and are calibrated only at gBCE's t = 1 (negative sampling trains f to
	// log(P/(kQ)) instead: overconfident by about 1/α).
	LinkSigmoid Link = "sigmoid"
	// LinkExp: e^{f_y}. Noise-contrastive estimation trains f to log P(y|x) itself,
	// self-normalised (Mnih & Teh 2012).
	LinkExp Link = "exp"
	// LinkNone: the loss models no probability (mse_gramian's regression on the scores).
	LinkNone Link = ""
)

// Link returns the link of s's variant: nce's is LinkExp; every other variant's follows its
// family, LinkSoftmax for FamilySoftmax, LinkSigmoid for FamilyLogistic and LinkNone otherwise (a
// registered variant's by the Family it declares).
func (s Settings) Link() Link {
	switch f := s.Family(); {
	case s.Variant == VariantNCE:
		return LinkExp
	case f == FamilySoftmax:
		return LinkSoftmax
	case f == FamilyLogistic:
		return LinkSigmoid
	}
	return LinkNone
}
