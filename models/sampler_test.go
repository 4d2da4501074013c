package models

import (
	"context"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/samplers"
)

// TestTrainWithNewSamplers: the trainer asks a sampler it does not know the kind of: popularity
// (no estimator needed) and a mixture of in_batch and popularity (an estimator needed) train the
// logq-corrected model on planted clusters and the loss falls by a fifth.
func TestTrainWithNewSamplers(t *testing.T) {
	ds := loadSynthetic(t, datasets.SyntheticSettings{Items: 200, Queries: 400, Interactions: 8000, Clusters: 10, Zipf: 0.5}, 1)
	for _, ss := range []samplers.Settings{
		{Kind: samplers.KindPopularity, Negatives: 32},
		{Kind: samplers.KindMixture, Of: []samplers.Settings{{Kind: samplers.KindInBatch}, {Kind: samplers.KindPopularity, Negatives: 16}}},
	} {
		t.Run(string(ss.Kind), func(t *testing.T) {
			m, err := New(Settings{EmbeddingDim: 16, Hidden: []int{32, 16}}, ds, tensor.Float32, 1)
			if err != nil {
				t.Fatal(err)
			}
			ts := TrainSettings{BatchSize: 64, Epochs: 2, LearningRate: 0.01, LogEvery: 20}
			curve, err := Train(context.Background(), m, ds, newCountEstimator(ds, 64), losses.Settings{Variant: losses.VariantLogQ, Temperature: 0.1}, ss, ts, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			if first, last := curve[0].Loss, curve[len(curve)-1].Loss; !(last < 0.8*first) {
				t.Errorf("loss went from %v to %v", first, last)
			}
		})
	}
}

// TestLossColumns: the loss's column shape follows the sampler's, and the corpus variants go
// only with the full sampler.
func TestLossColumns(t *testing.T) {
	for _, tt := range []struct {
		variant losses.Variant
		sh      samplers.Shape
		sampler losses.Sampler
		neg     int
		err     string
	}{
		{losses.VariantLogQ, samplers.Shape{Layout: samplers.LayoutDiagonal}, losses.SamplerInBatch, 0, ""},
		{losses.VariantLogQ, samplers.Shape{Layout: samplers.LayoutDiagonal, Extra: 4}, losses.SamplerMixed, 4, ""},
		{losses.VariantPlain, samplers.Shape{Layout: samplers.LayoutFirst, Extra: 7}, losses.SamplerUniform, 7, ""},
		{losses.VariantFull, samplers.Shape{Layout: samplers.LayoutCorpus}, "", 0, ""},
		{losses.VariantFull, samplers.Shape{Layout: samplers.LayoutDiagonal}, "", 0, "kind: loss variant \"full\" scores the whole corpus only with sampler full"},
		{losses.VariantLogQ, samplers.Shape{Layout: samplers.LayoutCorpus}, "", 0, "kind: loss variant \"logq\""},
	} {
		ls := losses.Settings{Variant: tt.variant, Sampler: losses.SamplerMixed, Negatives: 99}
		err := LossColumns(&ls, tt.sh)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s %+v: got %v, want an error containing %q", tt.variant, tt.sh, err, tt.err)
			}
		case err != nil || ls.Sampler != tt.sampler || ls.Negatives != tt.neg:
			t.Errorf("%s %+v: got %v, %q, %d; want %q, %d", tt.variant, tt.sh, err, ls.Sampler, ls.Negatives, tt.sampler, tt.neg)
		}
	}
}
