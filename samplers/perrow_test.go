package samplers

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/samplingbias/workbench/candidates"
)

// rowEcho is a test sampler that draws, for each row alone, m copies of the row's positive, and
// declares the uniform law (its ItemLaw is all a mixture reads).
type rowEcho struct{ m int }

func (s rowEcho) Shape() Shape {
	return Shape{Geometry: candidates.Geometry{Layout: candidates.First, PerRow: s.m}}
}
func (s rowEcho) Draw(_ *rand.Rand, _ *Data, pos, rows []int32) {
	copy(rows, pos)
	for i, p := range pos {
		for k := range s.m {
			rows[len(pos)+i*s.m+k] = p
		}
	}
}
func (s rowEcho) Declare(d *Data, pos, rows []int32, _ Law, c *candidates.Step) error {
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
	d := &Data{Items: 20, Batch: 4}
	sh := x.Shape()
	if sh.Layout != candidates.First || sh.Extra != 2 || sh.PerRow != 3 {
		t.Fatalf("shape %+v, want First with 2 shared and 3 per row", sh)
	}
	pos := []int32{5, 6, 7, 8}
	rows := make([]int32, sh.ItemRows(4, d.Items))
	x.Draw(rand.New(rand.NewPCG(1, 2)), d, pos, rows)
	c := candidates.NewStep(sh.Geometry, 4, d.Items)
	if err := DeclareSides(x, c); err != nil {
		t.Fatal(err)
	}
	if err := x.Declare(d, pos, rows, nil, c); err != nil {
		t.Fatal(err)
	}
	cols := sh.Cols(4, d.Items)
	shared := c.ColItem[1:3]
	for i, p := range pos {
		r := c.ColItem[i*cols : (i+1)*cols]
		if r[0] != -1 || !slices.Equal(r[1:3], shared) || slices.ContainsFunc(r[3:], func(it int64) bool { return it != int64(p) }) {
			t.Errorf("row %d (positive %d): columns %v, want -1, the shared %v, then %d three times", i, p, r, shared, p)
		}
	}
	if _, err := newMixture(uniform{m: 2}, struct{ Sampler }{rowEcho{m: 1}}); err == nil {
		t.Error("a per-row component without an ItemLaw was accepted")
	}
}
