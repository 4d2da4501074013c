package models

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/estimators"
	"github.com/samplingbias/workbench/losses"
)

// TestSaveLoad: a trained model saved and loaded into a freshly built model (another seed) gives
// identical embeddings; mismatched models and broken files are errors.
func TestSaveLoad(t *testing.T) {
	ds := tinyDataset()
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		s := Settings{EmbeddingDim: 3, Hidden: []int{5, 3}, ShareEmbeddings: true}
		m, err := New(s, ds, dt, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Train(context.Background(), m, ds, newCountEstimator(ds, 4), losses.Settings{}, samplerOf(losses.Settings{}), TrainSettings{BatchSize: 4, Epochs: 3}, 1, nil); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "model.gob")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		m2, err := New(s, ds, dt, 2)
		if err != nil {
			t.Fatal(err)
		}
		ids := []int32{0, 1, 2, 3, 4}
		before, _ := m2.EmbedItems(ids)
		if err := m2.Load(path); err != nil {
			t.Fatal(err)
		}
		for _, embed := range []func(*Model) ([]float32, error){
			func(m *Model) ([]float32, error) { return m.EmbedItems(ids) },
			func(m *Model) ([]float32, error) { return m.EmbedQueries([]int32{0, 1, 2, 3, 4, 5}) },
		} {
			want, _ := embed(m)
			got, _ := embed(m2)
			if !slices.Equal(got, want) {
				t.Fatalf("%v: loaded embeddings %v, saved model's %v", dt, got, want)
			}
		}
		if slices.Equal(before, must(m2.EmbedItems(ids))) {
			t.Fatalf("%v: seeds 1 and 2 give the same initial model", dt)
		}
		entries, _ := os.ReadDir(filepath.Dir(path))
		if len(entries) != 1 {
			t.Errorf("%v: the save left %d files", dt, len(entries))
		}

		other, _ := New(Settings{EmbeddingDim: 3, Hidden: []int{4, 3}, ShareEmbeddings: true}, ds, dt, 1)
		if err := other.Load(path); err == nil || !strings.Contains(err.Error(), "saved with model settings") {
			t.Errorf("loading into other settings: %v", err)
		}
		otherType := tensor.Float64
		if dt == tensor.Float64 {
			otherType = tensor.Float32
		}
		other, _ = New(s, ds, otherType, 1)
		if err := other.Load(path); err == nil || !strings.Contains(err.Error(), "parameters are") {
			t.Errorf("loading into another dtype: %v", err)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.gob")
	if err := os.WriteFile(bad, []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, _ := New(Settings{}, ds, tensor.Float32, 1)
	if err := m.Load(bad); err == nil || !strings.Contains(err.Error(), "not a model file") {
		t.Errorf("loading garbage: %v", err)
	}
	if err := m.Save(filepath.Join(t.TempDir(), "missing", "dir", "m.gob")); err == nil {
		t.Error("saving into a missing directory succeeded")
	}
}

// TestModelFileBitFlips flips, one at a time, every bit of a saved model file (the header, the
// gob payload and the trailer holding the payload length and CRC-32C): every flip is an error
// naming the file (one flip per byte is written to a file and loaded with Load, the others are
// decoded from memory by the same code), and the model being loaded keeps its parameters.
func TestModelFileBitFlips(t *testing.T) {
	ds := tinyDataset()
	s := Settings{EmbeddingDim: 2, Hidden: []int{3, 2}, ShareEmbeddings: true}
	m := must(New(s, ds, tensor.Float32, 1))
	dir := t.TempDir()
	path := filepath.Join(dir, "model.bin")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	target := must(New(s, ds, tensor.Float32, 2))
	before := must(target.EmbedItems([]int32{0, 1, 2, 3, 4}))
	bad := filepath.Join(dir, "flipped.bin")
	regions := map[string]int{}
	for i := range good {
		region := "payload"
		switch {
		case i < len(modelMagic):
			region = "header"
		case i >= len(good)-trailerSize:
			region = "trailer"
		}
		for bit := range 8 {
			b := slices.Clone(good)
			b[i] ^= 1 << bit
			var sm savedModel
			err := decodeChecksummed(bad, b, modelMagic, "model", &sm)
			if bit == i%8 { // one flip per byte through the file and Load
				if err := os.WriteFile(bad, b, 0o644); err != nil {
					t.Fatal(err)
				}
				err = target.Load(bad)
			}
			if err == nil || !strings.HasPrefix(err.Error(), bad+": ") {
				t.Fatalf("%s byte %d bit %d flipped: error %v", region, i, bit, err)
			}
			regions[region]++
		}
	}
	if regions["header"] != 64 || regions["trailer"] != 96 || regions["payload"] < 800 {
		t.Errorf("flips per region %v", regions)
	}
	if after := must(target.EmbedItems([]int32{0, 1, 2, 3, 4})); !slices.Equal(before, after) {
		t.Error("a failed load changed the model")
	}
	if err := target.Load(path); err != nil {
		t.Errorf("the intact file: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestNew checks the model's structure: tables shared by name when asked, input widths, errors.
func TestNew(t *testing.T) {
	ds := tinyDataset()
	m, err := New(Settings{EmbeddingDim: 3, Hidden: []int{5, 2}, ShareEmbeddings: true}, ds, tensor.Float32, 1)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range m.tables {
		names = append(names, p.name)
	}
	if want := []string{"shared.page", "query.tag", "item.cat"}; !slices.Equal(names, want) {
		t.Errorf("tables %v, want %v", names, want)
	}
	if q, i := m.towers[sideQuery].in, m.towers[sideItem].in; q != 3*2+2 || i != 3*2+1 {
		t.Errorf("input widths %d, %d", q, i)
	}
	// 7×3 + 4×3 + 3×3 embeddings; query MLP 8×5+5 + 5×2+2; item MLP 7×5+5 + 5×2+2
	if n := m.NumParams(); n != 21+12+9+57+52 {
		t.Errorf("%d parameters", n)
	}
	if m.Dim() != 2 {
		t.Errorf("Dim %d", m.Dim())
	}
	separate, _ := New(Settings{EmbeddingDim: 3, Hidden: []int{2}}, ds, tensor.Float32, 1)
	if len(separate.tables) != 4 {
		t.Errorf("%d tables without sharing", len(separate.tables))
	}

	bad := tinyDataset()
	bad.ItemFeatures.Fields[0].Vocab = 8
	if _, err := New(Settings{ShareEmbeddings: true}, bad, tensor.Float32, 1); err == nil || !strings.Contains(err.Error(), `shared field "page"`) {
		t.Errorf("unequal shared vocabularies: %v", err)
	}
	bad = tinyDataset()
	bad.QueryFeatures.Fields[1].IDs[0] = 9
	if _, err := New(Settings{}, bad, tensor.Float32, 1); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("id out of the vocabulary: %v", err)
	}
	if _, err := New(Settings{Activation: "elu"}, ds, tensor.Float32, 1); err == nil || !strings.HasPrefix(err.Error(), "activation: unknown") {
		t.Errorf("bad settings: %v", err)
	}
	if _, err := New(Settings{}, ds, tensor.Int, 1); err == nil {
		t.Error("int model accepted")
	}
}

// TestSettingsResolve checks the defaults and that every error starts with its TOML key.
func TestSettingsResolve(t *testing.T) {
	var s Settings
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	if s.EmbeddingDim != 64 || !slices.Equal(s.Hidden, []int{512, 128}) || s.Activation != "relu" || s.InitStd != 0.1 || s.NormEpsilon != 1e-6 || s.ShareEmbeddings {
		t.Errorf("defaults %+v", s)
	}
	var ts TrainSettings
	if err := ts.Resolve(); err != nil {
		t.Fatal(err)
	}
	if ts != (TrainSettings{Optimizer: "adam", LearningRate: 0.001, Beta1: 0.9, Beta2: 0.999, Epsilon: 1e-8, BatchSize: 256, Epochs: 10, Order: "shuffled", LogEvery: 100, LogSeconds: 10}) {
		t.Errorf("defaults %+v", ts)
	}
	for _, c := range []struct {
		s    Settings
		want string
	}{
		{Settings{EmbeddingDim: -1}, "embedding_dim: "},
		{Settings{Hidden: []int{4, 0}}, "hidden: "},
		{Settings{Activation: "elu"}, `activation: unknown "elu" (allowed: relu, identity, tanh, gelu, swish, sigmoid)`},
		{Settings{Hidden: []int{8}, Residual: true}, "residual: needs at least two layers"},
		{Settings{Hidden: []int{8, 8, 4}, Residual: true}, "residual: needs layers of equal sizes"},
		{Settings{InitStd: -1}, "init_std: "},
		{Settings{NormEpsilon: -1}, "norm_epsilon: "},
	} {
		if err := c.s.Resolve(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want prefix %q", c.s, err, c.want)
		}
	}
	for _, c := range []struct {
		s    TrainSettings
		want string
	}{
		{TrainSettings{Optimizer: "rmsprop"}, `optimizer: unknown "rmsprop" (allowed: sgd, momentum, adagrad, adam)`},
		{TrainSettings{LearningRate: -1}, "learning_rate: "},
		{TrainSettings{Momentum: 0.5}, "momentum: only used by optimizer"},
		{TrainSettings{Optimizer: "momentum", Momentum: 1}, "momentum: must be in [0, 1)"},
		{TrainSettings{Optimizer: "sgd", Beta1: 0.5}, "beta1: "},
		{TrainSettings{Beta2: 1}, "beta2: "},
		{TrainSettings{Optimizer: "sgd", Epsilon: 1e-3}, "epsilon: only used"},
		{TrainSettings{Clip: -1}, "clip: "},
		{TrainSettings{BatchSize: -4}, "batch_size: "},
		{TrainSettings{Epochs: -1}, "epochs: "},
		{TrainSettings{Steps: -1}, "steps: "},
		{TrainSettings{Epochs: 2, Steps: 10}, "steps: set epochs or steps, not both"},
		{TrainSettings{Order: "random"}, `order: unknown "random" (allowed: shuffled, sequential)`},
		{TrainSettings{LogEvery: -1}, "log_every: "},
		{TrainSettings{LogSeconds: -1}, "log_seconds: "},
		{TrainSettings{CheckpointEvery: -1}, "checkpoint_every: "},
	} {
		if err := c.s.Resolve(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want prefix %q", c.s, err, c.want)
		}
	}
	for opt, lr := range map[Optimizer]float64{"sgd": 0.1, "momentum": 0.1, "adagrad": 0.05} {
		s := TrainSettings{Optimizer: opt}
		if err := s.Resolve(); err != nil || s.LearningRate != lr {
			t.Errorf("%s: learning rate %v, error %v", opt, s.LearningRate, err)
		}
		if err := s.Resolve(); err != nil {
			t.Errorf("%s: resolving twice: %v", opt, err)
		}
	}
}

// Example trains a small two-tower model with the logQ-corrected in-batch softmax and the
// streaming frequency estimator on planted-cluster synthetic data, then embeds the corpus.
func Example() {
	ds, err := datasets.Load(datasets.Settings{Source: "synthetic",
		Synthetic: datasets.SyntheticSettings{Items: 200, Queries: 400, Interactions: 10000, Clusters: 10}}, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := New(Settings{EmbeddingDim: 16, Hidden: []int{32, 16}}, ds, tensor.Float32, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := TrainSettings{BatchSize: 128, Epochs: 3, LearningRate: 0.01}
	est, err := estimators.New(estimators.Settings{Kind: estimators.KindStreaming},
		estimators.Env{BatchSize: ts.BatchSize, CorpusSize: ds.Items}, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	curve, err := Train(context.Background(), m, ds, est, losses.Settings{Variant: losses.VariantLogQ}, samplerOf(losses.Settings{Variant: losses.VariantLogQ}), ts, 1, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	items := make([]int32, ds.Items)
	for i := range items {
		items[i] = int32(i)
	}
	v, err := m.EmbedItems(items)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("steps:", curve[len(curve)-1].Step)
	fmt.Println("loss fell:", curve[len(curve)-1].Loss < curve[0].Loss)
	fmt.Printf("item embeddings: %d × %d\n", len(v)/m.Dim(), m.Dim())
	// Output:
	// steps: 210
	// loss fell: true
	// item embeddings: 200 × 16
}

// TestOptimizerDefaults ties TrainSettings' doc comment (learning rate 0.001 for adam, 0.05 for
// adagrad, 0.1 for sgd and momentum; epsilon 1e-8 for adam, 1e-10 for adagrad) to the table of
// optimisers.
func TestOptimizerDefaults(t *testing.T) {
	want := map[Optimizer][2]float64{
		OptimizerAdam: {0.001, 1e-8}, OptimizerAdagrad: {0.05, 1e-10},
		OptimizerSGD: {0.1, 0}, OptimizerMomentum: {0.1, 0},
	}
	if len(optimizers) != len(want) {
		t.Fatalf("%d optimisers, the comment documents %d", len(optimizers), len(want))
	}
	for _, o := range optimizers {
		s := TrainSettings{Optimizer: o.name}
		if err := s.Resolve(); err != nil {
			t.Fatal(err)
		}
		if got := [2]float64{s.LearningRate, s.Epsilon}; got != want[o.name] {
			t.Errorf("%s: learning rate and epsilon %v, documented %v", o.name, got, want[o.name])
		}
	}
}

// TestPoolBagOneRow: the mean of a bag of one unweighted id (poolBag's shortcut) has the bits of
// the weighted mean's loop with weight 1, −0 (which becomes +0), NaN and infinities included,
// in float32 and float64.
func TestPoolBagOneRow(t *testing.T) {
	row := []float64{1.5, math.Copysign(0, -1), 0, math.NaN(), math.Inf(-1), -3e-39, 7, 1e30, -2, 0.1}
	check := func(got, want []float64) {
		t.Helper()
		for j := range got {
			if math.Float64bits(got[j]) != math.Float64bits(want[j]) && !(math.IsNaN(got[j]) && math.IsNaN(want[j])) {
				t.Fatalf("value %d: %v, the loop's %v", j, got[j], want[j])
			}
		}
		if math.Signbit(got[1]) {
			t.Fatal("−0 stayed −0")
		}
	}
	emb32 := make([]float32, 3*len(row))
	for j, v := range row {
		emb32[len(row)+j] = float32(v)
	}
	seg, want := make([]float32, len(row)), make([]float32, len(row))
	poolBag(seg, []int32{1}, nil, emb32)
	poolBag(want, []int32{1}, []float32{1}, emb32)
	wide := func(x []float32) []float64 {
		y := make([]float64, len(x))
		for j, v := range x {
			y[j] = float64(v)
		}
		return y
	}
	check(wide(seg), wide(want))
	emb64 := make([]float64, 3*len(row))
	copy(emb64[len(row):], row)
	seg64, want64 := make([]float64, len(row)), make([]float64, len(row))
	poolBag(seg64, []int32{1}, nil, emb64)
	poolBag(want64, []int32{1}, []float32{1}, emb64)
	check(seg64, want64)
}
