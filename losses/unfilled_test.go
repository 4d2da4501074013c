package losses

import (
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
)

// TestUnfilled: on the geometries whose drawn columns may be empty (candidates.Geometry.Unfilled:
// in_batch_unique with fewer distinct items than negatives, alone and in a mixture with
// uniform_per_row), every variant × form × option, in both implementations, (a) equals the
// plain-Go float64 reference (TestAgainstReference's tolerances), (b) has the gradient of its
// central differences in float64 (TestFiniteDifferences'), and (c) equals, value and gradient,
// the loss of the same step with the empty columns taken out (one geometry with fewer drawn
// columns), to 1e-12, the gradient at an empty column being 0: an empty column is no candidate.
func TestUnfilled(t *testing.T) {
	ref, fdGen, cut := newCaseGen(3, 9), newCaseGen(4, 9), newCaseGen(5, 9)
	empties := 0
	for _, s0 := range settingsOver(t, unfilledGeometries) {
		for _, im := range impls(s0) {
			s := withImpl(s0, im)
			if isBuiltin(s.Variant) {
				for _, extreme := range []bool{false, true} {
					for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
						l := s.newLoss(t, dt)
						what := name(s) + "/" + dt.String()
						if extreme {
							what += "/extreme"
						}
						checkReference(t, what, l, ref.gen(l.Settings(), l.Geometry(), 6, extreme))
					}
				}
			}
			l := s.newLoss(t, tensor.Float64)
			if s.Variant != VariantLogQCorrected { // a stop-gradient: TestLogQCorrectedFiniteDifferences
				p := fdGen.gen(l.Settings(), l.Geometry(), 4, false)
				checkFiniteDifferences(t, name(s), newHarness(t, l, p.st, p.b, p.c, true), p.S)
			}
			p := cut.gen(l.Settings(), l.Geometry(), 6, false)
			keep, q := withoutEmpty(p)
			empties += p.c - len(keep)
			got, gGot := mustRun(t, l, p.st, p.b, p.c, true, p.S)
			want, gWant := mustRun(t, tcase{s.Settings, q.st.Geometry}.newLoss(t, tensor.Float64), q.st, q.b, q.c, true, q.S)
			full := make([]float64, len(gGot)) // gWant at the kept columns, 0 at the empty ones
			for i := range p.b {
				for k, j := range keep {
					full[i*p.c+j] = gWant[i*q.c+k]
				}
			}
			checkClose(t, name(s)+"/without the empty columns", got, want, gGot, full, 1e-12)
		}
	}
	if empties == 0 {
		t.Fatal("no step had an empty column")
	}
}

// withoutEmpty returns the columns of p's rows that are not empty drawn columns (in order) and
// the problem of p without the others: a geometry with that many fewer drawn columns, not
// Unfilled, the columns' items, side inputs and scores kept, the known positives renumbered.
func withoutEmpty(p problem) ([]int, problem) {
	st, g := p.st, p.st.Geometry
	var keep []int
	for j := range p.c {
		if j == 0 || j > g.Extra || st.ColItem[j] != candidates.NoItem {
			keep = append(keep, j)
		}
	}
	g.Extra -= p.c - len(keep)
	g.Unfilled = false
	c := len(keep)
	blocks := 1 // the blocks of per-column slices: one per row when each row has its own columns
	if g.PerRow > 0 {
		blocks = p.b
	}
	q := problem{s: p.s, b: p.b, c: c, S: keepColumns(p.S, p.b, p.c, keep)}
	q.st = &candidates.Step{Geometry: g, Items: st.Items, RowItem: st.RowItem, ColItem: keepColumns(st.ColItem, blocks, p.c, keep)}
	newCol := make([]int, p.c)
	for j := range newCol {
		newCol[j] = -1
	}
	for k, j := range keep {
		newCol[j] = k
	}
	for _, sd := range st.Sides() {
		if sd.Kind != candidates.PerEntry {
			q.st.Set(sd, keepColumns(st.Col(sd.Name), blocks, p.c, keep), st.Row(sd.Name))
			continue
		}
		q.st.Set(sd, nil, nil)
		idx, val := st.Entries(sd.Name)
		var qIdx []int
		var qVal []float64
		for e, k := range idx {
			if j := newCol[k%p.c]; j >= 0 {
				qIdx, qVal = append(qIdx, k/p.c*c+j), append(qVal, val[e])
			}
		}
		if err := q.st.SetEntries(sd.Name, qIdx, qVal); err != nil {
			panic(err)
		}
	}
	return keep, q
}

// keepColumns returns the columns keep (in order) of the rows×c matrix x, nil for a nil x.
func keepColumns[T any](x []T, rows, c int, keep []int) []T {
	if x == nil {
		return nil
	}
	out := make([]T, 0, rows*len(keep))
	for i := range rows {
		for _, j := range keep {
			out = append(out, x[i*c+j])
		}
	}
	return out
}

// TestUnfilledNegatives: the number of a row's negatives m, which logq's expected count and
// Rawat's weightings read, counts the columns with an item: C − 1 less the empty ones.
func TestUnfilledNegatives(t *testing.T) {
	st := &candidates.Step{Geometry: unfilledG, RowItem: []int64{1, 2},
		ColItem: []int64{candidates.NoItem, 4, candidates.NoItem, 5, candidates.NoItem, 6}}
	p := &plan{b: 2, c: 6, layout: candidates.First}
	if err := p.findPadding(st); err != nil {
		t.Fatal(err)
	}
	if p.nPadCols != 2 {
		t.Fatalf("%d empty columns, want 2", p.nPadCols)
	}
	if m := p.negatives(); m != 3 {
		t.Errorf("m = %d, want 3 (C − 1 = 5 less 2 empty columns)", m)
	}
	p.masks = true
	for i := range 2 {
		for j := range 6 {
			if want := j == 2 || j == 4; p.masked(i, j, 0) != want {
				t.Errorf("row %d column %d: masked %v, want %v", i, j, !want, want)
			}
		}
	}
}
