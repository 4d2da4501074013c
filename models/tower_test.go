package models

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/estimators"
	gemmblas "github.com/samplingbias/workbench/internal/gemm"
	"github.com/samplingbias/workbench/internal/simd"
	"github.com/samplingbias/workbench/losses"
)

// towerCase is a tower architecture of the tower tests: one per activation, without and with
// residual connections.
type towerCase struct {
	name string
	s    Settings
}

func towerCases() []towerCase {
	var cs []towerCase
	for _, a := range activations {
		s := Settings{EmbeddingDim: 3, Hidden: []int{6, 4}, Activation: a.name, ShareEmbeddings: true, InitStd: 0.5}
		cs = append(cs, towerCase{string(a.name), s})
		s.Hidden, s.Residual = []int{5, 5, 5}, true
		cs = append(cs, towerCase{string(a.name) + "-residual", s})
	}
	return cs
}

// TestTrainingInferenceEmbeddingsEqual checks, for every activation with and without residual
// connections and in both dtypes, that the tower outputs of the training graph equal bit for bit
// the embeddings EmbedQueries and EmbedItems return for the same entities (embedded there among
// the whole corpus, in a graph of another size), and, in float64, the independent reference
// refEmbed.
func TestTrainingInferenceEmbeddingsEqual(t *testing.T) {
	for _, c := range towerCases() {
		t.Run(c.name+"/float32", func(t *testing.T) { checkTrainingInference[float32](t, c.s) })
		t.Run(c.name+"/float64", func(t *testing.T) { checkTrainingInference[float64](t, c.s) })
	}
}

func checkTrainingInference[T float](t *testing.T, s Settings) {
	ds := tinyDataset()
	m, tr := newTestTrainerT[T](t, s, ds, defaultRun(losses.Settings{Variant: losses.VariantLogQ}), 4, 3, towerFused)
	if _, err := tr.forwardBackward(1, ds.Train[2:6]); err != nil {
		t.Fatal(err)
	}
	d := m.Dim()
	for side, embed := range []func([]int32) ([]float32, error){m.EmbedQueries, m.EmbedItems} {
		all := make([]int32, m.towers[side].n)
		for i := range all {
			all[i] = int32(i)
		}
		inf, err := embed(all)
		if err != nil {
			t.Fatal(err)
		}
		train := data[T](tr.outs[side].Value())
		for r, e := range tr.ids[side] {
			for j := range d {
				if got, want := inf[int(e)*d+j], float32(train[r*d+j]); got != want {
					t.Fatalf("%s %d [%d]: inference %v, training graph %v", sideNames[side], e, j, got, want)
				}
			}
			if m.dt != tensor.Float64 {
				continue
			}
			for j, want := range refEmbed(m, side, int(e)) {
				if got := float64(train[r*d+j]); math.Abs(got-want) > 1e-12 {
					t.Fatalf("%s %d [%d]: training graph %v, reference %v", sideNames[side], e, j, got, want)
				}
			}
		}
	}
}

// TestTowerFusedMatchesExpression checks the fused tower ops (denseOp with its activation,
// l2NormOp) against the tower written in stock Gorgonia ops and differentiated by autodiff: for
// every activation with and without residual connections, equal loss, embeddings and gradients
// of every parameter and of the tower inputs, to 1e-12 relative in float64.
func TestTowerFusedMatchesExpression(t *testing.T) {
	for _, c := range towerCases() {
		t.Run(c.name, func(t *testing.T) {
			ds := tinyDataset()
			ls := losses.Settings{Variant: losses.VariantLogQ}
			_, fused := newTestTrainerT[float64](t, c.s, ds, defaultRun(ls), 4, 3, towerFused)
			_, expr := newTestTrainerT[float64](t, c.s, ds, defaultRun(ls), 4, 3, towerExpression)
			var loss [2]float64
			for i, tr := range []*trainer[float64]{fused, expr} {
				var err error
				if loss[i], err = tr.forwardBackward(1, ds.Train[1:5]); err != nil {
					t.Fatal(err)
				}
			}
			close := func(what string, a, b []float64) {
				t.Helper()
				if len(a) != len(b) {
					t.Fatalf("%s: %d and %d values", what, len(a), len(b))
				}
				for i := range a {
					if math.Abs(a[i]-b[i]) > 1e-14+1e-12*math.Max(math.Abs(a[i]), math.Abs(b[i])) {
						t.Fatalf("%s[%d]: fused %.17g, expression %.17g", what, i, a[i], b[i])
					}
				}
			}
			close("loss", loss[:1], loss[1:])
			for side := range 2 {
				// Outputs through inference graphs: after the backward pass, a value of the
				// expression graph may have been overwritten by an op working in place.
				ids := fused.ids[side]
				var out [2][]float32
				for i, impl := range []towerImpl{towerFused, towerExpression} {
					var err error
					if out[i], err = embedT[float64](fused.m, fused.m.towers[side], ids, impl); err != nil {
						t.Fatal(err)
					}
				}
				if !slices.Equal(out[0], out[1]) {
					t.Errorf("%s embeddings: fused %v, expression %v", sideNames[side], out[0], out[1])
				}
				if fused.dx[side] != nil {
					close(sideNames[side]+" input gradient", data[float64](fused.dx[side].Value()), data[float64](expr.dx[side].Value()))
				}
			}
			if len(fused.denseGrad) != len(expr.denseGrad) {
				t.Fatalf("%d and %d parameter gradients", len(fused.denseGrad), len(expr.denseGrad))
			}
			for i, g := range fused.denseGrad {
				close(fused.dense[i].name, data[float64](g.Value()), data[float64](expr.denseGrad[i].Value()))
			}
		})
	}
}

// TestResidualTrains trains a residual tower (GELU, three layers of 16) on planted-cluster
// synthetic data: the training loss falls, and the residual model differs from the same model
// without residual connections trained alike.
func TestResidualTrains(t *testing.T) {
	ds, err := datasets.Load(datasets.Settings{Source: "synthetic",
		Synthetic: datasets.SyntheticSettings{Items: 100, Queries: 200, Interactions: 4000, Clusters: 5}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var curves [2]Curve
	var embs [2][]float32
	for i, residual := range []bool{false, true} {
		m, err := New(Settings{EmbeddingDim: 8, Hidden: []int{16, 16, 16}, Activation: ActivationGELU, Residual: residual}, ds, tensor.Float32, 1)
		if err != nil {
			t.Fatal(err)
		}
		est, err := estimators.New(estimators.Settings{Kind: estimators.KindStreaming}, estimators.Env{BatchSize: 64, CorpusSize: ds.Items}, 1)
		if err != nil {
			t.Fatal(err)
		}
		ts := TrainSettings{BatchSize: 64, Epochs: 4, LearningRate: 0.01, LogEvery: 10}
		if curves[i], err = Train(context.Background(), m, ds, est, losses.Settings{Variant: losses.VariantLogQ}, samplerOf(losses.Settings{Variant: losses.VariantLogQ}), ts, 1, nil); err != nil {
			t.Fatal(err)
		}
		embs[i] = must(m.EmbedItems([]int32{0, 1, 2}))
	}
	c := curves[1]
	if first, last := c[0].Loss, c[len(c)-1].Loss; !(last < 0.9*first) {
		t.Errorf("residual model: loss %v → %v, want a fall of at least 10%%", first, last)
	}
	if slices.Equal(embs[0], embs[1]) {
		t.Error("residual and plain models give the same embeddings")
	}
}

// ExampleActivation lists the activations a tower accepts.
func ExampleActivation() {
	fmt.Println(activationNames())
	// Output: [relu identity tanh gelu swish sigmoid]
}

// TestLearnedTemperature checks the learned temperature: at its initial value the loss equals
// the loss at that fixed τ; training moves τ, the curve records it, Save and Load keep it; the
// settings that cannot use it are errors naming learn_temperature.
func TestLearnedTemperature(t *testing.T) {
	ds := tinyDataset()
	// At its initial value the learned τ gives the fixed-τ loss, wherever the correction sits.
	for _, at := range []losses.CorrectAt{losses.CorrectAtLogits, losses.CorrectAtScores} {
		fixed := losses.Settings{Variant: losses.VariantLogQ, Temperature: 0.3, CorrectAt: at, LogQProbability: losses.LogQProbabilityInclusion}
		learned := fixed
		learned.LearnTemperature = true
		_, trF := newTestTrainerWith(t, testSettings, ds, defaultRun(fixed), 4, 3)
		m, trL := newTestTrainerWith(t, testSettings, ds, defaultRun(learned), 4, 3)
		if tau, ok := m.Temperature(); !ok || math.Abs(tau-0.3) > 1e-15 {
			t.Fatalf("correct_at %s: initial learned τ %v (%v), want 0.3", at, tau, ok)
		}
		lf, err := trF.forwardBackward(1, ds.Train[:4])
		if err != nil {
			t.Fatal(err)
		}
		ll, err := trL.forwardBackward(1, ds.Train[:4])
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(lf-ll) > 1e-12*math.Abs(lf) {
			t.Errorf("correct_at %s: loss at learned τ = 0.3: %.15g, at fixed τ = 0.3: %.15g", at, ll, lf)
		}
	}

	fixed := losses.Settings{Variant: losses.VariantLogQ, Temperature: 0.3}
	learned := fixed
	learned.LearnTemperature = true
	m, err := New(testSettings, ds, tensor.Float32, 1)
	if err != nil {
		t.Fatal(err)
	}
	curve, err := Train(context.Background(), m, ds, newCountEstimator(ds, 4), learned, samplerOf(learned), TrainSettings{BatchSize: 4, Steps: 20, LogEvery: 5, LearningRate: 0.05}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	tau, ok := m.Temperature()
	if !ok || tau == 0.3 || math.Abs(tau-0.3) > 0.3 {
		t.Errorf("τ after training %v (%v): want it moved from 0.3 by a few learning rates", tau, ok)
	}
	if last := curve[len(curve)-1]; last.Temperature != tau || curve[0].Temperature == tau {
		t.Errorf("curve temperatures %v … %v, model τ %v", curve[0].Temperature, last.Temperature, tau)
	}
	path := t.TempDir() + "/model.bin"
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	m2, _ := New(testSettings, ds, tensor.Float32, 2)
	if err := m2.Load(path); err != nil {
		t.Fatal(err)
	}
	if tau2, ok := m2.Temperature(); !ok || tau2 != tau {
		t.Errorf("loaded τ %v (%v), saved %v", tau2, ok, tau)
	}
	fixedCurve, err := Train(context.Background(), must(New(testSettings, ds, tensor.Float32, 1)), ds, newCountEstimator(ds, 4), fixed, samplerOf(fixed), TrainSettings{BatchSize: 4, Steps: 5}, 1, nil)
	if err != nil || fixedCurve[0].Temperature != 0.3 {
		t.Errorf("fixed τ in the curve: %v, %v", fixedCurve, err)
	}

	for _, c := range []struct {
		m    *Model
		ls   losses.Settings
		want string
	}{
		{must(New(testSettings, ds, tensor.Float32, 1)), losses.Settings{Variant: losses.VariantMSEGramian, LearnTemperature: true}, "learn_temperature: variant mse_gramian"},
		{m, fixed, "learn_temperature: the model has a learned temperature"},
	} {
		_, err := Train(context.Background(), c.m, ds, newCountEstimator(ds, 4), c.ls, samplerOf(c.ls), TrainSettings{BatchSize: 4, Steps: 1}, 1, nil)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want prefix %q", c.ls, err, c.want)
		}
	}
}

// TestEmbedConcurrent calls EmbedQueries and EmbedItems from several goroutines at once (each
// call builds its own inference graph) for a fused and an expression activation: every call
// returns the embeddings of a call made alone. Run with -race.
func TestEmbedConcurrent(t *testing.T) {
	ds := tinyDataset()
	for _, a := range []Activation{ActivationReLU, ActivationGELU} {
		m := must(New(Settings{EmbeddingDim: 3, Hidden: []int{6, 6, 4}, Activation: a}, ds, tensor.Float32, 1))
		ids := []int32{4, 0, 3, 3, 1, 2}
		want := [2][]float32{must(m.EmbedQueries(ids)), must(m.EmbedItems(ids[:5]))}
		errs := make(chan error, 16)
		for g := range 16 {
			go func() {
				var got []float32
				var err error
				if g%2 == 0 {
					got, err = m.EmbedQueries(ids)
				} else {
					got, err = m.EmbedItems(ids[:5])
				}
				if err == nil && !slices.Equal(got, want[g%2]) {
					err = fmt.Errorf("goroutine %d: %v, alone %v", g, got, want[g%2])
				}
				errs <- err
			}()
		}
		for range 16 {
			if err := <-errs; err != nil {
				t.Errorf("%s: %v", a, err)
			}
		}
	}
}

// TestFloat32BLAS: where the processor has the AVX2/FMA kernel, float32 products go to
// internal/gemm in both builds (the openblas build is then never slower than the pure-Go one);
// a product is split across goroutines by gemm exactly when internal/gemm, which splits its
// products itself, does not compute it (OpenBLAS under the openblas tag without the kernel).
func TestFloat32BLAS(t *testing.T) {
	_, isGemm := float32BLAS().(gemmblas.Implementation)
	if simd.Kernel() && !isGemm {
		t.Errorf("float32 products go to %T on a processor with the kernel, want internal/gemm", float32BLAS())
	}
	if splitGemm[float32]() == isGemm {
		t.Errorf("float32 products to %T split by gemm: %v", float32BLAS(), splitGemm[float32]())
	}
}
