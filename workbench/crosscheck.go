package workbench

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/models"
	"github.com/samplingbias/workbench/samplers"
)

// checkDeclared refuses a declaration other than the sampler's own law (sampler.declare, of the
// sampler or of a mixture's component) with a loss that reads no declared probability and no
// audit of the declaration (sampler.audit): nothing would use it.
func checkDeclared(l losses.Settings, s samplers.Settings) error {
	key, declared := "sampler.declare", s.Declare
	for i, c := range s.Of {
		if c.Declare != samplers.DeclareLaw {
			key, declared = fmt.Sprintf("sampler.of[%d].declare", i), c.Declare
		}
	}
	if declared == samplers.DeclareLaw || l.ReadsDeclared() || s.Audit {
		return nil
	}
	return fmt.Errorf("%s: %q is what the loss subtracts as the sampler's probabilities, and loss.variant = %q subtracts none: leave it unset, choose a variant that corrects for the sampler, or audit the declaration (sampler.audit = true)",
		key, declared, l.Variant)
}

// checkNegatives refuses a resolved config whose steps have no negatives: the in_batch sampler
// draws a row's negatives from the other pairs of its batch (Yi et al. section 3), so with one
// pair a batch has none, and logq's expected count Q = (B−1)·q (losses.LogQProbabilityExpectedCount)
// is 0 for every column, which training would report only as a diverged loss. SASRec's batch
// is one of windows, each position a row: one window of more than one position has negatives.
func checkNegatives(t models.TrainSettings, seq models.SequenceSettings, l losses.Settings, s samplers.Settings) error {
	if t.BatchSize != 1 || s.Kind != samplers.KindInBatch || (seq.Encoder == models.EncoderSASRec && seq.MaxLength > 1) {
		return nil
	}
	why := ""
	if l.LogQProbability == losses.LogQProbabilityExpectedCount {
		why = fmt.Sprintf(", and the expected count Q = (B−1)·q of loss.logq_probability = %q is 0 for every column", l.LogQProbability)
	}
	return fmt.Errorf("train.batch_size = 1 with sampler.kind = %q (loss.variant = %q): a row's negatives are the other pairs of its batch, so a batch of one has none%s; use train.batch_size >= 2, or sampler.kind = %q or %q (uniform negatives)",
		s.Kind, l.Variant, why, samplers.KindUniform, samplers.KindMixed)
}

// unreadEstimator is the warning of an [estimator] that no run of the grid reads, which would
// otherwise change nothing in silence (an ablation over estimator.kind comparing identical
// models), or "": a run reads the estimator's p̂ when its loss reads the declared inclusion
// probability or derives its q from p̂ (losses.Settings.ReadsInclusion), when its loss reads the
// declared q and the sampler derives q from p̂ (samplers.Settings.QFromInclusion), or when the
// sampler's audit compares the declaration with the draws. Values equal to the defaults are not
// counted (a run's own config.toml holds every resolved setting). A warning, not an error: such a
// config.toml must load as a config.
func unreadEstimator(runs []plannedRun) string {
	var wrote *plannedRun
	key := ""
	for i := range runs {
		r := &runs[i]
		l, s := r.cfg.Loss, r.cfg.Sampler
		if s.Audit || l.ReadsInclusion() || (l.ReadsQ() && s.QFromInclusion()) {
			return ""
		}
		if wrote != nil {
			continue
		}
		if keys := notDefault(r.cfg, writtenLeaves("estimator", r.cfg.written.tree["estimator"])); len(keys) > 0 {
			wrote, key = r, slices.Min(keys)
		}
	}
	if wrote == nil {
		return ""
	}
	where, _ := wrote.cfg.written.where(key, wrote.cfg)
	if where != "" {
		where += ": "
	}
	return fmt.Sprintf("%s%s: no run of the grid reads the estimator, so its settings change nothing: its p̂ is read by loss.logq_probability = %q or %q (logq, nce, sampled_logistic), loss.q_source = %q, sampler.kind = %q (whose q is p̂/min(k, D)) with a loss that reads q, and sampler.audit",
		where, key, losses.LogQProbabilityInclusion, losses.LogQProbabilityDedupe, losses.QSourceEstimator, samplers.KindInBatchUnique)
}

// notDefault are the keys of [estimator] among keys whose value in cfg is not the default's: a
// run's own config.toml writes every resolved setting, the defaults too, which no one chose.
func notDefault(cfg *Config, keys []string) []string {
	if len(keys) == 0 {
		return nil
	}
	def := &Config{}
	if err := def.Estimator.Resolve(); err != nil {
		return keys
	}
	var out []string
	for _, k := range keys {
		a, okA := configSchema().Get(reflect.ValueOf(cfg).Elem(), k)
		b, okB := configSchema().Get(reflect.ValueOf(def).Elem(), k)
		if !okA || !okB || !reflect.DeepEqual(a.Interface(), b.Interface()) {
			out = append(out, k)
		}
	}
	return out
}

// writtenLeaves are the dotted keys of the values written inside x under key, a table of the
// written tree: the empty tables a results folder's config.toml holds ([estimator.lsh]) are none.
func writtenLeaves(key string, x any) []string {
	m, ok := x.(map[string]any)
	switch {
	case x == nil:
		return nil
	case !ok:
		return []string{key}
	}
	var out []string
	for k, v := range m {
		out = append(out, writtenLeaves(key+"."+k, v)...)
	}
	return out
}
