package models

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/samplingbias/workbench/candidates"
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
	return countEstimatorOf(ds.ItemCounts(), batch)
}

// countEstimatorOf is newCountEstimator of the counts of N = Σ counts training interactions.
func countEstimatorOf(counts []int64, batch int) *countEstimator {
	var n int64
	for _, c := range counts {
		n += c
	}
	e := &countEstimator{p: make([]float64, len(counts))}
	den := float64(n) + float64(len(counts))
	for y, c := range counts {
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

// samplerOf is the sampler a test trains the loss ls with by default: full for the variants that
// score the whole corpus, in_batch otherwise.
func samplerOf(ls losses.Settings) samplers.Settings {
	if ls.Variant.ScoresCorpus() {
		return samplers.Settings{Kind: samplers.KindFull}
	}
	return samplers.Settings{}
}

// testRun is a test's loss and the sampler it trains with.
type testRun struct {
	ls losses.Settings
	ss samplers.Settings
}

// defaultRun is the run of ls with its default sampler (samplerOf).
func defaultRun(ls losses.Settings) testRun { return testRun{ls, samplerOf(ls)} }

// name names a test run by its variant and sampler.
func (r testRun) name() string {
	kind := string(r.ss.Kind)
	if kind == "" {
		kind = string(samplers.DefaultKind)
	}
	for _, o := range r.ss.Of {
		kind += "+" + string(o.Kind)
	}
	return fmt.Sprintf("%s-%s", r.ls.Variant, kind)
}

// Samplers of the tests: m uniform draws, in-batch with m uniform extras, and their forms drawn
// for each row alone.
func uniformSampler(m int) samplers.Settings {
	return samplers.Settings{Kind: samplers.KindUniform, Negatives: m}
}
func mixedSampler(m int) samplers.Settings {
	return samplers.Settings{Kind: samplers.KindMixed, Negatives: m}
}
func uniformPerRowSampler(m int) samplers.Settings {
	return samplers.Settings{Kind: samplers.KindUniformPerRow, Negatives: m}
}
func mixedPerRowSampler(m int) samplers.Settings {
	return samplers.Settings{Kind: samplers.KindMixture, Of: []samplers.Settings{{Kind: samplers.KindInBatch}, uniformPerRowSampler(m)}}
}

// mustBuild is the sampler of ss and its geometry.
func mustBuild(ss samplers.Settings) (samplers.Sampler, candidates.Geometry) {
	smp, g, err := samplers.Build(ss)
	if err != nil {
		panic(err)
	}
	return smp, g
}

// ptr is a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

// stepView are a step's side inputs, for the tests that read them: each column's and each row's
// positive's log q, log p̂ and log π, and the rows' rewards.
type stepView struct{ LogQ, LogP, LogPrior, PosLogQ, PosLogP, PosLogPrior, Rewards []float64 }

func viewOf(st *candidates.Step) stepView {
	return stepView{LogQ: st.Col(candidates.LogQ), LogP: st.Col(candidates.LogP), LogPrior: st.Col(candidates.LogPrior),
		PosLogQ: st.Row(candidates.LogQ), PosLogP: st.Row(candidates.LogP), PosLogPrior: st.Row(candidates.LogPrior),
		Rewards: st.Row(candidates.Rewards)}
}
