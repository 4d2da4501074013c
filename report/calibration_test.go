package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/plots"
)

// calibratedRun is a run of group g and seed with the given ECE and mass ratio of the tail and a
// reliability curve of two bins: (pairs, Σp̂, Σp) = (10, 0.01·x, 0.01) and (2, 1.6, 1).
func calibratedRun(g string, seed int64, ece, ratio, x float64) *Run {
	r := &Run{ID: g + ",seed", Group: g, Seed: seed, Calibration: &metrics.Calibration{Link: metrics.LinkSigmoid, Queries: 4,
		TestQueries: 5, Items: 3, Edges: []float64{0, 0.001, 0.1},
		Curves: []metrics.ReliabilityCurve{{Estimate: metrics.EstimateModel, Bins: []metrics.ReliabilityBin{
			{}, {Pairs: 10, Predicted: 0.01 * x, True: 0.01}, {Pairs: 2, Predicted: 1.6, True: 1}}}}}}
	r.Results = []metrics.Result{
		{Slice: metrics.SliceTail, Metric: metrics.MetricRecall, K: 10, Value: 0.1, Pairs: 5, Items: 2},
		{Slice: metrics.SliceTail, Metric: metrics.MetricECE, Value: ece, Pairs: 12, Items: 2},
		{Slice: metrics.SliceTail, Metric: metrics.MetricMassRatio, Value: ratio, Pairs: 12, Items: 2},
	}
	return r
}

// TestCalibrationSummary: the calibration section names each cell's link and bolds the most
// calibrated cell of a column, the lowest ECE and the mass ratio nearest 1 on a log scale (1.16,
// |log| 0.148, rather than 0.85, |log| 0.163, though 0.85 is nearer in difference); the slice
// sizes are the test pairs', not the calibration's pairs.
func TestCalibrationSummary(t *testing.T) {
	recs := []*Run{calibratedRun("a", 1, 0.02, 1.16, 2), calibratedRun("b", 1, 0.01, 0.85, 1)}
	s := summarize(recs, nil)
	var w bytes.Buffer
	writeCalibrationSummary(&w, s, recs, nil)
	out := w.String()
	for _, want := range []string{"for 4 of the 5 test queries (12 pairs per run", "Links: a: sigmoid; b: sigmoid.",
		"| a | – | – | 0.02 | – |", "| b | – | – | **0.01** | – |", "| a | – | – | **1.16** | – |", "| b | – | – | 0.85 | – |"} {
		if !strings.Contains(out, want) {
			t.Errorf("the section lacks %q:\n%s", want, out)
		}
	}
	if sz := s.sizes[metrics.SliceTail]; sz != [2]int{2, 5} {
		t.Errorf("tail slice sizes %v, want 2 items and 5 test pairs", sz)
	}
	var none bytes.Buffer
	writeCalibrationSummary(&none, summarize(recordsOf(nil, nil), nil), recordsOf(nil, nil), nil)
	if none.Len() != 0 {
		t.Errorf("runs without a calibration wrote %q", none.String())
	}
}

// TestReliabilitySeriesPooled: a cell's curve pools its seeds' bins (the means of the pooled
// pairs, the pairs per run) and leaves out empty bins.
func TestReliabilitySeriesPooled(t *testing.T) {
	recs := []*Run{calibratedRun("a", 1, 0, 1, 2), calibratedRun("a", 2, 0, 1, 4), calibratedRun("b", 1, 0, 1, 1)}
	s := summarize(recs, nil)
	if err := s.encode(plots.Settings{}); err != nil {
		t.Fatal(err)
	}
	series := reliabilitySeries(s, recs, metrics.EstimateModel)
	if len(series) != 2 || series[0].Name != "a" {
		t.Fatalf("series %+v", series)
	}
	a := series[0]
	want := plots.ReliabilitySeries{Predicted: []float64{0.003, 0.8}, True: []float64{0.001, 0.5}, Pairs: []float64{10, 2}}
	for i := range want.Predicted {
		if math.Abs(a.Predicted[i]-want.Predicted[i]) > 1e-15 || math.Abs(a.True[i]-want.True[i]) > 1e-15 || a.Pairs[i] != want.Pairs[i] {
			t.Errorf("bin %d: %v / %v / %v, want %v / %v / %v", i, a.Predicted[i], a.True[i], a.Pairs[i], want.Predicted[i], want.True[i], want.Pairs[i])
		}
	}
	if len(reliabilitySeries(s, recs, metrics.EstimatePHat)) != 0 {
		t.Error("a P̂ series without P̂ curves")
	}
	// The figure draws, its labels free of the combining marks its text cannot place.
	figs := calibrationFigures(s, recs)
	if len(figs) != 1 || figs[0].name != "reliability" {
		t.Fatalf("figures %v, want reliability", figs)
	}
	if _, _, _, err := plots.Fit(figs[0].build, plots.Settings{}); err != nil {
		t.Error(err)
	}
}
