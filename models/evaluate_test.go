package models

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/metrics"
)

// TestEmbedPairQueries: a tower of the query's features gives the pairs of one query one row, in
// the order of their first appearance, embedded as EmbedQueries embeds the query; a tower of
// histories gives a row per (query, history): two pairs of a query at different times have two
// rows, pairs with the same history share one, and a query without training pairs has the empty
// history, each row embedded as the tower embeds its history (the last max_length items).
func TestEmbedPairQueries(t *testing.T) {
	t.Run("features", func(t *testing.T) {
		ds := idDataset(10, 8, 50, 3)
		ds.Test = []datasets.Interaction{{Query: 2, Item: 1}, {Query: 0, Item: 3}, {Query: 2, Item: 5}}
		m := must(New(Settings{EmbeddingDim: 4, Hidden: []int{4}}, ds, tensor.Float32, 1))
		q, err := m.EmbedPairQueries(ds, datasets.PartTest)
		if err != nil {
			t.Fatal(err)
		}
		want := must(m.EmbedQueries([]int32{2, 0}))
		if !slices.Equal(q.Row, []int32{0, 1, 0}) || !slices.Equal(q.Query, []int32{2, 0}) || !slices.Equal(q.U, want) {
			t.Errorf("rows %v of queries %v, embeddings equal %v", q.Row, q.Query, slices.Equal(q.U, want))
		}
	})
	t.Run("histories", func(t *testing.T) {
		ds := historyDataset()
		// User 0's training sequence is 2, 3, 1, 4 (oldest first), user 3's is 4; users 1 and 2
		// have no training pair.
		ds.Sequences = &datasets.Sequences{Offsets: []int32{0, 4, 4, 4, 5}, Items: []int32{2, 3, 1, 4, 4}}
		ds.Test = []datasets.Interaction{{Query: 0, Item: 5}, {Query: 0, Item: 0}, {Query: 2, Item: 1}, {Query: 0, Item: 5}, {Query: 3, Item: 2}}
		ds.Sequences.Before[datasets.PartTest] = []int32{4, 1, 0, 4, 1}
		s := Settings{EmbeddingDim: 3, Hidden: []int{5, 3}, InitStd: 0.5, Sequence: SequenceSettings{Encoder: EncoderMean, MaxLength: 3}}
		m := must(New(s, ds, tensor.Float64, 7))
		q, err := m.EmbedPairQueries(ds, datasets.PartTest)
		if err != nil {
			t.Fatal(err)
		}
		P := Padding
		w := &Window{Rows: 4, Len: 3, Items: []int32{
			3, 1, 4, // user 0 after four items: the last three
			P, P, 2, // user 0 after one
			P, P, P, // user 2: none
			P, P, 4, // user 3 after one
		}}
		want := must(m.embedHistories([]int32{0, 0, 2, 3}, w))
		if !slices.Equal(q.Row, []int32{0, 1, 2, 0, 3}) || !slices.Equal(q.Query, []int32{0, 0, 2, 3}) || !slices.Equal(q.U, want) {
			t.Errorf("rows %v of queries %v, embeddings equal %v", q.Row, q.Query, slices.Equal(q.U, want))
		}
	})
}

// priorDataset has 20 items, item j with 5(j+1) training pairs spread over 10 queries, and the
// validation and test pairs of every query with the item valid and test respectively.
func priorDataset(valid, test int32) *datasets.Dataset {
	ds := &datasets.Dataset{Name: "prior", Queries: 10, Items: 20,
		QueryFeatures: &datasets.Features{Fields: []datasets.Field{identityField("query_id", 10)}},
		ItemFeatures:  &datasets.Features{Fields: []datasets.Field{identityField("item_id", 20)}},
	}
	for j := range int32(20) {
		for k := range 5 * (j + 1) {
			ds.Train = append(ds.Train, datasets.Interaction{Query: k % 10, Item: j, Reward: 1})
		}
	}
	for q := range int32(10) {
		ds.Valid = append(ds.Valid, datasets.Interaction{Query: q, Item: valid, Reward: 1})
		ds.Test = append(ds.Test, datasets.Interaction{Query: q, Item: test, Reward: 1})
	}
	return ds
}

// TestEvaluateSelectsTau plants the best strength of post-hoc logit adjustment on the validation
// set: with scores in [-1, 1] and strengths ±100 the prior decides the ranking, so that validation
// pairs of the most frequent item select τ = -100 and those of the rarest τ = 100. The selection
// records every candidate's validation metric, and the test results are those of the selected
// strength alone, equal to an evaluation at that strength without selection.
func TestEvaluateSelectsTau(t *testing.T) {
	for _, c := range []struct {
		name  string
		valid int32
		want  float64
	}{{"popular", 19, -100}, {"rare", 0, 100}} {
		t.Run(c.name, func(t *testing.T) {
			ds := priorDataset(c.valid, 7)
			m := must(New(Settings{EmbeddingDim: 4, Hidden: []int{4}}, ds, tensor.Float32, 1))
			s := EvalSettings{Eval: metrics.Settings{K: []int{1, 5}, LogitAdjust: []float64{0, -100, 100}, Bootstrap: 20,
				SelectLATau: true, SelectMetric: metrics.MetricRecall}, Seed: 3}
			ev, err := Evaluate(context.Background(), m, ds, datasets.PartTest, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			sel := ev.LATau
			if sel == nil || sel.Tau != c.want || sel.Metric != "recall@1 (all)" {
				t.Fatalf("selection %+v, want τ = %v by recall@1 (all)", sel, c.want)
			}
			var taus []float64
			for _, v := range sel.Validation {
				taus = append(taus, v.Tau)
				if v.Tau == c.want && v.Value != 1 || v.Tau != c.want && v.Value >= 1 {
					t.Errorf("validation recall@1 %v at τ = %v", v.Value, v.Tau)
				}
			}
			if !slices.Equal(taus, []float64{0, -100, 100}) || !slices.Equal(ev.Taus, []float64{c.want}) {
				t.Errorf("candidates %v, evaluated %v", taus, ev.Taus)
			}
			at := s
			at.Eval.LogitAdjust, at.Eval.SelectLATau = []float64{c.want}, false
			want, err := Evaluate(context.Background(), m, ds, datasets.PartTest, at, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ev.Results, want.Results) || want.LATau != nil {
				t.Error("the test results differ from an evaluation at the selected strength")
			}
			for _, r := range ev.Results {
				if r.Tau != c.want {
					t.Fatalf("a test result at τ = %v", r.Tau)
				}
			}
		})
	}
}
