package metrics

import (
	"strings"
	"testing"
)

// TestResolveSelect: the selection metric defaults to NDCG at the smallest K over all pairs, and
// one the evaluation of a validation set does not give (another family, a K not evaluated, a
// cut-off for MRR, a slice the slicing has not) is an error naming its key.
func TestResolveSelect(t *testing.T) {
	bin := func(i int) *Slice { s := SliceBin(i); return &s }
	tail := SliceTail
	count := SliceSettings{}
	quantiles := SliceSettings{Method: SliceMethodQuantiles, Bins: 4}
	for _, c := range []struct {
		name   string
		s      Settings
		slices SliceSettings
		want   string // the selection's name, or the error's start
	}{
		{"default", Settings{K: []int{50, 20, 100}}, count, "ndcg@20 (all)"},
		{"recall-tail", Settings{K: []int{10}, SelectMetric: MetricRecall, SelectSlice: &tail}, count, "recall@10 (tail)"},
		{"mrr", Settings{SelectMetric: MetricMRR}, count, "mrr (all)"},
		{"bin", Settings{SelectK: 50, SelectSlice: bin(3)}, quantiles, "ndcg@50 (bin4)"},
		{"k-not-evaluated", Settings{K: []int{10, 50}, SelectK: 20}, count, "select_k: 20 is not evaluated"},
		{"mrr-k", Settings{SelectMetric: MetricMRR, SelectK: 10}, count, "select_k: 10, but select_metric mrr has no cut-off"},
		{"not-full-ranking", Settings{SelectMetric: MetricSampledNDCG}, count, "select_metric: "},
		{"bin-of-count", Settings{SelectSlice: bin(0)}, count, `select_slice: bin1 is not evaluated under slices.method "count"`},
		{"tail-of-bins", Settings{SelectSlice: &tail}, quantiles, "select_slice: tail is not evaluated"},
		{"bin-beyond", Settings{SelectSlice: bin(4)}, quantiles, "select_slice: bin5 is not evaluated"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.s.Resolve(); err != nil {
				t.Fatal(err)
			}
			if err := c.slices.Resolve(); err != nil {
				t.Fatal(err)
			}
			err := c.s.ResolveSelect(c.slices)
			got := c.s.SelectName()
			if err != nil {
				got = err.Error()
			}
			if !strings.HasPrefix(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestSelectValue reads the selection metric at a strength from results, and fails on results
// without it.
func TestSelectValue(t *testing.T) {
	s := Settings{K: []int{10}}
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	if err := s.ResolveSelect(SliceSettings{}); err != nil {
		t.Fatal(err)
	}
	res := []Result{
		{Tau: 0, Slice: SliceAll, Metric: MetricNDCG, K: 10, Value: 0.2},
		{Tau: 0.5, Slice: SliceAll, Metric: MetricNDCG, K: 10, Value: 0.3},
		{Tau: 0.5, Slice: SliceAll, Metric: MetricNDCG, K: 10, Value: 0.9, Test: TestDebiased},
		{Tau: 0.5, Slice: SliceHead, Metric: MetricNDCG, K: 10, Value: 0.8},
	}
	if v, err := s.SelectValue(res, 0.5); err != nil || v != 0.3 {
		t.Errorf("value %v, %v; want 0.3", v, err)
	}
	if _, err := s.SelectValue(res, 1); err == nil {
		t.Error("no error for a strength not evaluated")
	}
}

// TestSelectLATauNeedsCandidates: eval.select_la_tau selects among at least two strengths.
func TestSelectLATauNeedsCandidates(t *testing.T) {
	s := Settings{SelectLATau: true, LogitAdjust: []float64{0.5}}
	if err := s.Resolve(); err == nil || !strings.HasPrefix(err.Error(), "select_la_tau: ") {
		t.Errorf("error %v", err)
	}
	s = Settings{SelectLATau: true, LogitAdjust: []float64{0, 0.5}}
	if err := s.Resolve(); err != nil {
		t.Error(err)
	}
}
