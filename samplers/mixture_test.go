package samplers_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/candidates"

	. "github.com/samplingbias/workbench/samplers"
	"github.com/samplingbias/workbench/samplers/samplerstest"
)

// TestMixtureOfInBatchAndUniformIsMixed: the mixture of in_batch and uniform draws the same rows
// as mixed from the same random source and declares the same q and p (to 1e-12 relative: the
// same formulas, rounded in another order).
func TestMixtureOfInBatchAndUniformIsMixed(t *testing.T) {
	d := samplerstest.SkewedData(8)
	mix, err := New(Settings{Kind: KindMixture, Of: []Settings{{Kind: KindInBatch}, {Kind: KindUniform, Negatives: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	ref := must(New(Settings{Kind: KindMixed, Negatives: 5}))
	if mix.Shape() != ref.Shape() {
		t.Fatalf("shape %+v, mixed's %+v", mix.Shape(), ref.Shape())
	}
	pos := []int32{0, 0, 1, 3, 7, 0, 2, 19}
	declare := func(s Sampler) ([]int32, *candidates.Step) {
		rows := make([]int32, 13)
		s.Draw(rand.New(rand.NewPCG(5, 6)), d, pos, rows)
		c := newColumnsFor(s, len(pos), d.Items)
		if err := s.Declare(d, pos, rows, samplerstest.IIDLaw(d, rows), c); err != nil {
			t.Fatal(err)
		}
		return rows, c
	}
	rm, cm := declare(mix)
	rr, cr := declare(ref)
	if !slices.Equal(rm, rr) || !slices.Equal(cm.ColItem, cr.ColItem) {
		t.Fatalf("rows %v, mixed's %v", rm, rr)
	}
	for j := range colQ(cm) {
		for _, v := range [][2]float64{{colQ(cm)[j], colQ(cr)[j]}, {colP(cm)[j], colP(cr)[j]}} {
			if math.Abs(math.Exp(v[0])/math.Exp(v[1])-1) > 1e-12 {
				t.Errorf("column %d: log q, log p %v, mixed's %v", j, []float64{colQ(cm)[j], colP(cm)[j]}, []float64{colQ(cr)[j], colP(cr)[j]})
			}
		}
	}
}

// TestMixtureSettings: the components are checked.
func TestMixtureSettings(t *testing.T) {
	for _, tt := range []struct {
		s    Settings
		want string
	}{
		{Settings{Kind: KindMixture, Of: []Settings{{Kind: KindInBatch}}}, "of: mixture needs two components, got 1"},
		{Settings{Kind: KindUniform, Of: []Settings{{}, {}}}, "of: only for mixture"},
		{Settings{Kind: KindMixture, Of: []Settings{{Kind: KindUniform, Negatives: 2}, {Kind: KindInBatch}}}, "of: the second component must have Layout First"},
		{Settings{Kind: KindMixture, Of: []Settings{{Kind: KindFull}, {Kind: KindUniform}}}, "of: a mixture's components cannot score the whole corpus"},
		{Settings{Kind: KindMixture, Of: []Settings{{Kind: KindInBatch, Negatives: 3}, {Kind: KindUniform}}}, "of[0].negatives: sampler in_batch draws no negatives"},
	} {
		if _, err := New(tt.s); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: got %v, want an error containing %q", tt.s, err, tt.want)
		}
	}
}
