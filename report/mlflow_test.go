package report

import (
	"testing"

	"github.com/samplingbias/workbench/metrics"
)

// TestMLflowMetricNames pins the MLflow names of results, as the README documents them: the
// metric and its K, the slice, the test set unless natural, τ_LA unless 0; each a name MLflow
// accepts.
func TestMLflowMetricNames(t *testing.T) {
	for _, c := range []struct {
		r    metrics.Result
		want string
	}{
		{metrics.Result{Metric: metrics.MetricRecall, K: 10, Slice: metrics.SliceTail}, "recall_at_10.tail"},
		{metrics.Result{Metric: metrics.MetricMRR, Slice: metrics.SliceAll}, "mrr.all"},
		{metrics.Result{Metric: metrics.MetricNDCG, K: 100, Slice: metrics.SliceBin(2), Test: metrics.TestDebiased}, "ndcg_at_100.bin3.debiased"},
		{metrics.Result{Metric: metrics.MetricRecall, K: 10, Slice: metrics.SliceHead, Tau: -0.5}, "recall_at_10.head.la_tau_-0.5"},
	} {
		t.Run(c.want, func(t *testing.T) {
			if got := mlflowMetric(c.r); got != c.want || !mlflowName.MatchString(got) {
				t.Errorf("%s, want %s", got, c.want)
			}
		})
	}
}
