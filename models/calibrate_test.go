package models

import (
	"context"
	"math"
	"testing"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/metrics"
)

// TestCalibratePlanted: through the evaluation's glue (each test query's truth the law of its
// test pairs given their days), a model whose logits are the log of that law, with the items'
// embeddings the identity, has ECE over the mean truth ~0 (float32 rounding of the logits,
// below 1e-5); the same model planted with the law of the first day instead, which the
// popularity drift makes wrong for the later test days, does not (above 0.1). Data without a
// truth, or a model without a link to a probability (mse_gramian), are not measured.
func TestCalibratePlanted(t *testing.T) {
	ds, err := datasets.Load(datasets.Settings{Source: datasets.SourceSynthetic,
		Synthetic: datasets.SyntheticSettings{Items: 40, Queries: 30, Interactions: 3000, Clusters: 3, Days: 4, Drift: 0.3},
		Split:     datasets.SplitSettings{Kind: datasets.SplitTemporal, TestFraction: 0.4}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	s := EvalSettings{Link: losses.LinkSoftmax, DataSeed: 1, Seed: 1}
	if err := s.resolve(false); err != nil {
		t.Fatal(err)
	}
	// The rows of the evaluation: one per query, or, as for a tower that reads a history, one per
	// query and history (here: each query's test pairs dealt alternately to two rows).
	type rowKey struct {
		q       int32
		history int
	}
	var queries []int32
	var rowDays [][]int32
	var pairRows []int32
	histories := 1
	rows := map[rowKey]int32{}
	dealt := map[int32]int{}
	rowsOf := func() {
		queries, rowDays, pairRows, rows, dealt = nil, nil, nil, map[rowKey]int32{}, map[int32]int{}
		for _, it := range ds.Test {
			k := rowKey{it.Query, dealt[it.Query] % histories}
			dealt[it.Query]++
			r, ok := rows[k]
			if !ok {
				r = int32(len(queries))
				rows[k] = r
				queries, rowDays = append(queries, it.Query), append(rowDays, nil)
			}
			rowDays[r] = append(rowDays[r], it.Day)
			pairRows = append(pairRows, r)
		}
	}
	rowsOf()
	if ds.Test[0].Day == ds.Test[len(ds.Test)-1].Day {
		t.Fatal("the test pairs fall on one day: the mixture over days is not exercised")
	}
	m := ds.Items
	plant := func(law func(r int32, dst []float64) error) metrics.Input {
		in := metrics.Input{Dim: m, U: make([]float32, len(queries)*m), V: make([]float32, m*m)}
		for i, it := range ds.Test {
			in.Pairs = append(in.Pairs, metrics.Pair{Query: pairRows[i], Item: it.Item})
		}
		p := make([]float64, m)
		for r := range queries {
			if err := law(int32(r), p); err != nil {
				t.Fatal(err)
			}
			for j, v := range p {
				in.U[r*m+j] = float32(math.Log(v))
			}
		}
		for j := range m {
			in.V[j*m+j] = 1
		}
		return in
	}
	value := func(in metrics.Input) float64 {
		_, res, err := calibrate(context.Background(), ds, s, &Evaluation{Input: in, Queries: queries})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Metric == metrics.MetricECERel && r.Slice == metrics.SliceAll {
				return r.Value
			}
		}
		t.Fatalf("no ece_rel of all pairs in %v", res)
		return 0
	}
	truth := func(r int32, dst []float64) error { return ds.Truth.Mixture(queries[r], rowDays[r], dst) }
	planted := plant(truth)
	right := value(planted)
	wrong := value(plant(func(r int32, dst []float64) error { return ds.Truth.Conditional(queries[r], 0, dst) }))
	if right > 1e-5 || wrong < 0.1 {
		t.Errorf("ECE over the mean truth: %.3g with the law of the test days (want ~0), %.3g with day 0's (want > 0.1)", right, wrong)
	}
	// Two rows of one query (the sequence encoders' rows): each row's truth is the law of its
	// own pairs' days (the glue once gave every pair's days to the query's last row, and failed
	// on the others with "no day to mix").
	histories = 2
	rowsOf()
	if n := len(queries); n <= len(dealt) {
		t.Fatalf("%d rows for %d queries: no query has two", n, len(dealt))
	}
	if got := value(plant(truth)); got > 1e-5 {
		t.Errorf("ECE over the mean truth with two rows per query: %.3g, want ~0", got)
	}
	histories = 1
	rowsOf()
	regression := s
	regression.Link = losses.LinkNone
	if cal, res, err := calibrate(context.Background(), ds, regression, &Evaluation{Input: planted, Queries: queries}); cal != nil || res != nil || err != nil {
		t.Errorf("mse_gramian: %v, %v, %v", cal, res, err)
	}
	ds.Truth = nil
	if cal, res, err := calibrate(context.Background(), ds, s, &Evaluation{Input: planted, Queries: queries}); cal != nil || res != nil || err != nil {
		t.Errorf("data without a truth: %v, %v, %v", cal, res, err)
	}
}
