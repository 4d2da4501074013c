package models

import (
	"math"
	"slices"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/losses/lossestest"
)

// bagField builds a field from explicit bags (weights nil = all 1).
func bagField(name string, vocab int, bags [][]int32, weights [][]float32) datasets.Field {
	f := datasets.Field{Name: name, Vocab: vocab, Known: vocab, Offsets: []int32{0}}
	for e, b := range bags {
		f.IDs = append(f.IDs, b...)
		if weights != nil {
			f.Weights = append(f.Weights, weights[e]...)
		}
		f.Offsets = append(f.Offsets, int32(len(f.IDs)))
	}
	return f
}

// tinyDataset has 6 queries and 5 items with several fields per side (one of them, "page",
// on both sides), weighted multi-id bags, an empty bag, dense features and varied rewards.
func tinyDataset() *datasets.Dataset {
	qf := &datasets.Features{
		Fields: []datasets.Field{
			bagField("page", 7, [][]int32{{0}, {1}, {2}, {3}, {4}, {5}}, nil),
			bagField("tag", 4, [][]int32{{0, 1}, {2}, {}, {1, 3, 3}, {0}, {2, 3}},
				[][]float32{{0.5, 2}, {1}, {}, {1, 0.25, 0.75}, {3}, {1, 1}}),
		},
		DenseDim: 2,
		Dense:    []float32{0.1, -0.3, 0.5, 0.2, -0.7, 0.4, 0.3, 0.3, -0.2, 0.9, 0.6, -0.5},
	}
	itf := &datasets.Features{
		Fields: []datasets.Field{
			bagField("page", 7, [][]int32{{6}, {5}, {4}, {3}, {2}}, nil),
			bagField("cat", 3, [][]int32{{0}, {1, 2}, {2}, {0, 1}, {1}}, nil),
		},
		DenseDim: 1,
		Dense:    []float32{0.4, -0.2, 0.8, 0.1, -0.6},
	}
	ds := &datasets.Dataset{Name: "tiny", Queries: 6, Items: 5, QueryFeatures: qf, ItemFeatures: itf}
	pairs := [][2]int32{{0, 1}, {1, 2}, {2, 0}, {3, 3}, {4, 4}, {5, 1}, {0, 2}, {2, 3}}
	for i, p := range pairs {
		ds.Train = append(ds.Train, datasets.Interaction{Query: p[0], Item: p[1], Reward: 0.5 + 0.25*float32(i%3), Day: int32(i / 4)})
	}
	ds.Days = 2
	return ds
}

// gradCases are the losses and samplers (geometries) of the gradient checks.
var gradCases = []testRun{
	defaultRun(losses.Settings{Variant: losses.VariantLogQ}),
	{losses.Settings{Variant: losses.VariantPlain}, uniformSampler(3)},
	{losses.Settings{Variant: losses.VariantLogQ}, mixedSampler(2)},
	defaultRun(losses.Settings{Variant: losses.VariantFull}),
	defaultRun(losses.Settings{Variant: losses.VariantMSEGramian}),
	{losses.Settings{Variant: losses.VariantPlain}, uniformPerRowSampler(3)},
	{losses.Settings{Variant: losses.VariantLogQ}, mixedPerRowSampler(2)},
	{losses.Settings{Variant: losses.VariantMSEGramian}, uniformPerRowSampler(2)},
}

// testSettings is the model of the float64 tests: small, with shared embeddings.
var testSettings = Settings{EmbeddingDim: 3, Hidden: []int{8, 3}, ShareEmbeddings: true, InitStd: 0.5}

// newTestTrainer builds a float64 trainer of a testSettings model.
// newTestTrainer builds a float64 trainer of a testSettings model for ls and its default sampler.
func newTestTrainer(t *testing.T, ds *datasets.Dataset, ls losses.Settings, batch int, seed int64) (*Model, *trainer[float64]) {
	t.Helper()
	return newTestTrainerWith(t, testSettings, ds, defaultRun(ls), batch, seed)
}

func newTestTrainerWith(t *testing.T, s Settings, ds *datasets.Dataset, run testRun, batch int, seed int64) (*Model, *trainer[float64]) {
	t.Helper()
	return newTestTrainerT[float64](t, s, ds, run, batch, seed, towerFused)
}

// newTestTrainerT builds a trainer of element type T whose towers are built as impl says.
func newTestTrainerT[T float](t *testing.T, s Settings, ds *datasets.Dataset, run testRun, batch int, seed int64, impl towerImpl) (*Model, *trainer[T]) {
	t.Helper()
	dt := tensor.Float64
	if _, ok := any(T(0)).(float32); ok {
		dt = tensor.Float32
	}
	m, err := New(s, ds, dt, seed)
	if err != nil {
		t.Fatal(err)
	}
	smp, g := mustBuild(run.ss)
	loss, err := trainLoss(m, run.ls, g)
	if err != nil {
		t.Fatal(err)
	}
	ts := TrainSettings{BatchSize: batch}
	if err := ts.Resolve(); err != nil {
		t.Fatal(err)
	}
	tr, err := newTrainer[T](m, ds, newCountEstimator(ds, batch), loss, smp, ts, seed, impl)
	if err != nil {
		t.Fatal(err)
	}
	return m, tr
}

// TestGradientsFiniteDifferences checks the gradient of the training loss w.r.t. every
// parameter (embedding rows of shared and unshared tables, used or not by the batch, and every
// MLP weight and bias) against central finite differences, for every layout, for every
// activation with and without residual connections, with a learned temperature (log τ among
// the parameters), and for a model without ReLU whose query tower has dense features only.
func TestGradientsFiniteDifferences(t *testing.T) {
	type gradCase struct {
		name string
		s    Settings
		ds   *datasets.Dataset
		run  testRun
	}
	var cases []gradCase
	for _, r := range append(slices.Clone(gradCases), miningRuns...) {
		cases = append(cases, gradCase{r.name(), testSettings, tinyDataset(), r})
	}
	denseOnly := tinyDataset()
	denseOnly.QueryFeatures.Fields = nil
	for _, a := range activations {
		s := testSettings
		s.Activation = a.name
		cases = append(cases, gradCase{"activation-" + string(a.name), s, tinyDataset(), defaultRun(losses.Settings{Variant: losses.VariantLogQ})})
		s.Hidden, s.Residual = []int{6, 6, 6}, true
		cases = append(cases, gradCase{"residual-" + string(a.name), s, tinyDataset(), defaultRun(losses.Settings{Variant: losses.VariantLogQ})})
	}
	cases = append(cases, gradCase{"learned-temperature", testSettings, tinyDataset(), defaultRun(losses.Settings{Variant: losses.VariantLogQ, Temperature: 0.3, LearnTemperature: true})},
		gradCase{"learned-temperature-tail-uniform", testSettings, tinyDataset(), testRun{losses.Settings{Variant: losses.VariantTail, LearnTemperature: true}, uniformSampler(3)}})
	cases = append(cases, gradCase{"identity-dense-only", Settings{EmbeddingDim: 3, Hidden: []int{4, 3}, Activation: ActivationIdentity, InitStd: 0.5},
		denseOnly, defaultRun(losses.Settings{Variant: losses.VariantLogQ})})
	for _, c := range cases {
		ds := c.ds
		t.Run(c.name, func(t *testing.T) {
			m, tr := newTestTrainerWith(t, c.s, ds, c.run, 4, 3)
			// Finite differences need the towers away from the normalisation's zero (where the
			// loss varies on the scale of ε): an all-dead ReLU layer would put an output there.
			for side, tw := range m.towers {
				for e := range tw.n {
					if _, n := refEmbedNorm(m, side, e); n < 1e-3 {
						t.Fatalf("%s %d: output norm %v before normalisation", sideNames[side], e, n)
					}
				}
			}
			if _, err := tr.forwardBackward(1, ds.Train[:4]); err != nil {
				t.Fatal(err)
			}
			tr.gradients()
			analytic := map[*param][]float64{}
			for i, p := range tr.dense {
				analytic[p] = append([]float64(nil), data[float64](tr.denseGrad[i].Value())...)
			}
			for ti, p := range m.tables {
				g := make([]float64, p.size())
				rg := tr.grads[ti]
				for k, r := range rg.rows {
					copy(g[int(r)*rg.dim:], rg.grad[k*rg.dim:(k+1)*rg.dim])
				}
				analytic[p] = g
				rg.reset()
			}
			checked := 0
			for _, p := range m.params() {
				w := values[float64](p)
				orig := slices.Clone(w)
				fd := lossestest.CentralDifferences(func(x []float64) float64 {
					copy(w, x)
					l, err := tr.run()
					if err != nil {
						t.Fatal(err)
					}
					return l
				}, orig, 1e-6)
				copy(w, orig)
				for i, d := range fd {
					an := analytic[p][i]
					if math.Abs(d-an) > 1e-7+1e-5*math.Max(math.Abs(d), math.Abs(an)) {
						t.Errorf("%s[%d]: analytic %.10g, finite difference %.10g", p.name, i, an, d)
					}
					checked++
				}
			}
			if checked != m.NumParams() {
				t.Fatalf("checked %d of %d parameters", checked, m.NumParams())
			}
		})
	}
}

// refActivation is the activation a of x written from its definition.
func refActivation(a Activation, x float64) float64 {
	switch a {
	case ActivationReLU:
		return math.Max(x, 0)
	case ActivationIdentity:
		return x
	case ActivationTanh:
		return math.Tanh(x)
	case ActivationGELU: // Hendrycks and Gimpel (2016), section 2, the tanh approximation
		return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
	case ActivationSwish: // x·σ(x)
		return x / (1 + math.Exp(-x))
	case ActivationSigmoid:
		return 1 / (1 + math.Exp(-x))
	}
	panic("refActivation: no reference for activation " + string(a))
}

// refEmbed is an independent float64 forward pass of one entity, straight from the model's
// definition: weighted mean of each bag's rows, dense features, MLP with the activation between
// layers (and the residual sum h + act(h·W + b) after the first layer when asked),
// u/sqrt(‖u‖²+ε²).
func refEmbed(m *Model, side int, e int) []float64 {
	u, _ := refEmbedNorm(m, side, e)
	return u
}

// refEmbedNorm is refEmbed that also returns the norm of the output before normalisation.
func refEmbedNorm(m *Model, side int, e int) ([]float64, float64) {
	bags, dense := refInputs(m, side, e)
	return refMLPNorm(m, side, append(bags, dense...))
}

// refInputs returns the tower input of entity e: each field's weighted mean of its bag's rows,
// and the dense features.
func refInputs(m *Model, side int, e int) (bags, dense []float64) {
	tw := m.towers[side]
	var x []float64
	for _, fi := range tw.fields {
		tab := values[float64](m.tables[fi.table])
		dim := m.s.EmbeddingDim
		seg := make([]float64, dim)
		lo, hi := fi.field.Offsets[e], fi.field.Offsets[e+1]
		var sw float64
		for k := lo; k < hi; k++ {
			wk := 1.0
			if fi.field.Weights != nil {
				wk = float64(fi.field.Weights[k])
			}
			sw += wk
			for j := range dim {
				seg[j] += wk * tab[int(fi.field.IDs[k])*dim+j]
			}
		}
		for j := range seg {
			if sw != 0 {
				seg[j] /= sw
			}
		}
		x = append(x, seg...)
	}
	dd := tw.feats.DenseDim
	for j := range dd {
		dense = append(dense, float64(tw.feats.Dense[e*dd+j]))
	}
	return x, dense
}

// refMLPNorm applies the tower's MLP to the input x and normalises the output; it also returns
// the output's norm before normalisation.
func refMLPNorm(m *Model, side int, x []float64) ([]float64, float64) {
	tw := m.towers[side]
	for li, l := range tw.layers {
		w, b := values[float64](l.w), values[float64](l.b)
		y := make([]float64, l.out)
		for o := range l.out {
			s := b[o]
			for i := range l.in {
				s += x[i] * w[i*l.out+o]
			}
			if li < len(tw.layers)-1 {
				s = refActivation(m.s.Activation, s)
			}
			if m.s.Residual && li > 0 {
				s += x[o]
			}
			y[o] = s
		}
		x = y
	}
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	n := math.Sqrt(ss + m.s.NormEpsilon*m.s.NormEpsilon)
	for i := range x {
		x[i] /= n
	}
	return x, math.Sqrt(ss)
}

// TestForwardMatchesReference checks the towers (EmbedQueries/EmbedItems) and the training
// graph's logq loss against refEmbed and Yi et al.'s eq. (4) written out directly:
// L = -(1/B) Σ_i r_i log softmax_j(⟨u_i, v_j⟩/τ − log p̂_j)[i].
func TestForwardMatchesReference(t *testing.T) {
	ds := tinyDataset()
	m, tr := newTestTrainer(t, ds, losses.Settings{Variant: losses.VariantLogQ, Temperature: 0.2, LogQProbability: losses.LogQProbabilityInclusion}, 4, 5)
	batch := ds.Train[2:6]
	got, err := tr.forwardBackward(1, batch)
	if err != nil {
		t.Fatal(err)
	}
	est := newCountEstimator(ds, 4)
	var want float64
	for _, a := range batch {
		u := refEmbed(m, sideQuery, int(a.Query))
		logits := make([]float64, len(batch))
		for j, c := range batch {
			v := refEmbed(m, sideItem, int(c.Item))
			var s float64
			for k := range u {
				s += u[k] * v[k]
			}
			logits[j] = s/0.2 - math.Log(est.Prob(uint64(c.Item)))
		}
		mx := math.Inf(-1)
		for _, l := range logits {
			mx = math.Max(mx, l)
		}
		var z float64
		for _, l := range logits {
			z += math.Exp(l - mx)
		}
		pos := -1
		for j, c := range batch {
			if c == a {
				pos = j
				break
			}
		}
		want -= float64(a.Reward) * (logits[pos] - mx - math.Log(z))
	}
	want /= float64(len(batch))
	if math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("loss %.15g, reference %.15g", got, want)
	}
	for side, embed := range []func([]int32) ([]float32, error){m.EmbedQueries, m.EmbedItems} {
		n := m.towers[side].n
		ids := make([]int32, n)
		for i := range ids {
			ids[i] = int32(i)
		}
		e, err := embed(ids)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			ref := refEmbed(m, side, i)
			for j, r := range ref {
				if g := float64(e[i*m.Dim()+j]); math.Abs(g-r) > 1e-6 {
					t.Fatalf("%s %d [%d]: %v, reference %v", sideNames[side], i, j, g, r)
				}
			}
		}
	}
}

// TestL2NormZeroRow checks that the normalisation of a zero row is zero with a finite gradient
// (Gorgonia's Norm gives NaN there), and the gradient against finite differences elsewhere.
func TestL2NormZeroRow(t *testing.T) {
	const eps = 1e-6
	z := []float64{0, 0, 0, 3, -4, 12}
	g := []float64{1, -2, 0.5, 0.3, 0.7, -1}
	y := make([]float64, 6)
	dz := make([]float64, 6)
	l2Norm(y, z, 3, eps)
	l2NormGrad(dz, z, y, g, 3, eps)
	for i, v := range append(append([]float64(nil), y[:3]...), dz...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("value %d is %v", i, v)
		}
	}
	if y[0] != 0 || y[1] != 0 || y[2] != 0 {
		t.Errorf("normalised zero row = %v", y[:3])
	}
	// the zero row's gradient is g/eps (dy/dz = I/eps at z = 0)
	for j := range 3 {
		if want := g[j] / eps; math.Abs(dz[j]-want) > 1e-6*math.Abs(want) {
			t.Errorf("zero row gradient[%d] = %v, want %v", j, dz[j], want)
		}
	}
	f := func(z []float64) float64 {
		out := make([]float64, 3)
		l2Norm(out, z, 3, eps)
		return out[0]*g[3] + out[1]*g[4] + out[2]*g[5]
	}
	for j := range 3 {
		zp := append([]float64(nil), z[3:]...)
		zm := append([]float64(nil), z[3:]...)
		zp[j] += 1e-6
		zm[j] -= 1e-6
		if fd := (f(zp) - f(zm)) / 2e-6; math.Abs(fd-dz[3+j]) > 1e-8 {
			t.Errorf("gradient[%d] = %v, finite difference %v", j, dz[3+j], fd)
		}
	}
	// y = (3, -4, 12)/13
	if math.Abs(y[3]-3.0/13) > 1e-12 || math.Abs(y[5]-12.0/13) > 1e-12 {
		t.Errorf("normalised (3, -4, 12) = %v", y[3:])
	}
}
