package models

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
)

// historyDataset has 4 users (a user id and a weighted tag bag, two dense features) and 6 items
// (an item id and a category), as an interactions source gives them.
func historyDataset() *datasets.Dataset {
	qf := &datasets.Features{
		Fields: []datasets.Field{
			datasets.IDField("user_id", 4),
			bagField("tag", 3, [][]int32{{0, 1}, {2}, {}, {1}}, [][]float32{{0.5, 2}, {1}, {}, {3}}),
		},
		DenseDim: 2,
		Dense:    []float32{0.1, -0.3, 0.5, 0.2, -0.7, 0.4, 0.3, 0.3},
	}
	itf := &datasets.Features{Fields: []datasets.Field{
		datasets.IDField("item_id", 6),
		bagField("cat", 3, [][]int32{{0}, {1, 2}, {2}, {0, 1}, {1}, {2}}, nil),
	}}
	// The index of no training pair: the tests give the histories themselves.
	return &datasets.Dataset{Name: "history", Queries: 4, Items: 6, QueryFeatures: qf, ItemFeatures: itf,
		Sequences: &datasets.Sequences{Offsets: make([]int32, 5)}}
}

// historyBatch is a batch of 4 queries with their histories (of items 2, 3 and 4 only, one of
// them empty) and the item rows 0, 1 and 2: item 2 is in both, items 3 and 4 in histories
// only, items 0 and 1 among the item rows only.
func historyBatch() (qids []int32, w *Window, iids []int32) {
	P := Padding
	return []int32{0, 1, 2, 3}, &Window{Rows: 4, Len: 3, Items: []int32{
		2, 3, 3,
		P, P, 4,
		P, P, P,
		P, 4, 2,
	}}, []int32{0, 1, 2}
}

func newTestHistoryModel(t *testing.T, share bool) *Model {
	t.Helper()
	s := Settings{EmbeddingDim: 3, Hidden: []int{5, 3}, ShareEmbeddings: share, InitStd: 0.5,
		Sequence: SequenceSettings{Encoder: EncoderMean, MaxLength: 4}}
	m, err := New(s, historyDataset(), tensor.Float64, 7)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestHistoryTowerMatchesReference checks the query embeddings of a model whose query tower
// reads histories, with and without the shared item table, against the tower written out: the
// user's pooled bags, then the mean of the history's item rows (zeros for the empty history),
// then the dense features, through the MLP and the normalisation; and the table the history
// reads: the item tower's id table when shared, a table of its own otherwise.
func TestHistoryTowerMatchesReference(t *testing.T) {
	for _, share := range []bool{false, true} {
		m := newTestHistoryModel(t, share)
		qids, w, _ := historyBatch()
		h := m.towers[sideQuery].history
		itemTable := m.towers[sideItem].fields[0].table
		if got := h.table == itemTable; got != share {
			t.Fatalf("share %t: the history reads the item id table: %t", share, got)
		}
		if share && m.tables[itemTable].name != "shared.item_id" {
			t.Errorf("the shared table is named %q", m.tables[itemTable].name)
		}
		got, err := m.embedHistories(qids, w)
		if err != nil {
			t.Fatal(err)
		}
		tab := values[float64](m.tables[h.table])
		for r, q := range qids {
			mean := make([]float64, 3)
			hist := w.history(r)
			for _, it := range hist {
				for j := range mean {
					mean[j] += tab[int(it)*3+j] / float64(len(hist))
				}
			}
			bags, dense := refInputs(m, sideQuery, int(q))
			want, _ := refMLPNorm(m, sideQuery, append(append(bags, mean...), dense...))
			for j, v := range want {
				if math.Abs(float64(got[r*3+j])-v) > 1e-6 {
					t.Fatalf("share %t, query %d [%d]: %v, reference %v", share, q, j, got[r*3+j], v)
				}
			}
		}
	}
}

// TestHistoryGradientSharedTable checks, with and without sharing, the gradient of a two-tower
// loss Σ (U·Vᵀ) ⊙ C (the query tower reading the histories, the item tower the item rows)
// w.r.t. every parameter against central finite differences, the rows of the tables included;
// and that with sharing the gradient reaches the item table's rows from both towers: the rows
// read only by histories, only by the item tower, and by both.
func TestHistoryGradientSharedTable(t *testing.T) {
	for _, share := range []bool{false, true} {
		m := newTestHistoryModel(t, share)
		qids, w, iids := historyBatch()
		ids := [2][]int32{qids, iids}
		g := G.NewGraph()
		var tn [2]*towerNodes
		var wrt G.Nodes
		for side, tw := range m.towers {
			var err error
			if tn[side], err = fwd[float64](m, tw, g, len(ids[side]), towerFused, true, nil); err != nil {
				t.Fatal(err)
			}
			wrt = append(wrt, tn[side].params...)
		}
		nDense := len(wrt)
		wrt = append(wrt, tn[0].x, tn[1].x)
		s := G.Must(G.Mul(tn[0].out, G.Must(G.Transpose(tn[1].out))))
		rng := rand.New(rand.NewPCG(3, 3))
		cv := tensor.New(tensor.WithShape(len(qids), len(iids)), tensor.WithBacking(randoms(rng, len(qids)*len(iids), 1)))
		loss := G.Must(G.Sum(G.Must(G.HadamardProd(s, G.NewMatrix(g, tensor.Float64, G.WithShape(len(qids), len(iids)), G.WithName("c"), G.WithValue(cv))))))
		grads, vm, fwdOnly := gradMachines(t, loss, wrt)
		run := func(vm G.VM) float64 {
			for side, tw := range m.towers {
				x := tn[side].xData.([]float64)
				gather(m, tw, ids[side], x, nil)
				if tw.history != nil {
					gatherHistory(m, tw, w, x)
				}
			}
			defer vm.Reset()
			if err := vm.RunAll(); err != nil {
				t.Fatal(err)
			}
			return loss.Value().Data().(float64)
		}
		run(vm)
		analytic := map[*param][]float64{}
		for i, p := range append(tn[0].of, tn[1].of...) {
			analytic[p] = append([]float64(nil), data[float64](grads[i].Value())...)
		}
		rgs := make([]*rowGrad[float64], len(m.tables))
		for i, p := range m.tables {
			rgs[i] = newRowGrad[float64](p.shape[0], p.shape[1])
		}
		dx := [2][]float64{data[float64](grads[nDense].Value()), data[float64](grads[nDense+1].Value())}
		scatter(m, ids, dx, rgs, nil)
		hist := m.towers[sideQuery].history
		scatterHistory(m, m.towers[sideQuery], w, nil, dx[0], rgs[hist.table])
		for i, p := range m.tables {
			g := make([]float64, p.size())
			for k, r := range rgs[i].rows {
				copy(g[int(r)*3:], rgs[i].grad[k*3:(k+1)*3])
			}
			analytic[p] = g
		}
		for _, p := range m.params() {
			x := values[float64](p)
			for i := range x {
				if fd := centralDifference(x, i, func() float64 { return run(fwdOnly) }); !agrees(analytic[p][i], fd) {
					t.Errorf("share %t: %s[%d]: gradient %.10g, finite difference %.10g", share, p.name, i, analytic[p][i], fd)
				}
			}
		}
		// Which rows of the item id table the gradient reaches.
		items := analytic[m.tables[m.towers[sideItem].fields[0].table]]
		for row := range 6 {
			var norm float64
			for j := range 3 {
				norm += math.Abs(items[row*3+j])
			}
			inItems := row <= 2
			inHistories := share && row >= 2 && row <= 4
			if reached := norm > 0; reached != (inItems || inHistories) {
				t.Errorf("share %t: item row %d: gradient %v (read by the item tower %t, by histories %t)", share, row, items[row*3:row*3+3], inItems, inHistories)
			}
		}
	}
}

// TestHistoryModelErrors checks the errors of a model that reads histories: sharing without an
// item id field, a dataset without sequences (no timestamps), a window longer than max_length,
// a window of another number of rows, an item out of range, EmbedQueries without histories.
func TestHistoryModelErrors(t *testing.T) {
	ds := historyDataset()
	ds.ItemFeatures.Fields = ds.ItemFeatures.Fields[1:] // the category only
	s := Settings{EmbeddingDim: 3, Hidden: []int{3}, ShareEmbeddings: true, Sequence: SequenceSettings{Encoder: EncoderMean}}
	if _, err := New(s, ds, tensor.Float64, 1); err == nil || !strings.HasPrefix(err.Error(), "share_embeddings:") {
		t.Errorf("sharing without an id field: %v", err)
	}
	untimed := historyDataset()
	untimed.Sequences = nil
	if _, err := New(s, untimed, tensor.Float64, 1); err == nil || !strings.HasPrefix(err.Error(), "sequence.encoder:") || !strings.Contains(err.Error(), "timestamps") {
		t.Errorf("a dataset without sequences: %v", err)
	}
	m := newTestHistoryModel(t, true)
	qids, w, _ := historyBatch()
	long := &Window{Rows: 4, Len: 5, Items: make([]int32, 20)}
	bad := &Window{Rows: 4, Len: 3, Items: append([]int32(nil), w.Items...)}
	bad.Items[4] = 6
	for _, c := range []struct {
		name string
		ids  []int32
		w    *Window
		want string
	}{
		{"too long", qids, long, "exceeds max_length 4"},
		{"rows", qids[:3], w, "4 histories for 3 queries"},
		{"item", qids, bad, "item 6 out of range [0, 6)"},
	} {
		if _, err := m.embedHistories(c.ids, c.w); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := m.EmbedQueries(qids); err == nil || !strings.Contains(err.Error(), "histories") {
		t.Errorf("EmbedQueries: %v", err)
	}
}
