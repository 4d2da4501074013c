package candidates

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestGeometryRow: the item row of each column, written out for small geometries of R = 2 rows
// from the definitions (the rows' positives, the shared drawn rows, the constant rows, then R
// blocks of each row's own), and the counts of columns and item rows that follow.
func TestGeometryRow(t *testing.T) {
	for _, tt := range []struct {
		g    Geometry
		want [][]int // per row i: Row(i, j, 2) for every column j
	}{
		{Geometry{Layout: Diagonal}, [][]int{{0, 1}, {0, 1}}},
		{Geometry{Layout: Diagonal, Extra: 1, Memory: 1}, [][]int{{0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}}},
		{Geometry{Layout: Diagonal, Extra: 1, PerRow: 2}, [][]int{{0, 1, 2, 3, 4}, {0, 1, 2, 5, 6}}},
		{Geometry{Layout: First, Extra: 2}, [][]int{{0, 2, 3}, {1, 2, 3}}},
		{Geometry{Layout: First, PerRow: 2}, [][]int{{0, 2, 3}, {1, 4, 5}}},
		{Geometry{Layout: First, Extra: 1, PerRow: 2}, [][]int{{0, 2, 3, 4}, {1, 2, 5, 6}}},
	} {
		t.Run(fmt.Sprintf("%+v", tt.g), func(t *testing.T) {
			for i, want := range tt.want {
				if c := tt.g.Cols(2, 0); c != len(want) {
					t.Fatalf("Cols = %d, want %d", c, len(want))
				}
				got := make([]int, len(want))
				for j := range got {
					got[j] = tt.g.Row(i, j, 2)
				}
				if !slices.Equal(got, want) {
					t.Errorf("row %d: item rows %v, want %v", i, got, want)
				}
			}
			last := slices.Max(tt.want[len(tt.want)-1])
			if r := tt.g.ItemRows(2, 0); r != last+1 {
				t.Errorf("ItemRows = %d, want %d", r, last+1)
			}
		})
	}
}

// TestGeometryRowsPerExample: a batch of 3 examples at 4 rows each scores R = 12 rows; row r
// belongs to example r/4; the sizes follow from R (in-batch: C = R; 2 shared draws under First:
// C = 3, item rows R + 2), and the corpus layout scores one row per example.
func TestGeometryRowsPerExample(t *testing.T) {
	g := Geometry{Layout: Diagonal, PerExample: 4, Padded: true}
	if r := g.Rows(3); r != 12 {
		t.Fatalf("Rows(3) = %d, want 12", r)
	}
	if e := g.Example(9); e != 2 {
		t.Errorf("Example(9) = %d, want 2", e)
	}
	if c, n := g.Cols(12, 100), g.ItemRows(12, 100); c != 12 || n != 12 {
		t.Errorf("diagonal: C = %d, item rows %d; want 12, 12", c, n)
	}
	f := Geometry{Layout: First, Extra: 2, PerExample: 4}
	if c, n := f.Cols(12, 100), f.ItemRows(12, 100); c != 3 || n != 14 {
		t.Errorf("first: C = %d, item rows %d; want 3, 14", c, n)
	}
	if (Geometry{Layout: Corpus}).Rows(3) != 3 || (Geometry{Layout: Corpus}).Cols(3, 100) != 100 {
		t.Error("corpus: want 3 rows of 100 columns")
	}
}

// TestGeometryCheck: the parts that do not go together are errors naming the sampler.
func TestGeometryCheck(t *testing.T) {
	for _, tt := range []struct {
		g    Geometry
		want string
	}{
		{Geometry{Sampler: "ok", Layout: Diagonal, Extra: 3, Memory: 2}, ""},
		{Geometry{Sampler: "ok", Layout: First, PerRow: 3, PerExample: 2, Padded: true}, ""},
		{Geometry{Sampler: "m", Layout: First, Memory: 1}, "sampler m: memory rows need layout diagonal"},
		{Geometry{Sampler: "m", Layout: Diagonal, Memory: 1, PerRow: 1}, "sampler m: memory rows need layout diagonal"},
		{Geometry{Sampler: "m", Layout: Diagonal, Memory: 1, PerRow: 2, Padded: true}, "sampler m: memory rows need layout diagonal without rows of each row's own"},
		{Geometry{Sampler: "ok", Layout: Diagonal, Memory: 1, PerExample: 4, Padded: true}, ""},
		{Geometry{Sampler: "f", Layout: Corpus, Extra: 1}, "sampler f: layout corpus scores the corpus and draws no items"},
		{Geometry{Sampler: "ok", Layout: Corpus, PerExample: 2, Padded: true}, ""},
		{Geometry{Sampler: "n", Extra: -1}, "negative counts"},
		{Geometry{Sampler: "l", Layout: 7}, "unknown layout 7"},
	} {
		err := tt.g.Check()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%+v: got %v, want %q", tt.g, err, tt.want)
		}
	}
}
