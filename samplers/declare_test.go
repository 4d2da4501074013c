package samplers_test

import (
	"encoding"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/prob"

	. "github.com/samplingbias/workbench/samplers"
	"github.com/samplingbias/workbench/samplers/samplerstest"
)

// declareStep draws and declares one step of smp on positives pos with a random source seeded
// by seed, the positives' law being the exact training frequency (samplerstest.IIDLaw).
func declareStep(smp Sampler, d *Data, pos []int32, seed uint64) ([]int32, *candidates.Step) {
	sh := smp.Shape()
	b := len(pos)
	rows := make([]int32, sh.ItemRows(b, d.Items))
	c := newColumnsFor(smp, b, d.Items)
	smp.Draw(rand.New(rand.NewPCG(seed, 1)), d, pos, rows)
	var law Law
	if sh.PositiveLaw {
		law = samplerstest.IIDLaw(d, rows)
	}
	if err := smp.Declare(d, pos, rows, law, c); err != nil {
		panic(err)
	}
	return rows, c
}

// TestDeclareUnigram: declare = "unigram" draws what the sampler draws and declares, for every
// column and positive, q = count/N (an item without training interactions as if it had one) and
// p = 1 − (1 − q)^D over the step's D draws (C under layout diagonal, whose every column is a draw,
// C − 1 otherwise), per row and column for a sampler that draws per row; for in_batch, whose own
// law is count/N over its B = C columns, the declared q and p are its own.
func TestDeclareUnigram(t *testing.T) {
	d := samplerstest.SkewedData(4)
	d.Counts[19] = 0 // an item without training interactions
	d.N -= 3
	pos := []int32{0, 3, 3, 7}
	for _, s := range []Settings{{Kind: KindInBatch}, {Kind: KindUniform, Negatives: 40}, {Kind: KindMixed, Negatives: 40},
		{Kind: KindMixture, Of: []Settings{{Kind: KindInBatchUnique, Negatives: 3}, {Kind: KindUniform, Negatives: 40}}}, {Kind: KindFull},
		{Kind: KindUniformPerRow, Negatives: 6},
		{Kind: KindMixture, Of: []Settings{{Kind: KindInBatchUnique, Negatives: 2}, {Kind: KindUniformPerRow, Negatives: 6}}}} {
		t.Run(settingsName(s), func(t *testing.T) {
			own := must(New(s))
			s.Declare = DeclareUnigram
			uni := must(New(s))
			ownRows, ownCols := declareStep(own, d, pos, 5)
			rows, c := declareStep(uni, d, pos, 5)
			if !slices.Equal(rows, ownRows) || !slices.Equal(c.ColItem, ownCols.ColItem) {
				t.Fatalf("unigram drew rows %v items %v, the sampler %v %v", rows, c.ColItem, ownRows, ownCols.ColItem)
			}
			cols := own.Shape().Cols(len(pos), d.Items)
			n := cols - 1
			if own.Shape().Layout == candidates.Diagonal {
				n = cols
			}
			want := func(item int64) (float64, float64) {
				q := float64(max(d.Counts[item], 1)) / float64(d.N)
				return math.Log(q), math.Log(prob.Inclusion(q, n))
			}
			for j, item := range c.ColItem {
				if item < 0 { // column 0: the row's positive (the first row's, for shared columns)
					item = int64(pos[j/cols])
				}
				if q, p := want(item); colQ(c)[j] != q || colP(c)[j] != p {
					t.Errorf("column %d (item %d): log q %v, log p %v; want %v, %v", j, item, colQ(c)[j], colP(c)[j], q, p)
				}
			}
			for i, item := range pos {
				if q, p := want(int64(item)); posQ(c)[i] != q || posP(c)[i] != p {
					t.Errorf("positive %d (item %d): log q %v, log p %v; want %v, %v", i, item, posQ(c)[i], posP(c)[i], q, p)
				}
			}
			if s.Kind == KindInBatch && (!slices.Equal(colQ(c), colQ(ownCols)) || !slices.Equal(colP(c), colP(ownCols))) {
				t.Errorf("in_batch: unigram's log q %v and log p %v, the sampler's own %v and %v", colQ(c), colP(c), colQ(ownCols), colP(ownCols))
			}
		})
	}
}

// TestDeclareUnigramAudit: the audit tells uniform draws declared as the unigram law (the Q
// Khrylchenko et al.'s code subtracts for its uniform half) from uniform draws declared as
// themselves: TV many noise floors wide against about one.
func TestDeclareUnigramAudit(t *testing.T) {
	d := samplerstest.SkewedData(8)
	for _, tt := range []struct {
		declare  Declaration
		min, max float64 // bounds on TV/Floor
	}{{DeclareLaw, 0, 1.5}, {DeclareUnigram, 5, math.Inf(1)}} {
		t.Run(string(tt.declare), func(t *testing.T) {
			smp := must(New(Settings{Kind: KindUniform, Negatives: 8, Declare: tt.declare}))
			s := runAudit(smp, d, 2000).Summary(d.Counts)
			if r := s.TV / s.Floor; !(r >= tt.min && r <= tt.max) {
				t.Errorf("TV %.4f, floor %.4f: ratio %.2f outside [%v, %v]", s.TV, s.Floor, r, tt.min, tt.max)
			}
		})
	}
}

// TestDeclareUnigramOwnLaw: in_batch and memory draw their columns from the training frequency,
// the law that declare = "unigram" declares, so that declaration passes their audit (positives
// drawn i.i.d. with probability count/N): its p counts every column of the step as a draw, the
// rows' positives included.
func TestDeclareUnigramOwnLaw(t *testing.T) {
	for _, s := range []Settings{{Kind: KindInBatch}, {Kind: KindMemory, MemoryBatches: 1}} {
		t.Run(settingsName(s), func(t *testing.T) {
			s.Declare = DeclareUnigram
			if err := samplerstest.Audit(must(New(s)), samplerstest.SkewedData(4), 4000, 1); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestDeclareUnigramState: a stateful sampler (memory) keeps its state through checkpoints when
// its declaration is unigram; a stateless one saves none and refuses a state.
func TestDeclareUnigramState(t *testing.T) {
	d := samplerstest.SkewedData(2)
	smp := must(New(Settings{Kind: KindMemory, MemoryBatches: 1, Declare: DeclareUnigram}))
	rows := make([]int32, smp.Shape().ItemRows(2, d.Items))
	smp.Draw(nil, d, []int32{1, 2}, rows)
	state, err := smp.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	resumed := must(New(Settings{Kind: KindMemory, MemoryBatches: 1, Declare: DeclareUnigram}))
	if err := resumed.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
		t.Fatal(err)
	}
	smp.Draw(nil, d, []int32{3, 4}, rows)
	again := slices.Clone(rows)
	resumed.Draw(nil, d, []int32{3, 4}, rows)
	if !slices.Equal(rows, again) || !slices.Equal(rows, []int32{3, 4, 1, 2}) {
		t.Errorf("resumed rows %v, uninterrupted %v, want [3 4 1 2]", rows, again)
	}
	stateless := must(New(Settings{Kind: KindUniform, Negatives: 2, Declare: DeclareUnigram}))
	if b, err := stateless.(encoding.BinaryMarshaler).MarshalBinary(); err != nil || b != nil {
		t.Errorf("stateless MarshalBinary: %v, %v; want nil, nil", b, err)
	}
	if err := stateless.(encoding.BinaryUnmarshaler).UnmarshalBinary([]byte{1}); err == nil {
		t.Error("a stateless sampler accepted a state")
	}
}
