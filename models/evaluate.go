package models

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/metrics"
)

// EvalSettings is how Evaluate evaluates a model: the evaluation's settings and what the data and
// the training tell it.
type EvalSettings struct {
	// Eval is the [eval] section: cut-offs, filter, post-hoc logit adjustment, intervals, the
	// other metric families and the selection metric (resolved by Evaluate on a copy).
	Eval metrics.Settings
	// Slices is the [slices] section: the popularity slice of every item by its training count.
	Slices metrics.SliceSettings
	// Temperature is the loss's fixed τ (0: none), for a model without a learned one: the model's
	// logits are ⟨u, v⟩/τ, which post-hoc logit adjustment shifts by −τ_LA·log π (Menon et al.
	// 2021, eq. 9), never the scores ⟨u, v⟩ in [-1, 1].
	Temperature float64
	// MultiLabel marks multi-label data (source xmc: a query is an example, its items its
	// labels): the propensity-scored metrics are evaluated.
	MultiLabel bool
	// DataSeed seeds what every run on the same data shares, so that they are compared on the
	// same pairs: the sampled evaluation's negatives and the debiased test set
	// (metrics.Input.TestSeed).
	DataSeed int64
	// Seed seeds the run's own draws: the bootstrap resamples and eval.max_pairs' sample.
	Seed int64
	// Link is what probability of an item the model's logits give (the loss's,
	// losses.Settings.Link): on data that know the true probabilities (Dataset.Truth), the test
	// part's evaluation measures its calibration (docs/calibration.md); LinkNone measures none.
	Link losses.Link
	// PHatNegatives is the number of uniform negatives of Khrylchenko et al.'s P̂, measured
	// beside the softmax's calibration (a training row's negatives); 0 measures none.
	PHatNegatives int
}

// Evaluation is a model's evaluation on one part of a dataset (Evaluate).
type Evaluation struct {
	// Evaluation is the metrics package's: the results, the evaluated pairs and their ranks.
	*metrics.Evaluation
	// Input is what was ranked: the query rows' embeddings scaled to logits, the corpus's, every
	// pair of the part with its query row, the items' slices and the training label prior.
	Input metrics.Input
	// Queries[r] is the query of row r of Input.U.
	Queries []int32
	// Taus are the post-hoc logit-adjustment strengths evaluated: Eval.LogitAdjust, or the one
	// selected on the validation set (LATau).
	Taus []float64
	// MostPopular is the most-popular baseline on the same pairs (metrics.MostPopular), and
	// Random the random ranking's Recall@K (metrics.RandomBaseline), both filtered as the
	// model's rankings are.
	MostPopular, Random []metrics.Result
	// Bins describes the popularity bins of slices methods quantiles and mass_quantiles: each
	// bin's share of the items, of the training pairs and of the part's pairs.
	Bins []metrics.BinShare
	// LATau is the strength selected on the validation set (Eval.SelectLATau, test part); nil
	// otherwise.
	LATau *TauSelection
	// Calibration is the model's calibration against the data's true probabilities (test part,
	// EvalSettings.Link, synthetic data); its metrics are among the Results. Nil otherwise.
	Calibration *metrics.Calibration
}

// TauSelection is the choice of the post-hoc logit-adjustment strength on the validation set
// (metrics.Settings.SelectLATau).
type TauSelection struct {
	// Metric names the selection metric (metrics.Settings.SelectName).
	Metric string `json:"metric"`
	// Tau is the strength selected: the best validation metric, the smallest |τ| of equal ones.
	Tau float64 `json:"tau"`
	// Validation is the validation metric at every candidate, in eval.logit_adjust order.
	Validation []TauScore `json:"validation"`
}

// TauScore is the validation metric of the ranking under one post-hoc logit-adjustment strength.
type TauScore struct {
	Tau   float64 `json:"tau"`
	Value float64 `json:"value"`
}

// Evaluate ranks the whole corpus for every pair of part p of ds by m and evaluates the ranking
// (metrics.EvaluateAll) with the most-popular baseline on the same pairs. It is the one place
// where a model's scoring for evaluation is decided:
//
//   - the query rows: the model embeds the queries of the part's pairs (EmbedPairQueries), a row
//     per distinct query embedding, in the order of the pairs' first appearance;
//   - the logits: the query embeddings are divided by the temperature (the learned one, else
//     s.Temperature), so that post-hoc logit adjustment subtracts τ_LA·log π from logits;
//   - the prior: log π of the training label prior (datasets.LogPrior of the training counts),
//     the prior the training's side inputs hold;
//   - the exclusions: under eval.filter, each row's query's training items (seen) or its known
//     positives in every part (known), the pair's own item never;
//   - the slices: every item's popularity slice (or bin) by its training count;
//   - the strengths: eval.logit_adjust, or, with eval.select_la_tau on the test part, the one
//     strength whose ranking of the validation pairs has the best selection metric (selected
//     first, and recorded in Evaluation.LATau), so that the test results are of a model
//     selected without them.
//
// progress receives the ranking's progress (nil discards it).
func Evaluate(ctx context.Context, m *Model, ds *datasets.Dataset, p datasets.Part, s EvalSettings, progress io.Writer) (*Evaluation, error) {
	if err := s.resolve(false); err != nil {
		return nil, err
	}
	var sel *TauSelection
	if s.Eval.SelectLATau && p == datasets.PartTest {
		var err error
		if sel, err = selectTau(ctx, m, ds, s); err != nil {
			return nil, err
		}
		s.Eval.LogitAdjust, s.Eval.SelectLATau = []float64{sel.Tau}, false
	}
	ev, err := evaluate(ctx, m, ds, p, s, progress, true)
	if err != nil {
		return nil, err
	}
	ev.LATau = sel
	if p == datasets.PartTest {
		cal, results, err := calibrate(ctx, ds, s, ev)
		if err != nil {
			return nil, err
		}
		ev.Calibration, ev.Results = cal, append(ev.Results, results...)
	}
	return ev, nil
}

// resolve resolves the evaluation's settings, with the selection metric when selecting or
// selecting the strength of logit adjustment.
func (s *EvalSettings) resolve(selecting bool) error {
	if err := s.Slices.Resolve(); err != nil {
		return fmt.Errorf("models: slices.%w", err)
	}
	if err := s.Eval.Resolve(); err != nil {
		return fmt.Errorf("models: eval.%w", err)
	}
	if selecting || s.Eval.SelectLATau {
		if err := s.Eval.ResolveSelect(s.Slices); err != nil {
			return fmt.Errorf("models: eval.%w", err)
		}
	}
	return nil
}

// evaluate is Evaluate of resolved settings at the strengths s.Eval.LogitAdjust; with baselines,
// the most-popular baseline and the bins' shares too.
func evaluate(ctx context.Context, m *Model, ds *datasets.Dataset, p datasets.Part, s EvalSettings, progress io.Writer, baselines bool) (*Evaluation, error) {
	if len(ds.Pairs(p)) == 0 {
		return nil, fmt.Errorf("models: dataset %q has no %s pairs to evaluate", ds.Name, p)
	}
	q, err := m.EmbedPairQueries(ds, p)
	if err != nil {
		return nil, err
	}
	pairs := make([]metrics.Pair, len(q.Row))
	for i, x := range ds.Pairs(p) {
		pairs[i] = metrics.Pair{Query: q.Row[i], Item: x.Item}
	}
	u := q.U
	tau := s.Temperature
	if learned, ok := m.Temperature(); ok {
		tau = learned
	}
	if tau > 0 {
		for i := range u {
			u[i] /= float32(tau)
		}
	}
	items := make([]int32, ds.Items)
	for i := range items {
		items[i] = int32(i)
	}
	v, err := m.EmbedItems(items)
	if err != nil {
		return nil, err
	}
	counts := ds.ItemCounts()
	in := metrics.Input{U: u, V: v, Dim: m.Dim(), Pairs: pairs, ItemSlice: metrics.AssignSlices(counts, s.Slices),
		LogPrior: datasets.LogPrior(counts), Counts: counts, TestSeed: s.DataSeed}
	in.Exclude = excludeLists(ds, s.Eval.Filter, q.Query)
	if s.MultiLabel {
		in.MultiLabel = true
		seen := map[int32]bool{}
		for _, it := range ds.Train {
			seen[it.Query] = true
		}
		in.TrainQueries = len(seen)
	}
	if s.Eval.Sampled.On() {
		known := ds.KnownPositives()
		in.Known = make([][]int32, len(q.Query))
		for r, x := range q.Query {
			in.Known[r] = known[x]
		}
	}
	ev, err := metrics.EvaluateAll(ctx, in, s.Eval, s.Seed, progress)
	if err != nil {
		return nil, err
	}
	out := &Evaluation{Evaluation: ev, Input: in, Queries: q.Query, Taus: s.Eval.LogitAdjust}
	if !baselines {
		return out, nil
	}
	if out.MostPopular, err = metrics.MostPopular(ctx, pairs, in.ItemSlice, counts, in.Exclude, s.Eval, s.Seed); err != nil {
		return nil, err
	}
	if out.Random, err = metrics.RandomBaseline(pairs, in.ItemSlice, len(counts), in.Exclude, s.Eval, s.Seed); err != nil {
		return nil, err
	}
	if s.Slices.Bins > 0 {
		partItems := make([]int32, len(pairs))
		for i, x := range pairs {
			partItems[i] = x.Item
		}
		bin := make([]int, len(in.ItemSlice))
		for j, sl := range in.ItemSlice {
			bin[j], _ = sl.Bin()
		}
		out.Bins = metrics.BinShares(counts, bin, s.Slices.Bins, partItems)
	}
	return out, nil
}

// excludeLists returns, for each query row (queries[r] is the query of row r), the items that
// filter drops from its rankings: its training items (seen), its items of every part (known), or
// nil for none.
func excludeLists(ds *datasets.Dataset, filter metrics.Filter, queries []int32) [][]int32 {
	if !filter.Excludes() {
		return nil
	}
	byQuery := ds.KnownPositives()
	if filter == metrics.FilterSeen {
		byQuery = ds.TrainPositives()
	}
	out := make([][]int32, len(queries))
	for r, q := range queries {
		out[r] = byQuery[q]
	}
	return out
}

// validationSettings are the settings of an evaluation of the validation set by the selection
// metric of resolved settings s at the strengths taus: that metric's cut-off alone, the filter,
// the slices and eval.max_pairs of s, without intervals, exposure, the debiased or sampled
// evaluations or run files, whose results a selection does not read.
func (s EvalSettings) validationSettings(taus []float64) EvalSettings {
	e := s.Eval
	s.Eval = metrics.Settings{K: []int{max(e.SelectK, 1)}, Filter: e.Filter, LogitAdjust: taus, Bootstrap: -1,
		Workers: e.Workers, MaxPairs: e.MaxPairs, LogSeconds: e.LogSeconds, Exposure: metrics.ExposureOff, Gamma: e.Gamma,
		SelectMetric: e.SelectMetric, SelectK: e.SelectK, SelectSlice: e.SelectSlice}
	return s
}

// validationScore is the selection metric of m on the validation set of ds, at τ_LA = 0 (s
// resolved, its selection metric too).
func validationScore(ctx context.Context, m *Model, ds *datasets.Dataset, s EvalSettings) (float64, error) {
	v := s.validationSettings([]float64{0})
	ev, err := evaluate(ctx, m, ds, datasets.PartValid, v, nil, false)
	if err != nil {
		return 0, err
	}
	return v.Eval.SelectValue(ev.Results, 0)
}

// selectTau evaluates m on the validation set of ds at every strength of s.Eval.LogitAdjust and
// selects the one of the best selection metric, the smallest |τ| (then the first) of equal ones.
func selectTau(ctx context.Context, m *Model, ds *datasets.Dataset, s EvalSettings) (*TauSelection, error) {
	v := s.validationSettings(s.Eval.LogitAdjust)
	ev, err := evaluate(ctx, m, ds, datasets.PartValid, v, nil, false)
	if err != nil {
		return nil, fmt.Errorf("eval.select_la_tau: %w", err)
	}
	sel := &TauSelection{Metric: v.Eval.SelectName()}
	best := -1
	for k, tau := range v.Eval.LogitAdjust {
		value, err := v.Eval.SelectValue(ev.Results, tau)
		if err != nil {
			return nil, fmt.Errorf("eval.select_la_tau: %w", err)
		}
		sel.Validation = append(sel.Validation, TauScore{Tau: tau, Value: value})
		if b := sel.Validation; best < 0 || value > b[best].Value || value == b[best].Value && math.Abs(tau) < math.Abs(b[best].Tau) {
			best = k
		}
	}
	sel.Tau = sel.Validation[best].Tau
	return sel, nil
}
