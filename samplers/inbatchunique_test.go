package samplers_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/samplingbias/workbench/candidates"

	. "github.com/samplingbias/workbench/samplers"
	"github.com/samplingbias/workbench/samplers/samplerstest"
)

// TestInBatchUniqueLaw: given a batch with D = 5 distinct items, in_batch_unique with k = 2 takes
// each of them with frequency k/D = 0.4 over 20000 steps (within 5 standard errors,
// √(0.4·0.6/20000) = 0.0035), never twice in a step and never an item outside the batch, and
// declares p = p̂·k/D and q = p/k for each column.
func TestInBatchUniqueLaw(t *testing.T) {
	const steps, k = 20000, 2
	d := samplerstest.SkewedData(8)
	pos := []int32{3, 3, 0, 7, 3, 11, 0, 4} // distinct: 3, 0, 7, 11, 4
	smp, err := New(Settings{Kind: KindInBatchUnique, Negatives: k})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([]int32, len(pos)+k)
	c := newColumnsFor(smp, len(pos), d.Items)
	law := samplerstest.IIDLaw(d, rows)
	count := map[int32]int{}
	for range steps {
		smp.Draw(rng, d, pos, rows)
		if rows[8] == rows[9] {
			t.Fatalf("the same item twice: %v", rows[8:])
		}
		for _, item := range rows[8:] {
			count[item]++
		}
		if err := smp.Declare(d, pos, rows, law, c); err != nil {
			t.Fatal(err)
		}
		for j := 1; j <= k; j++ {
			_, p, _, _ := law(7 + j)
			if want := p * k / 5; math.Abs(math.Exp(colP(c)[j])/want-1) > 1e-12 || math.Abs(math.Exp(colQ(c)[j])/(want/k)-1) > 1e-12 {
				t.Fatalf("column %d: p %v q %v, want %v and %v", j, math.Exp(colP(c)[j]), math.Exp(colQ(c)[j]), want, want/k)
			}
		}
	}
	if len(count) != 5 {
		t.Errorf("drew %d distinct items, want the batch's 5: %v", len(count), count)
	}
	for item, n := range count {
		if f, tol := float64(n)/steps, 5*math.Sqrt(0.4*0.6/steps); math.Abs(f-0.4) > tol {
			t.Errorf("item %d: frequency %.4f, want 0.4 ± %.4f", item, f, tol)
		}
	}
}

// TestInBatchUniqueShort: a batch with D = 5 distinct items and k = 7 gives each of the five
// once, in columns 1..5, and leaves columns 6 and 7 empty (NoItem in their item rows and
// columns), as a random permutation of the distinct items cut at k does (Khrylchenko et al.'s
// code); it declares p = p̂·min(k, D)/D = p̂ and q = p/min(k, D) = p/5, so that the expected
// copies among the row's five negatives, 5·q, equal p.
func TestInBatchUniqueShort(t *testing.T) {
	const k = 7
	d := samplerstest.SkewedData(8)
	pos := []int32{3, 3, 0, 7, 3, 11, 0, 4} // distinct: 3, 0, 7, 11, 4
	smp, err := New(Settings{Kind: KindInBatchUnique, Negatives: k})
	if err != nil {
		t.Fatal(err)
	}
	if !smp.Shape().Unfilled {
		t.Fatal("in_batch_unique's geometry is not Unfilled")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	rows := make([]int32, len(pos)+k)
	c := newColumnsFor(smp, len(pos), d.Items)
	law := samplerstest.IIDLaw(d, rows)
	for range 100 {
		smp.Draw(rng, d, pos, rows)
		drawn := slices.Clone(rows[8:13])
		slices.Sort(drawn)
		if want := []int32{0, 3, 4, 7, 11}; !slices.Equal(drawn, want) || rows[13] != candidates.NoItem || rows[14] != candidates.NoItem {
			t.Fatalf("drew %v, want a permutation of %v then two empty rows", rows[8:], want)
		}
		if err := smp.Declare(d, pos, rows, law, c); err != nil {
			t.Fatal(err)
		}
		for j := 1; j <= k; j++ {
			if j > 5 {
				if c.ColItem[j] != candidates.NoItem {
					t.Fatalf("column %d holds item %d, want none", j, c.ColItem[j])
				}
				continue
			}
			_, p, _, _ := law(7 + j)
			if c.ColItem[j] != int64(rows[7+j]) || math.Abs(math.Exp(colP(c)[j])/p-1) > 1e-12 || math.Abs(math.Exp(colQ(c)[j])/(p/5)-1) > 1e-12 {
				t.Fatalf("column %d (item %d): p %v q %v, want %v and %v", j, c.ColItem[j], math.Exp(colP(c)[j]), math.Exp(colQ(c)[j]), p, p/5)
			}
		}
	}
}

// TestInBatchUniqueShortInMixture: in Khrylchenko et al.'s mixture (in_batch_unique with k = 7
// and uniform_per_row with 3) on a batch with D = 5 distinct items, every row has the five
// in-batch columns, two empty ones (NoItem) and its three uniform ones, and an in-batch item j is
// declared with the mixture's law over the 5 + 3 draws the row has: q = (5·q_A + 3·q_B)/8, with
// q_A = p̂_j/5 (all five taken) and q_B = 1/M, and p = 1 − (1 − p̂_j)(1 − p_B).
func TestInBatchUniqueShortInMixture(t *testing.T) {
	d := samplerstest.SkewedData(8)
	pos := []int32{3, 3, 0, 7, 3, 11, 0, 4} // distinct: 3, 0, 7, 11, 4
	smp := must(New(Settings{Kind: KindMixture, Of: []Settings{{Kind: KindInBatchUnique, Negatives: 7}, {Kind: KindUniformPerRow, Negatives: 3}}}))
	if !smp.Shape().Unfilled {
		t.Fatal("the mixture's geometry is not Unfilled")
	}
	uni := must(New(Settings{Kind: KindUniformPerRow, Negatives: 3})).(ItemLaw)
	rows, c := declareStep(smp, d, pos, 9)
	law := samplerstest.IIDLaw(d, rows)
	cols := smp.Shape().Cols(len(pos), d.Items)
	if cols != 11 {
		t.Fatalf("C = %d, want 11", cols)
	}
	for i := range pos {
		for j := 1; j < cols; j++ {
			k, item := i*cols+j, c.ColItem[i*cols+j]
			if (item == candidates.NoItem) != (j == 6 || j == 7) {
				t.Fatalf("row %d column %d: item %d", i, j, item)
			}
			if j > 5 {
				continue
			}
			var lqB, lpB [1]float64
			uni.ItemLaw(d, []int32{int32(item)}, lqB[:], lpB[:])
			_, pA, _, _ := law(slices.Index(pos, int32(item)))
			q := (5*(pA/5) + 3*math.Exp(lqB[0])) / 8
			p := 1 - (1-pA)*(1-math.Exp(lpB[0]))
			if math.Abs(math.Exp(colQ(c)[k])/q-1) > 1e-12 || math.Abs(math.Exp(colP(c)[k])/p-1) > 1e-12 {
				t.Errorf("row %d column %d (item %d): q %v p %v, want %v and %v", i, j, item, math.Exp(colQ(c)[k]), math.Exp(colP(c)[k]), q, p)
			}
		}
	}
}
