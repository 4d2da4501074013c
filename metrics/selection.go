package metrics

import (
	"fmt"
	"slices"
	"strings"

	"github.com/samplingbias/workbench/internal/setting"
)

// DefaultSelectMetric is the default Settings.SelectMetric of a run that selects on validation:
// NDCG, the metric of SASRec's (Kang & McAuley 2018) and gSASRec's (Petrov & Macdonald 2023)
// model selection.
const DefaultSelectMetric = MetricNDCG

// selectMetrics are the metrics a selection can be by: those of the full ranking that the
// evaluation of a validation set gives.
var selectMetrics = []Metric{MetricRecall, MetricNDCG, MetricMRR, MetricStratRecall}

// ResolveSelect fills the defaults of the selection metric (Settings.SelectMetric, SelectK,
// SelectSlice) and checks that the evaluation of a validation set gives it: a metric of the full
// ranking, a K of s.K (none for mrr) and a slice the slices settings sl (resolved) report. s must
// be resolved. It is for a run that selects on validation; Resolve leaves these settings alone.
func (s *Settings) ResolveSelect(sl SliceSettings) error {
	setting.Default(&s.SelectMetric, DefaultSelectMetric)
	if err := setting.OneOf("select_metric", s.SelectMetric, selectMetrics); err != nil {
		return fmt.Errorf("%w (the validation set is evaluated by the metrics of the full ranking)", err)
	}
	if s.SelectMetric == MetricMRR {
		if s.SelectK != 0 {
			return fmt.Errorf("select_k: %d, but select_metric %s has no cut-off; leave it out", s.SelectK, s.SelectMetric)
		}
	} else {
		if len(s.K) > 0 {
			setting.Default(&s.SelectK, slices.Min(s.K))
		}
		if !slices.Contains(s.K, s.SelectK) {
			return fmt.Errorf("select_k: %d is not evaluated (k = %v): use one of k or add it there", s.SelectK, s.K)
		}
	}
	if s.SelectSlice == nil {
		all := SliceAll
		s.SelectSlice = &all
	}
	if want := reportedSlices(sl); !slices.Contains(want, *s.SelectSlice) {
		names := make([]string, len(want))
		for i, x := range want {
			names[i] = x.String()
		}
		return fmt.Errorf("select_slice: %s is not evaluated under slices.method %q (the slices are %s)", *s.SelectSlice, sl.Method, strings.Join(names, ", "))
	}
	return nil
}

// reportedSlices are the slices an evaluation under sl reports: head, torso, tail and all, or
// all and the popularity bins.
func reportedSlices(sl SliceSettings) []Slice {
	if !slices.Contains(binMethods, sl.Method) {
		return Slices()
	}
	out := []Slice{SliceAll}
	for i := range sl.Bins {
		out = append(out, SliceBin(i))
	}
	return out
}

// SelectName names the selection metric of resolved settings, e.g. "ndcg@10 (all)".
func (s *Settings) SelectName() string {
	name := string(s.SelectMetric)
	if s.SelectK > 0 {
		name += fmt.Sprintf("@%d", s.SelectK)
	}
	slice := SliceAll
	if s.SelectSlice != nil {
		slice = *s.SelectSlice
	}
	return fmt.Sprintf("%s (%s)", name, slice)
}

// SelectValue returns the selection metric of resolved settings s among results, at the post-hoc
// logit-adjustment strength tau on the natural test set; an error when results do not hold it
// (an evaluation by other settings, or a slice without pairs).
func (s *Settings) SelectValue(results []Result, tau float64) (float64, error) {
	slice := SliceAll
	if s.SelectSlice != nil {
		slice = *s.SelectSlice
	}
	for _, r := range results {
		if r.Tau == tau && r.Slice == slice && r.Metric == s.SelectMetric && r.K == s.SelectK && r.Test == TestNatural {
			return r.Value, nil
		}
	}
	return 0, fmt.Errorf("metrics: the evaluation has no %s at τ_LA = %g (no pair of the slice, or not evaluated)", s.SelectName(), tau)
}
