package models

import (
	"context"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/metrics"
)

// calibrate measures the model against the true probabilities when the data know them
// (Dataset.Truth: the synthetic source) and s.Link says what probability its logits model
// (losses.Settings.Link), and returns nothing otherwise (docs/calibration.md):
// metrics.Calibrate over every item for the test queries that metrics.CalibrationRows keeps (the
// same for every run on the data), each query's truth the law of the items of its test pairs
// given their days (Truth.Mixture), with the logits of ev.Input (s/τ; ev.Queries[r] is the query
// of row r), at the strengths of s.Eval.LogitAdjust (the one selected on validation, with
// eval.select_la_tau). With s.PHatNegatives > 0 (a softmax loss), Khrylchenko et al.'s P̂ is
// measured too, from that many uniform negatives.
func calibrate(ctx context.Context, ds *datasets.Dataset, s EvalSettings, ev *Evaluation) (*metrics.Calibration, []metrics.Result, error) {
	if ds.Truth == nil || s.Link == losses.LinkNone {
		return nil, nil, nil
	}
	in, queries := ev.Input, ev.Queries
	// The days of each row's test pairs: a query's pairs share a row, or, with a tower that reads
	// a history, the pairs of one query with the same history do (in.Pairs[i].Query is the row of
	// test pair i).
	days := make([][]int32, len(queries))
	for i, it := range ds.Test {
		r := in.Pairs[i].Query
		days[r] = append(days[r], it.Day)
	}
	c := metrics.CalibrationInput{U: in.U, V: in.V, Dim: in.Dim, Link: metrics.Link(s.Link), ItemSlice: in.ItemSlice, LogPrior: in.LogPrior,
		Rows: metrics.CalibrationRows(len(queries), ds.Items, s.DataSeed), TestQueries: len(queries),
		Truth: func(r int32, dst []float64) error { return ds.Truth.Mixture(queries[r], days[r], dst) },
		PHat:  s.PHatNegatives}
	return metrics.Calibrate(ctx, c, s.Eval, s.Seed)
}
