package report

import (
	"errors"
	"fmt"
	"time"

	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/plots"
)

// Run is one finished run as the report reads it: its cell, its seed and what it measured.
type Run struct {
	// ID is the run's id, e.g. "variant=logq,temperature=0.07,seed=1".
	ID string
	// Group is the run's cell: its id without the seed ("" for a grid of one cell).
	Group string
	// Seed is the run's seed; runs of the same seed are paired across cells.
	Seed int64
	// Axes maps every ablation key of the grid to the run's value, written as in its id.
	Axes map[string]string
	// LossFamily names the family of the run's loss (losses.Family): the training-loss curves of
	// each family are drawn in a panel of their own, their scales being different.
	LossFamily string
	// Dataset names the run's data, for summary.md's title.
	Dataset string
	// Items is the number of items ranked at evaluation, M (the random baseline's K/M when no
	// random baseline was recorded).
	Items int
	// SliceNotes say which popularity slices are empty, and why.
	SliceNotes []string
	// Bins describe the popularity bins of slices.method "quantiles" and "mass_quantiles".
	Bins []metrics.BinShare
	// Results are the run's metrics; MostPopular the most-popular baseline on its data
	// (metrics.MostPopular).
	Results, MostPopular []metrics.Result
	// Random is the random ranking's Recall@K on its data, filtered as its rankings are
	// (metrics.RandomBaseline); nil for a record made before it was recorded, whose random
	// ranking is then metrics.RandomRecall's of its unfiltered corpus.
	Random []metrics.Result
	// Curve is the run's training loss against the step; empty if it has none.
	Curve Curve
	// Audit summarises the run's sampler audit; nil if it had none.
	Audit *Audit
	// Ranks are the ranks of the run's evaluated test pairs, for the paired tests over test
	// pairs; nil for a run evaluated before they were kept.
	Ranks *PairRanks
	// Selection is what the run selected on its validation set; nil when it selected nothing.
	Selection *Selection
	// Finished is when the run finished, and Seconds how long its training and evaluation
	// took: the MLflow run's end and start (report.mlflow).
	Finished time.Time
	Seconds  float64
	// Params are the run's resolved settings by dotted key ("loss.variant", "train.batch_size"),
	// written as in its config.toml: the MLflow run's params, with its axes and seed.
	Params map[string]string
	// Files are the paths of the run's files the MLflow run holds as artifacts (its config.toml,
	// its training curve); a missing one is left out.
	Files []string
	// Split is the run's data split; nil when unknown (summary.md then states none).
	Split *Split
	// Calibration is the run's calibration against the true probabilities (metrics.Calibrate),
	// its calibration metrics being among Results; nil for data that do not know them.
	Calibration *metrics.Calibration
}

// Split is a run's data split as summary.md states it: its training, validation and test
// pairs, and the test pairs whose item or query has no training pair (a cold item, a cold
// query).
type Split struct {
	Train, Valid, Test     int
	ColdItems, ColdQueries int
	// History is the sequence encoder of the run's query tower ("mean", "sasrec") when it reads
	// the query's history, "" when it does not: a cold query then has an empty history.
	History string
}

// PairRanks are the ranks of a run's evaluated test pairs under every post-hoc
// logit-adjustment strength: two runs of the same seed and data evaluated the same pairs
// (Pairs, a digest of them, says so), and the paired randomisation test over test pairs
// compares their metrics pair by pair.
type PairRanks struct {
	// Pairs identifies the evaluated pairs (a digest of their queries and items, in order).
	Pairs string `json:"pairs"`
	// Taus are the strengths τ of post-hoc logit adjustment, in eval.logit_adjust order.
	Taus []float64 `json:"taus"`
	// Full[i][p] is pair p's rank in the full ranking under Taus[i].
	Full [][]int32 `json:"full"`
	// Sampled[p] is its rank among itself and its sampled negatives in the ranking as trained,
	// τ_LA = SampledTau; nil without the sampled evaluation.
	Sampled    []int32 `json:"sampled,omitempty"`
	SampledTau float64 `json:"sampled_tau,omitempty"`
	// Slices[p] is the popularity slice (or bin) of pair p's item.
	Slices []metrics.Slice `json:"slices"`
}

// Curve is a training-loss curve: its points in increasing step.
type Curve []CurvePoint

// CurvePoint is the mean training loss over the steps of an interval ending at Step.
type CurvePoint struct {
	Step int
	Loss float64
}

// Audit summarises a run's sampler audit (samplers.AuditSummary): the total-variation distance
// between the copies the loss's q declares and those drawn, the TV that sampling noise alone gives
// (Floor), and the worst relative error among the Head most frequent items; or, with QUndefined,
// that the sampler has no probability law to compare the draws with.
type Audit struct {
	TV, Floor, HeadWorst float64
	// Mass is the declared copies' sum against the drawn copies' (samplers.AuditSummary.Mass); 0
	// when the run's record predates it.
	Mass       float64
	Head       int
	QUndefined bool
	// Failure is the first declaration the run's check of every step and item refuted
	// (samplers.Audit.Check), "" if none; Unchecked says that the run's record predates that check.
	Failure   string
	Unchecked bool
}

// Input is what a report is made of: a grid's finished runs and how to report them.
type Input struct {
	// Runs are the finished runs, in grid order (their cells' first appearance orders the
	// tables and figures); Write needs at least one.
	Runs []*Run
	// Axes are the grid's ablation keys, in order: metrics.csv's columns and the keys of every
	// Run's Axes.
	Axes []string
	// Settings is the [report] section; Resolve it first.
	Settings Settings
	// Plots is the [plots] section.
	Plots plots.Settings
	// Missing are the ids of the grid's runs that have not finished: summary.md says that it
	// reports part of the grid, and which part is missing.
	Missing []string
}

// check requires runs, each with a value on every axis.
func (in Input) check() error {
	if len(in.Runs) == 0 {
		return errors.New("report: no finished run")
	}
	for _, r := range in.Runs {
		for _, k := range in.Axes {
			if _, ok := r.Axes[k]; !ok {
				return fmt.Errorf("report: run %s has no value of the axis %s", r.ID, k)
			}
		}
	}
	return nil
}
