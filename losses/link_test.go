package losses

import "testing"

// TestLink: each built-in variant's link, the form of Rawat et al.'s weightings deciding theirs.
func TestLink(t *testing.T) {
	for _, c := range []struct {
		s    Settings
		want Link
	}{
		{Settings{}, LinkSoftmax},
		{Settings{Variant: VariantLogQ}, LinkSoftmax},
		{Settings{Variant: VariantFull}, LinkSoftmax},
		{Settings{Variant: VariantLogQCorrected}, LinkSoftmax},
		{Settings{Variant: VariantPSL}, LinkSoftmax},
		{Settings{Variant: VariantDebiasedContrastive}, LinkSoftmax},
		{Settings{Variant: VariantImportance}, LinkSoftmax},
		{Settings{Variant: VariantImportance, Form: FormDecoupled}, LinkSigmoid},
		{Settings{Variant: VariantNegativeSampling}, LinkSigmoid},
		{Settings{Variant: VariantSampledLogistic}, LinkSigmoid},
		{Settings{Variant: VariantGBCE}, LinkSigmoid},
		{Settings{Variant: VariantNCE}, LinkExp},
		{Settings{Variant: VariantMSEGramian}, LinkNone},
	} {
		if got := c.s.Link(); got != c.want {
			t.Errorf("%s (form %q): link %q, want %q", c.s.Variant, c.s.Form, got, c.want)
		}
	}
}
