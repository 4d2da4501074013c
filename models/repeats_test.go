package models

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/samplers"
)

// TestRepeatsList: list finds each row's distinct entity and each entity's first row, and copies
// nothing when no row repeats or a row has no entity.
func TestRepeatsList(t *testing.T) {
	for _, tc := range []struct {
		ids         []int32
		some        bool
		first, of   []int32
		distinctIDs []int32
	}{
		{[]int32{4, 1, 4, 0, 1}, true, []int32{0, 1, 3}, []int32{0, 1, 0, 2, 1}, []int32{4, 1, 0}},
		{[]int32{2, 3}, false, []int32{0, 1}, []int32{0, 1}, []int32{2, 3}},
		{[]int32{2, -1, 2}, false, nil, nil, nil}, // an id without entity: no row is copied
	} {
		p := newRepeats(5, len(tc.ids))
		p.list(tc.ids)
		if p.some != tc.some {
			t.Errorf("%v: some = %v, want %v", tc.ids, p.some, tc.some)
		}
		if tc.first != nil && (!slices.Equal(p.first, tc.first) || !slices.Equal(p.of, tc.of) || !slices.Equal(p.ids, tc.distinctIDs)) {
			t.Errorf("%v: first %v, of %v, ids %v; want %v, %v, %v", tc.ids, p.first, p.of, p.ids, tc.first, tc.of, tc.distinctIDs)
		}
	}
}

// TestRepeatsSameBits: training on Wikispeedia batches, where popular pages repeat within a
// step, gives the same losses and parameters, bit for bit, whether the towers compute each
// repeated entity once (the trainer's default) or every row, with in-batch negatives and with
// uniform extras; the repeats are checked to have been found, so that the comparison is not of
// one path with itself.
func TestRepeatsSameBits(t *testing.T) {
	ds, err := datasets.Load(datasets.Settings{Source: datasets.SourceWikilinks}, 0)
	if err != nil {
		t.Fatal(err)
	}
	const batch, steps = 256, 3
	order := rand.New(rand.NewPCG(5, 6)).Perm(len(ds.Train))
	batches := make([][]datasets.Interaction, steps)
	for s := range batches {
		for _, i := range order[s*batch : (s+1)*batch] {
			batches[s] = append(batches[s], ds.Train[i])
		}
	}
	for _, ss := range []samplers.Settings{{}, mixedSampler(64)} {
		t.Run(cmp.Or(string(ss.Kind), "in_batch"), func(t *testing.T) {
			var params [2][][]float32
			var names []string
			var lossBits [2][]uint64
			for k, repeated := range []bool{true, false} {
				run := testRun{losses.Settings{Variant: losses.VariantLogQ, Temperature: 0.1}, ss}
				m, tr := newTestTrainerT[float32](t, Settings{EmbeddingDim: 8, Hidden: []int{32, 16}, ShareEmbeddings: true}, ds, run, batch, 3, towerFused)
				if tr.rep[sideQuery] == nil || tr.rep[sideItem] == nil {
					t.Fatal("the trainer does not look for repeated rows")
				}
				if !repeated {
					tr.rep = [2]*repeats{}
				}
				for s, b := range batches {
					l, err := tr.step(int64(s+1), b)
					if err != nil {
						t.Fatal(err)
					}
					lossBits[k] = append(lossBits[k], math.Float64bits(l))
					if repeated && (!tr.rep[sideQuery].some || !tr.rep[sideItem].some) {
						t.Fatalf("step %d: no repeated query or item rows found", s)
					}
				}
				names = names[:0]
				for _, p := range m.params() {
					params[k] = append(params[k], slices.Clone(values[float32](p)))
					names = append(names, p.name)
				}
			}
			if !slices.Equal(lossBits[0], lossBits[1]) {
				t.Errorf("losses differ: %v and %v", lossBits[0], lossBits[1])
			}
			for i := range params[0] {
				for j, v := range params[0][i] {
					if math.Float32bits(v) != math.Float32bits(params[1][i][j]) {
						t.Fatalf("parameter %s[%d] = %v computing repeats once, %v computing every row", names[i], j, v, params[1][i][j])
					}
				}
			}
		})
	}
}
