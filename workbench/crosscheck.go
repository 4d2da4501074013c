package workbench

import (
	"fmt"

	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/models"
	"github.com/samplingbias/workbench/samplers"
)

// checkNegatives refuses a resolved config whose steps have no negatives: the in_batch sampler
// draws a row's negatives from the other pairs of its batch (Yi et al. section 3), so with one
// pair a batch has none, and logq's expected count Q = (B−1)·q (losses.LogQProbabilityExpectedCount)
// is 0 for every column, which training would report only as a diverged loss.
func checkNegatives(t models.TrainSettings, l losses.Settings, s samplers.Settings) error {
	if t.BatchSize != 1 || s.Kind != samplers.KindInBatch {
		return nil
	}
	why := ""
	if l.LogQProbability == losses.LogQProbabilityExpectedCount {
		why = fmt.Sprintf(", and the expected count Q = (B−1)·q of loss.logq_probability = %q is 0 for every column", l.LogQProbability)
	}
	return fmt.Errorf("train.batch_size = 1 with sampler.kind = %q (loss.variant = %q): a row's negatives are the other pairs of its batch, so a batch of one has none%s; use train.batch_size >= 2, or sampler.kind = %q or %q (uniform negatives)",
		s.Kind, l.Variant, why, samplers.KindUniform, samplers.KindMixed)
}
