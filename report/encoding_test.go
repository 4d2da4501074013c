package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/plots"
)

// TestEncodingDistinct: for every two-axis grid of up to 24 cells (a × b values, with a value
// left empty as in run ids), the default encoding colours by the axis with more values and
// marks by the other, and no two cells share colour and marker; so do grids of three zipped
// keys like configs/wiki.toml's.
func TestEncodingDistinct(t *testing.T) {
	for a := 1; a <= 8; a++ {
		for b := 1; a*b <= 24 && b <= 7; b++ {
			var gs []string
			for i := range a {
				for j := range b {
					g := fmt.Sprintf("variant=v%d", i)
					if j > 0 {
						g += fmt.Sprintf(",temperature=0.%d", j)
					}
					gs = append(gs, g)
				}
			}
			e, err := newEncoding(gs, labeler{}, plots.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			if a*b > 1 && b > 1 && e.key == nil {
				t.Errorf("%d × %d: no legend by factor", a, b)
				continue
			}
			seen := map[plots.Style]string{}
			for _, g := range gs {
				st := e.style(g)
				if st == nil {
					continue
				}
				look := plots.Style{Color: st.Color % plots.DistinctColors, Shape: st.Shape % plots.DistinctShapes}
				if other, ok := seen[look]; ok {
					t.Errorf("%d × %d: %s and %s drawn alike", a, b, other, g)
				}
				seen[look] = g
			}
			if e.key != nil {
				colorAxis := "variant" // a values, against b−1 written temperatures; a tie goes to the first axis
				if b-1 > a {
					colorAxis = "temperature"
				}
				if got := e.key.Colors[len(e.key.Colors)-1].Name; strings.HasPrefix(got, "τ=") != (colorAxis == "temperature") {
					t.Errorf("%d × %d: colour by %q, want %s (the axis with more values)", a, b, e.key.Colors[0].Name, colorAxis)
				}
			}
		}
	}
}

// TestEncodingErrors: a written color_by or marker_by that is not an axis, names both, or draws
// two cells alike is an error naming the key.
func TestEncodingErrors(t *testing.T) {
	gs := []string{"variant=plain,temperature=0.1", "variant=plain,temperature=0.2", "variant=logq,temperature=0.1", "variant=logq,temperature=0.2"}
	for _, tc := range []struct {
		name string
		ps   plots.Settings
		want string
	}{
		{"not an axis", plots.Settings{ColorBy: "sampler"}, `plots.color_by: "sampler" is not an axis of the grid (its axes, as in run ids: variant, temperature)`},
		{"marker not an axis", plots.Settings{MarkerBy: []string{"tau"}}, `plots.marker_by: "tau" is not an axis of the grid`},
		{"both", plots.Settings{ColorBy: "variant", MarkerBy: []string{"variant"}}, `plots.marker_by: "variant" is also plots.color_by`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newEncoding(gs, labeler{}, tc.ps)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	// Colour by temperature: the other axis, variant, marks.
	e, err := newEncoding(gs, labeler{}, plots.Settings{ColorBy: "temperature"})
	if err != nil || e.key == nil || len(e.key.Colors) != 2 || e.key.Colors[0].Name != "τ=0.1" || e.key.Shapes[1].Name != "logq" {
		t.Errorf("color_by temperature: %+v, %v", e.key, err)
	}
	// Written axes that leave cells alike: marker by an axis that does not tell them apart.
	three := append(gs, "variant=plain,temperature=0.1,negatives=4")
	if _, err := newEncoding(three, labeler{}, plots.Settings{ColorBy: "variant", MarkerBy: []string{"temperature"}}); err == nil ||
		!strings.Contains(err.Error(), "draw cells variant=plain,temperature=0.1 and variant=plain,temperature=0.1,negatives=4 alike") {
		t.Errorf("error %v", err)
	}
}

// TestEncodingOrder: a marker value names its axes in run-id order, the same every time (the
// axes are not read from a map), here logq_probability before temperature as in the run ids.
func TestEncodingOrder(t *testing.T) {
	gs := []string{"variant=plain,temperature=0.07", "variant=logq,logq_probability=inclusion,temperature=0.07",
		"variant=logq,logq_probability=dedupe,temperature=0.1", "variant=full,temperature=0.1"}
	for range 20 {
		e, err := newEncoding(gs, labeler{}, plots.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.key.Shapes[1].Name; got != "inclusion, τ=0.07" {
			t.Fatalf("marker name %q, want %q", got, "inclusion, τ=0.07")
		}
	}
}

// TestEncodingHiddenValues: a marker value whose label plots.labels hides is named as written in
// the legend by factor, so that two hidden values do not both read alike; a cell without a
// marker value is named by the marker axis and "none", never by a bare dash.
func TestEncodingHiddenValues(t *testing.T) {
	gs := []string{"variant=logq,declare=law", "variant=logq,declare=unigram", "variant=full,declare=law", "variant=plain"}
	lb := newLabeler(map[string]string{"law": "", "unigram": "Q = count/N"}, gs)
	e, err := newEncoding(gs, lb, plots.Settings{ColorBy: "variant", MarkerBy: []string{"declare"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range e.key.Shapes {
		names = append(names, k.Name)
	}
	if want := []string{"declare=law", "Q = count/N", "declare: none"}; strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("marker names %q, want %q", names, want)
	}
	if got := lb.label("variant=full,declare=law"); got != "full" {
		t.Errorf("cell label %q, want %q (the hidden value left out)", got, "full")
	}
}
