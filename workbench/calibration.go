package workbench

import (
	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/metrics"
)

// calibrationMemory is what models.Evaluate's calibration allocates: per evaluation worker, a query's logits (float32
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
