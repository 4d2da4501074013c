package workbench

import (
	"context"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/metrics"
)

// calibrate measures the run's model against the true probabilities when its data know them
// (Dataset.Truth: the synthetic source) and its loss models a probability (losses.Settings.Link),
// and returns nothing otherwise (docs/calibration.md): metrics.Calibrate over every item for the
// test queries that metrics.CalibrationRows keeps (the same for every run on the data), each
// query's truth the law of the items of its test pairs given their days (Truth.Mixture), with
// the logits of in (s/τ; queries[r] is the query of row r). A softmax loss also has Khrylchenko
// et al.'s P̂ measured, from as many uniform negatives as a row of its training scores (the
// sampler's columns but the positive).
func calibrate(ctx context.Context, ds *datasets.Dataset, cfg *Config, in metrics.Input, queries []int32, seed int64) (*metrics.Calibration, []metrics.Result, error) {
	link := cfg.Loss.Link()
	if ds.Truth == nil || link == losses.LinkNone {
		return nil, nil, nil
	}
	row := make(map[int32]int32, len(queries))
	for r, q := range queries {
		row[q] = int32(r)
	}
	days := make([][]int32, len(queries))
	for _, it := range ds.Test {
		r := row[it.Query]
		days[r] = append(days[r], it.Day)
	}
	c := metrics.CalibrationInput{U: in.U, V: in.V, Dim: in.Dim, Link: metrics.Link(link), ItemSlice: in.ItemSlice, LogPrior: in.LogPrior,
		Rows: metrics.CalibrationRows(len(queries), ds.Items, cfg.DataSeed), TestQueries: len(queries),
		Truth: func(r int32, dst []float64) error { return ds.Truth.Mixture(queries[r], days[r], dst) }}
	if link == losses.LinkSoftmax {
		c.PHat = cfg.rowColumns(ds.Items) - 1
	}
	return metrics.Calibrate(ctx, c, cfg.Eval, seed)
}

// calibrationMemory is what calibrate allocates: per evaluation worker, a query's logits (float32
// and float64), its truth, its P̂ and the items' copies among P̂'s negatives, and a day's truth
// while mixing days, 40 bytes per item, and P̂'s negatives; nothing for a run that is not
// measured. The workers are metrics.CalibrationWorkers' for as many queries as test pairs.
func calibrationMemory(cfg *Config, ds *datasets.Dataset) memoryTerm {
	t := memoryTerm{"eval.workers", "the calibration's rows of every item, per worker", 0, phaseEval}
	if ds.Truth != nil && cfg.Loss.Link() != losses.LinkNone {
		workers := metrics.CalibrationWorkers(len(ds.Test), cfg.Eval.Workers)
		t.bytes = float64(workers) * (40*float64(ds.Items) + 4*float64(cfg.rowColumns(ds.Items)))
	}
	return t
}

// rowColumns is the number of columns a score row of the run's training has over a corpus of m
// items (its sampler's geometry): its positive and its negatives.
func (c *Config) rowColumns(m int) int {
	return c.geometry.Cols(c.geometry.Rows(c.Train.BatchSize), m)
}

// plannedCalibration is what the report of a run of cfg will hold of its calibration, for the
// checks before training (checkReport): its calibration metrics by slice and logit-adjustment
// strength, and a reliability curve of two bins per estimate; nothing unless the run will be
// measured (calibrate).
func plannedCalibration(cfg *Config) ([]metrics.Result, *metrics.Calibration) {
	link := cfg.Loss.Link()
	if cfg.Data.Source != datasets.SourceSynthetic || link == losses.LinkNone {
		return nil, nil
	}
	ms := metrics.CalibrationMetrics()[:3]
	estimates := []metrics.Estimate{metrics.EstimateModel}
	if link == losses.LinkSoftmax {
		ms = metrics.CalibrationMetrics()
		estimates = append(estimates, metrics.EstimatePHat)
	}
	edges := metrics.ReliabilityEdges(cfg.Data.Synthetic.Items)
	cal := &metrics.Calibration{Link: metrics.Link(link), Items: cfg.Data.Synthetic.Items, Edges: edges}
	var res []metrics.Result
	for _, tau := range cfg.Eval.LogitAdjust {
		for _, e := range estimates {
			bins := make([]metrics.ReliabilityBin, len(edges))
			bins[1] = metrics.ReliabilityBin{Pairs: 1, Predicted: edges[1], True: edges[1]}
			bins[len(bins)-1] = metrics.ReliabilityBin{Pairs: 1, Predicted: 1, True: 1}
			cal.Curves = append(cal.Curves, metrics.ReliabilityCurve{Tau: tau, Estimate: e, Bins: bins})
		}
		for _, sl := range runSlices(cfg.Slices) {
			for _, m := range ms {
				res = append(res, metrics.Result{Tau: tau, Slice: sl, Metric: m})
			}
		}
	}
	return res, cal
}
