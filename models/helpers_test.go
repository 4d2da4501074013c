package models

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/samplers"
)

// countEstimator is a fixed estimator for tests and benchmarks: p̂(y) = 1-(1-q_y)^B with
// q_y = (count_y+1)/(N+M) from the training counts. Observe only records its calls.
type countEstimator struct {
	p        []float64
	observed []int64 // the steps Observe was called at
}

func newCountEstimator(ds *datasets.Dataset, batch int) *countEstimator {
	e := &countEstimator{p: make([]float64, ds.Items)}
	den := float64(len(ds.Train) + ds.Items)
	for y, c := range ds.ItemCounts() {
		q := float64(c+1) / den
		e.p[y] = -math.Expm1(float64(batch) * math.Log1p(-q))
	}
	return e
}

func (e *countEstimator) Observe(t int64, _ []uint64) { e.observed = append(e.observed, t) }
func (e *countEstimator) Prob(y uint64) float64       { return e.p[y] }

// MarshalBinary and UnmarshalBinary save the steps observed, the estimator's only state.
func (e *countEstimator) MarshalBinary() ([]byte, error) {
	b := make([]byte, 8*len(e.observed))
	for i, t := range e.observed {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(t))
	}
	return b, nil
}

func (e *countEstimator) UnmarshalBinary(b []byte) error {
	if len(b)%8 != 0 {
		return fmt.Errorf("countEstimator: state of %d bytes", len(b))
	}
	e.observed = e.observed[:0]
	for i := 0; i < len(b); i += 8 {
		e.observed = append(e.observed, int64(binary.LittleEndian.Uint64(b[i:])))
	}
	return nil
}

// samplerOf is the sampler of the column shape a test's loss settings name (ls.Sampler,
// ls.Negatives and ls.PerRow, which LossColumns sets from the sampler in a run): full for the
// corpus variants; uniform_per_row, or in_batch with it, per row.
func samplerOf(ls losses.Settings) samplers.Settings {
	perRow := samplers.Settings{Kind: samplers.KindUniformPerRow, Negatives: ls.Negatives}
	switch {
	case ls.Variant == losses.VariantFull || ls.Variant == losses.VariantLogitAdjusted:
		return samplers.Settings{Kind: samplers.KindFull}
	case ls.PerRow && ls.Sampler == losses.SamplerUniform:
		return perRow
	case ls.PerRow && ls.Sampler == losses.SamplerMixed:
		return samplers.Settings{Kind: samplers.KindMixture, Of: []samplers.Settings{{Kind: samplers.KindInBatch}, perRow}}
	case ls.Sampler == losses.SamplerUniform:
		return samplers.Settings{Kind: samplers.KindUniform, Negatives: ls.Negatives}
	case ls.Sampler == losses.SamplerMixed:
		return samplers.Settings{Kind: samplers.KindMixed, Negatives: ls.Negatives}
	}
	return samplers.Settings{}
}

// mustSampler is the sampler of samplerOf(ls).
func mustSampler(ls losses.Settings) samplers.Sampler { return must(samplers.New(samplerOf(ls))) }
