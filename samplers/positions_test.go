package samplers_test

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/estimators"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/models"
	"github.com/samplingbias/workbench/samplers"
)

// positions is a sampler that only this file declares, with a geometry no built-in sampler has:
// each example of the batch is scored at two positions (R = 2B rows), as a sequence trained at
// every position is. Row 2e is example e's own positive; row 2e+1 holds the positive of the
// example before it, or is padding (no positive) for the first example, or for every example
// with padAll. The rows' positives are every row's candidates (in-batch, layout diagonal): q
// and p are the positives' law, a padding row's the law the trainer gives one.
type positions struct{ padAll bool }

func (positions) Shape() samplers.Shape {
	return samplers.Shape{Geometry: candidates.Geometry{Layout: candidates.Diagonal, PerExample: 2, Padded: true}, PositiveLaw: true}
}

func (s positions) Draw(_ *rand.Rand, _ *samplers.Data, pos, rows []int32) {
	for e, item := range pos {
		rows[2*e], rows[2*e+1] = item, candidates.NoItem
		if e > 0 && !s.padAll {
			rows[2*e+1] = pos[e-1]
		}
	}
}

func (positions) Declare(_ *samplers.Data, pos, rows []int32, law samplers.Law, c *candidates.Step) error {
	logQ, logP := c.Col(candidates.LogQ), c.Col(candidates.LogP)
	for j, item := range rows {
		q, p, _, err := law(j)
		if err != nil {
			return err
		}
		c.ColItem[j], logQ[j], logP[j] = int64(item), math.Log(q), math.Log(p)
	}
	copy(c.Row(candidates.LogQ), logQ[:len(pos)])
	copy(c.Row(candidates.LogP), logP[:len(pos)])
	return nil
}

// registerPositions registers the positions samplers once per test binary.
var registerPositions = sync.OnceValue(func() error {
	for name, s := range map[string]positions{"positions_test": {}, "positions_padded_test": {padAll: true}} {
		if err := samplers.Register(name, samplers.Custom{New: func(any, int) (samplers.Sampler, error) { return s, nil }}); err != nil {
			return err
		}
	}
	return nil
})

// trainCurve trains a float64 model on ds with the loss ls and sampler kind, an exact static
// estimator, 30 steps of batches of 32, and returns its training curve.
func trainCurve(t *testing.T, ds *datasets.Dataset, ls losses.Settings, kind samplers.Kind) models.Curve {
	t.Helper()
	m, err := models.New(models.Settings{EmbeddingDim: 8, Hidden: []int{16, 8}}, ds, tensor.Float64, 1)
	if err != nil {
		t.Fatal(err)
	}
	est, err := estimators.New(estimators.Settings{Kind: estimators.KindExact, Mode: estimators.ModeStatic},
		estimators.Env{BatchSize: 32, CorpusSize: ds.Items, Counts: ds.ItemCounts()}, 1)
	if err != nil {
		t.Fatal(err)
	}
	ts := models.TrainSettings{BatchSize: 32, Steps: 30, LogEvery: 1, LearningRate: 0.01}
	curve, err := models.Train(context.Background(), m, ds, est, ls, samplers.Settings{Kind: kind}, ts, 1, nil)
	if err != nil {
		t.Fatalf("%s, sampler %s: %v", ls.Variant, kind, err)
	}
	return curve
}

// TestNewGeometryTrains: a sampler with a geometry of its own (two rows per example, some of them
// padding) trains with the built-in losses, trainer and model unchanged, declared in this test
// file alone. Its padding rows have no loss, no share of the mean and no column: with every
// second row padding, the training curve is in-batch training's to 1e-9 (float64; the score
// matrix is 2B×2B instead of B×B, so only the order of the products' sums differs), for the
// fused and the expression losses; with the previous example's positive in the second rows,
// the loss falls by a fifth over the run.
func TestNewGeometryTrains(t *testing.T) {
	if err := registerPositions(); err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Load(datasets.Settings{Source: datasets.SourceSynthetic,
		Synthetic: datasets.SyntheticSettings{Items: 120, Queries: 200, Interactions: 4000, Clusters: 6}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, ls := range []losses.Settings{
		{Variant: losses.VariantLogQ, Temperature: 0.2},
		{Variant: losses.VariantLogQ, Temperature: 0.2, Impl: losses.ImplExpression},
		{Variant: losses.VariantMSEGramian},
	} {
		t.Run(string(ls.Variant)+"-"+string(ls.Impl), func(t *testing.T) {
			inBatch, padded := trainCurve(t, ds, ls, samplers.KindInBatch), trainCurve(t, ds, ls, "positions_padded_test")
			for k := range inBatch {
				if a, b := inBatch[k].Loss, padded[k].Loss; math.Abs(a-b) > 1e-9*math.Abs(a) {
					t.Fatalf("step %d: loss %v in-batch, %v with every second row padding", inBatch[k].Step, a, b)
				}
			}
			curve := trainCurve(t, ds, ls, "positions_test")
			if first, last := curve[0].Loss, curve[len(curve)-1].Loss; !(last < 0.8*first) {
				t.Errorf("two positions per example: the loss went from %v to %v", first, last)
			}
		})
	}
}
