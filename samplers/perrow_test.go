package samplers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestShapeRow: the item row of each column, written out for small shapes from Shape.PerRow's
// definition (positives, shared rows, memory rows, then B blocks of PerRow).
func TestShapeRow(t *testing.T) {
	for _, tt := range []struct {
		sh   Shape
		want [][]int // per row i: Row(i, j, 2) for every column j
	}{
		{Shape{Layout: LayoutDiagonal}, [][]int{{0, 1}, {0, 1}}},
		{Shape{Layout: LayoutDiagonal, Extra: 1, Memory: 1}, [][]int{{0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}}},
		{Shape{Layout: LayoutDiagonal, Extra: 1, PerRow: 2}, [][]int{{0, 1, 2, 3, 4}, {0, 1, 2, 5, 6}}},
		{Shape{Layout: LayoutFirst, Extra: 2}, [][]int{{0, 2, 3}, {1, 2, 3}}},
		{Shape{Layout: LayoutFirst, PerRow: 2}, [][]int{{0, 2, 3}, {1, 4, 5}}},
		{Shape{Layout: LayoutFirst, Extra: 1, PerRow: 2}, [][]int{{0, 2, 3, 4}, {1, 2, 5, 6}}},
	} {
		t.Run(fmt.Sprintf("%+v", tt.sh), func(t *testing.T) {
			for i, want := range tt.want {
				if c := tt.sh.Cols(2, 0); c != len(want) {
					t.Fatalf("Cols = %d, want %d", c, len(want))
				}
				got := make([]int, len(want))
				for j := range got {
					got[j] = tt.sh.Row(i, j, 2)
				}
				if !slices.Equal(got, want) {
					t.Errorf("row %d: item rows %v, want %v", i, got, want)
				}
			}
			last := slices.Max(tt.want[len(tt.want)-1])
			if r := tt.sh.Rows(2, 0); r != last+1 {
				t.Errorf("Rows = %d, want %d", r, last+1)
			}
		})
	}
}

// rowEcho is a test sampler that draws, for each row alone, m copies of the row's positive, and
// declares the uniform law (its ItemLaw is all a mixture reads).
type rowEcho struct{ m int }

func (s rowEcho) Shape() Shape { return Shape{Layout: LayoutFirst, PerRow: s.m} }
func (s rowEcho) Draw(_ *rand.Rand, _ *Data, pos, rows []int32) {
	copy(rows, pos)
	for i, p := range pos {
		for k := range s.m {
			rows[len(pos)+i*s.m+k] = p
		}
	}
}
func (s rowEcho) Declare(d *Data, pos, rows []int32, _ Law, c *Columns) error {
	declareEach(s.Shape(), pos, rows, c, func(int32) (float64, float64) { return -math.Log(float64(d.Items)), 0 })
	return nil
}
func (s rowEcho) ItemLaw(d *Data, items []int32, logQ, logP []float64) {
	itemLaw(items, logQ, logP, func(int32) (float64, float64) { return -math.Log(float64(d.Items)), 0 })
}

// TestMixturePerRowColumns: a mixture of shared uniform draws and a per-row component puts each
// row's own draws in that row's last columns (rowEcho's: the row's positive) and the shared ones
// in every row; a per-row component without an ItemLaw is an error.
func TestMixturePerRowColumns(t *testing.T) {
	x, err := newMixture(uniform{m: 2}, rowEcho{m: 3})
	if err != nil {
		t.Fatal(err)
	}
	d := auditData(4)
	sh := x.Shape()
	if sh.Layout != LayoutFirst || sh.Extra != 2 || sh.PerRow != 3 {
		t.Fatalf("shape %+v, want First with 2 shared and 3 per row", sh)
	}
	pos := []int32{5, 6, 7, 8}
	rows := make([]int32, sh.Rows(4, d.Items))
	x.Draw(rand.New(rand.NewPCG(1, 2)), d, pos, rows)
	c := newColumnsFor(sh, 4, d.Items)
	if err := x.Declare(d, pos, rows, nil, &c); err != nil {
		t.Fatal(err)
	}
	cols := sh.Cols(4, d.Items)
	shared := c.Items[1:3]
	for i, p := range pos {
		r := c.Items[i*cols : (i+1)*cols]
		if r[0] != -1 || !slices.Equal(r[1:3], shared) || slices.ContainsFunc(r[3:], func(it int64) bool { return it != int64(p) }) {
			t.Errorf("row %d (positive %d): columns %v, want -1, the shared %v, then %d three times", i, p, r, shared, p)
		}
	}
	if _, err := newMixture(uniform{m: 2}, drawsAs{draw: rowEcho{m: 1}, declare: rowEcho{m: 1}}); err == nil {
		t.Error("a per-row component without an ItemLaw was accepted")
	}
}
