package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/metrics"
)

// TestSelectionSummary: summary.md's selection line lists, per row, the epoch and the strength
// of post-hoc logit adjustment each seed selected and how many stopped early; metrics.csv's
// selected_la_tau column holds each run's strength on its rows and nothing on the baselines'.
func TestSelectionSummary(t *testing.T) {
	recs := recordsOf(map[string]map[int64]map[metrics.Slice]float64{
		"variant=plain": {1: {metrics.SliceAll: 0.1}, 2: {metrics.SliceAll: 0.2}},
		"variant=logq":  {1: {metrics.SliceAll: 0.3}, 2: {metrics.SliceAll: 0.4}},
	}, []string{"variant=plain", "variant=logq"})
	taus := []float64{0.5, 0, 1, 1}
	for i, r := range recs {
		r.Selection = &Selection{Metric: "ndcg@10 (all)", Epoch: 3 + i, EarlyStopped: i%2 == 0, LATau: &taus[i]}
		r.MostPopular = []metrics.Result{{Slice: metrics.SliceAll, Metric: metrics.MetricRecall, K: 10, Value: 0.05}}
	}
	s := summarize(recs, nil)
	var b bytes.Buffer
	writeSelectionSummary(&b, s)
	want := "Model selection on the validation set by ndcg@10 (all), per row and seed: plain epoch 3, 4 (early stopping in 1 of 2), τ_LA 0.5, 0; logq epoch 5, 6 (early stopping in 1 of 2), τ_LA 1, 1;"
	if got := strings.TrimSpace(b.String()); got != want {
		t.Errorf("selection line\n%s\nwant\n%s", got, want)
	}

	b.Reset()
	if err := writeMetricsCSV(&b, recs, []string{"variant"}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range rows[0] {
		if h == "selected_la_tau" {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("no selected_la_tau column: %v", rows[0])
	}
	got := map[string]string{}
	for _, row := range rows[1:] {
		if len(row) != len(rows[0]) {
			t.Fatalf("row %v of %d fields, header %d", row, len(row), len(rows[0]))
		}
		got[row[0]+"/"+row[1]] = row[col]
	}
	for i, r := range recs {
		if want := []string{"0.5", "0", "1", "1"}[i]; got[r.ID+"/"+kindRun] != want {
			t.Errorf("%s: selected_la_tau %q, want %s", r.ID, got[r.ID+"/"+kindRun], want)
		}
	}
	if v := got["most_popular/"+kindBaseline]; v != "" {
		t.Errorf("baseline row with selected_la_tau %q", v)
	}

	// Without selection, neither the line nor the column.
	for _, r := range recs {
		r.Selection = nil
	}
	b.Reset()
	writeSelectionSummary(&b, summarize(recs, nil))
	if err := writeMetricsCSV(&b, recs, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "selection") || strings.Contains(b.String(), "selected_la_tau") {
		t.Errorf("selection written without one:\n%s", b.String())
	}
}
